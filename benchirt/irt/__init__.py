"""Item Response Theory for benchmark response matrices (Cardoso et al. 2021 §2.5, §4.1, §4.4-4.5).

Usage (not run as a doctest)::

    from benchirt.irt import fit_irt, IRTConfig
    fit = fit_irt(responses)                 # respondents x items of 0/1
    fit.items                                # a, b, c, SEs, flags — one row per item
    theta = fit.abilities(new_responses)     # EAP (or method="MAP")
    fit.true_score(theta)                    # sum of P(correct) over the items
    fit.convergence()                        # status, EM starts and the local optima they found
    compare_models(responses)                # 1PL/2PL/3PL log-likelihood, AIC, BIC
    item_fit(fit, responses)                 # infit/outfit per item, misfit flag
"""
from benchirt.lazy import attach_stub

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)

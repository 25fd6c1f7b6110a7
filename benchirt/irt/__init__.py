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
from benchirt.lazy import lazy_exports

__all__ = [
    "MODELS",
    "DatasetIRT",
    "IRTConfig",
    "IRTFit",
    "compare_models",
    "dataset_rankings",
    "fit_irt",
    "irt_for_responses",
    "item_fit",
    "item_summary",
    "model_comparison_table",
    "probability",
    "summaries_frame",
    "suspect_label_table",
    "suspect_labels",
    "true_score_table",
]

lazy_exports(__name__, {
    "DatasetIRT": "benchirt.irt.stage",
    "IRTConfig": "benchirt.irt.config",
    "IRTFit": "benchirt.irt.fit",
    "MODELS": "benchirt.irt.config",
    "compare_models": "benchirt.irt.compare",
    "dataset_rankings": "benchirt.irt.summary",
    "fit_irt": "benchirt.irt.estimation",
    "irt_for_responses": "benchirt.irt.stage",
    "item_fit": "benchirt.irt.itemfit",
    "item_summary": "benchirt.irt.summary",
    "model_comparison_table": "benchirt.irt.stage",
    "probability": "benchirt.irt.models",
    "summaries_frame": "benchirt.irt.stage",
    "suspect_label_table": "benchirt.irt.stage",
    "suspect_labels": "benchirt.irt.suspects",
    "true_score_table": "benchirt.irt.stage",
})

"""The 1PL, 2PL and 3PL of one response matrix side by side: log-likelihood, AIC and BIC.

``AIC = -2 logL + 2k`` (Akaike 1974) and ``BIC = -2 logL + k log n`` (Schwarz 1978), with ``logL`` the marginal
log-likelihood at the estimates, ``n`` the respondents and ``k`` the free item parameters: ``m + 1`` for the 1PL, ``2m``
for the 2PL, ``3m`` for the 3PL, over the ``m`` items with information. With priors (the default) the estimates are
Bayes modal, so ``logL`` is a little below its maximum; the criteria compare the models as they are used. Lower is
better.

Only the largest model searches its starts (or is the fit already made); the 2PL climbs from the 3PL's ``a, b`` and the
1PL from the 2PL's mean ``a`` and ``b`` (``fit_irt(..., initial=)``), and also searches — keeping the higher log
posterior — only where a larger model's search reached more than one optimum. The stage passes the scoring model's fit
too (:mod:`benchirt.irt.scorer`), so the 1PL is not fitted twice. Every model is fitted on the first fitted model's
grid, so the log-likelihoods are integrals on the same nodes (docs/irt.md, "Model comparison")."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit
from benchirt.irt.config import MODELS

COLUMNS = ["model", "log_likelihood", "log_posterior", "n_parameters", "aic", "bic", "status", "start", "searched",
           "n_local_optima", "seconds", "best_aic", "best_bic"]
#: The model each one is nested in (its start in the comparison).
NESTED_IN = {"2PL": "3PL", "1PL": "2PL"}


def n_parameters(fit: IRTFit) -> int:
    """Free item parameters of ``fit`` (see the module docstring)."""
    m = int(fit.informative.sum())
    return {"1PL": m + 1, "2PL": 2 * m, "3PL": 3 * m}[fit.model]


def compare_models(responses, *, config: IRTConfig | None = None,
                   fitted: IRTFit | Sequence[IRTFit] | None = None, nested_starts: bool = True) -> pd.DataFrame:
    """Fit the 1PL, 2PL and 3PL with ``config`` (its ``model`` aside) and tabulate their fit.

    Parameters
    ----------
    responses : pandas.DataFrame or array_like, shape (n, m)
    config : IRTConfig, optional
    fitted : IRTFit or sequence of IRTFit, optional
        Fits of some of the models on these responses with this config, reused (e.g. the item model and
        :func:`benchirt.irt.scorer.fit_scoring_model`). The first one's grid is the comparison's.
    nested_starts : bool
        Nested starts as in the module docstring, rather than ``config.starts`` alone for every model.

    Returns
    -------
    pandas.DataFrame
        One row per model in :data:`COLUMNS` order: ``log_likelihood``, ``log_posterior``, ``n_parameters, aic, bic``,
        ``status``, ``start`` (``"reused"``, ``"search"`` or ``"nested"``: where the reported fit comes from),
        ``searched``, the number of starts that ended in a worse optimum, ``seconds`` (all fits of the model), and
        ``best_aic`` / ``best_bic`` (True on the lowest criterion)."""
    config = config or IRTConfig()
    fits: dict[str, IRTFit] = {}
    starts: dict[str, str] = {}
    searched: dict[str, bool] = {}
    seconds: dict[str, float] = {}
    several_optima = False  # a search (or the reused fit) reached more than one optimum
    for reused in ([] if fitted is None else [fitted] if isinstance(fitted, IRTFit) else list(fitted)):
        if reused.model in fits:
            continue
        fits[reused.model], starts[reused.model], searched[reused.model] = reused, "reused", False
        seconds[reused.model] = reused.seconds
        several_optima |= len(reused.optima) > 1
    for model in reversed(MODELS):  # 3PL, 2PL, 1PL: each nested model after the one it is nested in
        if model in fits:
            continue
        model_config = replace(config, model=model)
        if fits:  # the grid of the first model fitted (see the module docstring)
            grid = next(iter(fits.values())).quadrature_nodes
            model_config = replace(model_config, quadrature=grid, refine_quadrature=False)
        parent = fits.get(NESTED_IN.get(model, ""))
        candidates = {}
        if nested_starts and parent is not None:
            candidates["nested"] = fit_irt(responses, config=model_config, initial=parent.items)
        if "nested" not in candidates or several_optima:
            candidates["search"] = fit_irt(responses, config=model_config)
            several_optima |= len(candidates["search"].optima) > 1
        starts[model] = max(candidates, key=lambda name: candidates[name].log_posterior)
        fits[model], searched[model] = candidates[starts[model]], "search" in candidates
        seconds[model] = sum(fit.seconds for fit in candidates.values())
    rows = []
    for model in MODELS:
        fit = fits[model]
        record = fit.convergence()
        k = n_parameters(fit)
        rows.append({
            "model": model,
            "log_likelihood": fit.log_likelihood,
            "log_posterior": fit.log_posterior,
            "n_parameters": k,
            "aic": -2 * fit.log_likelihood + 2 * k,
            "bic": -2 * fit.log_likelihood + k * np.log(fit.n_respondents),
            "status": fit.status,
            "start": starts[model],
            "searched": searched[model],
            "n_local_optima": record["n_local_optima"],
            "seconds": seconds[model],
        })
    table = pd.DataFrame(rows)
    table["best_aic"] = table["aic"] == table["aic"].min()
    table["best_bic"] = table["bic"] == table["bic"].min()
    return table[COLUMNS]

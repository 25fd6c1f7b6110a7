"""The 1PL, 2PL and 3PL of one response matrix side by side: log-likelihood, AIC and BIC.

``AIC = -2 logL + 2k`` (Akaike 1974) and ``BIC = -2 logL + k log n`` (Schwarz 1978), with ``logL``
the marginal log-likelihood at the estimates, ``n`` the number of respondents and ``k`` the free
item parameters: ``m + 1`` for the 1PL (difficulties and the shared discrimination), ``2m`` for
the 2PL, ``3m`` for the 3PL, over the ``m`` items with information (items everyone answers alike
are left out of every model alike). With priors (the default) the estimates are Bayes modal, so
``logL`` is the likelihood at the posterior mode rather than its maximum, a little lower; the
criteria then compare the models as they are used. Lower AIC/BIC is better.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit
from benchirt.irt.config import MODELS

COLUMNS = ["model", "log_likelihood", "n_parameters", "aic", "bic", "status", "n_local_optima", "seconds", "best_aic",
           "best_bic"]


def n_parameters(fit: IRTFit) -> int:
    """Free item parameters of ``fit`` (see the module docstring)."""
    m = int(fit.informative.sum())
    return {"1PL": m + 1, "2PL": 2 * m, "3PL": 3 * m}[fit.model]


def compare_models(responses, config: IRTConfig | None = None, fitted: IRTFit | None = None) -> pd.DataFrame:
    """Fit the 1PL, 2PL and 3PL with ``config`` (its ``model`` aside) and tabulate their fit.

    Parameters
    ----------
    responses : pandas.DataFrame or array_like, shape (n, m)
    config : IRTConfig, optional
    fitted : IRTFit, optional
        A fit of one of the models on these responses with this config (reused, not refitted).

    Returns
    -------
    pandas.DataFrame
        One row per model in :data:`COLUMNS` order: ``log_likelihood, n_parameters, aic, bic``,
        the fit's ``status`` and number of starts that ended in a worse optimum, ``seconds``, and
        ``best_aic`` / ``best_bic`` (True on the lowest criterion).
    """
    config = config or IRTConfig()
    rows = []
    for model in MODELS:
        reuse = fitted is not None and fitted.model == model
        fit = fitted if reuse else fit_irt(responses, replace(config, model=model))
        record = fit.convergence()
        k = n_parameters(fit)
        rows.append({
            "model": model,
            "log_likelihood": fit.log_likelihood,
            "n_parameters": k,
            "aic": -2 * fit.log_likelihood + 2 * k,
            "bic": -2 * fit.log_likelihood + k * np.log(fit.n_respondents),
            "status": fit.status,
            "n_local_optima": record["n_local_optima"],
            "seconds": fit.seconds,
        })
    table = pd.DataFrame(rows)
    table["best_aic"] = table["aic"] == table["aic"].min()
    table["best_bic"] = table["bic"] == table["bic"].min()
    return table[COLUMNS]

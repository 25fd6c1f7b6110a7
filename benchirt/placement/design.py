"""Which datasets to run a new classifier on: greedy Bayesian design on :class:`ScoreModel`.

The summary to pin down is the classifier's mean standardised score over the whole suite,
``(1/D) sum_d z_d``. After observing a set ``O`` of datasets its posterior variance is

.. math:: \\frac{1}{D^2}\\Big(g_O^\\top \\Sigma_O\\, g_O + \\sum_{d \\notin O} \\text{noise}_d\\Big),
          \\qquad g_O = \\sum_{d \\notin O} F_d,

with ``Σ_O`` the skills' posterior covariance. The plan adds, one at a time, the dataset that lowers
this variance most (greedy sequential design, the A-optimal criterion for a linear functional;
Chaloner & Verdinelli 1995). In this linear-Gaussian model the variance depends on *which*
datasets have been observed, not on their values: continuing a plan from results so far
(``observed``) conditions on the datasets already run.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.placement.model import ScoreModel


def plan_datasets(model: ScoreModel, budget: int, observed: Sequence[str] = ()) -> pd.DataFrame:
    """The ``budget`` datasets to run, in order, continuing after those already ``observed``.

    Parameters
    ----------
    model : ScoreModel
    budget : int
        Total number of datasets to run (those already observed count against it).
    observed : sequence of str
        Datasets the classifier has already been run on.

    Returns
    -------
    pandas.DataFrame
        ``dataset, order, status, summary_sd``: one row per dataset of the budget, ``status`` is
        ``observed`` (already run, in the given order) or ``to run``; ``summary_sd`` is the posterior
        standard deviation of the mean standardised score once the datasets up to that row are run.

    Raises
    ------
    DataError
        ``budget`` below 1 or above the number of calibration datasets; observed datasets outside the
        calibration or more of them than the budget.
    """
    n = len(model.datasets)
    if budget < 1 or budget > n:
        raise DataError(f"budget K={budget} must be between 1 and the {n} datasets of the calibration")
    chosen = list(model.positions(list(observed)))
    if len(set(chosen)) != len(chosen):
        raise DataError("the observed results name a dataset more than once")
    if len(chosen) > budget:
        raise DataError(f"{len(chosen)} datasets are already observed, more than the budget K={budget}")
    rows = [(model.datasets[p], "observed", summary_sd(model, chosen[: i + 1])) for i, p in enumerate(chosen)]
    while len(chosen) < budget:
        candidates = [d for d in range(n) if d not in chosen]
        variances = [summary_sd(model, chosen + [d]) for d in candidates]
        best = candidates[int(np.argmin(variances))]
        chosen.append(best)
        rows.append((model.datasets[best], "to run", float(np.min(variances))))
    frame = pd.DataFrame(rows, columns=["dataset", "status", "summary_sd"])
    frame.insert(1, "order", np.arange(1, len(frame) + 1))
    return frame


def summary_sd(model: ScoreModel, positions: Sequence[int]) -> float:
    """Posterior SD of the mean standardised score over the suite after observing ``positions``."""
    positions = np.asarray(list(positions), dtype=int)
    _, cov = model.posterior_from(positions, np.zeros(len(positions)))
    rest = np.setdiff1d(np.arange(len(model.datasets)), positions)
    g = model.loadings[rest].sum(axis=0)
    return float(np.sqrt(g @ cov @ g + model.noise[rest].sum()) / len(model.datasets))

"""Which datasets to run a new classifier on: greedy Bayesian design on :class:`ScoreModel`.

The summary to pin down is the classifier's mean standardised score over the suite, ``(1/D) sum_d z_d``. With ``Σ`` the
covariance of the standardised scores ``z`` under the current posterior (:meth:`ScoreModel.moments`), running dataset
``d`` leaves the unrun datasets ``R`` with the variance

.. math:: \\frac{1}{D^2}\\Big(\\mathbf 1_R^\\top \\Sigma_{RR} \\mathbf 1_R
          - \\frac{(\\mathbf 1_R^\\top \\Sigma_{Rd})^2}{\\Sigma_{dd}}\\Big), \\qquad R = \\text{unrun} \\setminus \\{d\\}

(Gaussian conditioning). With ``target="rank"`` the summary is the average rank among the pool: by the delta method its
change with the score on ``d`` is minus the number of pool members per unit score around it, ``g_d = sum_c p_d(z_dc)``
(``p_d`` the predictive density of the classifier's standardised score, ``z_dc`` the members' scores), so the same
criterion runs on the covariance of ``g_d z_d / D``: datasets where the classifier sits among many pool members decide
its rank.

The plan adds, one at a time, the dataset that lowers this variance most (greedy sequential design, the A-optimal
criterion for a linear functional; Chaloner & Verdinelli 1995) — or, with known costs, most per CPU-second (the
cost-scaled greedy of budgeted selection, Krause & Guestrin 2005). Later choices condition ``Σ`` on earlier ones, so a
plan made before any result depends only on the calibration; continuing from measured results (``observed`` with scores)
starts from their posterior, which under the mixture prior depends on the measured *values*, so a plan continued after
each result is adaptive.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from benchirt.errors import DataError
from benchirt.options import Choice
from benchirt.placement.model import ScoreModel

#: What a plan pins down: the mean standardised score over the suite, or the average rank.
TARGETS = ("suite", "rank")
#: The declared constraint of :func:`plan_datasets`' ``target`` (``benchirt plan --target``).
TARGET = Choice(choices=TARGETS)


def plan_datasets(model: ScoreModel, budget: int, *, observed: Sequence[str] | pd.Series = (),
                  target: str = "suite", costs: pd.Series | None = None) -> pd.DataFrame:
    """The ``budget`` datasets to run, in order, continuing after those already ``observed``.

    ``budget``: the datasets to run in all, those observed included. ``observed``: datasets already run; a Series (index
    = dataset, values = measured scores) also conditions the plan on the scores (adaptive). ``target``: ``"suite"`` (the
    mean standardised score over the suite) or ``"rank"`` (the average rank). ``costs`` (optional): dataset → positive
    CPU seconds for every dataset of the model; the next dataset is then the one that lowers the target's variance most
    per CPU-second.

    Returns ``dataset, order, status, summary_sd``, one row per dataset of the budget: ``status`` ``observed`` (in the
    given order) or ``to run``, ``summary_sd`` the target's posterior SD once the datasets up to that row are run; with
    ``costs`` also ``cost_cpu_s`` and ``cumulative_cpu_s``.

    Raises
    ------
    ConfigError
        An unknown target.
    DataError
        ``budget`` below 1 or above the number of calibration datasets; observed datasets outside the calibration or
        more of them than the budget.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from benchirt.placement import fit_score_model
    >>> rng = np.random.default_rng(0)
    >>> calibration = pd.DataFrame(rng.uniform(0.5, 1.0, (6, 5)), index=[f"d{i}" for i in range(6)],
    ...                            columns=[f"c{i}" for i in range(5)])
    >>> model = fit_score_model(calibration)
    >>> plan = plan_datasets(model, budget=3, observed=["d0"])
    >>> plan.loc[0, ["dataset", "status"]].tolist()
    ['d0', 'observed']
    >>> len(plan), bool(plan["summary_sd"].is_monotonic_decreasing)   # each dataset run narrows the summary
    (3, True)
    """
    TARGET.check("placement", "target", target)
    n = len(model.datasets)
    cost = None if costs is None else _checked_costs(model, costs)
    if budget < 1 or budget > n:
        raise DataError(f"budget K={budget} must be between 1 and the {n} datasets of the calibration")
    names = list(observed.index) if isinstance(observed, pd.Series) else list(observed)
    chosen = [int(p) for p in model.positions(names)]
    if len(set(chosen)) != len(chosen):
        raise DataError("the observed results name a dataset more than once")
    if len(chosen) > budget:
        raise DataError(f"{len(chosen)} datasets are already observed, more than the budget K={budget}")
    rows = []
    if isinstance(observed, pd.Series):  # the posterior given the measured values, after each of them
        values = observed.astype(float)
        for i in range(len(chosen) + 1):
            cov = _target_covariance(model, model.posterior(values.iloc[:i]), target)
            if i:
                rows.append((model.datasets[chosen[i - 1]], "observed", summary_sd(cov, chosen[:i])))
    else:  # only which datasets were run: condition the prior on them
        cov = _target_covariance(model, model.posterior(pd.Series(dtype=float)), target)
        for i, position in enumerate(chosen):
            cov = _condition(cov, position)
            rows.append((model.datasets[position], "observed", summary_sd(cov, chosen[: i + 1])))
    while len(chosen) < budget:
        best, variance = _best_next(cov, chosen, cost)
        cov = _condition(cov, best)
        chosen.append(best)
        rows.append((model.datasets[best], "to run", float(np.sqrt(max(variance, 0.0)) / n)))
    frame = pd.DataFrame(rows, columns=["dataset", "status", "summary_sd"])
    frame.insert(1, "order", np.arange(1, len(frame) + 1))
    if cost is not None:
        frame["cost_cpu_s"] = cost[model.positions(frame["dataset"].tolist())]
        frame["cumulative_cpu_s"] = frame["cost_cpu_s"].cumsum()
    return frame


def _checked_costs(model: ScoreModel, costs: pd.Series) -> np.ndarray:
    """The costs in the model's dataset order; every dataset needs a positive, finite one."""
    values = pd.to_numeric(costs.reindex(model.datasets), errors="coerce").to_numpy(float)
    bad = [name for name, value in zip(model.datasets, values) if not (np.isfinite(value) and value > 0)]
    if bad:
        raise DataError(f"no positive cost for dataset(s) {', '.join(map(str, bad[:5]))}"
                        f"{' ...' if len(bad) > 5 else ''}: every dataset of the calibration needs its CPU seconds")
    return values


def _target_covariance(model: ScoreModel, posterior, target: str) -> np.ndarray:
    """Covariance of the standardised scores, weighted by ``g_d`` (above) for the rank target."""
    cov = model.moments(posterior)[1]
    if target == "suite":
        return cov
    means, sds = model.component_predictions(posterior)                                   # K x D
    pool = (model.scores.to_numpy(float) - model.center[:, None]) / model.scale[:, None]  # D x C
    density = norm.pdf((pool[None] - means[:, :, None]) / sds[:, :, None]) / sds[:, :, None]
    weights = np.einsum("k,kdc->d", posterior.weights, density)
    return cov * np.outer(weights, weights)


def summary_sd(cov: np.ndarray, positions: Sequence[int]) -> float:
    """SD of the target's mean over the suite when the datasets at ``positions`` are known; ``cov`` is the covariance of
    the standardised scores already conditioned on them (or, for a posterior given their measured values, not
    carrying them: they are left out of the sum)."""
    rest = np.setdiff1d(np.arange(len(cov)), np.asarray(list(positions), dtype=int))
    return float(np.sqrt(max(cov[np.ix_(rest, rest)].sum(), 0.0)) / len(cov))


def _best_next(cov: np.ndarray, chosen: list[int], cost: np.ndarray | None = None) -> tuple[int, float]:
    """The unrun dataset whose result most lowers the variance of the sum of the other unrun scores (per
    CPU-second, with ``cost``)."""
    rest = np.setdiff1d(np.arange(len(cov)), chosen)
    block = cov[np.ix_(rest, rest)]
    sums = block.sum(axis=1)                     # 1_R' Σ_{R d} for every candidate d in R
    diagonal = np.diag(block)
    left = block.sum() - 2 * sums + diagonal     # 1' Σ 1 over R without d
    variances = left - (sums - diagonal) ** 2 / np.maximum(diagonal, 1e-12)
    if cost is None:
        best = int(np.argmin(variances))
    else:
        best = int(np.argmax((block.sum() - variances) / cost[rest]))
    return int(rest[best]), float(variances[best])


def _condition(cov: np.ndarray, position: int) -> np.ndarray:
    """Gaussian conditioning of ``cov`` on the score at ``position`` (its row and column become 0)."""
    column = cov[:, position]
    return cov - np.outer(column, column) / max(cov[position, position], 1e-12)

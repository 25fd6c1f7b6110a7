"""The budget rule: the cheapest datasets that keep the full suite's verdict.

A subset is worth running when, for a fraction of the suite's training CPU, it separates the pairs the whole suite
separates, in the same direction. The verdict is the step-down of :func:`benchirt.rating.stepdown.step_down` (Romano &
Wolf 2005) on the studentised Wilcoxon signed-rank statistic (Wilcoxon 1945). Choosing the best subset at a budget is a
knapsack problem over 2^D subsets; the rule is greedy backward elimination (the cost-scaled greedy of Khuller, Moss &
Naor 1999 run downwards), which no library offers for this objective:

* the objective of a subset S is Σ_p min(s_p·z_p(S), z_c) over the pairs p the full suite separates, s_p the full
  suite's direction and z_p(S) the pair's signed-rank statistic on S. The cap z_c is the Bonferroni bound on the
  step-down's first critical value, Φ⁻¹(1 − α / (2m)) over the m pairs tested, so the budget goes to pairs at risk, not
  pairs far past the line;
* while S costs more than the budget, the dataset whose removal loses the least objective per CPU-second saved leaves
  (one losing nothing first, the most expensive of those first);
* the budget left over is filled with the removed datasets that still fit, best gain per CPU-second first, also those
  that lower the objective (more datasets keep more of the verdict on classifiers held out of the choice).

Datasets on which the contenders differ little or never carry no signed rank, so the rule drops them early: it filters
by difficulty at the contenders' ability. When the full suite separates no pair the objective is 0 everywhere and the
rule reduces to cheapest-first; :func:`budget_subset` says so in its note.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from benchirt.rating.stepdown import signed_rank_weights, step_down
from benchirt.subsets.costs import costs_or_counts
from benchirt.subsets.selection import subset_name


#: The contenders whose separations the rule keeps: the real classifiers with the highest mean score. Their
#: pairs, not the whole field's, are what a user asks a smaller suite to keep, and the greedy's arrays grow with
#: the pairs times the datasets squared.
CONTENDERS = 50


def real_matrix(scores: pd.DataFrame, real) -> pd.DataFrame:
    """The long ``dataset, classifier, score`` table as datasets × the ``real`` classifiers (the rule's input)."""
    matrix = scores.pivot_table(index="dataset", columns="classifier", values="score", aggfunc="mean")
    real = set(map(str, real))
    return matrix[[name for name in matrix.columns if str(name) in real]]


def contenders(scores: np.ndarray, *, n_contenders: int = CONTENDERS) -> np.ndarray:
    """The columns of ``scores`` (datasets × classifiers) with the ``n_contenders`` highest mean scores (over the
    datasets each is on), best first."""
    return np.argsort(-np.nanmean(scores, axis=0), kind="stable")[:n_contenders]


@dataclass(frozen=True)
class BudgetChoice:
    """The datasets :func:`budget_subset` chose: ``chosen`` (indices in the input's column order), ``cost`` (their
    summed cost), ``kept`` (the objective's share of its full-suite value; 1 when the full suite separates nothing)
    and ``note`` (empty, or why the choice is cheapest-first)."""

    chosen: np.ndarray
    cost: float
    kept: float
    note: str = ""


def separated_pairs(scores: np.ndarray, n_tables: int, alpha: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs the step-down separates on ``scores`` (datasets × classifiers): ``(better, worse)`` index arrays."""
    better, worse = np.nonzero(step_down(scores, n_tables, alpha=alpha, seed=seed).better)
    return better, worse


def capped_objective(scores: np.ndarray, better: np.ndarray, worse: np.ndarray, included: np.ndarray,
                     cap: float) -> np.ndarray:
    """Σ_p min(z_p, cap) of each column of ``included`` (datasets × candidates, bool), z_p the signed-rank
    statistic of ``better[p]`` over ``worse[p]`` on the included datasets (0 for a pair with no difference)."""
    differences = scores[:, better] - scores[:, worse]                           # (D, P)
    masked = np.where(included[None, :, :], differences.T[:, :, None], np.nan)   # (P, D, m)
    z = signed_rank_weights(masked, axis=1).sum(axis=1)                          # (P, m)
    return np.minimum(z, cap).sum(axis=0)


def critical_value(n_classifiers: int, alpha: float) -> float:
    """Φ⁻¹(1 − α / (2m)) over the m = k(k − 1)/2 pairs: the Bonferroni bound on the step-down's first threshold."""
    m = max(n_classifiers * (n_classifiers - 1) // 2, 1)
    return float(norm.isf(alpha / (2 * m)))


def budget_subset(scores: np.ndarray, costs: np.ndarray, budget: float, *, n_tables: int = 1000,
                  alpha: float = 0.05, seed: int = 0) -> BudgetChoice:
    """The datasets a budget of ``budget`` CPU-s runs that keep the full suite's verdict best (module docstring).

    ``scores`` (D, k): the real classifiers' scores, higher is better, NaN where absent; the rule keeps the separations
    among the :data:`CONTENDERS` best (:func:`contenders`). ``costs`` (D,): each dataset's positive cost (CPU-s). At
    least one dataset is always chosen (the cheapest, if none fits). ``n_tables``, ``alpha``, ``seed``: the step-down's
    options (the run's ``rate`` options).
    """
    scores, costs = np.asarray(scores, dtype=float), np.asarray(costs, dtype=float)
    scores = scores[:, np.sort(contenders(scores))]
    better, worse = separated_pairs(scores, n_tables, alpha, seed)
    cap = critical_value(scores.shape[1], alpha)
    included = np.ones(len(costs), dtype=bool)
    full = capped_objective(scores, better, worse, included[:, None], cap)[0] if len(better) else 0.0
    while costs[included].sum() > budget and included.sum() > 1:
        included[_cheapest_loss(scores, better, worse, included, costs, cap)] = False
    if costs[included].sum() > budget:
        included[:] = False
        included[np.argmin(costs)] = True
    _fill(scores, better, worse, included, costs, budget, cap)
    kept = capped_objective(scores, better, worse, included[:, None], cap)[0] / full if full > 0 else 1.0
    note = "" if len(better) else ("the full suite separates no pair of contenders, so the budget rule chose "
                                   "cheapest-first")
    return BudgetChoice(np.flatnonzero(included), float(costs[included].sum()), float(kept), note)


def _without_each(included: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The included datasets and a (D, m) table: column j is ``included`` without the j-th of them."""
    members = np.flatnonzero(included)
    table = np.repeat(included[:, None], len(members), axis=1)
    table[members, np.arange(len(members))] = False
    return members, table


def _cheapest_loss(scores, better, worse, included, costs, cap) -> int:
    """The included dataset whose removal loses the least objective per CPU-s saved."""
    members, table = _without_each(included)
    if not len(better):
        return int(members[np.argmax(costs[members])])
    current = capped_objective(scores, better, worse, included[:, None], cap)[0]
    loss = current - capped_objective(scores, better, worse, table, cap)
    free = loss <= 1e-12
    if free.any():
        return int(members[free][np.argmax(costs[members][free])])
    return int(members[np.argmin(loss / costs[members])])


def _fill(scores, better, worse, included, costs, budget, cap) -> None:
    """Add back, best gain per CPU-s first, every left-out dataset that still fits the budget (in place)."""
    while True:
        left = np.flatnonzero(~included & (costs <= budget - costs[included].sum()))
        if not len(left):
            return
        if not len(better):
            included[left[np.argmin(costs[left])]] = True
            continue
        table = np.repeat(included[:, None], len(left), axis=1)
        table[left, np.arange(len(left))] = True
        gain = capped_objective(scores, better, worse, table, cap) - capped_objective(
            scores, better, worse, included[:, None], cap)[0]
        included[left[np.argmax(gain / costs[left])]] = True


def budget_subsets(scores: pd.DataFrame, costs: pd.Series, cuts: Sequence[float], *, n_tables: int = 1000,
                   alpha: float = 0.05, seed: int = 0) -> tuple[dict[str, list[str]], list[str]]:
    """One budget-rule subset per cut, each a percentage in (0, 100] of the suite's summed cost.

    ``scores``: datasets × real classifiers, higher is better, NaN where absent. ``costs``: per dataset (CPU-s); NaN
    where unknown, and then every dataset counts 1 (:func:`benchirt.subsets.costs.costs_or_counts`, said in the notes).
    Returns ``{"budget-<cut>": [dataset, ...]}`` (datasets in suite order) and the notes.
    """
    cost, unknown = costs_or_counts(costs, scores.index)
    notes = [unknown] if unknown else []
    subsets = {}
    for cut in cuts:
        choice = budget_subset(scores.to_numpy(float), cost, cut / 100.0 * cost.sum(), n_tables=n_tables,
                               alpha=alpha, seed=seed)
        subsets[subset_name("budget", cut)] = [str(scores.index[i]) for i in choice.chosen]
        if choice.note and choice.note not in notes:
            notes.append(choice.note)
    return subsets, notes

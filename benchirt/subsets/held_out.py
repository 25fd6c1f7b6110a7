"""Does a subset rule keep the verdict for classifiers it did not choose with? Each rule against its baselines.

A rule that reads the classifiers' scores (budget, top spread, farthest-first) can fit them, and judged on the
classifiers it chose with it looks better than it is. So the top contenders (the real classifiers with the highest mean
score) are split into two halves alternating in rank; each rule chooses from one half and is judged on the other, then
the halves swap (two-fold cross-fitting) and the judgements are averaged. A judgement compares the subset's step-down
verdict (:func:`benchirt.rating.stepdown.step_down`) on the held-out half with the full suite's:

* ``kept``: the share of the pairs the full suite separates that the subset separates in the same direction;
* ``reversed``: pairs the subset separates the other way;
* ``tau``: Kendall τ-b of the mean ranks over the datasets (Friedman's ranks) on the subset and on the full suite;
* ``overlap``: the mean Jaccard overlap of each classifier's joint rank interval on the subset and on the full suite.

Every budget is judged for the budget rule (:mod:`benchirt.subsets.budget`), each deterministic baseline of
:mod:`benchirt.subsets.baselines` and ``n_random`` random subsets of equal cost (their mean, and each rule's one-sided
Monte-Carlo p-value against them, Davison & Hinkley 1997 eq. 4.11).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from benchirt.rating.stepdown import StepDown, step_down
from benchirt.subsets.baselines import baseline_orders, fill_in_order, random_fills
from benchirt.subsets.budget import budget_subset, contenders
from benchirt.subsets.costs import costs_or_counts

#: Contenders judged: the real classifiers with the highest mean score, split into two halves.
CONTENDERS = 20
#: What each judgement measures (module docstring).
MEASURES = ("kept", "reversed", "tau", "overlap")


def contender_halves(scores: np.ndarray, *, n_contenders: int = CONTENDERS) -> tuple[np.ndarray, np.ndarray]:
    """The top ``n_contenders`` columns of ``scores`` (datasets × classifiers) by mean score, alternately into
    two halves (1st, 3rd, ... and 2nd, 4th, ...)."""
    order = contenders(scores, n_contenders=n_contenders)
    return np.sort(order[0::2]), np.sort(order[1::2])


def judge(scores: np.ndarray, chosen: np.ndarray, full: StepDown, n_tables: int, alpha: float, seed: int
          ) -> dict[str, float]:
    """The verdict of the datasets ``chosen`` on ``scores`` (datasets × held-out classifiers) against ``full``
    (the step-down on every dataset): the measures of :data:`MEASURES` (``kept`` NaN when ``full`` separates
    no pair)."""
    sub = step_down(scores[chosen], n_tables, alpha=alpha, seed=seed)
    separated = int(full.better.sum())
    kept = int((sub.better & full.better).sum())
    full_rank = pd.DataFrame(scores).rank(axis=1, ascending=False).mean(axis=0).to_numpy()
    sub_rank = pd.DataFrame(scores[chosen]).rank(axis=1, ascending=False).mean(axis=0).to_numpy()
    both = np.isfinite(full_rank) & np.isfinite(sub_rank)    # a classifier on none of the chosen datasets has no rank
    tau = kendalltau(full_rank[both], sub_rank[both]).statistic if both.sum() >= 2 else np.nan
    overlap = [_jaccard(full.rank_low[i], full.rank_high[i], sub.rank_low[i], sub.rank_high[i])
               for i in range(scores.shape[1])]
    return {"kept": kept / separated if separated else np.nan, "reversed": float((sub.better & full.better.T).sum()),
            "tau": float(tau), "overlap": float(np.mean(overlap))}


def _jaccard(low_a: int, high_a: int, low_b: int, high_b: int) -> float:
    """|A ∩ B| / |A ∪ B| of two rank intervals."""
    common = max(min(high_a, high_b) - max(low_a, low_b) + 1, 0)
    return common / (max(high_a, high_b) - min(low_a, low_b) + 1)


def compare_rules(scores: pd.DataFrame, costs: pd.Series, n_items: pd.Series | None, fractions: Sequence[float], *,
                  n_random: int = 200, n_tables: int = 1000, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """Every rule and baseline at every budget, judged on held-out contenders (module docstring).

    ``scores``: datasets × real classifiers, higher is better, NaN where absent. ``costs``, ``n_items``: per dataset,
    the cost (CPU-s; every dataset counts 1 when any is unknown, :func:`benchirt.subsets.costs.costs_or_counts`) and the
    number of test items (``None``: unknown, and the ``most_items`` baseline is left out). ``fractions``: budgets as
    shares of the suite's summed cost, each in (0, 1].

    Returns ``budget_share, rule, cpu_share, n_datasets`` and the :data:`MEASURES` (means over the two folds) per budget
    and rule, ``rule`` one of ``budget``, the baselines, ``random_equal_cost`` (the mean of its draws), and every rule's
    ``p_vs_random`` against the same draws; empty with fewer than 4 contenders.
    """
    values, (cost, unknown) = scores.to_numpy(float), costs_or_counts(costs, scores.index)
    items = None if n_items is None else n_items.reindex(scores.index).to_numpy(float)
    halves = contender_halves(values)
    if min(len(half) for half in halves) < 2:
        return pd.DataFrame()
    rows = []
    for fraction in fractions:
        budget = fraction * cost.sum()
        folds = [_fold(values, cost, items, budget, choose, held, n_random, n_tables, alpha, seed, bool(unknown))
                 for choose, held in (halves, halves[::-1])]
        rows += _averaged(folds, fraction, cost)
    return pd.DataFrame(rows)


def _fold(values, cost, items, budget, choose, held, n_random, n_tables, alpha, seed, counted
          ) -> dict[str, list[dict]]:
    """One fold: every rule chooses on ``choose`` and is judged on ``held``; the random draws judged one by one
    (``counted``: the costs are counts, so cheapest-first is no baseline)."""
    full = step_down(values[:, held], n_tables, alpha=alpha, seed=seed)
    chosen = {"budget": budget_subset(values[:, choose], cost, budget, n_tables=n_tables, alpha=alpha,
                                      seed=seed).chosen}
    chosen.update({name: fill_in_order(order, cost, budget)
                   for name, order in baseline_orders(values[:, choose], cost, items).items()
                   if not (counted and name == "cheapest_first")})
    judged = {name: [{**judge(values[:, held], members, full, n_tables, alpha, seed), **_size(members, cost)}]
              for name, members in chosen.items()}
    judged["random_equal_cost"] = [{**judge(values[:, held], members, full, n_tables, alpha, seed),
                                    **_size(members, cost)}
                                   for members in random_fills(cost, budget, n_random, seed=seed)]
    return judged


def _size(members: np.ndarray, cost: np.ndarray) -> dict[str, float]:
    return {"cpu": float(cost[members].sum()), "n_datasets": float(len(members))}


def _averaged(folds: list[dict[str, list[dict]]], fraction: float, cost: np.ndarray) -> list[dict]:
    """The rows of one budget: each rule's judgement averaged over the folds (random draws: over draws and folds)."""
    rows, total = [], cost.sum()
    for rule in folds[0]:
        frames = [pd.DataFrame(fold[rule]) for fold in folds]
        mean = pd.concat(frames).mean()
        rows.append({"budget_share": fraction, "rule": rule, "cpu_share": mean["cpu"] / total,
                     "n_datasets": mean["n_datasets"], **{m: mean[m] for m in MEASURES}})
    random_kept = (pd.DataFrame(folds[0]["random_equal_cost"])["kept"].to_numpy()
                   + pd.DataFrame(folds[1]["random_equal_cost"])["kept"].to_numpy()) / 2
    draws = random_kept[~np.isnan(random_kept)]
    for row in rows:
        if row["rule"] != "random_equal_cost":
            row["p_vs_random"] = (float((1 + (draws >= row["kept"] - 1e-12).sum()) / (len(draws) + 1))
                                  if len(draws) and not np.isnan(row["kept"]) else np.nan)
    return rows


#: The share of the full suite's separated pairs a recommended subset keeps on held-out contenders.
KEEP_GOAL = 0.9


def recommendation(comparison: pd.DataFrame | None, *, alpha: float = 0.05) -> str:
    """One sentence: the cheapest budget subset that keeps at least :data:`KEEP_GOAL` of the held-out verdict and
    beats random subsets of equal cost (p < ``alpha``), or why none is recommended (``comparison``: the table of
    :func:`compare_rules`)."""
    if comparison is None or comparison.empty:
        return ("The budget rule was not judged (fewer than 4 real classifiers, or another rule): benchirt "
                "recommends no subset.")
    rule = comparison[comparison["rule"] == "budget"].sort_values("budget_share")
    if rule["kept"].isna().all():
        return ("On the held-out classifiers the full suite separates no pair, so no subset can be shown to keep its "
                "verdict: benchirt recommends none; run the full suite.")
    good = rule[(rule["kept"] >= KEEP_GOAL) & (rule["p_vs_random"] < alpha)]
    if good.empty:
        best = rule.loc[rule["kept"].idxmax()]
        return (f"No budget subset both keeps {KEEP_GOAL:.0%} of the full suite's separations of held-out classifiers "
                f"and beats random subsets of equal cost (best: {best['budget_share']:.0%} of the CPU keeps "
                f"{best['kept']:.0%}, p = {best['p_vs_random']:.2g} against random): benchirt recommends none"
                f"{_baseline_at_goal(comparison) or '; run the full suite'}.")
    pick = good.iloc[0]
    rows = comparison[comparison["budget_share"] == pick["budget_share"]].set_index("rule")
    rivals = ", ".join(f"{name.replace('_', ' ')} {rows.loc[name, 'kept']:.0%}"
                       for name in ("random_equal_cost", "cheapest_first") if name in rows.index)
    return (f"Recommended: budget-{100 * pick['budget_share']:g} ({pick['n_datasets']:.0f} datasets, "
            f"{pick['cpu_share']:.0%} of the suite's CPU) keeps {pick['kept']:.0%} of the full suite's separations of "
            f"classifiers held out of the choice (p = {pick['p_vs_random']:.2g} against random subsets of equal "
            f"cost; {rivals}).")


def _baseline_at_goal(comparison: pd.DataFrame) -> str:
    """A sentence naming the cheapest baseline that keeps :data:`KEEP_GOAL` of the held-out verdict, if one does
    where the budget rule does not (empty otherwise)."""
    rivals = comparison[~comparison["rule"].isin(("budget", "random_equal_cost"))
                        & (comparison["kept"] >= KEEP_GOAL)].sort_values("cpu_share")
    if rivals.empty:
        return ""
    first = rivals.iloc[0]
    return (f" of its own subsets, but a simpler rule keeps {first['kept']:.0%}: {first['rule'].replace('_', '-')} "
            f"at {first['cpu_share']:.0%} of the CPU (p = {first['p_vs_random']:.2g} against random)")

"""The other methods as agreement checks on the primary verdict, never as competing verdicts.

Each function here takes one other method than the primary (:mod:`benchirt.rating.decisions`) and says in one sentence
on how many pairs it agrees, which pairs only one of the two separates, and why (e.g. "a per-pair posterior, no
multiplicity"), so the page never reads as two answers:

* Wilcoxon signed-rank with Holm's correction (Demšar 2006), when it is not the primary — and, when the data are too few
  for it to reject anything, says so (also when it is the primary) with the smallest Holm-adjusted p-value it can reach
  (2 / 2ⁿ over n datasets times the number of pairs);
* the Bayesian sign test with a region of practical equivalence (Benavoli et al. 2017);
* Friedman with the Nemenyi post-hoc test (Demšar 2006), whose verdict on a pair depends on the pool (Benavoli, Corani &
  Mangili 2016);
* the single-order Glicko-2 tournament of Cardoso et al. 2021 and its dataset-order analysis.

Only pandas and numpy: the end-of-run summary words them from stored tables.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.humanize import NAME_CHARS, short_name
from benchirt.rating.verdict import NAMES_SHOWN, is_separated, join, measured, probability_is, verdict_method

#: Posterior probability above which the Bayesian sign test is read as "a is better".
BAYES_DECISION = 0.95


def smallest_holm_p(n_datasets: int, n_pairs: int) -> float:
    """Smallest Holm-adjusted p-value a two-sided exact Wilcoxon signed-rank test over ``n_datasets`` can reach
    among ``n_pairs`` pairs: min(1, n_pairs · 2 / 2ⁿ)."""
    return min(1.0, n_pairs * 2.0 / 2.0 ** n_datasets)


def checked_pairs(pairwise: pd.DataFrame) -> pd.DataFrame:
    """The pairs the per-pair checks ran on (``wilcoxon_p`` present: those among the ``rate.max_pairwise`` best
    rated); every row of a table without the column."""
    return pairwise[pairwise["wilcoxon_p"].notna()] if "wilcoxon_p" in pairwise else pairwise


def wilcoxon_check(pairwise: pd.DataFrame, *, alpha: float = 0.05) -> str:
    """Wilcoxon signed-rank + Holm over the pairs it tested (:func:`checked_pairs`) against the primary, or why it
    cannot reject here; empty when it is the primary and can reject (the verdict already says what it found)."""
    pairwise = checked_pairs(pairwise)
    n_pairs = len(pairwise)
    n_datasets = int(pairwise["n_datasets"].max())
    floor = smallest_holm_p(n_datasets, n_pairs)
    primary = verdict_method(pairwise) == "holm"
    name = (f"{'The primary verdict, ' if primary else ''}Wilcoxon signed-rank tests with Holm's correction over "
            f"all {n_pairs} pairs (α = {alpha})")
    if primary and floor < alpha:
        return ""
    if floor >= alpha:
        return (f"{name}: cannot reject anything at this size — with {plural(n_datasets, 'dataset')} the smallest "
                f"Holm-adjusted p-value it can reach is {floor:.3f} (2 / 2^{n_datasets} × {n_pairs}), so its "
                "finding no difference is no evidence of equality.")
    wilcoxon = ((pairwise["wilcoxon_p_holm"] < alpha) & (pairwise["mean_difference"] > 0)).to_numpy()
    return _agreement(name, pairwise, wilcoxon,
                      "its exact per-pair p-values order the pairs differently from the studentised statistic the "
                      "step-down compares with the largest of the pairs left",
                      "the step-down uses how the pairs' statistics move together in the resampled tables; Holm "
                      "uses the Bonferroni bound, which ignores it")


def bayesian_check(pairwise: pd.DataFrame) -> str:
    """The Bayesian sign test (P(a better) > 0.95 read as "a is better") against the primary."""
    pairwise = checked_pairs(pairwise)
    bayes = (pairwise["p_a_better"] > BAYES_DECISION).to_numpy()
    text = _agreement(f"Bayesian sign test (P(better) > {BAYES_DECISION} read as better)", pairwise, bayes,
                      f"a per-pair posterior, no multiplicity over the {len(pairwise)} pairs",
                      "the sign test counts only wins and losses, and differences inside its region of practical "
                      "equivalence as equivalent")
    top = pairwise.iloc[0]
    a, b = short_name(str(top["a"])), short_name(str(top["b"]))
    return (text[:-1] + f"; for {a} against {b}: P({a} better) "
            f"{probability_is(top['p_a_better'])}, P(equivalent) {probability_is(top['p_equivalent'])}, "
            f"P({b} better) {probability_is(top['p_b_better'])}.")


def nemenyi_check(pairwise: pd.DataFrame, comparison) -> str:
    """Friedman/Nemenyi (a :class:`benchirt.rating.StatisticalComparison`) against the primary on the pairs it tests."""
    k, n, alpha = comparison.n_classifiers, comparison.n_blocks, comparison.alpha
    blocks = "datasets" if comparison.mode == "blocks" else "rating periods"
    name = (f"Friedman/Nemenyi on {comparison.score.replace('_', ' ')} ({k} classifiers over {n} {blocks}, "
            f"Friedman p {_p(comparison.p_value)}")
    if comparison.critical_difference:
        name += f", critical difference {comparison.critical_difference:.2f} mean ranks"
    name += ")"
    tested = set(comparison.p_values.index)
    rows = pairwise[pairwise["a"].isin(tested) & pairwise["b"].isin(tested)]
    if rows.empty:
        return f"{name}: tests none of the leaderboard's pairs."
    if comparison.p_value >= alpha:
        nemenyi = np.zeros(len(rows), dtype=bool)
    else:
        ranks = comparison.average_ranks
        nemenyi = np.array([comparison.p_values.loc[a, b] < alpha and ranks[a] < ranks[b]
                            for a, b in zip(rows["a"], rows["b"])], dtype=bool)
    alone = "it compares mean ranks over the whole pool, so its verdict on a pair depends on the other classifiers"
    primary = ("Nemenyi's ranks within a dataset ignore the size of the differences, and its critical difference "
               "is a single-step bound")
    if comparison.mode != "blocks":
        alone = primary = "decodIRT's test on rating trajectories is not a valid test of a difference (docs/rating.md)"
    return _agreement(name, rows, nemenyi, alone, primary)


def glicko_check(leaderboard: pd.DataFrame, glicko: pd.DataFrame, *, orders: pd.DataFrame | None = None,
                 n_orders: int | None = None) -> str:
    """Who the single-order Glicko-2 tournament puts first, and how often the primary's leader is first alone
    over ``n_orders`` random dataset orders (``orders``: the order analysis' summary, ``permutation.csv``); the
    primary's leader is the first tested row (an entrant placed by a model is never it)."""
    leader = str(measured(leaderboard)["classifier"].iloc[0])
    shown = short_name(leader)
    table = glicko.sort_values(["rating", "classifier"], ascending=[False, True])
    top = table.loc[table["rating"] == table["rating"].iloc[0], "classifier"].astype(str).tolist()
    text = "Glicko-2 (decodIRT's tournament, datasets in one order) "
    if len(top) > 1:
        text += f"has no single leader: {join(top)} tie at rating {table['rating'].iloc[0]:.1f}"
    elif top[0] == leader:
        text += f"agrees on the leader, {shown}"
    else:
        position = int(table["classifier"].astype(str).tolist().index(leader)) + 1 if leader in set(table["classifier"]) else None
        text += f"puts {short_name(top[0])} first" + (f" and {shown} {_ordinal(position)}" if position else "")
        text += " — its ratings depend on the order of the datasets, the primary's do not"
    if orders is not None and leader in set(orders["classifier"]):
        alone = float(orders.set_index("classifier").loc[leader, "p_first_alone"])
        text += f"; over {n_orders or 'the'} random dataset orders {shown} is first alone in {100 * alone:.0f} % of them"
    return text + "."


def _agreement(name: str, pairwise: pd.DataFrame, other, other_only: str, primary_only: str) -> str:
    """"NAME: separates x of n pairs, the primary y; they agree on z of n; only it separates … (OTHER_ONLY); only
    the primary separates … (PRIMARY_ONLY)."."""
    primary = is_separated(pairwise)
    other = np.asarray(other).astype(bool)
    half = NAME_CHARS // 2  # a pair reads within one name's width
    pairs = [f"{short_name(str(a), limit=half)}–{short_name(str(b), limit=half - 1)}" for a, b in zip(pairwise["a"], pairwise["b"])]
    mine = [pair for pair, p, o in zip(pairs, primary, other) if o and not p]
    theirs = [pair for pair, p, o in zip(pairs, primary, other) if p and not o]
    agree = len(pairwise) - len(mine) - len(theirs)
    text = (f"{name}: separates {int(other.sum())} of {len(pairwise)} pairs, the primary {int(primary.sum())}; "
            f"they agree on {agree} of {len(pairwise)}")
    if mine:
        text += f"; only it separates {join(mine, limit=NAMES_SHOWN)} ({other_only})"
    if theirs:
        text += f"; only the primary separates {join(theirs, limit=NAMES_SHOWN)} ({primary_only})"
    return text + "."


def plural(n: int, noun: str) -> str:
    """"1 dataset", "12 datasets"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _p(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"= {value:.3f}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"

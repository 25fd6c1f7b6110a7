"""Which classifiers of a sparse field the leaderboard tests: those scored on enough datasets to be told apart.

In a sparse field (imported runs: a flow runs on some tasks only) a classifier that beats everyone on its one dataset
gets the top Bradley–Terry rating, and the bootstrap over datasets cannot widen its interval. On n datasets the smallest
two-sided p-value any sign-flip test can reach is 2 / 2^n (Wilcoxon 1945), so a classifier on fewer datasets than the
smallest n with 2 / 2^n ≤ alpha (6 at alpha = 0.05) can never be separated from anyone. It is not tested: it is left out
of the Bradley–Terry fit, the step-down, the pairs and the tiers, listed with its number of datasets and the reason, and
placed on the leaderboard by a model across datasets (:mod:`benchirt.rating.placed`), marked ``placed_by_model``. Its
games still count in the Glicko-2 tournament.

The threshold never exceeds the most datasets any classifier has, so a dense field loses no one, however few its
datasets.
"""
from __future__ import annotations

import math

import pandas as pd

#: Columns of the table of classifiers left out of the tests.
LEFT_OUT_COLUMNS = ("classifier", "n_datasets", "reason")


def min_datasets(alpha: float) -> int:
    """The fewest datasets on which a two-sided sign-flip test can reach p ≤ ``alpha``: min n with 2^(1−n) ≤ alpha.

    >>> min_datasets(0.05), min_datasets(0.01), min_datasets(0.5)
    (6, 8, 2)
    """
    return max(1, math.ceil(1.0 - math.log2(alpha) - 1e-12))


def ranked_field(scores: pd.DataFrame, alpha: float) -> tuple[pd.DataFrame, pd.DataFrame, str | None]:
    """Split a long ``dataset, classifier, …`` score table into the classifiers the leaderboard tests and the rest.

    ``alpha`` is the primary verdict's family-wise error rate (``rate.alpha``).

    Returns
    -------
    ranked : pandas.DataFrame
        The rows of the classifiers on at least ``min(min_datasets(alpha), most datasets of any classifier)`` datasets
        (all rows when that leaves fewer than two classifiers).
    left_out : pandas.DataFrame
        :data:`LEFT_OUT_COLUMNS`, most datasets first; empty when nobody is left out.
    note : str or None
        The sentence that says who was left out and why (None when nobody was).
    """
    counts = scores.groupby("classifier")["dataset"].nunique()
    n_datasets = scores["dataset"].nunique()
    threshold = min(min_datasets(alpha), int(counts.max()) if len(counts) else 0)
    few = counts[counts < threshold].sort_values(ascending=False, kind="stable")
    if few.empty or len(counts) - len(few) < 2:
        return scores, pd.DataFrame(columns=list(LEFT_OUT_COLUMNS)), None
    reason = (f"on fewer than {threshold} of the {n_datasets} datasets: no signed-rank comparison over so few "
              f"datasets reaches p ≤ {alpha:g} (its smallest two-sided p on n datasets is 2/2^n)")
    left_out = pd.DataFrame({"classifier": few.index.astype(str), "n_datasets": few.to_numpy(), "reason": reason})
    shown = ", ".join(f"{name} ({n})" for name, n in few.head(10).items())
    more = f" and {len(few) - 10} more" if len(few) > 10 else ""
    note = (f"{len(few)} of {len(counts)} classifiers not tested, {reason} — they could lead the board on one "
            f"dataset without any test able to back that: {shown}{more} (every one in the table 'Not tested' and "
            "placed on the leaderboard by a model; their games still count in the Glicko-2 tournament)")
    return scores[~scores["classifier"].isin(few.index)], left_out, note

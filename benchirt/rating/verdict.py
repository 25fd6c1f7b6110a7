"""The one-sentence verdict of a Bradley–Terry leaderboard (:func:`leaderboard_verdict`).

Apart from :mod:`benchirt.rating.leaderboard` so that the end-of-run summary can word the verdict from
the two stored tables without importing the fitting code (scipy.optimize, scipy.stats, baycomp).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

#: Ratings closer than this (points) share a rank (the fit is converged far below it).
RATING_TIE = 1e-6


def leaderboard_verdict(leaderboard: pd.DataFrame, pairwise: pd.DataFrame) -> str:
    """One sentence a reader can take away: who is ahead, how surely, and who cannot be separated.

    Parameters
    ----------
    leaderboard : pandas.DataFrame
        ``Leaderboard.table`` (best first; uses ``classifier, bt_rating, tier, p_above_next``).
    pairwise : pandas.DataFrame
        ``Leaderboard.pairwise`` (uses the Bayesian probabilities of the top pair).

    Returns
    -------
    str
        E.g. "RF is ahead of SVM with probability 0.97 (share of bootstrap replicates over datasets;
        Bayesian sign test: P(RF better) = 0.91, P(equivalent) = 0.06); RF, SVM and MLP cannot be
        separated (overlapping 95 % intervals)." Equal ratings are called a tie.
    """
    first, second = leaderboard.iloc[0], leaderboard.iloc[1]
    a, b = first["classifier"], second["classifier"]
    if abs(first["bt_rating"] - second["bt_rating"]) <= RATING_TIE:
        tied = leaderboard.loc[(leaderboard["bt_rating"] - first["bt_rating"]).abs() <= RATING_TIE, "classifier"]
        head = f"{_join(tied.tolist())} are tied at the top (equal Bradley–Terry ratings)"
    elif np.isnan(first["p_above_next"]):
        head = f"{a} is rated above {b}, but without intervals it is not known how surely"
    else:
        head = (f"{a} is ahead of {b} with probability {first['p_above_next']:.2f} "
                f"(share of bootstrap replicates over datasets")
        pair = pairwise[(pairwise["a"] == a) & (pairwise["b"] == b)]
        if len(pair) and not np.isnan(pair["p_a_better"].iloc[0]):
            row = pair.iloc[0]
            head += (f"; Bayesian sign test: P({a} better) = {row['p_a_better']:.2f}, "
                     f"P(equivalent) = {row['p_equivalent']:.2f}")
        head += ")"
    top = leaderboard.loc[leaderboard["tier"] == 1, "classifier"].tolist()
    if leaderboard["bt_low"].isna().any():
        tail = "no classifier can be separated from the others (no intervals)"
    elif len(top) == len(leaderboard):
        tail = "no classifier can be separated from the others (every pair of 95 % intervals overlaps)"
    elif len(top) > 1:
        tail = f"{_join(top)} cannot be separated (overlapping 95 % intervals)"
    else:
        tail = f"{a} is separated from every other classifier (non-overlapping 95 % intervals)"
    return f"{head}; {tail}."


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"

"""The primary verdict of a Bradley–Terry leaderboard (:func:`leaderboard_verdict`), stated once.

benchirt answers "is A better than B?" with one method: the simultaneous 95 % intervals of the
rating differences of :mod:`benchirt.rating.separation` (a permutation range test; columns ``bt_*`` of
the pairwise table). The
verdict names the leader, the classifiers it is separated from and those it is not, the tiers, the
method and its critical value. Every other test appears only as an agreement check
(:mod:`benchirt.rating.agreement`).

Apart from :mod:`benchirt.rating.leaderboard` so that the end-of-run summary can word the verdict from
the two stored tables without importing the fitting code (scipy.optimize, scipy.stats, baycomp).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: Ratings closer than this (points) share a rank (the fit is converged far below it).
RATING_TIE = 1e-6
#: Names listed in full before "and N more".
NAMES_SHOWN = 6


def probability(p: float) -> str:
    """A probability for reading, never rounded to 1.00 or 0.00: "> 0.99", "< 0.01", else two digits."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "undefined"
    if p > 0.99:
        return "> 0.99"
    if p < 0.01:
        return "< 0.01"
    return f"{p:.2f}"


def probability_is(p: float) -> str:
    """The relation and value to follow "P(…) ": "= 0.39", "> 0.99" or "< 0.01" (:func:`probability`)."""
    text = probability(p)
    return text if text[0] in "<>" else f"= {text}"


def leaderboard_verdict(leaderboard: pd.DataFrame, pairwise: pd.DataFrame) -> str:
    """The primary verdict: who leads, whom the leader is separated from, the tiers, by which method.

    Parameters
    ----------
    leaderboard : pandas.DataFrame
        ``Leaderboard.table`` (best first; uses ``classifier, bt_rating, tier, bt_low, n_datasets``).
    pairwise : pandas.DataFrame
        ``Leaderboard.pairwise`` with the ``bt_*`` columns of the primary decision.

    Returns
    -------
    str
        E.g. "mlp ranks first (Bradley–Terry rating 1812); it is significantly better than 4 of 18 classifiers
        (…) and cannot be separated from 14 (…). 3 tiers: …. Method: one test for all 171 pairs at once over
        12 datasets — two classifiers differ when their ratings are more than 212 points apart, …" Equal
        ratings are called a tie.
    """
    first = leaderboard.iloc[0]
    leader = str(first["classifier"])
    others = leaderboard["classifier"].iloc[1:].astype(str).tolist()
    tied = leaderboard.loc[(leaderboard["bt_rating"] - first["bt_rating"]).abs() <= RATING_TIE, "classifier"]
    if len(tied) > 1:
        head = f"{join(tied.astype(str).tolist())} are tied at the top (equal Bradley–Terry ratings, {first['bt_rating']:.0f})"
    else:
        head = f"{leader} ranks first (Bradley–Terry rating {first['bt_rating']:.0f})"
    if (leaderboard["bt_low"].isna().any() or "bt_separated" not in pairwise
            or pairwise["bt_critical_value"].isna().all()):
        return (f"{head}; without intervals (see the notes) no pair can be tested, so no classifier can be separated "
                "from the others (no intervals).")
    rows = pairwise[pairwise["a"] == leader]
    beaten = rows.loc[rows["bt_separated"].astype(bool), "b"].astype(str).tolist()
    level = [name for name in others if name not in set(beaten)]
    text = head + "; "
    if not beaten:
        text += f"it cannot be separated from any of the {len(others)} others"
    else:
        text += f"it is significantly better than {len(beaten)} of {len(others)} classifiers ({join(beaten, NAMES_SHOWN)})"
        text += (f" and cannot be separated from {len(level)} ({join(level, NAMES_SHOWN)})" if level else "")
    text += ". " + tier_sentence(leaderboard)
    n_pairs = len(pairwise)
    n_datasets = int(leaderboard["n_datasets"].max())
    critical = float(pairwise["bt_critical_value"].dropna().iloc[0])
    text += (f" Method: one test for all {n_pairs} pairs at once over {n_datasets} datasets — two classifiers differ "
             f"when their ratings are more than {critical:.0f} points apart, the 95 % quantile of the largest rating "
             "difference in leaderboards whose scores are shuffled within each dataset, more for a pair whose "
             "bootstrap spread is larger (chance of any false separation ≤ 5 % when all are equal).")
    return text


def tier_sentence(leaderboard: pd.DataFrame) -> str:
    """How many tiers and who is in each (a tier boundary means every classifier above beats every one below)."""
    tiers = leaderboard.groupby("tier", sort=True)["classifier"].apply(lambda s: s.astype(str).tolist())
    if len(tiers) == 1:
        return ("One tier: wherever the table is cut, some classifier above the cut cannot be separated from some "
                "classifier below it (neighbouring ratings overlap all the way down), so no tier boundary is drawn; "
                "the verdicts on single pairs stand.")
    parts = [f"tier {int(t)}: {join(names, NAMES_SHOWN)}" for t, names in tiers.items()]
    return (f"{len(tiers)} tiers, each classifier significantly better than every classifier of the lower tiers — "
            + "; ".join(parts) + ".")


def join(names, limit: int | None = None) -> str:
    """"a", "a and b", "a, b and c"; beyond ``limit`` names, "… and N more"."""
    names = [str(n) for n in names]
    if not names:
        return "none"
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def is_separated(pairwise: pd.DataFrame) -> np.ndarray:
    """The primary decision per row of the pairwise table (False where it has none)."""
    if "bt_separated" not in pairwise:
        return np.zeros(len(pairwise), dtype=bool)
    return pairwise["bt_separated"].fillna(False).astype(bool).to_numpy()

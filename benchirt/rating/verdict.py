"""The primary verdict of a Bradley–Terry leaderboard (:func:`leaderboard_verdict`), stated once.

benchirt answers "is A better than B?" with one method: step-down max-T on tables whose datasets are reflected
(:mod:`benchirt.rating.stepdown`; or each pair's Wilcoxon signed-rank test with Holm's correction,
:mod:`benchirt.rating.wilcoxon_holm`, with ``rate.verdict: holm``; or the range test of
:mod:`benchirt.rating.separation` with ``rate.verdict: range``), columns ``separated``, ``statistic``,
``p_adjusted``, ``method``, ``resampling`` of the pairwise table. The
verdict names the leader, the classifiers it is separated from and those it is not, its joint rank
interval, the tiers when there is more than one, and the method and its level. Every other test appears only as an agreement check
(:mod:`benchirt.rating.agreement`).

Apart from :mod:`benchirt.rating.leaderboard` so that the end-of-run summary can word the verdict from
the two stored tables without importing the fitting code (scipy.optimize, scipy.stats, baycomp).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from benchirt.humanize import short_name

#: Ratings closer than this (points) share a rank (the fit is converged far below it).
RATING_TIE = 1e-6
#: Names listed in full before "and N more".
NAMES_SHOWN = 6
#: Leaderboard rows printed on a console's first screen (the CSV and the report have them all).
ROWS_SHOWN = 20


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
    """The primary verdict: who leads, whom the leader is separated from, its joint rank interval, the tiers
    (when there is more than one), by which method.

    Parameters
    ----------
    leaderboard : pandas.DataFrame
        ``Leaderboard.table`` (best first; uses ``classifier, bt_rating, rank_low, rank_high, tier, n_datasets``).
    pairwise : pandas.DataFrame
        ``Leaderboard.pairwise`` with the primary decision (``separated``, ``statistic``, ``p_adjusted``,
        ``alpha``; a stored table of the range test also has ``bt_critical_value``, one from before the
        step-down ``bt_separated`` instead of ``separated``).

    Returns
    -------
    str
        E.g. "mlp ranks first (Bradley–Terry rating 1812); it is significantly better than 4 of 18 classifiers
        (…) and cannot be separated from 14 (…); its rank lies between 1 and 6. Method: …" Equal ratings are
        called a tie.
    """
    first = leaderboard.iloc[0]
    leader = str(first["classifier"])
    others = leaderboard["classifier"].iloc[1:].astype(str).tolist()
    tied = leaderboard.loc[(leaderboard["bt_rating"] - first["bt_rating"]).abs() <= RATING_TIE, "classifier"]
    if len(tied) > 1:
        head = f"{join(tied.astype(str).tolist())} are tied at the top (equal Bradley–Terry ratings, {first['bt_rating']:.0f})"
    else:
        head = f"{short_name(leader)} ranks first (Bradley–Terry rating {first['bt_rating']:.0f})"
    method = verdict_method(pairwise)
    if method == "none":
        if int(leaderboard["n_datasets"].max()) < 2:
            return f"{head}; with a single dataset no pair can be tested, so no classifier can be separated from the others."
        return (f"{head}; without intervals (see the notes) no pair can be tested, so no classifier can be separated "
                "from the others (no intervals).")
    rows = pairwise[pairwise["a"] == leader]
    beaten = rows.loc[is_separated(rows) & (direction(rows) > 0), "b"].astype(str).tolist()
    level = [name for name in others if name not in set(beaten)]
    text = head + "; "
    if not beaten:
        text += f"it cannot be separated from any of the {len(others)} others"
    else:
        text += f"it is significantly better than {len(beaten)} of {len(others)} classifiers ({join(beaten, NAMES_SHOWN)})"
        text += (f" and cannot be separated from {len(level)} ({join(level, NAMES_SHOWN)})" if level else "")
    if "rank_low" in leaderboard and pd.notna(first["rank_low"]):
        low, high = int(first["rank_low"]), int(first["rank_high"])
        text += f"; its rank lies {'at 1' if low == high == 1 else f'between {low} and {high}'}"
    text += "."
    tiers = tier_sentence(leaderboard)
    text += (" " + tiers) if tiers else ""
    return text + " " + method_sentence(leaderboard, pairwise, method)


def verdict_method(pairwise: pd.DataFrame) -> str:
    """Which method made the stored decisions: ``"holm"``, ``"stepdown"``, ``"range"`` or ``"none"`` (no test
    ran); tables stored before the ``method`` column are told apart by their columns."""
    if "method" in pairwise and pairwise["method"].notna().any():
        return str(pairwise["method"].dropna().iloc[0])
    if "bt_critical_value" in pairwise:
        return "none" if pairwise["bt_critical_value"].isna().all() else "range"
    if "p_adjusted" not in pairwise or pairwise["p_adjusted"].isna().all():
        return "none"
    return "stepdown"


def family_level(pairwise: pd.DataFrame) -> float:
    """The family-wise error rate α of the stored decisions (0.05 for tables from before it was stored)."""
    return float(pairwise["alpha"].dropna().iloc[0]) if "alpha" in pairwise and pairwise["alpha"].notna().any() else 0.05


def method_sentence(leaderboard: pd.DataFrame, pairwise: pd.DataFrame, method: str) -> str:
    """"Method: …" — the test, its family, its level and what the rank intervals mean."""
    n_pairs = len(pairwise)
    n_datasets = int(leaderboard["n_datasets"].max())
    alpha = family_level(pairwise)
    percent = f"{100 * alpha:g} %"
    if method == "range":
        critical = float(pairwise["bt_critical_value"].dropna().iloc[0])
        return (f"Method: one test for all {n_pairs} pairs at once over {n_datasets} datasets — two classifiers "
                f"differ when their ratings are more than {critical:.0f} points apart, the {100 * (1 - alpha):g} % "
                "quantile of the largest rating difference in leaderboards whose scores are shuffled within each "
                "dataset, more for a pair whose bootstrap spread is larger (chance of any false separation "
                f"≤ {percent} when all are equal).")
    if method == "holm":
        return (f"Method: Wilcoxon signed-rank test of each of the {n_pairs} pairs over the datasets both have "
                f"({n_datasets} in all), Holm's correction over the pairs (Demšar 2006); chance of any false "
                f"separation ≤ {percent} whatever the classifiers' spreads, so the rank intervals hold for all "
                f"classifiers at once at {100 * (1 - alpha):g} %.")
    return (f"Method: step-down max-T (Westfall & Young 1993) over all {n_pairs} pairs at once on {n_datasets} "
            "datasets — each pair's Wilcoxon signed-rank statistic against the largest among the pairs not yet "
            f"separated, in {resampled_tables(pairwise)}; chance of any false separation ≤ {percent}, so the rank "
            f"intervals hold for all classifiers at once at {100 * (1 - alpha):g} %.")


def resampled_tables(pairwise: pd.DataFrame) -> str:
    """How the step-down's null tables were drawn, in words (the ``resampling`` column; reflection when absent)."""
    column = pairwise["resampling"].dropna() if "resampling" in pairwise else pd.Series(dtype=object)
    if len(column) and column.iloc[0] == "shuffle":
        return ("tables whose scores are shuffled within each dataset (exact when the classifiers are exchangeable "
                "within datasets)")
    return ("tables whose datasets are reflected with random signs (exact when each pair's per-dataset differences "
            "are symmetric under its null, whatever the classifiers' spreads)")


def tier_sentence(leaderboard: pd.DataFrame) -> str:
    """How many tiers and who is in each (a tier boundary means every classifier above beats every one below);
    empty with one tier (the rank intervals say more then)."""
    tiers = leaderboard.groupby("tier", sort=True)["classifier"].apply(lambda s: s.astype(str).tolist())
    if len(tiers) == 1:
        return ""
    parts = [f"tier {int(t)}: {join(names, NAMES_SHOWN)}" for t, names in tiers.items()]
    return (f"{len(tiers)} tiers, each classifier significantly better than every classifier of the lower tiers — "
            + "; ".join(parts) + ".")


def join(names, limit: int | None = None) -> str:
    """"a", "a and b", "a, b and c"; beyond ``limit`` names, "… and N more"; a long name cut in the middle
    (:func:`benchirt.humanize.short_name`; the tables keep it whole)."""
    names = [short_name(str(n)) for n in names]
    if not names:
        return "none"
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def is_separated(pairwise: pd.DataFrame) -> np.ndarray:
    """The primary decision per row of the pairwise table (False where it has none; ``bt_separated`` in a
    table stored before the step-down)."""
    column = "separated" if "separated" in pairwise else "bt_separated"
    if column not in pairwise:
        return np.zeros(len(pairwise), dtype=bool)
    return pairwise[column].fillna(False).astype(bool).to_numpy()


def direction(pairwise: pd.DataFrame) -> np.ndarray:
    """+1 where a is the better of the pair by the primary's statistic, −1 where b is (the range test's and
    older tables' rows always have a above b)."""
    if "statistic" not in pairwise:
        return np.ones(len(pairwise))
    return np.where(pairwise["statistic"].fillna(0.0).to_numpy() < 0, -1.0, 1.0)


def leaderboard_columns(leaderboard: pd.DataFrame) -> list[str]:
    """The columns a printed leaderboard shows: rank, classifier, rating and its interval, the joint rank
    interval, and the tier only when there is more than one."""
    columns = ["rank", "classifier", "bt_rating", "bt_low", "bt_high", "rank_low", "rank_high"]
    return columns + (["tier"] if leaderboard["tier"].nunique() > 1 else [])


def leaderboard_text(leaderboard: pd.DataFrame, rows: int = ROWS_SHOWN) -> str:
    """The top ``rows`` of the leaderboard with their intervals as text, and how many more there are."""
    shown = leaderboard[leaderboard_columns(leaderboard)].head(rows)
    shown = shown.assign(classifier=shown["classifier"].astype(str).map(short_name))
    text = shown.to_string(index=False, float_format=lambda v: f"{v:.1f}")
    more = len(leaderboard) - len(shown)
    return text + (f"\n… and {more} more classifiers (leaderboard.csv has them all)" if more > 0 else "")

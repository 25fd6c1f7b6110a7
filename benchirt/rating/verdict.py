"""The verdicts of a Bradley–Terry leaderboard (:func:`leaderboard_verdict`), each stated once.

"Is A better than B across datasets like these?" is answered by the primary verdict (``rate.verdict``,
:mod:`benchirt.rating.decisions`; columns ``separated``, ``statistic``, ``p_adjusted``, ``method``, ``resampling`` of
the pairwise table), "on these datasets' test rows?" by the row-level step-down (:mod:`benchirt.rating.on_suite`,
columns ``*_on_suite``) when the test rows are known. The verdict names the best real classifier (artificial references
never head it), whom it is and is not separated from, its joint rank interval, the tiers when there is more than one,
and each method and level. Every other test is only an agreement check (:mod:`benchirt.rating.agreement`). Entrants
placed by a model (:mod:`benchirt.rating.placed`) never count as tested: every sentence reads the tested rows
(:func:`measured`), and one more says how many were placed and which could be best.

Apart from :mod:`benchirt.rating.leaderboard` so that the end-of-run summary can word the verdict from the two stored
tables without importing the fitting code (scipy.optimize, scipy.stats, baycomp).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from benchirt.humanize import short_name
from benchirt.rating.simultaneous import LISTED_UP_TO

#: Ratings closer than this (points) share a rank (the fit is converged far below it).
RATING_TIE = 1e-6
#: Names listed in full before "and N more".
NAMES_SHOWN = 6
#: Leaderboard rows printed on a console's first screen (the CSV and the report have them all).
ROWS_SHOWN = 20
#: The top places the verdict names the contenders for ("could be among the top 10").
TOP_PLACES = 10


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
    """The verdict: the best real classifier, whom it is separated from and its joint rank interval, across datasets and
    on this suite, the tiers (when more than one), by which method.

    *Across datasets* (the datasets are the sample) and *on this suite* (these test rows) are two verdicts; the first
    sentence names which one it reports and why: across datasets, unless that one separates nothing while the one on
    this suite does. Artificial classifiers (``role`` artificial) are named as references and never head the sentence.

    Parameters
    ----------
    leaderboard : pandas.DataFrame
        ``Leaderboard.table`` (best first; uses ``classifier, bt_rating, rank_low, rank_high, tier, n_datasets``, and
        ``role, rank_low_on_suite, rank_high_on_suite`` when present).
    pairwise : pandas.DataFrame
        ``Leaderboard.pairwise`` with the primary decision (``separated``, ``statistic``, ``p_adjusted``, ``alpha``; a
        stored range-test table also has ``bt_critical_value``, an older one ``bt_separated`` instead of ``separated``)
        and ``separated_on_suite, statistic_on_suite`` when present.

    Returns
    -------
    str
        E.g. "Across datasets (…): mlp is the best real classifier (Bradley–Terry rating 1924; above it only the
        artificial reference optimal); it is significantly better than 4 of 11 other real classifiers (…) and cannot be
        separated from 7 (…); its rank among the 12 real classifiers lies between 1 and 8. … On this suite (…): …" Equal
        ratings are called a tie.
    """
    return " ".join(verdict_parts(leaderboard, pairwise))


def verdict_parts(leaderboard: pd.DataFrame, pairwise: pd.DataFrame) -> list[str]:
    """:func:`leaderboard_verdict` as its parts, in the order it says them: the verdict it reports first (with its
    method, and the placed entrants when there are any: :func:`placed_sentence`), then the other one when there is
    one (the report gives each its own bullet)."""
    parts = _tested_parts(measured(leaderboard), pairwise)
    placed = placed_sentence(leaderboard)
    return [f"{parts[0]} {placed}", *parts[1:]] if placed else parts


def measured(leaderboard: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard's tested rows, in order: those not placed by a model (``placed_by_model``); every row of a
    table without the column (stored before it)."""
    if "placed_by_model" not in leaderboard:
        return leaderboard
    return leaderboard[~leaderboard["placed_by_model"].fillna(False).astype(bool)]


def placed_sentence(leaderboard: pd.DataFrame) -> str:
    """How many entrants the leaderboard places by a model across datasets instead of testing, and which of them could
    be the best by their placement's interval; empty when every row was tested."""
    tested = measured(leaderboard)
    placed = leaderboard.drop(index=tested.index)
    if placed.empty:
        return ""
    from benchirt.rating.placed import PLACED_LEVEL

    best = placed.loc[placed["rank_low"].astype(float) <= 1, "classifier"].astype(str).tolist()
    could = (f"{len(best)} of them could be the best by it ({join([f'{n} (placed)' for n in best], limit=NAMES_SHOWN)})"
             if best else "none of them could be the best by it")
    return (f"Not tested: {len(placed)} of the {len(leaderboard)} entrants are on too few datasets for any test and are "
            f"placed among the others by a model across datasets (rows marked placed; their rank and its "
            f"{100 * PLACED_LEVEL:g} % interval are a prediction from multiple imputation); {could}.")


def _tested_parts(leaderboard: pd.DataFrame, pairwise: pd.DataFrame) -> list[str]:
    """:func:`verdict_parts` of the tested rows ``leaderboard``."""
    real = real_classifiers(leaderboard)
    first = real.iloc[0]
    head = _head(leaderboard, real)
    method = verdict_method(pairwise)
    if method == "none":
        if int(leaderboard["n_datasets"].max()) < 2:
            return [f"{head}; with a single dataset no pair can be tested, so no classifier can be separated from the "
                    "others."]
        return [f"{head}; without intervals (see the notes) no pair can be tested, so no classifier can be separated "
                "from the others (no intervals)."]
    across = _standing(str(first["classifier"]), real, pairwise, is_separated(pairwise), direction(pairwise),
                       (first.get("rank_low"), first.get("rank_high")), among_real=len(real) < len(leaderboard))
    on_suite = _on_suite_standing(first, leaderboard, pairwise)
    across_label = "Across datasets (would it hold on other datasets like these?)"
    tiers = tier_sentence(leaderboard)
    contenders = contender_sentence(leaderboard)
    across_text = f"{across_label}: {head}; {across}." + "".join(f" {part}" for part in (contenders, tiers) if part)
    method_text = method_sentence(leaderboard, pairwise, method)
    if on_suite is None:
        return [f"{across_text} {method_text}"]
    suite_label = "On this suite (on these test rows, which is more accurate?)"
    percent = f"{100 * family_level(pairwise):g} %"
    suite_method = (ON_SUITE_INTERVALS_METHOD if suite_by_intervals(pairwise) else ON_SUITE_METHOD).format(
        percent=percent, coverage=f"{100 - 100 * family_level(pairwise):g} %")
    if not is_separated(pairwise).any() and pairwise["separated_on_suite"].fillna(False).astype(bool).any():
        return [f"{suite_label}, reported first because across datasets nothing is separated on "
                f"{dataset_count(leaderboard)}: {head}; {on_suite}. {suite_method}",
                f"{across_label}: {across}. {method_text}"]
    return [f"{across_text} {method_text}", f"{suite_label}: {on_suite}. {suite_method}"]


#: How the verdict on this suite is reached, in words (:mod:`benchirt.rating.on_suite`).
ON_SUITE_METHOD = ("Method on this suite: the same step-down on tables whose test rows swap each pair's answers at "
                   "random (datasets weighted equally); chance of any false separation ≤ {percent}.")
#: The same in a field decided by simultaneous intervals (``rate.pairwise_up_to``; :mod:`benchirt.rating.on_suite_scale`).
ON_SUITE_INTERVALS_METHOD = (
    "Method on this suite at this field's size: a simultaneous {coverage} interval for every entrant's accuracy on "
    "these test rows, adjusted for the datasets it ran (a two-way additive model, datasets weighted equally; in a "
    "dense field the mean accuracy difference itself), from bootstrap resamples of the test rows within each "
    "dataset; two entrants are separated where their intervals do not overlap (chance of any false separation "
    "about {percent} or less).")


def real_classifiers(leaderboard: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard's rows of real classifiers (``role`` not artificial), best first; every row when there is
    no ``role`` column or no real classifier."""
    real = leaderboard[leaderboard["role"].astype(str) != "artificial"] if "role" in leaderboard else leaderboard
    return real if len(real) else leaderboard


def _head(leaderboard: pd.DataFrame, real: pd.DataFrame) -> str:
    """Who leads among the real classifiers, with its rating; the artificial references rated above it named."""
    first = real.iloc[0]
    tied = real.loc[(real["bt_rating"] - first["bt_rating"]).abs() <= RATING_TIE, "classifier"]
    above = leaderboard.loc[leaderboard["bt_rating"] > first["bt_rating"] + RATING_TIE, "classifier"].astype(str).tolist()
    references = f"; above it only the artificial reference {join(above, limit=NAMES_SHOWN)}" if above else ""
    if len(tied) > 1:
        among = " of the real classifiers" if len(real) < len(leaderboard) else ""
        return (f"{join(tied.astype(str).tolist())} are tied at the top{among} (equal Bradley–Terry "
                f"ratings, {first['bt_rating']:.0f}{references})")
    word = "is the best real classifier" if len(real) < len(leaderboard) else "ranks first"
    return f"{short_name(str(first['classifier']))} {word} (Bradley–Terry rating {first['bt_rating']:.0f}{references})"


def _standing(leader: str, real: pd.DataFrame, pairwise: pd.DataFrame, separated: np.ndarray, sign: np.ndarray,
              interval: tuple, *, among_real: bool) -> str:
    """"it is significantly better than n of m classifiers (…) and cannot be separated from … ; its rank lies
    between a and b" by one verdict's decisions, among the real classifiers ``real``. ``interval`` is the
    leader's joint rank interval in the whole table; with artificial references on the board (``among_real``)
    the rank among the real classifiers is said instead, from the same decisions."""
    names = real["classifier"].astype(str).tolist()
    others = [name for name in names if name != leader]
    beaten, above = _separated_from(leader, pairwise, separated, sign)
    beaten_names = [name for name in others if name in beaten]
    level = [name for name in others if name not in beaten and name not in above]
    text = _beaten_text(beaten_names, level, len(others), "other real classifiers" if among_real else "")
    low, high = interval
    where = "its rank"
    if among_real:
        low, high = 1 + len([name for name in others if name in above]), len(names) - len(beaten_names)
        where = f"its rank among the {len(names)} real classifiers"
    return text + _rank_text(where, low, high)


def _beaten_text(beaten: list[str], level: list[str], n_others: int, whom: str) -> str:
    """"it is significantly better than n of m … (…) and cannot be separated from k (…)", or "it cannot be
    separated from any of the m others"; ``whom`` names the others (empty: "classifiers")."""
    if not beaten:
        return f"it cannot be separated from any of the {n_others} {whom or 'others'}"
    text = f"it is significantly better than {len(beaten)} of {n_others} {whom or 'classifiers'} ({join(beaten, limit=NAMES_SHOWN)})"
    return text + (f" and cannot be separated from {len(level)} ({join(level, limit=NAMES_SHOWN)})" if level else "")


def _rank_text(where: str, low, high) -> str:
    """"; its rank lies between a and b" ("at a" when they are equal); nothing without an interval."""
    if pd.isna(low) or pd.isna(high):
        return ""
    low, high = int(low), int(high)
    return f"; {where} lies {f'at {low}' if low == high else f'between {low} and {high}'}"


def _separated_from(leader: str, pairwise: pd.DataFrame, separated: np.ndarray, sign: np.ndarray
                    ) -> tuple[set[str], set[str]]:
    """Whom ``leader`` is separated from and above, and who is separated above it, by one verdict's decisions
    (``sign`` > 0 where a is the better of the pair)."""
    as_a = (pairwise["a"].astype(str) == leader).to_numpy()
    as_b = (pairwise["b"].astype(str) == leader).to_numpy()
    below = set(pairwise.loc[as_a & separated & (sign > 0), "b"].astype(str)) | \
        set(pairwise.loc[as_b & separated & (sign < 0), "a"].astype(str))
    above = set(pairwise.loc[as_a & separated & (sign < 0), "b"].astype(str)) | \
        set(pairwise.loc[as_b & separated & (sign > 0), "a"].astype(str))
    return below, above


def _on_suite_standing(first: pd.Series, leaderboard: pd.DataFrame, pairwise: pd.DataFrame) -> str | None:
    """The leader's standing in the verdict on this suite, or None when there is none (no test rows)."""
    if "separated_on_suite" not in pairwise or "rank_low_on_suite" not in leaderboard \
            or pd.isna(first.get("rank_low_on_suite")):
        return None
    separated = pairwise["separated_on_suite"].fillna(False).astype(bool).to_numpy()
    sign = np.where(pairwise["statistic_on_suite"].fillna(0.0).to_numpy() < 0, -1.0, 1.0)
    real = real_classifiers(leaderboard)
    return _standing(str(first["classifier"]), real, pairwise, separated, sign,
                     (first["rank_low_on_suite"], first["rank_high_on_suite"]), among_real=len(real) < len(leaderboard))


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
    n_pairs = len(leaderboard) * (len(leaderboard) - 1) // 2   # every pair of the tested rows, listed or not
    n_datasets = int(leaderboard["n_datasets"].max())
    datasets = dataset_count(leaderboard)
    alpha = family_level(pairwise)
    percent = f"{100 * alpha:g} %"
    if method == "range":
        critical = float(pairwise["bt_critical_value"].dropna().iloc[0])
        return (f"Method: one test for all {n_pairs} pairs at once over {datasets} — two classifiers "
                f"differ when their ratings are more than {critical:.0f} points apart, the {100 * (1 - alpha):g} % "
                "quantile of the largest rating difference in leaderboards whose scores are shuffled within each "
                "dataset, more for a pair whose bootstrap spread is larger (chance of any false separation "
                f"≤ {percent} when all are equal).")
    if method == "intervals":
        return interval_method_sentence(leaderboard, pairwise, datasets)
    if method == "holm":
        tested = int(pairwise["p_adjusted"].notna().sum())
        if tested < n_pairs:
            return (f"Method: Wilcoxon signed-rank test of each of the {tested} pairs among the best-rated "
                    f"{untested_cap(tested)} only (rate.max_pairwise; the other {n_pairs - tested} pairs are untested "
                    f"and their classifiers' rank intervals span the board), Holm's correction over them (Demšar "
                    f"2006); chance of any false separation ≤ {percent} whatever the classifiers' spreads.")
        return (f"Method: Wilcoxon signed-rank test of each of the {n_pairs} pairs over the datasets both have "
                f"({n_datasets} in all), Holm's correction over the pairs (Demšar 2006); chance of any false "
                f"separation ≤ {percent} whatever the classifiers' spreads, so the rank intervals hold for all "
                f"classifiers at once at {100 * (1 - alpha):g} %.")
    return (f"Method: step-down max-T (Westfall & Young 1993) over all {n_pairs} pairs at once on {datasets} "
            "— each pair's Wilcoxon signed-rank statistic against the largest among the pairs not yet "
            f"separated, in {resampled_tables(pairwise)}; chance of any false separation ≤ {percent}, so the rank "
            f"intervals hold for all classifiers at once at {100 * (1 - alpha):g} %.")


def suite_by_intervals(pairwise: pd.DataFrame) -> bool:
    """Whether the verdict on this suite was reached by simultaneous intervals (its pairs have decisions but no
    adjusted p-values), not pair by pair."""
    if "separated_on_suite" not in pairwise or "p_adjusted_on_suite" not in pairwise:
        return False
    return bool(pairwise["separated_on_suite"].notna().any() and pairwise["p_adjusted_on_suite"].isna().all())


def top_contenders(leaderboard: pd.DataFrame, *, top: int = TOP_PLACES) -> np.ndarray:
    """Per row, whether either verdict's joint rank interval lets it be among the ``top`` places (``rank_low`` or
    ``rank_low_on_suite`` at most ``top``)."""
    could = np.zeros(len(leaderboard), dtype=bool)
    for column in ("rank_low", "rank_low_on_suite"):
        if column in leaderboard:
            could |= leaderboard[column].astype("Float64").fillna(np.inf).to_numpy(dtype=float) <= top
    return could


def interval_method_sentence(leaderboard: pd.DataFrame, pairwise: pd.DataFrame, datasets: str) -> str:
    """"Method: …" of a field decided by simultaneous intervals (:mod:`benchirt.rating.simultaneous`), with what
    ``pairwise.csv`` lists of its pairs."""
    k = len(leaderboard)
    n_pairs = k * (k - 1) // 2
    coverage = f"{100 - 100 * family_level(pairwise):g} %"
    could = top_contenders(leaderboard)
    cut = (f" (the best rated {LISTED_UP_TO} of the {int(could.sum())} that could be among the top {TOP_PLACES})"
           if could.sum() > LISTED_UP_TO else f" ({int(could.sum())} could be among the top {TOP_PLACES})")
    return (f"Method at this field's size ({k} tested entrants, {n_pairs} pairs; smaller fields have every pair "
            f"tested on its own, rate.pairwise_up_to): a simultaneous {coverage} interval for every entrant's Bradley–Terry "
            f"rating from its bootstrap over {datasets} (the largest studentised deviation over all entrants; Romano "
            "& Wolf 2005; never narrower than Bonferroni's bound under Student's t for the datasets each entrant "
            "ran, which a bootstrap over few datasets cannot reach), two entrants separated where their intervals do "
            f"not overlap, so every rank interval holds at once at {coverage} — more cautious than testing each pair; "
            f"pairwise.csv lists {len(pairwise)} of "
            f"the {n_pairs} pairs: those among the contenders for the top places{cut} and the best rated, and the "
            "best real classifier's pair with every other.")


def dataset_count(leaderboard: pd.DataFrame) -> str:
    """"12 datasets" when every classifier is on the same number of them; in a sparse field "at most n datasets
    per pair" (a pair is compared on the datasets both are on; the field itself may have more)."""
    counts = leaderboard["n_datasets"]
    most = int(counts.max())
    return f"{most} datasets" if counts.nunique() == 1 else f"at most {most} datasets per pair"


def untested_cap(tested_pairs: int) -> int:
    """The number of classifiers whose every pair makes ``tested_pairs`` pairs (m(m − 1)/2 = tested_pairs)."""
    return int(round((1 + math.sqrt(1 + 8 * tested_pairs)) / 2))


def resampled_tables(pairwise: pd.DataFrame) -> str:
    """How the step-down's null tables were drawn, in words (the ``resampling`` column; reflection when absent)."""
    column = pairwise["resampling"].dropna() if "resampling" in pairwise else pd.Series(dtype=object)
    if len(column) and column.iloc[0] == "shuffle":
        return ("tables whose scores are shuffled within each dataset (exact when the classifiers are exchangeable "
                "within datasets)")
    return ("tables whose datasets are reflected with random signs (exact when each pair's per-dataset differences "
            "are symmetric under its null, whatever the classifiers' spreads)")


def contender_sentence(leaderboard: pd.DataFrame, *, top: int = TOP_PLACES) -> str:
    """Who could be the best (joint rank interval reaching 1, column ``could_be_best``) and who could be among the
    ``top`` places (a confidence set: at the intervals' joint level it holds every classifier truly among them;
    Mogstad, Romano, Shaikh & Wilhelm 2023). Empty without rank intervals; the second part only on a board longer
    than ``top``."""
    if "rank_low" not in leaderboard or leaderboard["rank_low"].isna().all():
        return ""
    named = marked_names(leaderboard)
    low = leaderboard["rank_low"].astype(float).to_numpy()
    best = named[low <= 1].tolist()
    text = f"Could be the best (rank interval reaching 1): {len(best)} of {len(leaderboard)} ({join(best, limit=NAMES_SHOWN)})"
    if len(leaderboard) > top:
        contenders = named[low <= top].tolist()
        text += f"; could be among the top {top}: {len(contenders)} of {len(leaderboard)} ({join(contenders, limit=NAMES_SHOWN)})"
    return text + "."


def tier_sentence(leaderboard: pd.DataFrame) -> str:
    """How many tiers and who is in each (a tier boundary means every classifier above beats every one below);
    empty with one tier (the rank intervals say more then)."""
    named = marked_names(leaderboard)
    tiers = named.groupby(leaderboard["tier"], sort=True).apply(list)
    if len(tiers) == 1:
        return ""
    parts = [f"tier {int(t)}: {join(names, limit=NAMES_SHOWN)}" for t, names in tiers.items()]
    return (f"{len(tiers)} tiers, each classifier significantly better than every classifier of the lower tiers — "
            + "; ".join(parts) + ".")


def marked_names(leaderboard: pd.DataFrame) -> pd.Series:
    """The classifiers' names, each artificial reference (``role`` artificial) marked "(artificial)" and each entrant
    placed by a model marked "(placed)"."""
    names = leaderboard["classifier"].astype(str)
    if "role" in leaderboard:
        names = names.where(leaderboard["role"].astype(str) != "artificial", names + " (artificial)")
    placed = ~leaderboard.index.isin(measured(leaderboard).index)
    return names.where(~placed, names + " (placed)")


def join(names, *, limit: int | None = None) -> str:
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


def leaderboard_text(leaderboard: pd.DataFrame, *, rows: int = ROWS_SHOWN) -> str:
    """The top ``rows`` of the leaderboard with their intervals as text, and how many more there are; an entrant
    placed by a model is marked "(placed)" (its rank interval is its placement's)."""
    shown = leaderboard[leaderboard_columns(leaderboard)].head(rows)
    placed = ~shown.index.isin(measured(leaderboard).index)
    names = shown["classifier"].astype(str).map(short_name)
    shown = shown.assign(classifier=names.where(~placed, names + " (placed)"))
    text = shown.to_string(index=False, float_format=lambda v: f"{v:.1f}")
    more = len(leaderboard) - len(shown)
    return text + (f"\n… and {more} more classifiers (leaderboard.csv has them all)" if more > 0 else "")

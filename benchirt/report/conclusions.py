"""The report's opening block: what the run concludes, every sentence generated from its numbers.

Each function below turns one stage's result into a sentence (or a short table) and states the
uncertainty with it:

* the leaderboard — the order-free Bradley–Terry ratings with bootstrap intervals over datasets and
  Arena tiers of :mod:`benchirt.rating.leaderboard` (its verdict sentence is quoted as it is), and the
  pairwise Wilcoxon signed-rank tests with Holm's correction of :mod:`benchirt.rating.pairwise`;
* the Glicko-2 tournament of decodIRT — rating with its R ± 2RD interval (Glickman 2012) and
  *tiers*: a tier starts at the best classifier not yet placed and holds every classifier whose
  interval reaches that one's. Equal ratings are a tie, never a lead; "first in x % of orders"
  counts only orders in which the classifier is first alone;
* which differences are significant — Friedman's test and the Nemenyi critical difference
  (Demšar 2006), with the number of classifiers and datasets each test used;
* which datasets are the most informative — the share of items above the IRT thresholds (Cardoso
  et al. 2020 §4.5), naming the thresholds and the model; a parameter every dataset shares (the
  guessing of a 2PL, all zero) is not ranked;
* whether IRT-filtered subsets beat random subsets of the same size — the percentile of the
  subset's Kendall τ among the random ones and its one-sided p-value; "no" is said plainly;
* AIRT's strongest and most anomalous algorithms (Kandanaarachchi & Smith-Miles 2023): latent trait
  occupancy of strengths, negative discrimination.

Hand-written: no library writes sentences from these tables.
"""
from __future__ import annotations

import math

import pandas as pd

#: Rows of the leaderboard shown in the conclusions (the full table is in the ratings section).
LEADERBOARD_ROWS = 10


def tiers(ratings: pd.DataFrame) -> pd.Series:
    """Tier of each classifier (1 = best) from the intervals ``low``/``high`` of a rating table.

    Classifiers are taken by decreasing rating; a tier's head is the best one not yet placed and the
    tier holds every remaining classifier whose upper bound reaches the head's lower bound.
    """
    frame = ratings.sort_values(["rating", "classifier"], ascending=[False, True])
    tier = pd.Series(0, index=frame["classifier"].to_numpy(), dtype=int)
    current, head_low = 0, math.inf
    for row in frame.itertuples(index=False):
        if row.high < head_low:  # separable from the current head: a new tier starts here
            current += 1
            head_low = row.low
        tier[row.classifier] = current
    return tier


def strict_first_share(ranks: pd.DataFrame) -> pd.Series:
    """Share of orders (rows of ``ranks``, 1 = best) in which each classifier is first *alone*."""
    first = ranks.to_numpy() == 1
    alone = first & (first.sum(axis=1, keepdims=True) == 1)
    return pd.Series(alone.mean(axis=0), index=ranks.columns)


def leaderboard_table(board: pd.DataFrame) -> pd.DataFrame:
    """The Bradley–Terry leaderboard (``RatingResult.leaderboard``) for reading: rank ("=" marks a tie),
    classifier, rating with its 95 % interval, rank interval, tier, Glicko-2 rating ± 2RD."""
    rank = board["rank"].astype(int)
    tied = rank.duplicated(keep=False)

    def interval(lo, hi, digits=0):
        return "" if pd.isna(lo) or pd.isna(hi) else f"{lo:.{digits}f} – {hi:.{digits}f}"

    return pd.DataFrame({
        "Rank": [f"={r}" if t else str(r) for r, t in zip(rank, tied)],
        "Classifier": board["classifier"].to_numpy(),
        "Bradley–Terry rating": board["bt_rating"].round(0).astype(int).to_numpy(),
        "95 % interval": [interval(lo, hi) for lo, hi in zip(board["bt_low"], board["bt_high"])],
        "Rank interval": [interval(lo, hi) for lo, hi in zip(board["rank_low"], board["rank_high"])],
        "Tier": board["tier"].astype(int).to_numpy(),
        "Glicko-2 (R ± 2RD)": [f"{r:.0f} ± {2 * d:.0f}" for r, d in zip(board["glicko_rating"], board["glicko_rd"])],
    })


def pairwise_sentence(pairwise: pd.DataFrame, leader: str, alpha: float = 0.05) -> str:
    """How many classifiers the leader beats by the pairwise Wilcoxon signed-rank test (Holm-corrected)."""
    rows = pairwise[(pairwise["a"] == leader) | (pairwise["b"] == leader)]
    if rows.empty:
        return ""
    other = [b if a == leader else a for a, b in zip(rows["a"], rows["b"])]
    leader_better = [(a == leader) == (d > 0) for a, d in zip(rows["a"], rows["mean_difference"])]
    significant = (rows["wilcoxon_p_holm"] < alpha).to_numpy()
    beaten = [o for o, s, b in zip(other, significant, leader_better) if s and b]
    level = [o for o, s in zip(other, significant) if not s]
    text = (f"Pairwise Wilcoxon signed-rank tests over datasets (Holm-corrected for all {len(pairwise)} pairs, "
            f"α = {alpha}): {leader} is significantly better than {len(beaten)} of {len(other)} classifiers")
    text += f"; not separated from {_join(level, limit=6)}." if level else "."
    return text


def glicko_board(ratings: pd.DataFrame, ranks: pd.DataFrame | None = None) -> pd.DataFrame:
    """The Glicko-2 leaderboard: rank (ties share it, marked "="), classifier, rating, 95 % interval, tier and,
    with ``ranks`` (one row per random dataset order), the share of orders in which it is first alone."""
    frame = ratings.sort_values(["rating", "classifier"], ascending=[False, True]).reset_index(drop=True)
    rank = frame["rating"].rank(ascending=False, method="min").astype(int)
    tied = rank.duplicated(keep=False)
    table = pd.DataFrame({
        "Rank": [f"={r}" if t else str(r) for r, t in zip(rank, tied)],
        "Classifier": frame["classifier"],
        "Rating": frame["rating"].round(1),
        "95 % interval (R ± 2RD)": [f"{lo:.0f} – {hi:.0f}" for lo, hi in zip(frame["low"], frame["high"])],
        "Tier": frame["classifier"].map(tiers(frame)).to_numpy(),
    })
    if ranks is not None:
        table["First alone in random orders (%)"] = (100 * frame["classifier"].map(strict_first_share(ranks))).round().astype(int)
    return table


def leader_sentence(ratings: pd.DataFrame, ranks: pd.DataFrame | None, n_datasets: int) -> str:
    """Who leads the Glicko-2 table, whether the lead is a tie or within the uncertainty, and how it
    survives other dataset orders (with the number of orders that exist when it is small)."""
    board = glicko_board(ratings, ranks)
    top = board[board["Rating"] == board["Rating"].iloc[0]]["Classifier"].tolist()
    tier1 = board[board["Tier"] == 1]["Classifier"].tolist()
    best = board.iloc[0]
    if len(top) > 1:
        text = (f"No single leader: {_join(top)} are tied at rating {best['Rating']:.1f} over the {n_datasets} "
                f"datasets (identical ratings; a tie is not a lead).")
    else:
        text = (f"Glicko-2 (decodIRT's tournament, one order) leader: {best['Classifier']} (rating "
                f"{best['Rating']:.1f}, 95 % interval {best['95 % interval (R ± 2RD)']}).")
        others = [c for c in tier1 if c != best["Classifier"]]
        text += (f" Its interval overlaps those of {_join(others)}, so the top tier holds {len(tier1)} classifiers "
                 "that the ratings do not separate." if others else
                 " Its interval lies above every other classifier's: the lead is larger than the rating uncertainty.")
    if ranks is not None:
        n_orders = len(ranks)
        possible = math.factorial(n_datasets)
        exist = (f"of the {possible:,} possible" if possible <= 10 ** 6 else f"of {n_datasets}! possible")
        share = float(strict_first_share(ranks).get(best["Classifier"], 0.0))
        who = best["Classifier"] if len(top) == 1 else top[0]
        text += f" Over {n_orders} random dataset orders ({exist}"
        text += "; some drawn more than once" if possible < n_orders else ""
        text += f"), {who} is first alone in {100 * share:.0f} % of them"
        shared = float((ranks[who] == 1).mean()) if who in ranks else share
        if shared > share:
            text += f" and shares first place in {100 * (shared - share):.0f} % more"
        text += "."
    return text


def significance_sentence(comparison, n_rated: int) -> str:
    """Friedman/Nemenyi on the rated score: which differences are significant, by which test, on what."""
    k, n, alpha = comparison.n_classifiers, comparison.n_blocks, comparison.alpha
    scope = f"{k} real classifiers (Glicko-2 rates {n_rated})" if n_rated != k else f"{k} classifiers"
    blocks = "datasets" if comparison.mode == "blocks" else "rating periods"
    text = (f"Friedman test on {comparison.score.replace('_', ' ')}, {scope} over {n} {blocks}: "
            f"χ² = {comparison.statistic:.1f}, {_p(comparison.p_value)}.")
    if comparison.p_value >= alpha:
        return text + f" At α = {alpha} the classifiers are not significantly different; no pair is separated."
    ranks = comparison.average_ranks
    best = ranks.index[0]
    better = [c for c in ranks.index[1:] if comparison.p_values.loc[best, c] < alpha]
    same = [c for c in ranks.index[1:] if c not in better]
    cd = comparison.critical_difference
    text += (f" Nemenyi post-hoc{f' (critical difference {cd:.2f} average ranks)' if cd else ''}, α = {alpha}: "
             f"{best} (average rank {ranks.iloc[0]:.2f}) is significantly better than {len(better)} of {k - 1} others"
             + (f" ({_join(better, limit=6)})" if better else ""))
    text += (f" and not distinguishable from {_join(same, limit=6)}." if same else ".")
    if comparison.mode != "blocks":
        text += " (decodIRT's test on rating trajectories: not a valid test of a difference, see docs/rating.md.)"
    return text


def datasets_sentence(rankings: pd.DataFrame, model: str, thresholds: dict[str, float]) -> str:
    """The most informative datasets: most difficult and most discriminating items, thresholds stated.

    ``rankings`` is :func:`benchirt.irt.dataset_rankings` (index = dataset, ``pct_*_gt`` columns).
    A column with the same value on every dataset (the guessing of a 1PL/2PL) is not ranked.
    """
    parts = []
    for column, label in (("pct_discrimination_gt", "discrimination"), ("pct_difficulty_gt", "difficulty")):
        values = rankings[column].astype(float)
        if values.nunique() <= 1:
            parts.append(f"every dataset has the same share of items with {label} > {thresholds[label]:g} "
                         f"({values.iloc[0]:.0f} %), so none stands out")
            continue
        top = values.sort_values(ascending=False, kind="mergesort")
        leaders = top[top >= top.iloc[min(1, len(top) - 1)]].head(3)
        parts.append(f"most items with {label} > {thresholds[label]:g}: "
                     + ", ".join(f"{name} ({value:.0f} %)" for name, value in leaders.items()))
    guess = rankings.get("pct_guessing_gt")
    if model != "3PL" or guess is None or guess.astype(float).nunique() <= 1:
        parts.append("guessing is not ranked" + (f" (a {model} has none)" if model != "3PL" else
                                                  " (the same share on every dataset)"))
    return f"Most informative datasets ({model} per dataset) — " + "; ".join(parts) + "."


def subsets_sentence(fidelity: pd.DataFrame, rule: str, alpha: float = 0.05) -> str:
    """Whether the IRT-filtered subsets reproduce the full ranking better than random subsets of equal size."""
    rows = [f"{row.subset} ({row.n_datasets} datasets): τ = {row.kendall_tau:.2f}, percentile "
            f"{row.kendall_tau_percentile:.0f} of random subsets, {_p(row.kendall_tau_p_value)}"
            for row in fidelity.itertuples(index=False)]
    wins = fidelity[fidelity["kendall_tau_p_value"] < alpha]["subset"].tolist()
    if not wins:
        verdict = (f"No: none of the {len(fidelity)} subsets chosen by the {rule!r} rule reproduces the full "
                   f"suite's ranking better than random subsets of the same size (one-sided p < {alpha}).")
    elif len(wins) == len(fidelity):
        verdict = (f"Yes: every subset chosen by the {rule!r} rule reproduces the full suite's ranking better "
                   f"than random subsets of the same size (p < {alpha}).")
    else:
        verdict = (f"Only {_join(wins)} of the {len(fidelity)} {rule!r} subsets beat random subsets of the same "
                   f"size (p < {alpha}); the others do not.")
    return f"Do IRT-filtered subsets beat random subsets? {verdict} Kendall τ with the full ranking: " + \
        "; ".join(rows) + "."


def airt_sentence(algorithms: pd.DataFrame) -> str:
    """AIRT's strongest algorithms (latent trait occupancy of strengths) and the anomalous ones."""
    strong = algorithms[algorithms["lto_strength"] > 0].sort_values(["lto_strength", "algorithm"],
                                                                   ascending=[False, True])
    text = "AIRT (datasets as respondents): "
    if len(strong):
        text += ("strongest over the range of dataset difficulty — " +
                 ", ".join(f"{a} ({100 * s:.0f} % of it)" for a, s in zip(strong["algorithm"], strong["lto_strength"])))
    else:
        text += "no algorithm is strongest anywhere on the dataset-difficulty range"
    anomalous = algorithms[algorithms["anomalous"].astype(bool)].sort_values("discrimination")
    if len(anomalous):
        text += ("; anomalous (better on harder datasets, discrimination clearly below 0) — " +
                 ", ".join(f"{a} (discrimination {d:.2f})" for a, d in zip(anomalous["algorithm"],
                                                                            anomalous["discrimination"])))
    else:
        text += "; no algorithm is anomalous (no discrimination is clearly below 0)"
    flat = algorithms[~algorithms.get("flag", pd.Series("ok", index=algorithms.index)).isin(["ok", "constant"])]
    if len(flat):
        text += ("; flat curves, whose consistency and difficulty limit are not meaningful — " +
                 ", ".join(f"{a} (discrimination {d:.2f})" for a, d in zip(flat["algorithm"], flat["discrimination"])))
    return text + "."


def _join(names, limit: int | None = None) -> str:
    names = [str(n) for n in names]
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _p(value: float) -> str:
    """``p = 0.137`` / ``p < 0.001``."""
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"


__all__ = ["leaderboard_table", "pairwise_sentence", "glicko_board", "tiers", "strict_first_share", "leader_sentence", "significance_sentence",
           "datasets_sentence", "subsets_sentence", "airt_sentence", "LEADERBOARD_ROWS"]

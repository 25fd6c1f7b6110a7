"""The report's opening block: what the run concludes, every sentence generated from its numbers.

Each function turns one stage's result into a sentence (or a short table) with its uncertainty:

* the primary verdict — the Bradley–Terry leaderboard (:mod:`benchirt.rating.leaderboard`): who leads, whom the primary
  test separates it from, its joint rank interval and tiers (:mod:`benchirt.rating.decisions`), stated once with method
  and level (:func:`benchirt.rating.verdict.leaderboard_verdict`);
* the agreement checks — Wilcoxon/Holm, the Bayesian sign test, Friedman/Nemenyi and Glicko-2, each as "agrees on x of
  n pairs, differs because …" (:mod:`benchirt.rating.agreement`), never a competing verdict;
* the most informative datasets — the share of items above the IRT thresholds (Cardoso et al. 2020 §4.5); a parameter
  every dataset shares (a 2PL's zero guessing) is not ranked;
* the subset that could replace the suite, judged on held-out classifiers
  (:func:`benchirt.subsets.report_sections.subsets_conclusion`);
* AIRT's strongest and anomalous algorithms (Kandanaarachchi & Smith-Miles 2023).

Hand-written: no library writes sentences from these tables.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.humanize import short_name

#: How the bullet of the second verdict (on this suite, or across datasets when that one is reported first) opens.
OTHER_VERDICT = "The other verdict — "
#: Rows of the leaderboard shown in the conclusions (the full table is in the ratings section).
LEADERBOARD_ROWS = 10


def rating_sentences(rating) -> tuple[list[str], list[str]]:
    """The primary verdict (with the leaderboard's notes; only the notes without a leaderboard) and the agreement
    checks (one per other method, or why there is none) of a :class:`benchirt.rating.RatingResult`."""
    from benchirt.rating.agreement import bayesian_check, glicko_check, nemenyi_check, plural, wilcoxon_check
    from benchirt.rating.verdict import measured, verdict_parts

    verdict, checks = [], []
    board = len(measured(rating.leaderboard)) >= 2
    if board:
        n_datasets = len(rating.tournament.order)   # the field's datasets (a sparse board's best may miss some)
        first, *other = verdict_parts(rating.leaderboard, rating.pairwise)
        verdict.append(f"Primary verdict — Bradley–Terry leaderboard on {rating.score.replace('_', ' ')} over "
                       f"{plural(n_datasets, 'dataset')} (every pair of classifiers meets once per dataset; no dataset order): "
                       f"{first}")
        verdict += [f"{OTHER_VERDICT}{part}" for part in other]
        checks += [wilcoxon_check(rating.pairwise, alpha=rating.config.alpha), bayesian_check(rating.pairwise)]
    verdict += [f"Leaderboard note: {note}" for note in rating.notes]
    comparison = next(iter(rating.comparisons.values()), None)
    if comparison is not None and board:
        checks.append(nemenyi_check(rating.pairwise, comparison))
    checks += [f"Friedman/Nemenyi not run: {reason}" for reason in rating.skipped.values()][:1]
    if board:
        orders = rating.permutation
        checks.append(glicko_check(rating.leaderboard, rating.tournament.table,
                                   orders=orders.summary if orders is not None else None,
                                   n_orders=orders.n_permutations if orders is not None else None))
    return verdict, [f"Agreement check — {check}" for check in checks if check]


def leaderboard_table(board: pd.DataFrame, *, n_datasets: int | None = None) -> pd.DataFrame:
    """The Bradley–Terry leaderboard (``RatingResult.leaderboard``) for reading: rank ("=" marks a tie), classifier
    ("(artificial)" after a reference, "(placed)" after an entrant placed by a model: untested, rank and interval its
    placement's, no rating), rating with its 95 % interval, joint rank interval across datasets and on this suite (when
    given), tier (when several), the datasets each was scored on (only in a sparse field; "of ``n_datasets``", by
    default the most any has), Glicko-2 rating ± 2RD (over more than one dataset)."""
    from benchirt.rating.verdict import marked_names, measured

    placed = ~board.index.isin(measured(board).index)

    def interval(lo, hi, digits=0):
        return "" if pd.isna(lo) or pd.isna(hi) else f"{lo:.{digits}f} – {hi:.{digits}f}"

    table = pd.DataFrame({
        "Rank": _ranks(board["rank"].astype(int), placed),
        "Classifier": marked_names(board).to_numpy(),
        "Bradley–Terry rating": _whole_or_blank(board["bt_rating"]),
        "95 % interval": [interval(lo, hi) for lo, hi in zip(board["bt_low"], board["bt_high"])],
        "Rank interval (joint)": [interval(lo, hi) for lo, hi in zip(board["rank_low"], board["rank_high"])],
    })
    table = table.assign(**_on_suite_column(board, interval))
    if board["tier"].nunique() > 1:
        table["Tier"] = _whole_or_blank(board["tier"])
    total = int(board["n_datasets"].max()) if n_datasets is None else n_datasets
    if board["n_datasets"].nunique() > 1 or total > board["n_datasets"].max():  # a sparse field: who met on fewer
        table[f"Datasets (of {total})"] = board["n_datasets"].astype(int).to_numpy()
    if board["n_datasets"].max() > 1:
        table["Glicko-2 (R ± 2RD)"] = [f"{r:.0f} ± {2 * d:.0f}" for r, d in zip(board["glicko_rating"], board["glicko_rd"])]
    return table


def _ranks(rank: pd.Series, placed: np.ndarray) -> list[str]:
    """The ranks as read: "=r" where tested entrants tie (a placed entrant's rank is its placement's: no tie)."""
    tied = rank.where(~placed).duplicated(keep=False) & ~placed
    return [f"={r}" if t else str(r) for r, t in zip(rank, tied)]


def _whole_or_blank(values: pd.Series) -> list:
    """Each value rounded to a whole number, blank where there is none (a placed entrant's rating and tier)."""
    return ["" if pd.isna(v) else int(round(v)) for v in values]


def _on_suite_column(board: pd.DataFrame, interval) -> dict:
    """The column of joint rank intervals on this suite, when the run's test rows gave them (else none)."""
    if "rank_low_on_suite" not in board or not board["rank_low_on_suite"].notna().any():
        return {}
    return {"Rank interval on this suite": [interval(lo, hi) for lo, hi in
                                            zip(board["rank_low_on_suite"], board["rank_high_on_suite"])]}


def airt_sentence(algorithms: pd.DataFrame) -> str:
    """AIRT's strongest algorithms (latent trait occupancy of strengths) and the anomalous ones."""
    strong = algorithms[algorithms["lto_strength"] > 0].sort_values(["lto_strength", "algorithm"],
                                                                   ascending=[False, True])
    text = "AIRT (datasets as respondents): "
    if len(strong):
        text += ("strongest over the range of dataset difficulty — " +
                 ", ".join(f"{short_name(str(a))} ({100 * s:.0f} % of it)" for a, s in zip(strong["algorithm"], strong["lto_strength"])))
        if strong["lto_strength"].sum() > 1.005:  # shown rounded: say why they add up to more than 100 %
            text += " (the shares overlap: an algorithm within ε of the best counts as strongest there too)"
    else:
        text += "no algorithm is strongest anywhere on the dataset-difficulty range"
    anomalous = algorithms[algorithms["anomalous"].astype(bool)].sort_values("discrimination")
    if len(anomalous):
        text += ("; anomalous (better on harder datasets, discrimination clearly below 0) — " +
                 ", ".join(f"{short_name(str(a))} (discrimination {d:.2f})" for a, d in zip(anomalous["algorithm"],
                                                                            anomalous["discrimination"])))
    else:
        text += "; no algorithm is anomalous (no discrimination is clearly below 0)"
    flat = algorithms[~algorithms.get("flag", pd.Series("ok", index=algorithms.index)).isin(["ok", "constant"])]
    if len(flat):
        text += ("; flat curves, whose consistency and difficulty limit are not meaningful — " +
                 ", ".join(f"{short_name(str(a))} (discrimination {d:.2f})" for a, d in zip(flat["algorithm"], flat["discrimination"])))
    return text + "."


__all__ = ["rating_sentences", "leaderboard_table", "airt_sentence",
           "LEADERBOARD_ROWS"]

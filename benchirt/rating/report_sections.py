"""The rating stage's report sections: the Bradley–Terry leaderboard, the Glicko-2 ratings and the Friedman/Nemenyi
tests, each built from :class:`benchirt.rating.stage.RatingResult` and named by the stage's registry record
(:attr:`benchirt.pipeline.registry.Stage.sections`). A figure (:mod:`benchirt.rating.plots`) that cannot be drawn
becomes a note in its section."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from benchirt.document.context import SectionContext
from benchirt.document.figures import add_figure, figure_top, top_caption
from benchirt.document.page import Note, Paragraph, Section, Table
from benchirt.humanize import human_value, short_name

if TYPE_CHECKING:
    from benchirt.rating.stage import RatingResult


def leaderboard(rating: RatingResult, context: SectionContext) -> Section | None:
    """The order-free Bradley–Terry leaderboard with bootstrap intervals, joint rank intervals (and tiers when
    there are several), the entrants placed by a model among them (marked), and every pair; absent with fewer than
    two tested classifiers."""
    from benchirt.rating.verdict import measured

    tested = measured(rating.leaderboard)
    if len(tested) < 2:
        return None
    from benchirt.rating import plots as rating_plots

    section = Section("leaderboard", "Leaderboard (Bradley–Terry)")
    config_r = rating.config
    several_tiers = tested["tier"].nunique() > 1
    section.add(Paragraph(
        f"One Bradley–Terry fit over every pairwise outcome on every dataset ({rating.score.replace('_', ' ')} "
        f"decides each match), so no dataset order matters. Intervals: 2.5–97.5 % percentiles of "
        f"{config_r.n_bootstrap} bootstrap replicates over datasets. Primary decision on each pair (column "
        "“Separated (primary verdict)” of the pairs' table): " + _method_words(rating) + " Rank interval: the ranks "
        "a classifier can hold given those decisions (1 + the classifiers separated above it to k − those "
        f"separated below), for all classifiers at once at {100 * (1 - config_r.alpha):g} %"
        + ("; a tier boundary falls only where every classifier above is separated from every one below"
           if several_tiers else "") + " (docs/rating.md). Agreement checks on each pair: Wilcoxon signed-rank over datasets with "
        f"Holm's correction, and the Bayesian sign test with a ROPE of ±{config_r.rope:g} (Benavoli et al. 2017)."
    ))
    for note in rating.notes:
        section.add(Note(note))
    n_placed = len(rating.leaderboard) - len(tested)
    key = ("rank", "classifier", *(("placed_by_model",) if n_placed else ()), "bt_rating", "bt_low", "bt_high",
           "rank_low", "rank_high")
    placed = (f" {n_placed} rows placed by a model across datasets (not tested: rank and its interval are their "
              "placement's, a prediction among all entrants; no rating, tier or pair)." if n_placed else "")
    section.add(Table(rating.leaderboard if several_tiers else rating.leaderboard.drop(columns="tier"),
                      "Leaderboard, best first." + placed, key=key + (("tier",) if several_tiers else ())))
    if len(rating.left_out):
        section.add(Table(rating.left_out, f"Not tested: {len(rating.left_out)} classifiers on too few datasets to be "
                                           "told apart, placed on the leaderboard by a model (their games count in the "
                                           "Glicko-2 ratings)."))
    top = figure_top(len(tested))
    caption = ("Bradley–Terry ratings with 95 % bootstrap intervals" + (" of the tested classifiers" if n_placed else "")
               + "; labels: joint rank intervals" + ("; shaded bands are tiers" if several_tiers else ""))
    add_figure(section, lambda: rating_plots.plot_leaderboard(tested, top=top), caption + top_caption(top), context.dpi)
    if len(rating.pairwise):
        n_pairs = len(tested) * (len(tested) - 1) // 2
        listed = (f"Every pair (a rated above b): {n_pairs} pairs." if len(rating.pairwise) == n_pairs else
                  f"The contenders' pairs (a rated above b): {len(rating.pairwise)} of the {n_pairs} pairs — those among "
                  "the entrants that could be among the top places and the best rated, and the best real classifier's "
                  "pair with every other (a field this large is decided by intervals per entrant).")
        section.add(Table(rating.pairwise, listed,
                          key=("a", "b", "separated", "statistic", "p_adjusted", "bt_difference", "mean_difference",
                               "wilcoxon_p_holm", "p_a_better", "p_equivalent", "p_b_better")))
    return section


def _method_words(rating: RatingResult) -> str:
    """The primary verdict's method in one sentence for the leaderboard section."""
    from benchirt.rating.verdict import resampled_tables, verdict_method
    if len(rating.pairwise) and verdict_method(rating.pairwise) == "intervals":
        return (f"at this field's size a simultaneous {100 * (1 - rating.config.alpha):g} % interval for every "
                "entrant's rating from the bootstrap over datasets (the largest studentised deviation over all "
                "entrants, Romano & Wolf 2005; never narrower than Bonferroni's bound under Student's t for the "
                "datasets each entrant ran); two entrants are separated where their intervals do not overlap.")
    if rating.config.verdict == "range":
        return ("one test for all pairs at once — the ratings differ by more than the distance that leaderboards "
                f"with the scores shuffled within each dataset reach in {100 * (1 - rating.config.alpha):g} % of "
                "cases (wider for a pair the bootstrap finds noisier).")
    if rating.config.verdict == "holm":
        return ("each pair's Wilcoxon signed-rank test over the datasets both have, Holm's correction over all "
                f"pairs (Demšar 2006); chance of any false separation ≤ {100 * rating.config.alpha:g} %, whatever "
                "the classifiers' spreads.")
    return ("step-down max-T over all pairs at once (Westfall & Young 1993) — each pair's Wilcoxon signed-rank "
            "statistic over datasets against the largest among the pairs not yet separated, in "
            f"{resampled_tables(rating.pairwise)}; chance of any false separation ≤ {100 * rating.config.alpha:g} %.")


def ratings(rating: RatingResult, context: SectionContext) -> Section:
    """Glicko-2 ratings with intervals and their robustness to the dataset order (Cardoso et al. 2021 §4.7)."""
    from benchirt.rating import plots as rating_plots

    from benchirt.rating.agreement import plural

    section = Section("ratings", "Glicko-2 ratings")
    tournament = rating.tournament
    single = len(tournament.order) < 2
    section.add(Paragraph(
        f"One rating period per dataset ({plural(len(tournament.order), 'dataset')}, order: "
        f"{rating.config.order or 'sorted names'}); each pair of classifiers plays one match per dataset, "
        f"won by the higher {human_value(rating.config.score)} (the run's rate.score). Glicko-2 variant: "
        f"{rating.config.glicko}. "
        + ("With a single rating period there is no interval and no dataset order to vary. " if single
           else "Interval: rating ± 2 RD. ") + _glicko_leader(rating.ratings)
    ))
    top = figure_top(len(tournament.table))
    if single:
        section.add(Table(rating.ratings.drop(columns=["volatility", "low", "high", "separable_from_leader"],
                                              errors="ignore"), "Final ratings after the one rating period.",
                          key=("rank", "classifier", "rating")))
    else:
        n_orders = rating.permutation.n_permutations if rating.permutation is not None else 0
        possible = math.factorial(len(tournament.order))
        exist = (f"of the {possible:,} possible, some drawn more than once" if possible < n_orders
                 else f"of the {possible:,} possible" if possible <= 10 ** 6 else f"of {len(tournament.order)}! possible")
        section.add(Table(rating.ratings.drop(columns=["volatility"], errors="ignore"),
                          "Final ratings (key columns first); 'over orders' columns: the same tournament over "
                          f"{n_orders} random dataset orders ({exist}).",
                          key=("rank", "classifier", "rating", "low", "high", "separable_from_leader")))
        add_figure(section, lambda: rating_plots.plot_ratings(tournament, permutation=rating.permutation, top=top),
                   "Ratings with intervals (and their spread over dataset orders)" + top_caption(top), context.dpi)
    if rating.permutation is not None:
        add_figure(section, lambda orders=rating.permutation: rating_plots.plot_rank_distribution(orders, top=top),
                   "Rank distribution over random dataset orders" + top_caption(top), context.dpi)
    add_figure(section, lambda: rating_plots.plot_trajectories(tournament, top=top),
               "Rating after each period" + top_caption(top), context.dpi)
    return section


def _glicko_leader(table: pd.DataFrame) -> str:
    """The Glicko-2 leader, or the classifiers tied at the top."""
    top = table[table["rating"] == table["rating"].max()]["classifier"].sort_values().tolist()
    return f"Leader: {short_name(top[0])}." if len(top) == 1 else f"No single leader: {', '.join(map(short_name, top))} are tied."


def statistics(rating: RatingResult, context: SectionContext) -> Section:
    """Friedman test and Nemenyi post-hoc: heatmap and critical-difference diagram (Demšar 2006)."""
    from benchirt.rating import plots as rating_plots
    from benchirt.rating.statistics import MODE_LABELS

    section = Section("statistics", "Friedman / Nemenyi")
    rows = []
    for name, comparison in rating.comparisons.items():
        rows.append({"score": name, "classifiers": comparison.n_classifiers, "datasets": comparison.n_blocks,
                     "friedman_statistic": comparison.statistic, "p_value": comparison.p_value,
                     "critical_difference": comparison.critical_difference})
    if rows:
        section.add(Table(pd.DataFrame(rows), f"{MODE_LABELS[rating.config.stats]}; α = {rating.config.alpha}."))
    for name, reason in rating.skipped.items():
        section.add(Note(f"{name}: tests not run — {reason}"))
    for name, comparison in rating.comparisons.items():
        top = figure_top(comparison.n_classifiers)
        add_figure(section, lambda c=comparison: rating_plots.plot_nemenyi_heatmap(c, top=top),
                   f"Nemenyi p-values ({human_value(name)})" + top_caption(top), context.dpi)
        add_figure(section, lambda c=comparison: rating_plots.plot_cd_diagram(c, top=top),
                   f"Critical difference diagram ({human_value(name)})" + top_caption(top), context.dpi)
    return section

"""``benchirt rate SCORES --out DIR``: the Bradley–Terry leaderboard, pairwise comparisons, Glicko-2 ratings,
order analysis and Friedman/Nemenyi tests."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from benchirt.humanize import short_name
from benchirt.io import atomic_write_csv, atomic_write_figure, atomic_write_json, atomic_write_text
from benchirt.options import choices_metavar, from_arguments
from benchirt.out_folder import add_force_option, claim_out, refuse_foreign_out
from benchirt.rating.config import GLICKO_MODES, RESAMPLING_MODES, STATS_MODES, VERDICT_METHODS, RatingConfig

if TYPE_CHECKING:  # registering the command (``benchirt rate --help``) imports no statistics library
    from benchirt.rating.stage import RatingResult

#: The command's defaults are the options' (one source: :class:`RatingConfig`).
DEFAULTS = RatingConfig()
#: What the command may write into --out (a file of such a name that it did not write is never replaced).
WRITES = ("leaderboard.csv", "pairwise.csv", "left_out.csv", "ratings.csv", "trajectory.csv", "order.txt",
          "permutation.csv", "friedman.json", "nemenyi*.csv", "*.png")
#: The options whose text is read as :attr:`RatingConfig.OPTIONS` declares it (each ``dest`` is the field's name).
ARGUMENTS = ("n_permutations", "seed", "glicko", "n_bootstrap", "rope", "stats", "alpha", "verdict", "resampling",
             "tie_tolerance")

DESCRIPTION = """\
Rank classifiers over datasets. On every dataset each pair of classifiers plays one match (the
higher score wins, equal scores tie). The leaderboard is a Bradley-Terry fit of all matches of all
datasets at once (independent of the dataset order) with 95 % bootstrap intervals over datasets for
the rating. The primary verdict (--verdict stepdown, the default): step-down max-T (Westfall & Young
1993) over all pairs at once — each pair's Wilcoxon signed-rank statistic over datasets against the
largest among the pairs not yet separated, in tables whose datasets are reflected with random signs
(--resampling reflection, the default; all 2^D sign patterns when there are no more than --bootstrap) —
at family-wise error --alpha (default 0.05): the chance that any pair is falsely separated is at most 5 %
when each pair's per-dataset differences are symmetric about 0 under its null, whatever the classifiers'
spreads (--resampling shuffle: the classifiers shuffled within datasets, which assumes them exchangeable).
From the same decisions come each classifier's rank interval (rank_low..rank_high, holding for all
classifiers at once at 95 %) and, when there are several, the tiers. --verdict holm: each pair's
Wilcoxon signed-rank test with Holm's correction (valid whatever the spreads; it cannot reject with
few datasets); --verdict range: the single-step range test on the Bradley-Terry ratings. The other
methods are agreement checks: every pair is also compared by a Wilcoxon signed-rank test
(Holm-corrected) and a Bayesian sign test with a region of practical equivalence (--rope). Beside it:
a Glicko-2 tournament (one rating period per dataset; Glickman's algorithm, or the glicko2 package's
with --glicko decodirt), how it depends on the dataset order, and the Friedman/Nemenyi tests.

SCORES is a directory with one sub-folder per dataset holding true_scores.csv (Clf,Score), as
decodIRT writes them, or a long CSV with columns dataset,classifier,score.

Writes DIR/leaderboard.csv (every entrant, best first; rank_low, rank_high: the joint rank intervals; in a
sparse field the entrants on too few datasets to test are rows with placed_by_model True, placed by a model
across datasets: their rank and its 90 % interval a prediction, no rating), pairwise.csv
(every pair; separated: the primary decision), ratings.csv (the Glicko-2 table, sorted by
rating; with the order analysis in orders_* columns), permutation.csv, trajectory.csv, order.txt,
friedman.json, nemenyi.csv (nemenyi_<score>.csv for --also scores) and, with --plots,
leaderboard.png, ratings_intervals.png, trajectories.png, rank_distribution.png, nemenyi_heatmap.png,
cd_diagram.png."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "rate", help="leaderboard with intervals, pairwise tests, Glicko-2 ratings, Friedman/Nemenyi",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scores", metavar="SCORES", help="folder of <dataset>/true_scores.csv or a long CSV")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    add_force_option(parser)
    parser.add_argument("--score", default=None, metavar="NAME",
                        help="score deciding the matches: for folders true_score (default), test_accuracy or "
                             "cv_accuracy; for a long CSV a column name (default: score)")
    parser.add_argument("--also", action="append", default=[], metavar="NAME",
                        help="another score to run the Friedman/Nemenyi tests on (repeatable), e.g. test_accuracy")
    parser.add_argument("--order", default=DEFAULTS.order or "sorted", metavar="ORDER",
                        help="rating-period order: sorted (default), given, random:SEED, or a file of dataset names")
    # the values are read and checked by RatingConfig's declarations (rate.<option>: got …, expected …)
    parser.add_argument("--permutations", dest="n_permutations", metavar="N",
                        help=f"random dataset orders for the Glicko-2 order analysis (default {DEFAULTS.n_permutations}; 0 = off)")
    parser.add_argument("--seed", metavar="SEED",
                        help=f"seed of the random orders, the bootstrap and the Bayesian sampling (default {DEFAULTS.seed})")
    parser.add_argument("--glicko", metavar=choices_metavar(GLICKO_MODES),
                        help="glickman: Glicko-2 as Glickman's paper (default); decodirt: the glicko2 package "
                             "decodIRT used (reproduces its ratings)")
    parser.add_argument("--bootstrap", dest="n_bootstrap", metavar="N",
                        help="bootstrap replicates over datasets for the leaderboard intervals, and as many "
                             f"resampled tables for the primary verdict (default {DEFAULTS.n_bootstrap}; 0 = off)")
    parser.add_argument("--rope", metavar="R",
                        help="region of practical equivalence of the Bayesian comparison, in score units "
                             f"(default {DEFAULTS.rope:g})")
    parser.add_argument("--stats", metavar=choices_metavar(STATS_MODES),
                        help="blocks: Friedman with datasets as blocks + Nemenyi for Friedman (default); "
                             "decodirt: decodIRT's test on rating trajectories (compatibility only)")
    parser.add_argument("--alpha", metavar="ALPHA",
                        help="family-wise error rate of the primary verdict (its rank intervals hold jointly at "
                             f"1 - alpha) and level of the other tests: {RatingConfig.OPTIONS['alpha'].describe()} "
                             f"(default {DEFAULTS.alpha:g})")
    parser.add_argument("--verdict", metavar=choices_metavar(VERDICT_METHODS),
                        help="stepdown: step-down max-T on the pairs' signed-rank statistics (default); holm: "
                             "Wilcoxon signed-rank tests with Holm's correction; range: the single-step range test "
                             "on Bradley-Terry ratings (comparison)")
    parser.add_argument("--resampling", metavar=choices_metavar(RESAMPLING_MODES),
                        help="null tables of --verdict stepdown: reflection, each dataset's scores negated with "
                             "a random sign (default; valid for unequal spreads); shuffle, the classifiers "
                             "shuffled within each dataset (assumes them exchangeable)")
    parser.add_argument("--rows", metavar="DIR",
                        help="a folder of <dataset>/responses.csv (respondents x test rows of 0/1, as `benchirt "
                             "respond` and `benchirt import-runs` write them) for the verdict on this suite")
    parser.add_argument("--compare", metavar="CLF,CLF,...",
                        help="restrict the statistical tests to these classifiers (comma-separated)")
    parser.add_argument("--tie-tolerance", metavar="T",
                        help="scores closer than this are a draw (default 0: exact equality)")
    parser.add_argument("--benchirt-names", action="store_true",
                        help="rename decodIRT's classifier names (otimo, pessimo, ...) to benchirt's")
    parser.add_argument("--plots", action="store_true", help="also write the PNG figures")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchirt.rating.scores import artificial_roles, decodirt_to_benchirt_names, read_scores
    from benchirt.rating.stage import rate

    config = RatingConfig(score=args.score or ("true_score" if Path(args.scores).is_dir() else "score"),
                          order=args.order, **from_arguments(RatingConfig.OPTIONS, {
                              key: getattr(args, key) for key in ARGUMENTS}))
    refuse_foreign_out(args.out, "rate", force=args.force, writes=WRITES)
    scores = read_scores(args.scores, score=config.score)
    others = {name: read_scores(args.scores, score=name) for name in args.also}
    if args.benchirt_names:
        scores = decodirt_to_benchirt_names(scores)
        others = {name: decodirt_to_benchirt_names(table) for name, table in others.items()}
    compare = [name.strip() for name in args.compare.split(",") if name.strip()] if args.compare else None
    roles = artificial_roles(scores["classifier"].unique())
    rows = read_rows(args.rows, scores["dataset"].astype(str).unique()) if args.rows else None
    result = rate(scores, config=config, other_scores=others, compare=compare, roles=roles, rows=rows)
    out = claim_out(args.out, "rate", force=args.force, writes=WRITES)
    write_outputs(result, out, plots=args.plots)
    print(format_summary(result))
    for note in result.notes:
        print(f"benchirt rate: {note}", file=sys.stderr)
    for name, reason in result.skipped.items():
        print(f"benchirt rate: statistical tests on {name} skipped: {reason}", file=sys.stderr)
    print(f"wrote {out}")
    return 0


def read_rows(folder: str, datasets) -> dict:
    """Dataset → its respondents × test rows answers, from ``folder/<dataset>/responses.csv`` for every dataset of
    the scores (a DataError names the datasets without a file, or a folder not a dataset of the scores)."""
    from benchirt.errors import DataError
    from benchirt.irt.matrix_file import read_responses_csv

    root = Path(folder)
    if not root.is_dir():
        raise DataError(f"--rows {folder}: not a folder; give a folder of <dataset>/responses.csv")
    found = {path.parent.name for path in root.glob("*/responses.csv")}
    missing, extra = sorted(set(datasets) - found), sorted(found - set(datasets))
    if missing or extra:
        raise DataError(f"--rows {folder}: the response matrices must be the scores' datasets; "
                        + "; ".join(part for part in (
                            f"no <dataset>/responses.csv for {', '.join(missing[:5])}" if missing else "",
                            f"not in the scores: {', '.join(extra[:5])}" if extra else "") if part))
    return {name: read_responses_csv(root / name / "responses.csv") for name in sorted(datasets)}


def write_outputs(result: RatingResult, out: Path, *, plots: bool = False) -> None:
    """Write the rating artifacts into ``out`` (each file atomically, see :mod:`benchirt.io`)."""
    out = Path(out)
    tournament = result.tournament
    if len(result.leaderboard):
        atomic_write_csv(out / "leaderboard.csv", result.leaderboard)
        atomic_write_csv(out / "pairwise.csv", result.pairwise)
    if len(result.left_out):   # a sparse field's entrants not tested: why, and their placement
        atomic_write_csv(out / "left_out.csv", result.left_out)
    atomic_write_csv(out / "ratings.csv", result.ratings)
    atomic_write_csv(out / "trajectory.csv", tournament.trajectory)
    atomic_write_text(out / "order.txt", "\n".join(tournament.order) + "\n")
    if result.permutation is not None:
        atomic_write_csv(out / "permutation.csv", result.permutation.summary)
    main_score = result.config.score
    friedman = _comparison_json(result, main_score)
    others = [name for name in [*result.comparisons, *result.skipped] if name != main_score]
    if others:
        friedman["other_scores"] = {name: _comparison_json(result, name) for name in others}
    atomic_write_json(out / "friedman.json", friedman)
    for name, comparison in result.comparisons.items():
        file_name = "nemenyi.csv" if name == main_score else f"nemenyi_{name}.csv"
        atomic_write_csv(out / file_name, comparison.p_values.rename_axis("classifier"), index=True)
    if plots:
        _write_plots(result, out)


def _comparison_json(result: RatingResult, name: str) -> dict:
    if name in result.comparisons:
        return result.comparisons[name].to_dict()
    return {"score": name, "mode": result.config.stats, "skipped": result.skipped[name]}


def _write_plots(result: RatingResult, out: Path) -> None:
    from benchirt.rating import plots

    figures = {
        **({"leaderboard.png": plots.plot_leaderboard(result.leaderboard)} if len(result.leaderboard) else {}),
        "ratings_intervals.png": plots.plot_ratings(result.tournament, permutation=result.permutation),
        "trajectories.png": plots.plot_trajectories(result.tournament),
    }
    if result.permutation is not None:
        figures["rank_distribution.png"] = plots.plot_rank_distribution(result.permutation)
    comparison = result.comparisons.get(result.config.score)
    if comparison is not None:
        figures["nemenyi_heatmap.png"] = plots.plot_nemenyi_heatmap(comparison)
        figures["cd_diagram.png"] = plots.plot_cd_diagram(comparison)
    for file_name, figure in figures.items():
        atomic_write_figure(out / file_name, figure, dpi=120)


def format_summary(result: RatingResult) -> str:
    """The leaderboard and its verdict, the single-order Glicko table beside the order analysis, then
    the test result, as printed text (the top :data:`benchirt.rating.verdict.ROWS_SHOWN` rows of each table)."""
    import pandas as pd

    from benchirt.rating.agreement import plural
    from benchirt.rating.verdict import ROWS_SHOWN, probability

    lines = [*_leaderboard_lines(result), ""]
    table = result.ratings.head(ROWS_SHOWN)
    n_datasets = len(result.tournament.order)
    shown = pd.DataFrame(
        {
            "rank": table["rank"],
            "classifier": table["classifier"].astype(str).map(short_name),
            "rating": table["rating"].round(1),
            "rd": table["rd"].round(1),
            "vol": table["volatility"].round(4),
        }
    )
    if n_datasets > 1:   # one rating period: no interval worth printing (docs/rating.md)
        shown["R-2RD..R+2RD"] = [f"{lo:.0f}..{hi:.0f}" for lo, hi in zip(table["low"], table["high"])]
    lines.append(f"Glicko-2 ({result.config.glicko}) over {plural(n_datasets, 'dataset')} in one order "
                 "(an agreement check, not a verdict: which classifiers differ is the primary verdict's)")
    if result.permutation is not None:
        shown["orders: mean±sd"] = [f"{m:.0f}±{s:.0f}" for m, s in
                                    zip(table["orders_rating_mean"], table["orders_rating_sd"])]
        shown["rank range"] = [f"{lo}-{hi}" for lo, hi in zip(table["orders_rank_min"], table["orders_rank_max"])]
        shown["P(first)"] = table["orders_p_first"].map(probability)
        lines[-1] += f"; beside it {result.permutation.n_permutations} random orders (seed {result.permutation.seed})"
    lines.append(shown.to_string(index=False))
    if len(result.ratings) > len(table):
        lines.append(f"… and {len(result.ratings) - len(table)} more classifiers (ratings.csv has them all)")
    comparison = result.comparisons.get(result.config.score)
    if comparison is not None:
        lines += ["", str(comparison)]
    return "\n".join(lines)


def _leaderboard_lines(result: RatingResult) -> list[str]:
    """The leaderboard as printed lines: header, the top of the table with its intervals, verdict, checks."""
    import pandas as pd

    from benchirt.rating.placed import PLACED_LEVEL
    from benchirt.rating.verdict import ROWS_SHOWN, measured

    board = result.leaderboard
    if not len(board):
        return [result.verdict]
    def interval(low, high, digits):
        return "undefined" if pd.isna(low) or pd.isna(high) else f"{low:.{digits}f}..{high:.{digits}f}"
    top = board.head(ROWS_SHOWN)
    names = top["classifier"].astype(str).map(short_name)
    tested = top.index.isin(measured(board).index)
    shown = pd.DataFrame({
        "rank": top["rank"], "classifier": names.where(tested, names + " (placed)"),
        "rating": top["bt_rating"].round(1),
        "95% interval": [interval(lo, hi, 0) if t else "not tested"
                         for lo, hi, t in zip(top["bt_low"], top["bt_high"], tested)],
        f"rank interval (joint {100 * (1 - result.config.alpha):g}%)":
            [interval(lo, hi, 0) for lo, hi in zip(top["rank_low"], top["rank_high"])],
        **({"tier": top["tier"]} if board["tier"].nunique() > 1 else {}),
        "mean rank": top["mean_rank"].round(2),
    })
    from benchirt.rating.agreement import bayesian_check, glicko_check, nemenyi_check, wilcoxon_check

    checks = [wilcoxon_check(result.pairwise, alpha=result.config.alpha), bayesian_check(result.pairwise)]
    comparison = result.comparisons.get(result.config.score)
    if comparison is not None:
        checks.append(nemenyi_check(result.pairwise, comparison))
    orders = result.permutation
    checks.append(glicko_check(board, result.tournament.table, orders=orders.summary if orders is not None else None,
                               n_orders=orders.n_permutations if orders is not None else None))
    more = [f"… and {len(board) - len(top)} more classifiers (leaderboard.csv has them all)"] if len(board) > len(top) else []
    placed = ([f"(placed): not tested, placed by a model across datasets; its rank interval is its placement's "
               f"{100 * PLACED_LEVEL:g} % interval over multiple imputations"] if len(measured(board)) < len(board) else [])
    return [f"Leaderboard: Bradley-Terry on {result.score} over all datasets, {result.config.n_bootstrap} "
            f"bootstrap replicates over datasets (seed {result.config.seed})",
            shown.to_string(index=False), *more, *placed, f"Primary verdict: {result.verdict}",
            *(f"Agreement check: {check}" for check in checks if check)]

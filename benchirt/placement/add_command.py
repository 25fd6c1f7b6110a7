"""``benchirt add RUN_DIR --classifier NAME=DOTTED.ESTIMATOR [--params JSON] [--budget K]``."""
from __future__ import annotations

import argparse

DESCRIPTION = """\
Add new classifiers to a finished run: each is trained on exactly the stored split and preprocessing
of every dataset (with --budget K: on the K datasets `benchirt plan` chooses), its responses are
scored against the frozen item parameters of each dataset (θ, SE, True-Score; the IRT results are
not refitted and their files are not touched), and the ratings, leaderboard, tests and report are
rebuilt with it. With a budget the scores on the other datasets and the rank are predicted with 90 %
intervals; the prediction model carries that accuracy, and the plan chooses the datasets per CPU-second
(docs/new-classifier.md). Writes RUN_DIR/added/predicted.csv (classifier, dataset, score, low, high, observed, sd:
observed = measured, the others predicted) and RUN_DIR/added/standing.csv (classifier, rank,
rank_low, rank_high, mean_rank, …), and refreshes report.html / summary.md.

The pool is never retrained. A name that is a pool member, or that was added before with another
estimator or parameters, is refused; the same classifier again reuses every stored result."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("add", help="add a new classifier to a finished run (pool and items frozen)",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory written by `benchirt run`")
    parser.add_argument("--classifier", action="append", default=[], metavar="NAME=DOTTED.ESTIMATOR",
                        help="a scikit-learn classifier class, e.g. logreg=sklearn.linear_model.LogisticRegression "
                             "(repeat for several)")
    parser.add_argument("--params", action="append", default=[], metavar="JSON",
                        help="keyword arguments of the estimator as JSON, one per --classifier in the same order")
    parser.add_argument("--config", metavar="FILE",
                        help="YAML 'classifiers: {NAME: {estimator: DOTTED, params: {...}, scale: true}}'")
    parser.add_argument("--budget", type=int, metavar="K", help="run on K planned datasets only and predict the rest")
    parser.add_argument("--target", choices=("suite", "rank"), default="suite",
                        help="with --budget: choose the datasets to pin down the suite score (default) or the rank")
    parser.add_argument("--quiet", action="store_true", help="no per-dataset progress lines")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchirt.placement.add import add_classifiers, classifiers_from_args, run_allowed_packages

    classifiers = classifiers_from_args(args.classifier, args.params, args.config,
                                        allowed_packages=run_allowed_packages(args.run_dir))
    outcome = add_classifiers(args.run_dir, classifiers, budget=args.budget, show_progress=not args.quiet,
                              target=args.target)
    print(f"benchirt add: {outcome.computed} (classifier, dataset) results computed, {outcome.reused} reused "
          f"({outcome.seconds:.1f} s)")
    for note in outcome.notes:
        print(f"  note: {note}")
    for name, reasons in outcome.skipped.items():
        for dataset, reason in reasons.items():
            print(f"  skipped {name} on {dataset}: {reason}")
    assert outcome.standing is not None  # add_classifier computes it or raises
    board = _leaderboard(outcome.run_dir)
    for row in outcome.standing.itertuples(index=False):
        print(f"  {row.classifier}: {_board_place(board, row.classifier)}; by average rank {row.rank} of "
              f"{row.n_classifiers} (90 % prediction interval {row.rank_low}-{row.rank_high}); measured on "
              f"{row.n_measured} datasets, predicted on {row.n_predicted}")
    print(f"wrote {outcome.run_dir / 'added'}; the report: {outcome.run_dir / 'report.html'}")
    return 0


def _leaderboard(run_dir):
    """The rebuilt run's leaderboard (the report's), or None when the rate stage stored none."""
    from benchirt.errors import ArtifactError
    from benchirt.pipeline.results import load_stage_table

    try:
        return load_stage_table(run_dir, "rate", "leaderboard")
    except ArtifactError:
        return None


def _board_place(board, classifier: str) -> str:
    """"rank r of k on the leaderboard (joint rank interval a-b, as the report shows it)" (k the tested entrants),
    "placed r of n on the leaderboard by a model (…)" for an entrant on too few datasets to be tested, or why there
    is none."""
    if board is None or classifier not in set(board["classifier"].astype(str)):
        return "not on the leaderboard (see the report's notes)"
    from benchirt.rating.verdict import measured

    tested = measured(board)
    row = board[board["classifier"].astype(str) == classifier].iloc[0]
    if classifier not in set(tested["classifier"].astype(str)):
        return (f"placed {int(row['rank'])} of {len(board)} on the leaderboard by a model across datasets, not tested "
                f"(90 % interval {int(row['rank_low'])}-{int(row['rank_high'])})")
    interval = "" if row.isna()[["rank_low", "rank_high"]].any() else \
        f" (joint rank interval {int(row['rank_low'])}-{int(row['rank_high'])}, as the report shows it)"
    return f"rank {int(row['rank'])} of {len(tested)} on the leaderboard{interval}"

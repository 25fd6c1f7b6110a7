"""``benchirt plan`` and ``benchirt predict``: place new classifiers in a finished study from a few datasets."""
from __future__ import annotations

import argparse

from benchirt.errors import DataError
from benchirt.io import atomic_write_csv
from benchirt.options import choices_metavar, from_arguments, validated
from benchirt.out_folder import add_force_option, claim_out, refuse_foreign_out

#: The priors of :func:`benchirt.placement.model.fit_score_model` (not imported: the CLI starts without scipy).
PRIORS = ("mixture", "gaussian")
#: What each command may write into --out (a file of such a name that it did not write is never replaced).
PLAN_WRITES = ("plan.csv",)
PREDICT_WRITES = ("predicted.csv", "standing.csv")

CALIBRATION_HELP = ("a benchirt run directory, a folder of decodIRT dataset folders with true_scores.csv, "
                    "or a long CSV dataset,classifier,score (as `benchirt rate` reads)")

PLAN_DESCRIPTION = """\
Choose the K datasets a new classifier should be run on (greedy Bayesian design on a low-rank model of
the calibration's score matrix; see docs/new-classifier.md). The accuracy of the placement comes from
the model (`benchirt predict`) more than from the choice among datasets of equal cost; the saving is in
the cost: planned per CPU-second, a newcomer is pinned down for a fraction of the CPU of random datasets
(benchmarks/plan_by_cost.py).
Each next dataset is the one that narrows the summary most per CPU-second (--per cpu, the default:
the datasets' costs come from their shapes — a run's own datasets, or OpenML-CC18's recorded shapes
by name — through the shape-based cost model; without shapes the plan counts datasets) or per
dataset (--per dataset).
Writes DIR/plan.csv: dataset, order, status (observed / to run), summary_sd
(posterior SD of the classifier's mean standardised score — or, with --target rank, of its average
rank — once the datasets up to that row are run), and with costs cost_cpu_s, cumulative_cpu_s.
With --observed OBS.csv (classifier, dataset, score of one new classifier) the plan continues from the
datasets already run, given their scores (which pool members the classifier resembles); they count
against K. Running one dataset at a time and re-planning after each is the adaptive use."""

PREDICT_DESCRIPTION = """\
Predict new classifiers' scores on every dataset of the calibration from the datasets they were run
on, with 90 % intervals, and their rank among the pool with a rank interval. OBS.csv: classifier,
dataset, score rows (scores on the calibration's scale, e.g. True-Scores) for one or more new
classifiers. Writes DIR/predicted.csv (classifier, dataset, score, low, high, observed, sd; observed
rows are measured values, the others predictions) and DIR/standing.csv (classifier, rank, rank_low,
rank_high, mean_rank with its interval — the Friedman average rank over the datasets — n_classifiers,
n_measured, n_predicted)."""


def register(subparsers) -> None:
    plan = subparsers.add_parser("plan", help="which datasets to run a new classifier on (budget K)",
                                 description=PLAN_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    plan.add_argument("calibration", metavar="CALIBRATION", help=CALIBRATION_HELP)
    plan.add_argument("--budget", type=int, required=True, metavar="K", help="number of datasets to run")
    plan.add_argument("--observed", metavar="OBS.csv", help="results so far (one new classifier)")
    plan.add_argument("--target", choices=("suite", "rank"), default="suite",
                      help="what to pin down: the mean score over the suite (default) or the average rank")
    plan.add_argument("--per", choices=("cpu", "dataset"), default="cpu",
                      help="choose the next dataset by what it tells per CPU-second (default, when the datasets' "
                           "shapes are known) or per dataset")
    _common(plan)
    plan.set_defaults(func=run_plan)
    predict = subparsers.add_parser("predict", help="predict new classifiers' scores and standing from a few datasets",
                                    description=PREDICT_DESCRIPTION,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    predict.add_argument("calibration", metavar="CALIBRATION", help=CALIBRATION_HELP)
    predict.add_argument("--observed", metavar="OBS.csv", required=True, help="classifier, dataset, score rows")
    _common(predict)
    predict.set_defaults(func=run_predict)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    add_force_option(parser)
    parser.add_argument("--exclude", nargs="+", default=[], metavar="NAME", help="leave these pool members out")
    # the values are read and checked by the model's declarations (placement.<option>: got …, expected …)
    parser.add_argument("--rank", metavar="R",
                        help="latent factors of the model (default: the most the calibration supports for the "
                             "mixture prior, 3 for the Gaussian one)")
    parser.add_argument("--prior", metavar=choices_metavar(PRIORS), default="mixture",
                        help="prior of a new classifier's skills: a mixture around the pool members (default) or "
                             "one Gaussian over the pool (the previous model)")


def _model(args: argparse.Namespace):
    return _calibrated(args)[0]


def _calibrated(args: argparse.Namespace):
    """The fitted score model and the calibration it was fitted on."""
    from benchirt.placement.calibration import load_calibration
    from benchirt.placement.model import MODEL_OPTIONS, fit_score_model

    options = validated("placement", from_arguments(MODEL_OPTIONS, {"rank": args.rank, "prior": args.prior}),
                        MODEL_OPTIONS)  # before the calibration is read
    calibration = load_calibration(args.calibration, exclude=args.exclude)
    for note in calibration.notes:
        print(f"note: {note}")
    model = fit_score_model(calibration.scores, rank=options.get("rank"), prior=options["prior"])
    print(f"model: {model.kind} prior, rank {model.rank}, {len(model.datasets)} datasets x "
          f"{model.scores.shape[1]} pool classifiers")
    for note in model.notes:
        print(f"note: {note}")
    return model, calibration


def read_observed(path: str):
    """``classifier, dataset, score`` rows (checked by :func:`benchirt.rating.validate_scores`)."""
    from benchirt.rating.scores import read_scores

    frame = read_scores(path, score="score")
    return frame.assign(dataset=frame["dataset"].astype(str), classifier=frame["classifier"].astype(str))


def _warn_about_observed(model, observed) -> None:
    """Print :func:`benchirt.placement.predict.off_scale_notes` (observed scores on another scale) and
    :func:`benchirt.placement.predict.beyond_pool_notes` (newcomers beyond the pool)."""
    from benchirt.placement.predict import beyond_pool_notes, off_scale_notes

    for note in off_scale_notes(model, observed) + beyond_pool_notes(model, observed):
        print(f"warning: {note}")


def run_plan(args: argparse.Namespace) -> int:
    import pandas as pd

    from benchirt.placement.design import plan_datasets

    refuse_foreign_out(args.out, "plan", force=args.force, writes=PLAN_WRITES)
    model, calibration = _calibrated(args)
    costs = calibration.costs if args.per == "cpu" else None
    done = pd.Series(dtype=float)
    if args.observed:
        observed = read_observed(args.observed)
        names = sorted(observed["classifier"].unique())
        if len(names) > 1:
            raise DataError(f"{args.observed}: plan continues one classifier's results, found {names}")
        done = pd.Series(observed["score"].to_numpy(float), index=observed["dataset"].to_numpy())
    plan = plan_datasets(model, args.budget, observed=done, target=args.target, costs=costs)
    if args.observed:
        _warn_about_observed(model, observed)
    out = claim_out(args.out, "plan", force=args.force, writes=PLAN_WRITES)
    atomic_write_csv(out / "plan.csv", plan)
    todo = plan[plan["status"] == "to run"]
    spent = f", about {todo['cost_cpu_s'].sum():.0f} CPU-s" if costs is not None else ""
    print(f"plan: run {len(todo)} of {len(model.datasets)} datasets ({len(done)} already observed{spent}): "
          f"{', '.join(todo['dataset'].tolist()) or 'none'}")
    print(f"wrote {out / 'plan.csv'}")
    return 0


def run_predict(args: argparse.Namespace) -> int:
    from benchirt.placement.predict import predict_new

    refuse_foreign_out(args.out, "predict", force=args.force, writes=PREDICT_WRITES)
    model = _model(args)
    observed = read_observed(args.observed)
    predicted, standings = predict_new(model, observed)
    _warn_about_observed(model, observed)
    out = claim_out(args.out, "predict", force=args.force, writes=PREDICT_WRITES)
    atomic_write_csv(out / "predicted.csv", predicted)
    atomic_write_csv(out / "standing.csv", standings)
    for row in standings.itertuples(index=False):
        print(f"{row.classifier}: rank {row.rank} of {row.n_classifiers} (90 % interval {row.rank_low}-{row.rank_high}); "
              f"measured on {row.n_measured} datasets, predicted on {row.n_predicted}")
    print(f"wrote {out / 'predicted.csv'} and {out / 'standing.csv'}")
    return 0

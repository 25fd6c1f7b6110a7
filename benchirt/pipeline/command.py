"""``benchirt run`` (the whole study) and ``benchirt respond`` (responses only)."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from benchirt.errors import ConfigError
from benchirt.pipeline.config import STAGES, load_config, select_stages
from benchirt.pipeline.registry import stage
from benchirt.safe_text import printable

if TYPE_CHECKING:
    from benchirt.pipeline.manifest import Manifest

RUN_DESCRIPTION = f"""\
Run the whole study: {' -> '.join(STAGES)}.

With no CONFIG it runs the packaged default (configs/default.yaml: the embedded suite of 12 small
real datasets, every stage including AIRT, offline, about a minute on 2 cores). Other configs:
configs/cc18-offline.yaml (the 27 offline CC18 datasets), configs/cc18.yaml (OpenML-CC18 online,
decodIRT's protocol), configs/airt-aslib.yaml (AIRT on ASlib), configs/slurm-example.yaml (on a SLURM
cluster: execution.backend slurm; --dry-run writes its jobs without submitting them).

Every (dataset, stage) result is stored in the run directory under a key of the options and inputs
that produced it, so a rerun (after a kill, a crash or an edit of one stage's options) computes only
what is missing or changed; --force recomputes. A dataset a stage cannot use is recorded as skipped
with its reason; one whose task keeps failing (or keeps killing its worker process) is recorded as failed after
execution.retries retries, and a rerun does not try it again unless --retry-failed; the other
datasets finish either way. A configured classifier whose fit fails on a dataset is left out of that
dataset and named at the end of the run, in the manifest, summary.md and the report; --strict (or
execution.strict: true) fails the dataset instead. Exit status: 0 when everything asked for is in the
results, 1 when something failed, a classifier was left out or a stage has no result at all (it skipped
every dataset, or could not run: named at the end), 2 on a bad config or --out.

Writes DIR/manifest.json, DIR/config.yaml, DIR/artifacts/<stage>/..., DIR/report.html and
DIR/summary.md (default DIR: the config's `out`, else runs/<config name>)."""

RESPOND_DESCRIPTION = """\
Produce the response matrices only (the respond stage of `benchirt run`), and export them for the
other commands: DIR/responses/<dataset>/responses.csv (respondents x test items of 0/1, first column
the classifier: the input of `benchirt irt`), roles.csv, test_accuracy.csv and cv_accuracy.csv.
SOURCE is a config file or a suite: embedded, builtin, cc18-offline, OpenML-CC18, a folder of ARFF/CSV/parquet
files, or a suite file. Results are cached in DIR like `benchirt run` does."""


def register(subparsers) -> None:
    run = subparsers.add_parser("run", help=f"the whole pipeline: {', '.join(STAGES)}",
                                description=RUN_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("config", nargs="?", metavar="CONFIG", help="YAML config (default: the packaged default config)")
    _common(run)
    run.add_argument("--stages", nargs="+", metavar="STAGE", help=f"run only these stages ({', '.join(STAGES)})")
    run.add_argument("--skip", nargs="+", default=[], metavar="STAGE", help="leave these stages out")
    run.add_argument("--explain", action="store_true",
                     help="compute and write nothing: list per (dataset, stage) whether the stored result would be "
                          "reused or why it would be recomputed (options, input, source code or library changed)")
    run.add_argument("--estimate", action="store_true",
                     help="print the expected time and peak memory per dataset and in total for the executor "
                          "(from dataset metadata and a calibrated cost model; docs/scale.md), then stop")
    run.add_argument("--dry-run", action="store_true",
                     help="execution.backend slurm: write the job list (tasks, estimated CPU, jobs) and the batch "
                          "script into DIR/slurm/ without submitting anything (docs/scale.md), then stop")
    run.set_defaults(func=run_command)

    respond = subparsers.add_parser("respond", help=stage("respond").help,
                                    description=RESPOND_DESCRIPTION,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    respond.add_argument("source", metavar="CONFIG_OR_SUITE", help="a YAML config or a suite spec")
    _common(respond)
    respond.set_defaults(func=respond_command)


def _common(parser) -> None:
    parser.add_argument("--out", metavar="DIR", help="run directory")
    parser.add_argument("--force", action="store_true",
                        help="recompute even the results already stored; also lets --out be a non-empty folder that is "
                             "not a benchirt run (the run is written beside its files and overwrites none of them)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="run again the datasets that failed in the previous run (by default they are not retried)")
    parser.add_argument("--n-jobs", metavar="N", help="parallel datasets (overrides execution.n_jobs)")
    parser.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address, e.g. tcp://host:8786 "
                        "(overrides execution.scheduler; 'local' starts a LocalCluster of --n-jobs workers)")
    parser.add_argument("--strict", action="store_true",
                        help="a configured classifier whose fit fails fails its dataset instead of being left out of it "
                             "(sets execution.strict)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def run_command(args: argparse.Namespace) -> int:
    from benchirt.pipeline.export import export_irt
    from benchirt.pipeline.results import load_stage_table
    from benchirt.pipeline.run import run_pipeline
    from benchirt.pipeline.summary import format_summary

    config = load_config(args.config)
    notes: list[str] = []
    stages = select_stages(args.stages or config.stages, skip=args.skip, notes=notes)
    if not stages:
        raise ConfigError("no stage left to run after --skip; name at least one of " + ", ".join(STAGES))
    config = _with_execution(replace(config, stages=stages, notes=config.notes + tuple(notes)), args)
    if args.explain:
        outcome = run_pipeline(config, out=args.out, force=args.force, show_progress=False, explain=True)
        print(printable(format_explanation(outcome.run_dir, outcome.manifest)))
        return 0
    if args.dry_run:
        from benchirt.pipeline.run import default_run_dir
        from benchirt.pipeline.slurm_dry_run import dry_run

        print(printable(dry_run(config, args.out or default_run_dir(config), force=args.force)))
        return 0
    if args.estimate:
        from benchirt.pipeline.estimate import estimate_text

        print(estimate_text(config))
        return 0
    _warn_long_run(config)
    outcome = run_pipeline(config, out=args.out, force=args.force, show_progress=not args.quiet,
                           retry_failed=args.retry_failed)
    if _irt_export_stale(outcome, config):
        export_irt(outcome.run_dir)
    glicko = load_stage_table(outcome.run_dir, "rate", "tournament/table")
    print(format_summary(outcome.run_dir, outcome.manifest, glicko=glicko,
                         top=config.stage_config("report").top_classifiers, verdict=_leaderboard_verdict(outcome.run_dir),
                         command=rerun_command("run", args.config, outcome.run_dir)))
    return outcome.exit_code


def _warn_long_run(config) -> None:
    """Say before the run starts when its IRT stage is estimated long, with the options that cut it
    (:func:`benchirt.pipeline.estimate.long_run_warning`)."""
    from benchirt.pipeline.estimate import long_run_warning

    warning = long_run_warning(config)
    if warning:
        print(printable(warning), file=sys.stderr, flush=True)


def _irt_export_stale(outcome, config) -> bool:
    """Whether RUN_DIR/irt/ must be written again: the irt stage computed something, a dataset's folder is missing,
    or the tables were derived under other IRT thresholds than ``config``'s (they are in no fit's key)."""
    import json

    from benchirt.io import safe_name
    from benchirt.irt.config import summary_options
    from benchirt.pipeline.export import THRESHOLDS_FILE

    if outcome.manifest.stage_report("irt").get("computed"):
        return True
    with_irt = outcome.manifest.result_keys("irt")
    if any(not (Path(outcome.run_dir) / "irt" / safe_name(name) / "items.csv").is_file() for name in with_irt):
        return True
    recorded = Path(outcome.run_dir) / "irt" / THRESHOLDS_FILE
    try:
        written = json.loads(recorded.read_text())
    except (OSError, ValueError):
        written = None
    return bool(with_irt) and written != json.loads(json.dumps(summary_options(config.stage_config("irt").to_dict())))


def _leaderboard_verdict(run_dir) -> str | None:
    """The stored leaderboard's verdict sentence, read from its two tables alone (the summary stays light)."""
    from benchirt.pipeline.results import load_stage_table

    board, pairwise = (load_stage_table(run_dir, "rate", name) for name in ("leaderboard", "pairwise"))
    if board is None or pairwise is None or board.empty:
        return None
    from benchirt.rating.verdict import leaderboard_verdict

    return leaderboard_verdict(board, pairwise) + _left_out_sentence(run_dir)


def _left_out_sentence(run_dir) -> str:
    """Who a sparse field left out of the tests and why (``RatingResult.left_out``), or nothing."""
    from benchirt.errors import ArtifactError
    from benchirt.pipeline.results import load_stage_table

    try:
        left_out = load_stage_table(run_dir, "rate", "left_out")
    except ArtifactError:   # a rating stored before the field existed
        return ""
    if left_out is None or left_out.empty:
        return ""
    placed = (" — placed by a model across datasets instead, a prediction"
              if "placed_rank" in left_out and left_out["placed_rank"].notna().any() else "")
    return (f" The {len(left_out)} classifiers not tested are {left_out['reason'].iloc[0]}{placed} (the report "
            "and summary.md name them)")


def format_explanation(run_dir, manifest: Manifest) -> str:
    """``benchirt run --explain``'s listing: one line per (stage, dataset) decision, then the report's."""
    lines = [f"benchirt run --explain: {run_dir} (nothing was computed or written)"]
    for step, report in manifest.stages.items():
        for name, entries in sorted(manifest.datasets.items()):
            if step in entries:
                lines.append(f"  {step:<8} {name:<24} {entries[step].get('decision', entries[step]['status'])}")
        if step in manifest.artifacts:
            entry = manifest.artifacts[step]
            lines.append(f"  {step:<8} {'(all datasets)':<24} {entry.get('decision', entry['status'])}")
        if step in manifest.documents:
            lines.append(f"  {step:<8} {'':<24} {manifest.documents[step]['decision']}")
        if report.get("status") == "skipped":
            lines.append(f"  {step:<8} {'':<24} would be skipped: {report.get('note')}")
    return "\n".join(lines)


def respond_command(args: argparse.Namespace) -> int:
    from benchirt.pipeline.export import export_responses
    from benchirt.pipeline.run import run_pipeline
    from benchirt.pipeline.summary import format_summary

    source = Path(args.source)
    if source.suffix in (".yaml", ".yml") and source.is_file() and not _is_suite_file(source):
        config = load_config(source, stages=["respond"])
    else:
        config = load_config({"suite": args.source, "stages": ["respond"]})
    config = _with_execution(config, args)
    outcome = run_pipeline(config, out=args.out, force=args.force, show_progress=not args.quiet,
                           retry_failed=args.retry_failed)
    written = export_responses(outcome.run_dir)
    print(format_summary(outcome.run_dir, outcome.manifest, command=rerun_command("respond", args.source, outcome.run_dir)))
    print(f"Responses of {len(written)} dataset(s) in {Path(outcome.run_dir) / 'responses'}")
    return outcome.exit_code


def rerun_command(command: str, source: str | None, run_dir) -> str:
    """The command line that runs the same study again on ``run_dir`` (quoted for a POSIX shell)."""
    import shlex

    return " ".join(["benchirt", command, *([shlex.quote(str(source))] if source else []), "--out",
                     shlex.quote(str(run_dir))])


def _with_execution(config, args):
    """Apply --n-jobs / --scheduler to the config's execution section (re-validated)."""
    from dataclasses import asdict

    from benchirt.options import from_arguments
    from benchirt.pipeline.config import ExecutionConfig

    execution = asdict(config.execution)
    execution.update(from_arguments(ExecutionConfig.OPTIONS, {"n_jobs": args.n_jobs}))  # checked as declared
    if getattr(args, "strict", False):
        execution["strict"] = True
    if args.scheduler:
        if args.scheduler == "local":
            execution.update(backend="dask", scheduler=None)
        else:
            execution["scheduler"] = args.scheduler
    return replace(config, execution=ExecutionConfig.from_dict(execution))


def _is_suite_file(path: Path) -> bool:
    """A suite file written by ``benchirt subset`` (YAML with a ``datasets`` list) rather than a config."""
    import yaml

    from benchirt.safe_yaml import safe_load

    try:
        data = safe_load(path.read_text(encoding="utf-8"), str(path))
    except (OSError, yaml.YAMLError, ConfigError):
        return False
    return isinstance(data, dict) and "datasets" in data and "stages" not in data and "suite" not in data


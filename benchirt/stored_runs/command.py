"""``benchirt import-runs SOURCE --out DIR``: response matrices from runs OpenML already stores.

SOURCE is a folder in OpenML's cache layout (:mod:`benchirt.stored_runs.folder`), a respondents × items 0/1 CSV
(:mod:`benchirt.stored_runs.matrix`), or — online, cached by :mod:`benchirt.stored_runs.fetch` — an OpenML task id, a
comma-separated list of task ids or a suite (``OpenML-CC18``, ``suite:99``).
"""
from __future__ import annotations

import argparse
from benchirt.errors import ConfigError, DataError
from benchirt.options import choices_metavar, from_arguments, validated
from benchirt.out_folder import add_force_option, claim_out, refuse_foreign_out
from benchirt.safe_text import printable

#: What the command may write into --out (a folder of that name that it did not write is never written into).
WRITES = ("responses",)

DESCRIPTION = """\
Build response matrices from stored predictions instead of training classifiers.

SOURCE:
  a folder in OpenML's cache layout: runs/<run_id>/{description.xml, predictions.arff}, plus
  tasks/<task_id>/{task.xml, datasplits.arff} and datasets/<did>/{description.xml, dataset.arff}
  where a file has no 'correct' column (the truth then comes from the dataset by row_id);
  respondents x items matrix CSV files, one per task (the dataset is named after the file): one
  file, several, or a folder of *.csv; a header row of items (OpenML row ids, or any names), a
  first column naming each run, cells 0/1 (or 0.0/1.0). A name maps to its flow and run as
  <flow>||<run> (no '||': the whole name is the flow), or by --respondent-pattern, e.g.
  '(?P<flow>.+)_(?P<run>best|\\d+)$'; the same flow is the same respondent on every file;
  or (online, cached under --cache) an OpenML task id, ids separated by commas, or a suite
  (OpenML-CC18, suite:99).

Writes DIR/responses/<dataset>/responses.csv (respondents x items, the format 'benchirt respond'
exports), respondents.csv (run id, flow id and name, setup id, uploader, accuracy, OpenML link),
winners_curse.csv and import.json (the rule, every count and every skipped run).

Selection (--per-flow): 'best-held-out' (default) chooses each flow's best run on the even folds
and keeps the odd folds' rows as items, so no row both chooses and scores — only when some flow has
several runs: with one run per flow there is nothing to choose and every row stays an item (the
console and import.json's rule_applied say which); 'best', 'median' and
'first' keep one run per flow chosen on all rows; 'all' keeps every run. Runs below the accuracy
floor are dropped (default 1/number of classes), identical response patterns are kept once
(--keep-duplicates keeps them), --max-items keeps a stratified sample of items. Every count is
printed and recorded; a run (or file) that cannot be used is skipped with one line saying why.
Over several datasets the field is said: how many flows are on how many datasets, and the share of
the field each dataset holds (a flow is compared on the datasets it ran on)."""


def register(subparsers) -> None:
    from benchirt.stored_runs.names import DEFAULT_RULE, RULES

    parser = subparsers.add_parser("import-runs", help="response matrices from OpenML's stored runs (no training)",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", metavar="SOURCE", nargs="+",
                        help="runs folder, respondents x items CSV file(s) or a folder of them, task id(s) or suite")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    add_force_option(parser)
    # the values are read and checked by the declarations of a respond section that imports runs
    # (ImportConfig: respond.<option>: got …, expected …)
    parser.add_argument("--per-flow", metavar=choices_metavar(RULES), default=DEFAULT_RULE,
                        help="selection rule (default %(default)s)")
    parser.add_argument("--min-accuracy", metavar="A",
                        help="drop runs below this accuracy (default: 1/number of classes when known)")
    parser.add_argument("--max-items", metavar="N", help="a stratified sample of at most N items")
    parser.add_argument("--keep-duplicates", action="store_true", help="keep identical response patterns")
    parser.add_argument("--seed", default="0", metavar="SEED", help="seed of the item sample and halves (default 0)")
    parser.add_argument("--respondent-pattern", metavar="REGEX",
                        help="matrix files: a regular expression with groups 'flow' and 'run' matching a whole "
                             "respondent name (default: <flow>||<run>)")
    online = parser.add_argument_group("online SOURCE (task ids or a suite)")
    online.add_argument("--cache", metavar="DIR", help="benchirt's runs cache (default ~/.cache/benchirt/openml-runs)")
    online.add_argument("--flows", metavar="IDS", help="only these flow ids (comma-separated)")
    online.add_argument("--uploaders", metavar="IDS", help="only runs of these uploader ids (comma-separated)")
    online.add_argument("--tag", help="only runs with this tag")
    online.add_argument("--top-flows", metavar="N", help="only the N flows with the best run accuracy per task")
    online.add_argument("--max-runs", metavar="N", help="at most N runs per task (most accurate first)")
    parser.set_defaults(func=run)


def _ids(text: str | None, option: str) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ConfigError(f"{option} {text!r}: give numeric ids separated by commas") from None


def given_options(args: argparse.Namespace) -> dict:
    """The selection, naming and online options given, read and checked as a respond section that imports runs declares
    them (:attr:`benchirt.stored_runs.config.ImportConfig.OPTIONS`: ``respond.max_items: got 1, expected …``)."""
    from benchirt.stored_runs.config import ImportConfig

    texts = {key: getattr(args, key) for key in ("per_flow", "min_accuracy", "max_items", "seed", "top_flows",
                                                 "max_runs", "respondent_pattern", "cache")}
    return validated("respond", from_arguments(ImportConfig.OPTIONS, texts), ImportConfig.OPTIONS)


def read_source(args: argparse.Namespace, given: dict):
    """The :class:`~benchirt.stored_runs.matrix.RunMatrix` of every dataset SOURCE names (``given``: :func:`given_options`)."""
    from benchirt.stored_runs.respondent_names import RespondentNaming
    from benchirt.stored_runs.sources import is_offline, read_offline

    naming = RespondentNaming(given.get("respondent_pattern"))
    if len(args.source) > 1 or is_offline(args.source[0]):
        return read_offline(args.source, naming=naming)
    if given.get("respondent_pattern") is not None:
        raise ConfigError("--respondent-pattern applies to matrix files; OpenML's runs name their flows and runs in "
                          "their descriptions: leave it out")
    from benchirt.stored_runs.fetch import FetchOptions, fetch_source
    from benchirt.stored_runs.folder import read_runs_folder

    options = FetchOptions(flows=_ids(args.flows, "--flows"), uploaders=_ids(args.uploaders, "--uploaders"),
                           tag=args.tag, top_flows=given.get("top_flows"), max_runs=given.get("max_runs"))
    fetched = fetch_source(args.source[0], options=options, cache=given.get("cache"))
    print(f"{len(fetched.run_ids)} runs in {fetched.folder} ({fetched.requests} requests to OpenML, "
          f"{len(fetched.failures)} runs not fetched)")
    if not fetched.run_ids:
        raise DataError(f"{args.source[0]}: no run could be fetched (see {fetched.folder / 'failures.json'})")
    return read_runs_folder(fetched.folder, only={str(r) for r in fetched.run_ids})


def run(args: argparse.Namespace) -> int:
    from benchirt.stored_runs.export import write_selection
    from benchirt.stored_runs.field import select_field
    from benchirt.stored_runs.select import SelectionOptions

    given = given_options(args)
    refuse_foreign_out(args.out, "import-runs", force=args.force, writes=WRITES)
    options = SelectionOptions(rule=given["per_flow"], min_accuracy=given.get("min_accuracy"),
                               max_items=given.get("max_items"), deduplicate=not args.keep_duplicates,
                               seed=given["seed"])
    source = " ".join(args.source)
    matrices = read_source(args, given)
    for line in source_summary(source, matrices):
        print(printable(line))
    selected, options, coverage = select_field(matrices, options)
    out = claim_out(args.out, "import-runs", force=args.force, writes=WRITES)
    if coverage is not None:
        print(printable(coverage.summary()))
    for matrix, selection in selected:
        field = coverage.record(matrix.dataset) if coverage is not None else None
        folder = write_selection(out, matrix, selection, options, source, field=field)
        n, m = selection.responses.shape
        print(printable(f"{matrix.dataset}: {n} respondents x {m} items from {len(matrix.runs)} runs "
                        f"({selection.rule_applied}) -> {folder}"))
        for line in matrix.notes + selection.notes:
            if coverage is None or line != coverage.summary():  # printed once above
                print(printable(f"  {line}"))
        for line in matrix.skipped:
            print(printable(f"  skipped: {line}"))
    return 0


def source_summary(source, matrices) -> list[str]:
    """What the source held: every run folder (or matrix file) read into a dataset or skipped, and those
    skipped before their dataset was known, one line each."""
    first = matrices[0]
    if first.source_found is None:
        return []
    if first.source_unit == "matrix file":  # counted by file; a file's rows skipped are its dataset's
        return [f"{source}: {first.source_found} matrix file(s): {len(matrices)} read, {len(first.source_skipped)} "
                "skipped"] + [f"  skipped: {line}" for line in first.source_skipped]
    read = sum(len(m.runs) for m in matrices)
    skipped = sum(len(m.skipped) for m in matrices) + len(first.source_skipped)
    lines = [f"{source}: {first.source_found} found: {read} read into {len(matrices)} dataset(s), {skipped} skipped"]
    return lines + [f"  skipped: {line}" for line in first.source_skipped]

"""``benchirt report RUN_DIR``: (re)write the HTML report and Markdown summary of a run."""
from __future__ import annotations

import argparse
from pathlib import Path

from benchirt.out_folder import add_force_option, claim_out, refuse_foreign_out

#: What the command writes into an --out of its own (a file of such a name that it did not write is never replaced).
WRITES = ("report.html", "summary.md", "report-tables")

DESCRIPTION = """\
Write RUN_DIR/report.html (one page: tables and figures of every stage that ran, figures embedded;
the CSV of a table over 64 kB is a file in RUN_DIR/report-tables/, linked) and RUN_DIR/summary.md
(the same text and tables) from a run directory of `benchirt run`. Nothing is recomputed. A run still in progress is refused (its results are still being
written): wait for it to finish."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("report", help="HTML report and Markdown summary of a finished run",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run directory written by `benchirt run`")
    parser.add_argument("--out", metavar="DIR", help="write the two files here instead of RUN_DIR")
    add_force_option(parser, what="the two files")
    parser.add_argument("--title", help="page title (default: the run's report.title)")
    parser.set_defaults(func=report_command)


def report_command(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from benchirt.pipeline.config import load_config
    from benchirt.pipeline.store import ArtifactStore
    from benchirt.report import build_report

    elsewhere = args.out is not None and Path(args.out).resolve() != Path(args.run_dir).resolve()
    if elsewhere:  # RUN_DIR itself is the run's own folder
        refuse_foreign_out(args.out, "report", force=args.force, writes=WRITES)
    store = ArtifactStore(args.run_dir)
    store.ensure_idle()  # a run in progress: its results are still being written
    # the run's report options from its manifest alone: build_report reads the results (once)
    config = load_config(store.read_manifest().config).stage_config("report")
    if args.title:
        config = replace(config, title=args.title)
    out = claim_out(args.out, "report", force=args.force, writes=WRITES) if elsewhere else None
    paths = build_report(args.run_dir, config=config, out=out)
    print(f"wrote {paths['html']} and {paths['markdown']}")
    return 0

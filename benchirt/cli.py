"""The ``benchirt`` command line.

Every stage owns its sub-command in ``benchirt/<stage>/command.py``, a module with
``register(subparsers)`` that adds one sub-parser and sets its ``func`` default to a
callable taking the parsed ``argparse.Namespace`` and returning an exit code.
This module only assembles them.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from benchirt.errors import BenchirtError

#: Modules that each register one sub-command, in the order ``--help`` lists them.
COMMAND_MODULES: tuple[str, ...] = ("benchirt.pipeline.command", "benchirt.data.command", "benchirt.irt.command", "benchirt.rating.command", "benchirt.subsets.command", "benchirt.airt.command", "benchirt.report.command", "benchirt.placement.command")


def build_parser() -> argparse.ArgumentParser:
    from benchirt import __version__

    parser = argparse.ArgumentParser(
        prog="benchirt",
        description="Item Response Theory and Glicko-2 for machine-learning benchmarks.",
    )
    parser.add_argument("--version", action="version", version=f"benchirt {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BenchirtError as exc:
        print(f"benchirt {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""The ``benchirt`` command line.

Every stage owns its sub-command in ``benchirt/<stage>/command.py``, whose ``register(subparsers)`` adds its
sub-parser(s) with a ``func`` default taking the parsed ``argparse.Namespace`` and returning an exit code. This module
only assembles them, lazily: :data:`COMMANDS` names each sub-command's module and help line, so ``benchirt --help``
imports no stage and ``benchirt rate …`` only the rating command's module. Exit status: the command's; 2 with a
one-line message for a :class:`BenchirtError` or an operating-system error; 130 on Ctrl-C, 143 on SIGTERM, which stops
a command the same way (the run records the interruption and its workers end with it, :mod:`benchirt.workers`).
"""
from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

from benchirt import interrupt
from benchirt.errors import BenchirtError
from benchirt.pipeline.registry import STAGE_COMMANDS, STAGES
from benchirt.safe_text import printable

#: Sub-command -> (module whose ``register`` adds it, the line ``benchirt --help`` shows), in help order:
#: ``run``, then one command per stage (declared in :mod:`benchirt.pipeline.registry`), then the others.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("benchirt.pipeline.command", f"the whole pipeline: {', '.join(STAGES)}"),
    **STAGE_COMMANDS,
    "import-runs": ("benchirt.stored_runs.command", "response matrices from OpenML's stored runs (no training)"),
    "datasets": ("benchirt.data.command", "list a suite's datasets and their characteristics"),
    "plan": ("benchirt.placement.command", "which datasets to run a new classifier on (budget K)"),
    "predict": ("benchirt.placement.command", "predict new classifiers' scores and standing from a few datasets"),
    "add": ("benchirt.placement.add_command", "add a new classifier to a finished run (pool and items frozen)"),
}

#: Modules that register sub-commands, in the order ``--help`` lists them.
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))

INTERRUPTED = "interrupted — rerun the same command to resume"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only ``command``'s module is imported (None: none, for ``--help``), the other sub-commands
    get a placeholder parser carrying their help line."""
    from benchirt import __version__

    parser = argparse.ArgumentParser(
        prog="benchirt",
        description="Item Response Theory and Glicko-2 for machine-learning benchmarks.",
    )
    parser.add_argument("--version", action="version", version=f"benchirt {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command in COMMANDS:
        importlib.import_module(COMMANDS[command][0]).register(subparsers)
    for name, (_, help_line) in COMMANDS.items():
        if name not in subparsers.choices:
            subparsers.add_parser(name, help=help_line, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    in_main_thread = threading.current_thread() is threading.main_thread()  # only there can a handler be set
    interrupt.reset()
    previous = {}
    if in_main_thread:   # recorded interrupts: one a finaliser swallows is raised again (benchirt.interrupt)
        previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, interrupt.on_sigterm)}
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:   # not where Ctrl-C is ignored
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, interrupt.on_sigint)
    try:
        return int(args.func(args) or 0)
    except interrupt.Terminated:
        print(f"\nbenchirt {args.command}: terminated (SIGTERM) — rerun the same command to resume", file=sys.stderr)
        return 143
    except BenchirtError as exc:
        print(f"benchirt {args.command}: error: {printable(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nbenchirt {args.command}: {INTERRUPTED}", file=sys.stderr)
        return 130
    except OSError as exc:  # the environment's fault: unwritable or odd path, full disk, …
        where = f": {exc.filename}" if exc.filename else ""
        print(printable(f"benchirt {args.command}: error: {exc.strerror or exc}{where}"), file=sys.stderr)
        return 2
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        interrupt.reset()   # handled here: a later call in this process starts clean


if __name__ == "__main__":
    sys.exit(main())

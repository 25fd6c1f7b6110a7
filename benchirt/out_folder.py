"""The ``--out`` folder of a command that writes: never the user's files overwritten, never written beside unasked.

Every writing command (``run``, ``irt``, ``rate``, ``subset``, ``airt``, ``report --out``, ``import-runs``,
``plan``, ``predict``) takes its ``--out`` through :func:`refuse_foreign_out` before it reads its inputs and
:func:`claim_out` when it starts writing. A missing or empty folder, or one the same command wrote before (its
mark, :data:`MARK`, names the command; ``run``'s mark is its manifest), is the command's own. Any other non-empty
folder is refused with one message unless ``--force`` (:func:`add_force_option`) is given; even then a file or
folder of a name the command writes is refused, since benchirt never overwrites what it did not write.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
from pathlib import Path
from typing import Iterable

from benchirt.errors import BenchirtError
from benchirt.io import atomic_write_json

#: The file that marks a folder a command wrote: ``{"benchirt_commands": ["irt", "rate"]}``.
MARK = ".benchirt-out.json"
#: Entries no command counts as the user's: its mark and a run's lock.
_OWN_ENTRIES = frozenset({MARK, ".lock"})


def add_force_option(parser: argparse.ArgumentParser, *, what: str = "the files") -> None:
    """The one ``--force`` of a writing command: write ``what`` beside files it did not write (never over them)."""
    parser.add_argument("--force", action="store_true",
                        help=f"let --out be a non-empty folder benchirt did not write: write {what} beside those "
                             "files (never over them)")


def marked_commands(folder: str | os.PathLike) -> list[str]:
    """The commands whose mark ``folder`` holds ([] when none, or when the mark is not benchirt's)."""
    try:
        record = json.loads((Path(folder) / MARK).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    commands = record.get("benchirt_commands") if isinstance(record, dict) else None
    return [c for c in commands if isinstance(c, str)] if isinstance(commands, list) else []


def refuse_foreign_out(folder: str | os.PathLike, command: str, *, force: bool, writes: Iterable[str],
                       own: bool | None = None) -> None:
    """Raise :class:`~benchirt.errors.BenchirtError` when ``folder`` (which need not exist) holds files ``benchirt
    <command>`` did not write. ``force`` (``--force``) accepts a non-empty folder unless it holds an entry named in
    ``writes`` (the top-level ``fnmatch`` patterns the command may write); ``own`` says whether the folder is the
    command's own (default: whether its :data:`MARK` names ``command``)."""
    root = Path(folder)
    if not root.is_dir() or (own if own is not None else command in marked_commands(root)):
        return
    try:
        entries = sorted(entry.name for entry in root.iterdir() if entry.name not in _OWN_ENTRIES)
    except OSError:
        return  # unreadable: the command's first write reports it
    if not entries:
        return
    if not force:
        shown = ", ".join(entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
        raise BenchirtError(f"--out {root} is not empty and was not written by `benchirt {command}` (it holds "
                            f"{shown}); give a new or empty folder, or add --force to write beside those files")
    patterns = tuple(writes)
    clash = [name for name in entries if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)]
    if clash:
        raise BenchirtError(f"--out {root} was not written by `benchirt {command}` and holds {', '.join(clash)}, "
                            f"which `benchirt {command}` writes; benchirt never overwrites files it did not write — "
                            "give a new or empty folder")


def claim_out(folder: str | os.PathLike, command: str, *, force: bool, writes: Iterable[str]) -> Path:
    """:func:`refuse_foreign_out`, then create ``folder`` and mark it as ``command``'s; returns it as a Path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.txt").write_text("mine")
    >>> try:
    ...     refuse_foreign_out(folder, "rate", force=False, writes=("leaderboard.csv",))
    ... except BenchirtError as error:
    ...     print(str(error).split(" (")[0].endswith("is not empty and was not written by `benchirt rate`"))
    True
    >>> claim_out(folder, "rate", force=True, writes=("leaderboard.csv",)) == folder
    True
    >>> refuse_foreign_out(folder, "rate", force=False, writes=("leaderboard.csv",))  # now its own folder
    """
    root = Path(folder)
    refuse_foreign_out(root, command, force=force, writes=writes)
    commands = marked_commands(root)
    if command not in commands:
        try:
            atomic_write_json(root / MARK, {"benchirt_commands": [*commands, command]})
        except OSError as exc:
            raise BenchirtError(f"cannot write into --out {root} ({exc.strerror or exc}); give --out a folder you "
                                "can write") from None
    return root

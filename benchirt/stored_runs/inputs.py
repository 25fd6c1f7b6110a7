"""Whether a file of a runs source may be read at all: inside the source, a regular file, under the size limit.

A runs folder's files are read by name, and ``predictions.arff`` may be a link to ``/etc/passwd`` (quoted by a
parser's error), ``/dev/zero`` (endless) or a FIFO that blocks forever; a ``description.xml`` may be huge. Each is
refused by ``lstat``/``stat`` alone, before a byte is read, with one line saying why (:func:`file_problem`). The size
limit is every input table's, :func:`benchirt.sniff.max_input_bytes` (``BENCHIRT_MAX_INPUT_MB``).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from benchirt.errors import DataError
from benchirt.sniff import LIMIT_VARIABLE, max_input_bytes

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"))


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (symbolic links resolved) lies in the folder ``root`` (itself resolved)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


def file_problem(path: Path, root: Path, what: str) -> str | None:
    """Why ``path`` (the ``what``, e.g. "predictions.arff") must not be read, or None: a missing file; a symbolic link
    leaving ``root`` (not followed, its target not named); anything but a regular file; a file over the size limit."""
    if not os.path.lexists(path):
        return f"no {what}"
    if path.is_symlink() and not inside(path, root):
        return f"{what} is a symbolic link leaving the runs folder; not followed (copy the file into the folder)"
    try:
        mode = path.stat()
    except OSError as exc:
        return f"{what} cannot be read ({exc.strerror or type(exc).__name__})"
    if not stat.S_ISREG(mode.st_mode):
        kind = next((name for test, name in _KINDS if test(mode.st_mode)), "not a regular file")
        return f"{what} is {kind}, not a regular file"
    return size_problem(mode.st_size, what)


def size_problem(size: int, what: str) -> str | None:
    """The size-limit refusal of a ``size``-byte ``what``, or None under the limit."""
    limit = max_input_bytes()
    if size <= limit:
        return None
    return (f"{what} of {_mib(size)} MiB is over the {_mib(limit)} MiB limit of an input file; set "
            f"{LIMIT_VARIABLE} to a larger number of MiB to read it anyway")


def _mib(size: int) -> str:
    """Bytes in MiB, whole from 10 MiB on, else two significant digits (a limit set below 1 MiB stays legible)."""
    mib = size / 2**20
    return f"{mib:,.0f}" if mib >= 10 else f"{mib:.2g}"


def check_size(path: Path, what: str) -> None:
    """DataError when the file at ``path`` is over the size limit (:func:`size_problem`)."""
    problem = size_problem(path.stat().st_size, what)
    if problem:
        raise DataError(f"{path}: {problem}")

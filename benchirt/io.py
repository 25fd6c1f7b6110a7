"""Atomic file writes: a reader never sees a half-written artifact.

Every writer puts the content into a temporary file in the destination's folder, flushes it and renames it over the
destination (``os.replace``, atomic on POSIX and Windows), so a process killed mid-write leaves the old file or none,
never a truncated one that a rerun would trust.
"""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # pandas is imported by whoever passes a frame; importing this module stays light
    import pandas as pd


@contextmanager
def atomic_open(path: str | os.PathLike, *, mode: str = "w", **kwargs: Any) -> Iterator[IO]:
    """Open a temporary sibling of ``path`` for writing; rename it onto ``path`` on success only."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp_name, 0o666 & ~_umask())  # mkstemp makes 0600; give the file an ordinary file's mode
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_open(path, mode="w", encoding="utf-8") as handle:
        handle.write(text)


def atomic_write_json(path: str | os.PathLike, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def atomic_write_csv(path: str | os.PathLike, frame: pd.DataFrame, *, index: bool = False) -> None:
    """Write ``frame`` as CSV, its text cells, headers and index labels safe to open in a spreadsheet
    (:func:`spreadsheet_safe`); gzip-compressed when ``path`` ends in ``.gz`` (the fastest level, no timestamp in
    the header: the same frame gives the same bytes)."""
    if str(path).endswith(".gz"):
        with atomic_open(path, mode="wb") as binary:
            spreadsheet_safe(frame, index=index).to_csv(binary, index=index, encoding="utf-8",
                                                        compression={"method": "gzip", "compresslevel": 1, "mtime": 0})
        return
    with atomic_open(path, mode="w", encoding="utf-8", newline="") as handle:
        spreadsheet_safe(frame, index=index).to_csv(handle, index=index)


#: First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> Any:
    """A text ``value`` a spreadsheet would run as a formula (starting with one of :data:`FORMULA_STARTS`)
    with a leading ``'``, which every spreadsheet shows as text (OWASP's rule); numbers, text that reads as a
    number (``-0.5``, ``+3``) and other text unchanged.

    >>> spreadsheet_cell("=1+2"), spreadsheet_cell("-0.5"), spreadsheet_cell(-2), spreadsheet_cell("mlp")
    ("'=1+2", '-0.5', -2, 'mlp')
    """
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def spreadsheet_safe(frame: pd.DataFrame, *, index: bool = False) -> pd.DataFrame:
    """``frame`` with :func:`spreadsheet_cell` applied to its text columns, its headers and (when written) its
    index labels; the frame itself when nothing needs it (numeric tables are not copied)."""
    import pandas as pd

    def is_text(dtype) -> bool:
        return pd.api.types.is_object_dtype(dtype) or isinstance(dtype, (pd.StringDtype, pd.CategoricalDtype))

    text = [name for name, column in frame.items() if is_text(column.dtype)]
    risky = [name for name in text if frame[name].map(lambda v: spreadsheet_cell(v) is not v).any()]
    headers = any(spreadsheet_cell(name) is not name for name in frame.columns)
    labels = index and not isinstance(frame.index, pd.MultiIndex) and is_text(frame.index.dtype)
    if not (risky or headers or labels):
        return frame
    safe = frame.copy(deep=False)
    for name in risky:
        safe[name] = frame[name].map(spreadsheet_cell)
    if headers:
        safe.columns = [spreadsheet_cell(name) for name in frame.columns]
    if labels:
        safe.index = frame.index.map(spreadsheet_cell)
    return safe


def atomic_write_parquet(path: str | os.PathLike, frame: pd.DataFrame) -> None:
    with atomic_open(path, mode="wb") as handle:
        frame.to_parquet(handle)


def atomic_write_figure(path: str | os.PathLike, figure, **savefig_kwargs: Any) -> None:
    """Save a matplotlib figure atomically; the format follows the file suffix."""
    fmt = Path(path).suffix.lstrip(".") or "png"
    with atomic_open(path, mode="wb") as handle:
        figure.savefig(handle, format=fmt, **savefig_kwargs)


def _json_default(value: Any) -> Any:
    """Serialise numpy scalars/arrays and paths that ``json`` does not know."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"cannot serialise {type(value).__name__} to JSON")


def safe_name(name: str) -> str:
    """A dataset name as a folder name (path separators and odd characters replaced)."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(name)).strip(".")
    return cleaned[:80] or "dataset"

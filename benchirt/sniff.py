"""Refuse junk input files early, reading at most 64 KiB, or the first line when it is longer.

A text table (response matrix, scores or performance CSV, CSV/TSV/ARFF dataset) is checked before any parser sees it:
a file over the size limit (:func:`max_input_bytes`, 128 MiB unless ``BENCHIRT_MAX_INPUT_MB`` says otherwise), with
NUL bytes in its first 64 KiB or first line, or of 64 KiB or more without a line break is a
:class:`~benchirt.errors.DataError` naming the file and the fix, at a cost bounded by the bytes read rather than a
parser's failing with a misleading message. The header line is not capped (a stored-runs matrix has one item per
dataset row): a longer one is read to its end in 64 KiB chunks. Compressed files (``.gz``) are checked for size only.

Why 128 MiB: the readers parse the whole table with pandas before they can judge it, and on junk text their peak
memory grows by several MiB per MiB of input; the limit is chosen from that slope to bound the worst reader's memory,
so a far larger junk file is refused by its size alone (``python benchmarks/junk_input.py --sizes 16 128``;
docs/benchmarks.md). A larger real dataset needs ``BENCHIRT_MAX_INPUT_MB`` (the error says so).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from benchirt.errors import DataError
from benchirt.options import Number
from benchirt.safe_text import MAX_NAME_LENGTH

#: Bytes read at once (and at least, when the file is that long) to judge a file.
SNIFF_BYTES = 64 * 1024
#: Default size limit of an input table, in MiB.
DEFAULT_MAX_INPUT_MB = 128
LIMIT_VARIABLE = "BENCHIRT_MAX_INPUT_MB"
#: The declared constraint of :data:`LIMIT_VARIABLE`'s value.
LIMIT = Number(above=0, unit="MiB")




def check_names(names, what: str, where: object) -> None:
    """DataError when a name of ``names`` (text; other values are skipped) is longer than :data:`MAX_NAME_LENGTH`."""
    longest = max((len(name) for name in names if isinstance(name, str)), default=0)
    if longest > MAX_NAME_LENGTH:
        article = "an" if what[:1] in "aeiou" else "a"
        raise DataError(f"{where}: {article} {what} of {longest:,} characters, more than the {MAX_NAME_LENGTH:,} a name may "
                        "have; shorten it (long names are shown cut in the middle and kept whole in the CSVs)")


def max_input_bytes() -> int:
    """The size limit: ``$BENCHIRT_MAX_INPUT_MB`` MiB, else :data:`DEFAULT_MAX_INPUT_MB`."""
    text = os.environ.get(LIMIT_VARIABLE)
    if text is None:
        return DEFAULT_MAX_INPUT_MB * 2**20
    megabytes = LIMIT.check("", LIMIT_VARIABLE, LIMIT.from_text(text))
    return int(megabytes * 2**20)


def check_text_table(path: str | os.PathLike, *, what: str = "CSV table") -> None:
    """Raise DataError when ``path`` is too large, binary or has no line break (see the module docstring)."""
    path = Path(path)
    size = path.stat().st_size
    limit = max_input_bytes()
    if size > limit:
        raise DataError(
            f"{path}: {size / 2**20:,.0f} MiB is over the {limit / 2**20:,.0f} MiB limit for a {what}; "
            f"set {LIMIT_VARIABLE} to a larger number of MiB to read it anyway"
        )
    if path.suffix.lower() == ".gz":
        return
    with path.open("rb") as handle:
        chunk = handle.read(SNIFF_BYTES)
        read = len(chunk)
        while True:
            if b"\x00" in chunk:
                where = f"first {read:,} bytes" if read <= SNIFF_BYTES else f"first line ({read:,} bytes read)"
                raise DataError(f"{path}: binary data (NUL bytes in its {where}), not a text {what}")
            if b"\n" in chunk or b"\r" in chunk or len(chunk) < SNIFF_BYTES:
                break
            chunk = handle.read(SNIFF_BYTES)  # a header row longer than 64 KiB: read on to its end
            read += len(chunk)
    if read >= SNIFF_BYTES and not (b"\n" in chunk or b"\r" in chunk):
        raise DataError(f"{path}: no line break in its {read:,} bytes, so a header row and no data rows; "
                        f"expected a text {what}")


#: The largest field of a names table (a response matrix or a scores CSV) in bytes: a name of
#: :data:`MAX_NAME_LENGTH` characters in UTF-8 (at most 4 bytes each). Checked before the parse, because pandas
#: needs several bytes per byte of one long field (``python benchmarks/junk_input.py --part names``).
MAX_FIELD_BYTES = 4 * MAX_NAME_LENGTH
#: Bytes scanned at once by :func:`check_field_sizes`.
_SCAN_BYTES = 1 << 20


def check_field_sizes(path: str | os.PathLike, *, what: str = "CSV table") -> None:
    """DataError when a comma-separated field of ``path`` is longer than :data:`MAX_FIELD_BYTES`, found in one
    streaming pass (memory: one 1 MiB chunk): runs of bytes between commas and line breaks, and, when the file
    quotes anything (a quoted field may hold both), the fields of :mod:`csv` with that size limit."""
    path = Path(path)
    if path.suffix.lower() == ".gz" or path.stat().st_size <= MAX_FIELD_BYTES:  # .gz: checked for size only
        return
    over, quoted = _long_run(path)
    if over or (quoted and _long_quoted_field(path)):
        raise DataError(f"{path}: a field of more than {MAX_FIELD_BYTES:,} bytes, longer than any name or value of a "
                        f"{what} can be ({MAX_NAME_LENGTH:,} characters); is it the right file?")


#: A run of bytes without a comma or line break longer than :data:`MAX_FIELD_BYTES`.
_LONG_RUN = re.compile(rb"[^,\r\n]{%d}" % (MAX_FIELD_BYTES + 1))


def _long_run(path: Path) -> tuple[bool, bool]:
    """Whether a run of bytes without a comma or line break is longer than :data:`MAX_FIELD_BYTES` (within a
    chunk by :data:`_LONG_RUN`, across chunks by the runs at their ends), and whether the file holds a ``"``."""
    run = 0      # bytes since the last delimiter, carried from chunk to chunk
    quoted = False
    with path.open("rb") as handle:
        while chunk := handle.read(_SCAN_BYTES):
            quoted = quoted or b'"' in chunk
            first = min((i for i in (chunk.find(b","), chunk.find(b"\n"), chunk.find(b"\r")) if i >= 0),
                        default=len(chunk))
            if run + first > MAX_FIELD_BYTES or _LONG_RUN.search(chunk):
                return True, quoted
            last = max(chunk.rfind(b","), chunk.rfind(b"\n"), chunk.rfind(b"\r"))
            run = run + len(chunk) if last < 0 else len(chunk) - last - 1
    return False, quoted


def _long_quoted_field(path: Path) -> bool:
    """Whether :mod:`csv`, reading with the field size limit :data:`MAX_FIELD_BYTES`, meets a longer field."""
    import csv

    previous = csv.field_size_limit(MAX_FIELD_BYTES)
    try:
        with path.open(encoding="utf-8", errors="replace", newline="") as handle:
            for _ in csv.reader(handle):
                pass
    except csv.Error as exc:
        return "field larger than field limit" in str(exc)
    finally:
        csv.field_size_limit(previous)
    return False

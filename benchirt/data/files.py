"""Load one local data file (ARFF, CSV/TSV or parquet, optionally gzip-compressed) as a :class:`Dataset`.

The format comes from the suffix (``.arff``, ``.csv``, ``.tsv``, ``.parquet``/``.pq``, each but parquet optionally
followed by ``.gz``); anything else is a :class:`~benchirt.errors.DataError`. The target is the ``target`` column when
given (by a suite file or manifest), else — ARFF: the last attribute, which must be nominal; CSV, TSV and parquet: the
column named ``class`` or ``target`` (any case, :data:`TARGET_NAMES`). A table with neither is refused with its
columns listed, never read with its last column as the class (a numeric column of 7 values would be 7 classes).
Cleaning follows :mod:`benchirt.data.cleaning`. CSV is read by pandas' C parser with ``?``, empty and the usual NA
spellings as missing; UTF-8 first, then latin-1.
"""
from __future__ import annotations

import csv
import gzip
import io
import warnings
from pathlib import Path

import pandas as pd

from benchirt.data.arff import NOMINAL, STRING, read_arff
from benchirt.data.cleaning import prepare_dataset
from benchirt.data.dataset import Dataset
from benchirt.errors import DataError
from benchirt.sniff import check_text_table

#: The column names a table's class is recognised by when no target is given (compared in lower case).
TARGET_NAMES = ("class", "target")
#: Recognised suffixes (lower case, ``.gz`` stripped) → format.
FORMATS = {".arff": "arff", ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def file_format(path: str | Path) -> str | None:
    """The format of ``path`` from its suffix (``"arff"``, ``"csv"``, ``"tsv"``, ``"parquet"``), or None."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
        if suffixes and FORMATS.get(suffixes[-1]) == "parquet":
            return None
    return FORMATS.get(suffixes[-1]) if suffixes else None


def dataset_name(path: str | Path) -> str:
    """Default dataset name of a file: its name without the format suffix(es)."""
    name = Path(path).name
    for suffix in (".gz", *FORMATS):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def load_file(
    path: str | Path,
    *,
    target: str | None = None,
    name: str | None = None,
    ignore: tuple[str, ...] = (),
    openml_id: int | None = None,
    task_id: int | None = None,
) -> Dataset:
    """Read a data file (ARFF, CSV/TSV or parquet) and return the cleaned :class:`Dataset`; ``name`` defaults to
    :func:`dataset_name`, ``openml_id``/``task_id`` for a copy of an OpenML dataset.

    Raises
    ------
    DataError
        Missing/empty/truncated file, unknown suffix, malformed content, unknown target.
    """
    path = Path(path)
    fmt = file_format(path)
    if fmt is None:
        raise DataError(
            f"{path}: unknown data format {''.join(path.suffixes) or '(no suffix)'!r}; "
            "benchirt reads .arff, .csv, .tsv and .parquet files (.arff/.csv/.tsv may be .gz-compressed)"
        )
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    if fmt != "parquet":
        check_text_table(path, what=f"{fmt.upper()} data file")
    text_columns: list[str] = []
    notes: list[str] = []
    extra: dict = {"file": str(path)}
    if fmt == "arff":
        arff = read_arff(path)
        frame, notes = arff.frame, list(arff.notes)
        _check_arff_class(arff, target, path)
        text_columns = [c for c, kind in arff.kinds.items() if kind == STRING]
        extra["relation"] = arff.relation
    elif fmt == "parquet":
        frame = _read_parquet(path)
    else:
        frame, notes = _read_delimited(path, "\t" if fmt == "tsv" else ",")
    if len(frame) == 0:
        raise DataError(f"{path}: the file has a header but no data rows")
    if fmt != "arff" and target is None:
        target = _named_target(frame, path)
    return prepare_dataset(
        frame, name=name or dataset_name(path), where=str(path), target=target,
        source=f"file:{path}", openml_id=openml_id, task_id=task_id, ignore=ignore,
        text_columns=text_columns, notes=notes, extra=extra,
    )


def _named_target(frame: pd.DataFrame, path: Path) -> str:
    """The column of a table without a declared target that is named ``class`` or ``target`` (any case), else a
    :class:`~benchirt.errors.DataError` listing the columns and the ways to name the target."""
    named = [str(c) for c in frame.columns if str(c).strip().lower() in TARGET_NAMES]
    if len(named) == 1:
        return named[0]
    columns = [str(c) for c in frame.columns]
    shown = ", ".join(repr(c) for c in columns[:12]) + (f" and {len(columns) - 12} more" if len(columns) > 12 else "")
    found = f"columns {', '.join(repr(c) for c in named)} both name it" if named else "no column is named class or target"
    raise DataError(f"{path}: which column is the class? {found} (columns: {shown}); name the class column 'class' "
                    "or give its name as the dataset's target in a suite file (target: COLUMN)")


def _check_arff_class(arff, target: str | None, path: Path) -> None:
    """Without a declared target, the class is the last attribute, and an ARFF class must be nominal: a numeric one (an
    ``age`` column) would silently make a many-class problem; it is refused naming the attributes that could be the
    class."""
    if target is not None or not arff.kinds:
        return
    last, kind = list(arff.kinds.items())[-1]
    if kind != NOMINAL:
        nominal = [name for name, k in arff.kinds.items() if k == NOMINAL]
        raise DataError(
            f"{path}: the last attribute {last!r} is {kind}, not nominal, so it is not a class label; name the "
            f"target column (a manifest's `target`, or `target=`){'; nominal attributes: ' + ', '.join(nominal[:10]) if nominal else ''}"
        )


def _read_delimited(path: Path, sep: str) -> tuple[pd.DataFrame, list[str]]:
    raw = path.read_bytes()
    if path.suffix.lower() == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise DataError(f"{path}: not a valid gzip file ({exc}); the file may be truncated") from None
    if not raw.strip():
        raise DataError(f"{path}: the file is empty; expected a header row and data rows")
    try:
        text, notes = raw.decode("utf-8-sig"), []
    except UnicodeDecodeError:
        text, notes = raw.decode("latin-1"), [f"{path.name} is not valid UTF-8; read as latin-1"]
    del raw
    first_line, last_line = _first_and_last_lines(text)
    header = next(csv.reader([first_line.rstrip("\r")], delimiter=sep))
    duplicates = sorted({h for h in header if header.count(h) > 1})
    if duplicates:
        raise DataError(f"{path}: duplicate column names {duplicates}; rename them so every column is unique")
    if len(next(csv.reader([last_line.rstrip("\r")], delimiter=sep), [])) < len(header):
        raise DataError(
            f"{path}: the last row has fewer values than the {len(header)} columns of the header — "
            "the file looks truncated; export or download it again"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(io.StringIO(text), sep=sep, na_values=["?"], skipinitialspace=True)
    except pd.errors.ParserError as exc:
        raise DataError(f"{path}: malformed {sep!r}-separated file: {exc}") from None
    return frame, notes


def _first_and_last_lines(text: str) -> tuple[str, str]:
    """First and last non-blank lines of ``text``, without splitting (copying) the whole text."""
    first_end = text.find("\n")
    first = text[: first_end if first_end >= 0 else len(text)]
    end = len(text)
    while end > 0 and text[end - 1] in "\r\n":
        end -= 1
    last = text[text.rfind("\n", 0, end) + 1: end]
    return first.rstrip("\r"), last


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a damaged file
        raise DataError(
            f"{path}: not a readable parquet file ({type(exc).__name__}: {str(exc)[:200]}); "
            "the file may be truncated or in another format"
        ) from None

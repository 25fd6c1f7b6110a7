"""Read a response matrix CSV (respondents x items of 0/1) as ``benchirt irt`` takes it, or refuse it in one line.

The file has a header row of item names (``--no-header``: none, items named ``V1..Vm`` as R names them) and one row per
respondent; a first column holding anything but 0/1 names the respondents (else they are numbered ``1..n``). What a
general CSV parser would misread silently is refused with the problem and the fix:

* a first row of 0/1 answers instead of names (items named only ``0`` and ``1`` count as answers too) — add a header row
  or pass ``--no-header``;
* a header with semicolons, tabs or pipes but no commas — save the file comma-separated;
* an item or respondent name given twice — make the names unique;
* rows with more or fewer fields than the header, naming the line.

Integer matrices without quoted fields are parsed by :func:`numpy.loadtxt` straight into ``int8`` (pandas builds one
column object per item, slow on wide files); anything else goes through :func:`pandas.read_csv`, whose values
:func:`benchirt.irt.validation.as_response_matrix` then checks cell by cell."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.safe_text import name_problem, printable
from benchirt.sniff import check_field_sizes, check_names, check_text_table

#: What a 0/1 answer looks like in a CSV field.
ANSWERS = frozenset({"0", "1", "0.0", "1.0"})
#: Delimiters recognised in a header row without commas, with their names for the message.
OTHER_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "pipe"}


def read_responses_csv(path: str | Path, *, header: bool = True) -> pd.DataFrame:
    """A response matrix CSV as a DataFrame (index ``respondent``, one column per item), checked.

    ``header`` False: the first row is the first respondent's answers and the items are named ``V1..Vm``. Raises
    :class:`DataError` on a missing, empty, binary or misread file (module docstring), naming the file, the problem and
    the fix in one line."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file; pass a CSV of respondents x items of 0/1")
    check_text_table(path, what="response matrix CSV")
    check_field_sizes(path, what="response matrix CSV")
    first = _first_row(path)
    _check_delimiter(path, first)
    if header:
        _check_header(path, first)
    elif not _answers(first[1:]):
        raise DataError(f"{path}: with --no-header the first row must be answers, but it holds names "
                        f"({', '.join(repr(v) for v in first[1:4])}, …); drop --no-header")
    frame = _read_integers(path, first, header)
    if frame is None:
        frame = _read_general(path, header)
    if frame.shape[0] == 0:
        raise DataError(f"{path}: no respondent rows under the header")
    check_names(frame.index, "respondent name", path)
    check_names(frame.columns, "item name", path)
    if not frame.index.is_unique:
        name = frame.index[frame.index.duplicated()][0]
        rows = [i + 1 for i in np.flatnonzero(frame.index == name)[:2]]
        raise DataError(f"{path}: respondent {name!r} appears twice (data rows {rows[0]} and {rows[1]}); "
                        "give every respondent a unique name in the first column")
    _check_respondent_names(path, frame.index)
    return frame


def _check_respondent_names(path: Path, names: pd.Index) -> None:
    """Refuse a respondent name :func:`benchirt.safe_text.name_problem` refuses (a trailing space, a control character,
    too long), naming its data row."""
    for row, name in enumerate(names, 1):
        problem = name_problem(name) if isinstance(name, str) else None
        if problem:
            raise DataError(f"{path}: respondent {printable(name[:80])!r} (data row {row}) {problem}; rename it in "
                            "the first column")


def _first_row(path: Path) -> list[str]:
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            row = next(csv.reader(handle), None)
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not a text CSV ({exc})") from None
    except csv.Error as exc:
        raise DataError(f"{path}: the first row cannot be read as CSV ({exc})") from None
    if not row:
        raise DataError(f"{path}: the file is empty; expected a header row and one row per respondent")
    return row


def _answers(fields) -> bool:
    return all(field.strip() in ANSWERS for field in fields)


def _check_delimiter(path: Path, first: list[str]) -> None:
    if len(first) != 1:
        return
    counts = {sep: first[0].count(sep) for sep in OTHER_DELIMITERS}
    sep = max(counts, key=lambda each: counts[each])
    if counts[sep]:
        raise DataError(
            f"{path}: the first row has no comma but {counts[sep]} {OTHER_DELIMITERS[sep]}s, so the file is "
            f"{OTHER_DELIMITERS[sep]}-separated; benchirt reads comma-separated response matrices: save it with "
            f"commas (e.g. pandas.read_csv(path, sep={sep!r}).to_csv(new_path, index=False))"
        )


def _check_header(path: Path, names: list[str]) -> None:
    items = names if _answers(names[:1]) else names[1:]
    if len(items) >= 2 and _answers(items):
        raise DataError(
            f"{path}: the first row holds 0/1 answers, not item names: the file has no header row (reading it "
            "as one would lose the first respondent); add a header row of item names, or pass --no-header "
            "to name the items V1..Vm"
        )
    seen: dict[str, int] = {}
    for number, name in enumerate(names, 1):
        if name in seen and name.strip():
            raise DataError(f"{path}: item name {name!r} appears twice in the header row (columns {seen[name]} and "
                            f"{number}); give every item a unique name")
        seen[name] = number
    blank = [number for number, name in enumerate(names, 1) if not name.strip() and number > 1]
    if blank:
        raise DataError(f"{path}: {len(blank)} column(s) without a header name (column {blank[0]}); every item "
                        "needs a name in the header row")


def _read_integers(path: Path, first: list[str], header: bool) -> pd.DataFrame | None:
    """The matrix via :func:`numpy.loadtxt` into int8; None when the general parser must read it."""
    width = len(first)
    names = _first_fields(path, width, header)
    if names is None:
        return None
    named = not _answers(names)
    if header and not named and not first[0].strip():
        raise DataError(f"{path}: 1 column(s) without a header name (column 1); every item needs a name in the header row")
    if named and width < 2:
        return None
    lines = _data_lines(path, header, named)
    try:
        values = np.loadtxt(lines, delimiter=",", dtype=np.int8, ndmin=2)
    except (ValueError, OverflowError):  # missing, non-integer or out-of-range values: the general parser names them
        return None
    columns = first[1:] if named else first
    columns = [name.strip() for name in columns] if header else [f"V{j + 1}" for j in range(len(columns))]
    index = names if named else [str(i + 1) for i in range(len(values))]
    return pd.DataFrame(values, index=pd.Index(index, name="respondent"), columns=columns, copy=False)


def _first_fields(path: Path, width: int, header: bool) -> list[str] | None:
    """The first field of every non-blank data row, after checking each row has ``width`` fields; None when a row holds
    a quote (the general parser reads those)."""
    names: list[str] = []
    with path.open(encoding="utf-8-sig", newline="") as handle:
        if header:
            handle.readline()
        for number, line in enumerate(handle, 2 if header else 1):
            if not line.strip():
                continue
            if '"' in line:
                return None
            fields = line.count(",") + 1
            if fields != width:
                _ragged(path, number, fields, width, header)
            names.append(line.partition(",")[0])  # as written: a space around a name is refused, not dropped
    if not names:
        raise DataError(f"{path}: no respondent rows under the header")
    return names


def _data_lines(path: Path, header: bool, named: bool):
    """The non-blank data lines, without their first field when it names the respondent."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        if header:
            handle.readline()
        for line in handle:
            if line.strip():
                yield line.partition(",")[2] if named else line


def _ragged(path: Path, number: int, fields: int, width: int, header: bool) -> None:
    against = "the header row's" if header else "the first row's"
    more = "more" if fields > width else "fewer"
    raise DataError(f"{path}: rows have different numbers of fields: line {number} has {fields}, {more} than "
                    f"{against} {width}; give every row one value per item"
                    + (" and every item a header name" if more == "more" and header else ""))


def _read_general(path: Path, header: bool) -> pd.DataFrame:
    """pandas' parser, for quoted fields and values the integer reader refuses."""
    try:
        frame = pd.read_csv(path, header=0 if header else None)
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty; expected a header row and one row per respondent") from None
    except pd.errors.ParserError as exc:
        detail = " ".join(str(exc).replace("Error tokenizing data. C error: ", "").split())
        raise DataError(f"{path}: rows have different numbers of fields ({detail}); "
                        "give every row one value per item") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not a text CSV ({exc})") from None
    if not isinstance(frame.index, pd.RangeIndex):  # pandas took the extra leading field as an index
        raise DataError(
            f"{path}: the data rows have more fields than the header row ({frame.shape[1]} names); "
            "give every column a header name"
        )
    if frame.shape[1] and _names_column(frame.iloc[:, 0]):
        frame = frame.set_index(frame.columns[0])
        frame.index = frame.index.astype(str)
    else:
        frame.index = [str(i + 1) for i in range(len(frame))]
    if not header:
        frame.columns = [f"V{j + 1}" for j in range(frame.shape[1])]
    frame.index.name = "respondent"
    return frame


def _names_column(column: pd.Series) -> bool:
    """A first column holds names when some value is not a 0/1 answer."""
    if pd.api.types.is_numeric_dtype(column):
        return False
    values = column.dropna().astype(str).str.strip()
    return not values.isin(list(ANSWERS)).all()

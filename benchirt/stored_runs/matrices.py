"""Respondents × items matrix files, one per task, read into one :class:`~benchirt.stored_runs.matrix.RunMatrix` each.

The offline form of a stored-runs field not in OpenML's cache layout: a CSV per task (the dataset named after the
file), a header row naming the items and one row per run, as ``benchirt irt`` reads a response matrix: the first column
names the runs when it holds anything but 0/1 (else they are numbered 1..n), every other cell is ``0``/``1`` (or
``0.0``/``1.0``). Names map to flows and runs by :class:`~benchirt.stored_runs.respondent_names.RespondentNaming`, so
a flow is the same respondent in every file. Whole-number item names are OpenML row ids; other names are kept as the
items' names (such an import is paired with no dataset), said in the notes.

A source is one file, a folder of them (every ``*.csv``, sorted) or a list. What cannot be used is skipped with its
reason, never silently: a row with a missing or non-0/1 cell, a file with no usable row or that is no such matrix.
Each file is checked like every input table (:func:`benchirt.sniff.check_text_table`) and read row by row with the
:mod:`csv` module into ``int8``, so quoted names holding commas and quotes are read as written and memory stays one
byte per cell.
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.stored_runs.matrix import PROVENANCE, RunMatrix
from benchirt.stored_runs.respondent_names import RespondentNaming
from benchirt.safe_text import name_problem, printable
from benchirt.sniff import check_names, check_text_table

#: A cell's code: 0/1 answers, 3 missing; anything else is refused (2).
_CODES = {"0": 0, "1": 1, "0.0": 0, "1.0": 1, "": 3, "NA": 3, "NaN": 3, "nan": 3, "?": 3}
_MISSING, _INVALID = 3, 2
#: Delimiters recognised in a header row without commas.
_OTHER_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "pipe"}


def matrix_files(sources) -> list[Path]:
    """The matrix files a source names: a file, every ``*.csv`` of a folder (sorted), or a list of either."""
    paths = [Path(sources)] if isinstance(sources, (str, Path)) else [Path(s) for s in sources]
    files = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".csv")
            if not found:
                raise DataError(f"{path}: no *.csv matrix file in the folder; give respondents x items CSV files")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise DataError(f"{path}: no such file or folder; give respondents x items CSV files or a folder of them")
    return files


def is_matrix_source(sources) -> bool:
    """Whether the source is matrix files (a CSV file, a list, or a folder of CSVs without OpenML's layout)."""
    if not isinstance(sources, (str, Path)):
        return True
    path = Path(sources)
    if path.is_file():
        return True
    if not path.is_dir() or any((path / name).exists() for name in ("runs", "org", "tasks", "predictions.arff")):
        return False
    entries = list(path.iterdir())
    if any(os.path.lexists(p / "predictions.arff") for p in entries if p.is_dir()):
        return False  # run folders side by side: OpenML's layout without its runs/ level
    return any(p.suffix.lower() == ".csv" for p in entries)


def read_matrices(sources, *, naming: RespondentNaming | None = None) -> list[RunMatrix]:
    """One :class:`RunMatrix` per usable file of ``sources`` (:func:`matrix_files`), in file order; skipped files in
    every matrix's ``source_skipped``, ``source_found`` counting the files. DataError when no file can be used (the
    first reasons named) or two files have one dataset name."""
    naming = naming or RespondentNaming()
    files = matrix_files(sources)
    matrices, skipped = [], []
    for path in files:
        try:
            matrices.append(read_matrix_csv(path, naming=naming))
        except DataError as exc:
            skipped.append(printable(str(exc)))
    if not matrices:
        raise DataError(f"none of the {len(files)} matrix file(s) can be used: " + " | ".join(skipped[:3]))
    names = pd.Series([m.dataset for m in matrices])
    if names.duplicated().any():
        raise DataError(f"two matrix files name the dataset {names[names.duplicated()].iloc[0]!r}; each file is one "
                        "dataset, named after the file: rename one")
    for matrix in matrices:
        matrix.source_skipped, matrix.source_found, matrix.source_unit = skipped, len(files), "matrix file"
    return matrices


def read_matrix_csv(path: str | Path, *, naming: RespondentNaming | None = None) -> RunMatrix:
    """One matrix file (module docstring) as a :class:`RunMatrix`, unusable rows in ``skipped``; DataError, naming
    the file and the fix, when it is not a text CSV of that shape or has no row of 0/1 answers."""
    naming = naming or RespondentNaming()
    path = Path(path)
    check_text_table(path, what="response matrix CSV")
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = csv.reader(handle)
            header = _check_header(path, next(rows, None))
            names, cells, skipped = _read_rows(path, rows, header, naming)
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not a UTF-8 text CSV ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise DataError(f"{path}: cannot be read as CSV ({exc})") from None
    check_names(names, "respondent name", path)
    check_names(header, "item name", path)
    if not names:
        reason = f" (first: {skipped[0]})" if skipped else ""
        raise DataError(f"{path}: no row of 0/1 answers{reason}; expected a header row of item names and one row "
                        "of 0/1 per respondent")
    items, item_names, item_notes = _items(header[1:] if names[0] is not None else header)
    runs, name_notes = _provenance(names, naming, path)
    order = np.argsort(items, kind="stable")
    items = items[order]
    whole = bool(len(items)) and np.array_equal(items, np.arange(len(items)))
    return RunMatrix(dataset=path.stem, responses=np.stack(cells)[:, order], items=items, item_fold=None,
                     item_class=None, runs=runs, n_rows=len(items) if whole and item_names is None else None,
                     item_names=item_names,
                     notes=[f"{path.name}: {len(names)} respondents x {len(items)} items; flows and runs from their "
                            f"names by {naming.describe()}", *item_notes, *name_notes],
                     skipped=skipped)


def _check_header(path: Path, header: list[str] | None) -> list[str]:
    """``header``, when it is a usable header row of a response matrix."""
    if not header:
        raise DataError(f"{path}: the file is empty; expected a header row and one row per respondent")
    if len(header) == 1:
        counts = {sep: header[0].count(sep) for sep in _OTHER_DELIMITERS}
        sep = max(counts, key=lambda each: counts[each])
        if counts[sep]:
            raise DataError(f"{path}: the first row has no comma but {counts[sep]} {_OTHER_DELIMITERS[sep]}s; save it "
                            "comma-separated")
        raise DataError(f"{path}: one column only; expected a column naming the runs and one 0/1 column per item")
    if all(field.strip() in ("0", "1", "0.0", "1.0") for field in header[1:]) and len(header) > 2:
        raise DataError(f"{path}: the first row holds 0/1 answers, not item names: add a header row of item names")
    names = pd.Series(header[1:])
    if names.duplicated().any():
        raise DataError(f"{path}: item name {names[names.duplicated()].iloc[0]!r} appears twice in the header row; "
                        "give every item a unique name")
    return header


def _codes(values: list[str]) -> np.ndarray:
    return np.fromiter((_CODES.get(v, _CODES.get(v.strip(), _INVALID)) for v in values), np.int8, len(values))


def _read_rows(path: Path, rows, header: list[str], naming: RespondentNaming):
    """Respondent names (None: the file has no names column), their 0/1 rows, one line per row skipped (cells that
    are not 0/1, or a name :func:`_refused_name` refuses)."""
    width = len(header)
    names, cells, skipped = [], [], []
    named = None
    for number, row in enumerate(rows, 2):
        if not row:
            continue
        if len(row) != width:
            raise DataError(f"{path}: line {number} has {len(row)} fields, the header row {width}; give every row one "
                            "value per item")
        if named is None:  # a first column of answers is not a names column (as benchirt irt reads it)
            named = row[0].strip() not in ("0", "1", "0.0", "1.0")
        name, values = (row[0], row[1:]) if named else (f"{number - 1}", row)
        refused = _refused_name(name, naming) if named else None
        if refused:
            skipped.append(f"row {printable(name[:120])!r} (line {number}): {refused}")
            continue
        codes = _codes(values)
        bad = np.flatnonzero(codes > 1)
        if len(bad):
            column = header[bad[0] + (1 if named else 0)]
            what = "missing" if codes[bad[0]] == _MISSING else f"{values[bad[0]][:20]!r}, not 0/1"
            skipped.append(f"row {printable(name[:120])!r} (line {number}): {len(bad)} cell(s) missing or not 0/1 "
                           f"(first: item {printable(column[:40])!r} is {printable(what)}); a respondent needs an "
                           "answer to every item")
            continue
        names.append(name if named else None)
        cells.append(codes)
    return names, cells, skipped


def _refused_name(name: str, naming: RespondentNaming) -> str | None:
    """Why a row's name, or the flow it names, cannot identify a respondent (:func:`benchirt.safe_text.name_problem`:
    a flow ``'x '`` would be another respondent than ``'x'`` everywhere it is compared), or None."""
    problem = name_problem(name)
    if problem:
        return f"its name {problem}; rename the row in the file"
    split = naming.split(name)
    flow = name if split is None else split[0]
    problem = name_problem(flow)
    return f"its flow name {printable(flow[:80])!r} {problem}; rename the row in the file" if problem else None


def _items(columns: list[str]) -> tuple[np.ndarray, tuple[str, ...] | None, list[str]]:
    """Item ids: the header's names when all are whole numbers ≥ 0 (OpenML row ids); else column positions, the
    names kept as the items' names."""
    try:
        items = np.array([int(str(c).strip()) for c in columns], np.int64)
        if (items >= 0).all():
            return items, None, []
    except ValueError:
        pass
    return np.arange(len(columns), dtype=np.int64), tuple(str(c).strip() for c in columns), [
        f"item names are not dataset row ids (first: {printable(str(columns[0])[:40])!r}): the items keep their "
        "names, and the import cannot be paired with a dataset's rows"]


def _provenance(names: list[str | None], naming: RespondentNaming, path: Path) -> tuple[pd.DataFrame, list[str]]:
    """The :data:`PROVENANCE` frame of the rows: flow and run from each name, run ids unique within a flow."""
    runs = pd.DataFrame({column: pd.Series([pd.NA] * len(names), dtype="object") for column in PROVENANCE})
    if names[0] is None:
        runs["run_id"] = [f"row{i + 1}" for i in range(len(names))]
        runs["flow_name"] = [str(i + 1) for i in range(len(names))]
        return runs, [f"{path.name}: no column naming the runs; each row is a flow of its own (1..{len(names)})"]
    flows, run_ids, unmatched = [], [], []
    for name in names:
        assert name is not None  # a file with a names column names every row (_read_rows)
        split = naming.split(name)
        if split is None:
            unmatched.append(name)
            split = (name, "")
        flows.append(split[0])
        run_ids.append(split[1])
    frame = pd.DataFrame({"flow": flows, "run": run_ids})
    numbered = (frame["run"] == "") | frame.duplicated(["flow", "run"], keep=False)
    frame.loc[numbered, "run"] = [f"row{i + 1}" for i in np.flatnonzero(numbered.to_numpy())]
    runs["run_id"], runs["flow_name"] = frame["run"].to_numpy(), frame["flow"].to_numpy()
    notes = []
    if unmatched:
        notes.append(f"{path.name}: {len(unmatched)} respondent name(s) do not match {naming.describe()}; each is a "
                     f"flow of its own (first: {printable(unmatched[0][:80])!r})")
    return runs, notes

"""Reader of OpenML predictions files, by attribute name, streamed.

An OpenML run's predictions file is an ARFF table with one row per (repeat, fold, sample, row) tested (Vanschoren et
al. 2014). Writers order and spell its attributes differently (openml-python versions, Weka with quoted labels, files
without ``correct``), so every column is found by its name, never its position, and rows may come in any order.

Why not :func:`benchirt.data.arff.read_arff`: a large task's file is read here in chunks by pandas' C parser, keeping
only the row id, fold, correctness and the probability of the true class, so memory grows with the rows and not
with rows × classes. Only repeat 0 is read (every row once); other repeats are counted in
:attr:`RunPredictions.notes`. Every refusal is one :class:`~benchirt.errors.DataError` line naming the run and the
fix. Bounded: the file is checked like every input table (:func:`benchirt.sniff.check_text_table`), then its longest
line is measured on the raw bytes (:func:`longest_line`): a line over :data:`MAX_LINE_BYTES` is refused before any
parser builds it, and pandas gets at most :data:`CHUNK_BYTES` of text per chunk.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.data.arff import NOMINAL, read_header
from benchirt.errors import DataError
from benchirt.stored_runs.task import TaskSplit, TaskTruth
from benchirt.sniff import check_text_table

#: Rows parsed at a time (fewer when the file's lines are long: :func:`_chunk_rows`).
CHUNK_ROWS = 20_000
#: The longest line a predictions file may hold: a row of 1,000 classes' confidences is about 25 KiB, a header
#: line declaring 10,000 class labels about 200 KiB.
MAX_LINE_BYTES = 1 << 20
#: Bytes of text pandas is given per chunk at most (the chunk's rows × the longest line).
CHUNK_BYTES = 64 << 20

@dataclass
class RunPredictions:
    """One run's out-of-fold answers on repeat 0, sorted by row id: ``row_id``, ``fold`` (int64), ``correct`` (the
    prediction equals the true label), ``p_true`` (float32 confidence in the true class, NaN when the file gives
    none), ``true_class`` (int16 index into ``classes``, -1 unknown), ``classes`` (the labels read against), and
    ``notes`` (other repeats left out, missing predictions counted wrong)."""

    row_id: np.ndarray
    fold: np.ndarray
    correct: np.ndarray
    p_true: np.ndarray
    true_class: np.ndarray
    classes: tuple[str, ...]
    notes: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return float(self.correct.mean()) if len(self.correct) else float("nan")


@dataclass(frozen=True)
class _Attribute:
    name: str
    nominal: tuple[str, ...] | None  # declared values; None for numeric/string


def _read_header(handle, where: str) -> list[_Attribute]:
    """The attributes of the header (:func:`benchirt.data.arff.read_header`); the handle is left after ``@data``."""
    try:
        header = read_header(handle, where)
    except DataError as exc:
        raise DataError(f"{exc}; is this an ARFF predictions file?") from None
    if not header.data_line:
        raise DataError(f"{where}: no @data line; the file is truncated or not an ARFF file")
    return [_Attribute(attribute.name, attribute.categories if attribute.kind == NOMINAL else None)
            for attribute in header.attributes]


def _clean_labels(values: pd.Series) -> np.ndarray:
    """Labels as plain strings: surrounding spaces and double quotes removed (pandas removed single ones)."""
    text = values.astype("string").str.strip()
    text = text.str.replace(r'^"(.*)"$', r"\1", regex=True)
    return text.to_numpy(dtype=object, na_value=None)


def _label_index(labels: np.ndarray, classes: tuple[str, ...], what: str, where: str) -> np.ndarray:
    """Class index of each label (-1 for missing); DataError for a label outside ``classes``."""
    lookup = {c: i for i, c in enumerate(classes)}
    out = np.fromiter((lookup.get(v, -2) if v is not None and v != "?" else -1 for v in labels),
                      dtype=np.int16, count=len(labels))
    if (out == -2).any():
        unknown = sorted({v for v, i in zip(labels, out) if i == -2})[:5]
        raise DataError(f"{where}: {what} labels {unknown} are not among the task's classes {list(classes)[:10]}; "
                        "import it against the task it was run on (or fix the dataset version)")
    return out


def _coded_index(values: np.ndarray, classes: tuple[str, ...], what: str, where: str) -> np.ndarray:
    """Integer-coded labels (a NUMERIC prediction column): 0-based indices into ``classes``."""
    codes = np.where(np.isnan(values), -1, values)
    if ((codes != np.floor(codes)) | (codes < -1) | (codes >= len(classes))).any():
        raise DataError(f"{where}: the numeric {what} column holds values outside 0..{len(classes) - 1}, the "
                        f"indices of the task's {len(classes)} classes; give labels or valid class indices")
    return codes.astype(np.int16)


def read_predictions(path: str | Path, run: str, *, truth: TaskTruth | None = None,
                     split: TaskSplit | None = None, chunk_rows: int = CHUNK_ROWS) -> RunPredictions:
    """Read one run's predictions file, checked against the task's truth and split when given.

    ``run`` names the run in messages (e.g. ``"run 1234"``). ``truth`` (the task's dataset target) is required when
    the file has no ``correct`` column; a ``correct`` column disagreeing with it means another dataset version.
    ``split``: each fold's rows must be exactly the split's test rows.

    Raises
    ------
    DataError
        One line naming the run and the fix: unreadable file; no ``row_id`` or ``prediction``; no ``correct`` and no
        truth; labels outside the task's classes; a row listed twice; rows missing from or added to a fold; folds
        differing from the split; row ids beyond the dataset; a ``correct`` column contradicting the dataset.
    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> arff = '''@RELATION openml_task_1_predictions
    ... @ATTRIBUTE repeat NUMERIC
    ... @ATTRIBUTE fold NUMERIC
    ... @ATTRIBUTE row_id NUMERIC
    ... @ATTRIBUTE prediction {yes,no}
    ... @ATTRIBUTE correct {yes,no}
    ... @DATA
    ... 0,0,2,yes,yes
    ... 0,0,0,no,yes
    ... 0,1,1,no,no
    ... 0,1,3,yes,no
    ... '''
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder, "predictions.arff")
    ...     _ = path.write_text(arff, encoding="utf-8")
    ...     run = read_predictions(path, "run 1")
    >>> run.row_id.tolist(), run.fold.tolist()       # sorted by row id
    ([0, 1, 2, 3], [0, 1, 0, 1])
    >>> run.correct.tolist(), run.accuracy, run.classes
    ([False, True, True, False], 0.5, ('yes', 'no'))
    """
    path = Path(path)
    where = f"{run} ({path})"
    try:
        check_text_table(path, what="predictions file")
        longest = longest_line(path)
    except DataError as exc:
        raise DataError(f"{run}: {exc}") from None
    except OSError as exc:
        raise DataError(f"{where}: cannot be read ({exc.strerror or exc}); download the run again") from None
    if longest > MAX_LINE_BYTES:
        raise DataError(f"{where}: a line of {longest:,} bytes, more than the {MAX_LINE_BYTES:,} a predictions file's "
                        "row or header line can need; the file is damaged: download it again")
    chunk_rows = _chunk_rows(chunk_rows, longest)
    try:
        handle = open(path, encoding="utf-8", errors="strict", newline="")
        handle.read(1 << 16)
        handle.seek(0)
    except UnicodeDecodeError:
        handle = open(path, encoding="latin-1", newline="")
    except OSError as exc:
        raise DataError(f"{where}: cannot be read ({exc.strerror or exc}); download the run again") from None
    with handle:
        attributes = _read_header(handle, where)
        return _read_body(handle, attributes, where, truth, split, chunk_rows)


def longest_line(path: str | Path, *, block: int = 1 << 20) -> int:
    """Bytes of the longest line of the file (line breaks: ``\\n``), read ``block`` bytes at a time."""
    longest = current = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(block):
            breaks = np.flatnonzero(np.frombuffer(chunk, np.uint8) == 10)
            if not len(breaks):
                current += len(chunk)
                continue
            longest = max(longest, current + int(breaks[0]), int(np.diff(breaks).max(initial=0)) - 1)
            current = len(chunk) - int(breaks[-1]) - 1
    return max(longest, current)


def _chunk_rows(chunk_rows: int, longest: int) -> int:
    """At most ``chunk_rows``, and few enough that a chunk of the longest lines stays under :data:`CHUNK_BYTES`."""
    return max(1, min(chunk_rows, CHUNK_BYTES // max(longest, 1)))


def _classes(correct_attr: _Attribute | None, prediction_attr: _Attribute, truth: TaskTruth | None,
             where: str) -> tuple:
    """The class labels in the truth's order: the task's dataset's, else those the file declares for its
    ``correct`` (or ``prediction``) attribute; a file with neither a ``correct`` column nor a dataset is refused."""
    if correct_attr is None and truth is None:
        raise DataError(f"{where}: the file has no 'correct' column; put the task's dataset beside it "
                        "(datasets/<did>/dataset.arff and tasks/<task_id>/task.xml) so the truth comes from row_id")
    if truth is not None:
        return tuple(truth.classes)
    assert correct_attr is not None  # without the truth, the 'correct' column is there (checked above)
    declared = correct_attr.nominal or prediction_attr.nominal
    if declared is None:
        raise DataError(f"{where}: 'correct' is not nominal and no dataset is given; add the task's dataset")
    return tuple(declared)


@dataclass
class _Columns:
    """Which attribute of a predictions file holds what, and the columns the reader keeps."""

    by_name: dict[str, _Attribute]  # lower-cased name -> attribute
    names: list[str]  # every attribute's name, in the file's order
    correct: _Attribute | None
    classes: tuple[str, ...]
    confidence: list[str | None]  # the confidence column of each class (None: the file has none)

    def name(self, key: str) -> str:
        return self.by_name[key].name

    @property
    def labels(self) -> set[str]:
        """The columns holding class labels (read as strings)."""
        return {self.name("prediction")} | ({self.correct.name} if self.correct else set())

    @property
    def wanted(self) -> set[str]:
        kept = {self.name(k) for k in ("repeat", "fold", "sample", "row_id") if k in self.by_name}
        return kept | self.labels | {c for c in self.confidence if c}


def _columns(attributes: list[_Attribute], where: str, truth: TaskTruth | None) -> _Columns:
    """The file's columns found by name; a file without ``row_id`` or ``prediction`` is refused."""
    by_name = {a.name.lower(): a for a in attributes}
    for required in ("row_id", "prediction"):
        if required not in by_name:
            raise DataError(f"{where}: no {required!r} attribute (has {[a.name for a in attributes][:8]}); "
                            "not an OpenML predictions file")
    correct = by_name.get("correct")
    classes = _classes(correct, by_name["prediction"], truth, where)
    confidence = {a.name[len("confidence."):]: a.name for a in attributes if a.name.lower().startswith("confidence.")}
    return _Columns(by_name=by_name, names=[a.name for a in attributes], correct=correct, classes=classes,
                    confidence=[confidence.get(c) for c in classes])


@dataclass
class _Parts:
    """What the chunks read so far hold: per-chunk arrays of repeat 0, and what was counted on the way."""

    row: list[np.ndarray] = field(default_factory=list)
    fold: list[np.ndarray] = field(default_factory=list)
    correct: list[np.ndarray] = field(default_factory=list)
    p_true: list[np.ndarray] = field(default_factory=list)
    true: list[np.ndarray] = field(default_factory=list)
    other_repeats: set[float] = field(default_factory=set)
    samples: set[float] = field(default_factory=set)
    missing_predictions: int = 0


def _read_body(handle, attributes: list[_Attribute], where: str, truth: TaskTruth | None,
               split: TaskSplit | None, chunk_rows: int) -> RunPredictions:
    columns = _columns(attributes, where, truth)
    wanted = columns.wanted
    reader = pd.read_csv(
        handle, header=None, names=columns.names, usecols=lambda c: c in wanted, chunksize=chunk_rows,
        quotechar="'", escapechar="\\", skipinitialspace=True, comment="%", na_values=["?"],
        keep_default_na=False, dtype={n: "string" for n in columns.labels}, skip_blank_lines=True,
        engine="c", quoting=csv.QUOTE_MINIMAL, index_col=False,
    )
    parts = _Parts()
    try:
        for chunk in reader:
            if len(chunk.columns) != len(wanted):
                raise DataError(f"{where}: rows do not match the header's {len(columns.names)} attributes")
            _read_chunk(chunk, columns, truth, where, parts)
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataError(f"{where}: the data rows cannot be read ({' '.join(str(exc).split())[:120]}); "
                        "download the file again") from None
    if len(parts.samples) > 1:
        raise DataError(f"{where}: a learning-curve run ({len(parts.samples)} samples); import runs of "
                        "cross-validation or holdout tasks")
    return _assemble(parts, columns.classes, where, truth, split)


def _read_chunk(chunk: pd.DataFrame, columns: _Columns, truth: TaskTruth | None, where: str, parts: _Parts) -> None:
    """Add one chunk's rows of repeat 0 to ``parts``; count its other repeats, samples and missing predictions."""
    by_name = columns.by_name
    repeat = chunk[columns.name("repeat")].to_numpy(np.float64) if "repeat" in by_name else np.zeros(len(chunk))
    parts.other_repeats.update(np.unique(repeat[repeat != 0]).tolist())
    if "sample" in by_name:
        parts.samples.update(np.unique(chunk[columns.name("sample")].to_numpy(np.float64)).tolist())
    chunk = chunk[repeat == 0]
    rows = chunk[columns.name("row_id")].to_numpy(np.float64)
    if np.isnan(rows).any() or (rows != np.floor(rows)).any() or (rows < 0).any():
        raise DataError(f"{where}: row_id values must be whole numbers ≥ 0; the file is damaged")
    rows = rows.astype(np.int64)
    fold = chunk[columns.name("fold")].to_numpy(np.float64).astype(np.int64) if "fold" in by_name \
        else np.zeros(len(rows), np.int64)
    true = _true_index(chunk, rows, columns.correct, truth, columns.classes, where)
    predicted = _predicted_index(chunk[columns.name("prediction")], by_name["prediction"], columns.classes, where)
    parts.missing_predictions += int((predicted < 0).sum())
    parts.row.append(rows)
    parts.fold.append(fold)
    parts.correct.append((predicted == true) & (true >= 0))
    parts.p_true.append(_true_probability(chunk, columns.confidence, true))
    parts.true.append(true)


def _assemble(parts: _Parts, classes: tuple[str, ...], where: str, truth: TaskTruth | None,
              split: TaskSplit | None) -> RunPredictions:
    """The chunks joined and sorted by row id; an empty file, a row predicted twice, a row beyond the dataset
    and rows that contradict the task's split are refused; other repeats and missing predictions are noted."""
    def joined(arrays: list[np.ndarray], dtype) -> np.ndarray:
        return np.concatenate(arrays or [np.zeros(0, dtype)])

    row, fold = joined(parts.row, np.int64), joined(parts.fold, np.int64)
    correct, p_true = joined(parts.correct, bool), joined(parts.p_true, np.float32)
    true = joined(parts.true, np.int16)
    if not len(row):
        raise DataError(f"{where}: no predictions for repeat 0; the file is empty or truncated")
    order = np.argsort(row, kind="stable")
    row, fold, correct, p_true, true = row[order], fold[order], correct[order], p_true[order], true[order]
    twice = row[1:][np.diff(row) == 0]
    if len(twice):
        raise DataError(f"{where}: row {int(twice[0])} is predicted twice in repeat 0 ({len(twice)} duplicate(s)); "
                        "the file is damaged or concatenated: download it again")
    if truth is not None and row[-1] >= truth.n_rows:
        raise DataError(f"{where}: row_id {int(row[-1])} is beyond the dataset's {truth.n_rows} rows: a run on "
                        "another dataset version; import it against its own task")
    if split is not None:
        _check_split(row, fold, split, where)
    notes = []
    if parts.other_repeats:
        notes.append(f"{where}: read repeat 0 only; {len(parts.other_repeats)} further repeat(s) left out")
    if parts.missing_predictions:
        notes.append(f"{where}: {parts.missing_predictions} row(s) without a prediction ('?') counted as wrong")
    return RunPredictions(row_id=row, fold=fold, correct=correct, p_true=p_true, true_class=true, classes=classes,
                          notes=notes)


def _true_index(chunk: pd.DataFrame, rows: np.ndarray, correct_attr: _Attribute | None, truth: TaskTruth | None,
                classes: tuple[str, ...], where: str) -> np.ndarray:
    from_dataset = None
    if truth is not None:
        if len(rows) and rows.max() >= truth.n_rows:
            raise DataError(f"{where}: row_id {int(rows.max())} is beyond the dataset's {truth.n_rows} rows: a run "
                            "on another dataset version; import it against its own task")
        from_dataset = truth.label[rows].astype(np.int16)
    if correct_attr is None:
        assert from_dataset is not None  # the truth or the 'correct' column is there (_read_body checks)
        return from_dataset
    column = chunk[correct_attr.name]
    stated = _label_index(_clean_labels(column), classes, "'correct'", where)
    if from_dataset is not None:
        differ = (stated != from_dataset) & (stated >= 0) & (from_dataset >= 0)
        if differ.any():
            raise DataError(f"{where}: the file's 'correct' labels contradict the dataset at {int(differ.sum())} "
                            f"row(s) (first: row {int(rows[differ][0])}): a run on another dataset version; import "
                            "it against the dataset version it was run on")
    return stated


def _predicted_index(column: pd.Series, attribute: _Attribute, classes: tuple[str, ...], where: str) -> np.ndarray:
    labels = _clean_labels(column)
    if attribute.nominal is None:
        present = [v for v in labels if v is not None]
        if present and not set(present) <= set(classes):
            try:
                values = np.array([float(v) if v is not None else np.nan for v in labels])
            except ValueError:
                values = None
            if values is not None:
                return _coded_index(values, classes, "'prediction'", where)
    return _label_index(labels, classes, "'prediction'", where)


def _true_probability(chunk: pd.DataFrame, conf_columns: list[str | None], true: np.ndarray) -> np.ndarray:
    """The confidence each row gives its true class (NaN where the file has no such column)."""
    p = np.full(len(true), np.nan, np.float32)
    for index, column in enumerate(conf_columns):
        if column is None:
            continue
        hit = true == index
        if hit.any():
            p[hit] = pd.to_numeric(chunk[column], errors="coerce").to_numpy(np.float32)[hit]
    return p


def _check_split(row: np.ndarray, fold: np.ndarray, split: TaskSplit, where: str) -> None:
    expected = split.fold_of(row)
    extra = row[expected < 0]
    if len(extra):
        raise DataError(f"{where}: row {int(extra[0])} is not a test row of the task's split ({len(extra)} such "
                        "rows): a run on another task or dataset version; import it against its own task")
    wrong = expected != fold
    if wrong.any():
        first = int(np.flatnonzero(wrong)[0])
        raise DataError(f"{where}: folds do not match the task's split (row {int(row[first])} tested in fold "
                        f"{int(fold[first])}, the split says {int(expected[first])}; {int(wrong.sum())} rows): import "
                        "it against the task it was run on")
    if len(row) < len(split.row_id):
        absent = np.setdiff1d(split.row_id, row, assume_unique=True)
        first = int(absent[0])
        raise DataError(f"{where}: {len(absent)} test row(s) missing (first: row {first} of fold "
                        f"{int(split.fold_of(np.array([first]))[0])}); the file is incomplete: download it again")

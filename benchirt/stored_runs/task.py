"""A task's split and its dataset's true labels: what a predictions file is checked and scored against.

OpenML identifies a row by ``row_id``, its 0-based position in the dataset's ARFF file, both in the task's
split (``datasplits.arff``: ``type, rowid, repeat, fold``) and in every predictions file
(Vanschoren et al. 2014, the OpenML task and run formats).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchirt.data.arff import read_arff
from benchirt.errors import DataError


@dataclass(frozen=True)
class TaskSplit:
    """The test rows of one repeat of a task's split: ``row_id`` (sorted OpenML row ids of repeat 0's test rows, every
    row once for cross-validation, the held-out part for a holdout task), ``fold`` (each one's test fold), and the
    ``repeats`` and ``folds`` the split file holds."""

    row_id: np.ndarray
    fold: np.ndarray
    repeats: int
    folds: int

    def fold_of(self, row_ids: np.ndarray) -> np.ndarray:
        """The test fold of each of ``row_ids`` (-1: not a test row of repeat 0)."""
        where = np.searchsorted(self.row_id, row_ids)
        where = np.clip(where, 0, max(len(self.row_id) - 1, 0))
        hit = self.row_id[where] == row_ids if len(self.row_id) else np.zeros(len(row_ids), bool)
        return np.where(hit, self.fold[where], -1)


def read_split(path: str | Path) -> TaskSplit:
    """Read ``datasplits.arff``; DataError when a test row of repeat 0 is listed twice."""
    frame = read_arff(path).frame
    columns = {name.lower(): name for name in frame.columns}
    missing = [c for c in ("type", "rowid", "fold") if c not in columns]
    if missing:
        raise DataError(f"{path}: not an OpenML split file (no {', '.join(missing)} attribute)")
    repeat = frame[columns["repeat"]].to_numpy(np.int64) if "repeat" in columns else np.zeros(len(frame), np.int64)
    test = (frame[columns["type"]].astype(str).str.upper() == "TEST").to_numpy() & (repeat == 0)
    if "sample" in columns:
        test &= frame[columns["sample"]].to_numpy() == frame[columns["sample"]].max()
    rows = frame[columns["rowid"]].to_numpy(np.int64)[test]
    folds = frame[columns["fold"]].to_numpy(np.int64)[test]
    order = np.argsort(rows, kind="stable")
    rows, folds = rows[order], folds[order]
    if len(rows) and (np.diff(rows) == 0).any():
        raise DataError(f"{path}: row {int(rows[1:][np.diff(rows) == 0][0])} is a test row twice in repeat 0")
    return TaskSplit(row_id=rows, fold=folds, repeats=int(repeat.max()) + 1 if len(repeat) else 1,
                     folds=int(frame[columns["fold"]].max()) + 1 if len(frame) else 0)


@dataclass(frozen=True)
class TaskTruth:
    """The target of a task's dataset, by OpenML row id: ``classes`` (declared, in header order, which an
    integer-coded prediction indexes), ``label`` (int16 class index per row, -1 missing) and the dataset's ``name``."""

    classes: tuple[str, ...]
    label: np.ndarray
    name: str

    @property
    def n_rows(self) -> int:
        return len(self.label)


def read_truth(path: str | Path, target: str | None, *, name: str | None = None) -> TaskTruth:
    """The target column ``target`` (default: the last attribute) of the dataset ARFF at ``path``."""
    data = read_arff(path)
    frame = data.frame
    target = target or frame.columns[-1]
    if target not in frame.columns:
        raise DataError(f"{path}: the dataset has no target attribute {target!r}; is it the task's dataset?")
    column = frame[target]
    if not hasattr(column, "cat"):
        raise DataError(f"{path}: the target {target!r} is not nominal; OpenML classification needs class labels")
    classes = tuple(str(c) for c in column.cat.categories)
    return TaskTruth(classes=classes, label=column.cat.codes.to_numpy(np.int16), name=name or data.relation)

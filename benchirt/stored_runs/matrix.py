"""One dataset's imported responses before selection: every run × every item, with each run's provenance.

Filled from a runs folder (:mod:`benchirt.stored_runs.folder`) or from respondents × items matrix files
(:mod:`benchirt.stored_runs.matrices`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: Provenance columns of :attr:`RunMatrix.runs` (and of ``respondents.csv``), in order.
PROVENANCE = ("run_id", "flow_id", "flow_name", "setup_id", "uploader", "uploader_name", "task_id")


@dataclass
class RunMatrix:
    """All usable runs of one task and the items (dataset rows) they all answered.

    Attributes
    ----------
    dataset : str
        Dataset name (OpenML's, else the source's).
    responses : numpy.ndarray of int8, shape (n_runs, n_items)
        1 where the run's out-of-fold prediction of the row was correct.
    items : numpy.ndarray of int64, shape (n_items,)
        OpenML row ids of the items, ascending (their positions when ``item_names`` is given).
    item_fold, item_class : numpy.ndarray of int64, int16, or None
        Test fold (repeat 0) and true class index (into ``classes``) of each item; None when unknown.
    runs : pandas.DataFrame, shape (n_runs, len(PROVENANCE))
        Provenance of each run, columns :data:`PROVENANCE` (missing where the source says nothing).
    classes : tuple of str or None
        The classes ``item_class`` indexes: the dataset's declared ones when its ARFF was read, else the predictions
        files'; None when unknown (a matrix source).
    n_rows : int or None
        Rows of the task's dataset when the source says (its ARFF read; a matrix source answers every row).
    notes, skipped : list of str
        What reading decided (repeats left out, …); one line per refused run of this dataset, naming it and the fix.
    source_skipped : list of str
        One line per run (or file) of the whole source refused before its dataset was known (shared by its datasets).
    source_found : int or None
        Run folders (or matrix files, ``source_unit`` says which) the source holds; each read or skipped.
    source_unit : str
    item_names : tuple of str or None
        The items' names when they are not dataset rows (a matrix file naming test-set items); None: row ids.
    """

    dataset: str
    responses: np.ndarray
    items: np.ndarray
    item_fold: np.ndarray | None
    item_class: np.ndarray | None
    runs: pd.DataFrame
    task_id: int | None = None
    classes: tuple[str, ...] | None = None
    n_rows: int | None = None
    notes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    source_skipped: list[str] = field(default_factory=list)
    source_found: int | None = None
    source_unit: str = "run folder"
    item_names: tuple[str, ...] | None = None

    def item_labels_of(self, positions: np.ndarray) -> list[str]:
        """How the items at ``positions`` are named in a response matrix: their names, else their row ids."""
        if self.item_names is not None:
            return [self.item_names[i] for i in positions]
        return [str(i) for i in self.items[positions]]

    @property
    def item_labels(self) -> np.ndarray | None:
        """The dataset's label of each item (as read from the data or the files' ``correct`` column); None
        when unknown."""
        if self.item_class is None or self.classes is None:
            return None
        return np.asarray(self.classes, dtype=object)[self.item_class]

    @property
    def accuracy(self) -> np.ndarray:
        """Each run's share of items answered correctly."""
        return self.responses.mean(axis=1) if self.responses.shape[1] else np.full(len(self.runs), np.nan)

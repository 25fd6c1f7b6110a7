"""Which datasets and algorithms of a sparse performance matrix AIRT can fit on their observed cells.

AIRT on the observed cells (:mod:`benchirt.airt.observed`; Mislevy & Wu 1996) estimates each algorithm from the datasets
it ran on and each dataset from the algorithms it has. The minima are AIRT's own for a complete matrix (Kandanaarachchi
& Smith-Miles 2023; :func:`benchirt.airt.fit_airt`) applied to each line: an algorithm needs as many datasets as the
whole fit (its latent trait curve is a smoothing spline through at least five difficulties, §4.1, and its
discrimination's interval needs more than three, :mod:`benchirt.airt.plausibility`), a dataset as many algorithms (with
one, its easiness of eq. 10 is that algorithm's result alone). Lines below a minimum are left out, repeatedly until none
is. Then the datasets and algorithms must be linked by shared results: groups sharing none are placed on the latent
scale by the prior alone, so only the group with the most observed cells is kept. Everything left out is named in the
notes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

#: Fewest datasets with a result an algorithm needs (AIRT's minimum of datasets for a whole matrix).
MIN_DATASETS_PER_ALGORITHM = 5
#: Fewest algorithms with a result a dataset needs (AIRT's minimum of algorithms for a whole matrix).
MIN_ALGORITHMS_PER_DATASET = 2
#: Names listed in a note before "and N more".
NAMES_SHOWN = 8


@dataclass(frozen=True)
class ObservedField:
    """The part of a sparse matrix AIRT fits, and what was left out of it.

    Attributes
    ----------
    table : pd.DataFrame
        The kept datasets (rows) and algorithms (columns) in the input's order; NaN = not observed.
    n_cells, n_observed : int
        Cells (datasets × algorithms) and observed cells of the input.
    sparse_algorithms, sparse_datasets : list of str
        Left out for having fewer results than :data:`MIN_DATASETS_PER_ALGORITHM` or :data:`MIN_ALGORITHMS_PER_DATASET`.
    unlinked_algorithms, unlinked_datasets : list of str
        Left out for sharing no result with the kept group."""

    table: pd.DataFrame
    n_cells: int
    n_observed: int
    sparse_algorithms: list[str]
    sparse_datasets: list[str]
    unlinked_algorithms: list[str]
    unlinked_datasets: list[str]

    def notes(self) -> list[str]:
        """What the fit is on (observed cells of how many) and every line left out, one sentence each."""
        kept = int(self.table.notna().to_numpy().sum())
        notes = [f"observed cells: {self.n_observed:,} of {self.n_cells:,} ({self.n_observed / self.n_cells:.0%}); "
                 f"AIRT is fitted to the {kept:,} of them on {self.table.shape[0]} datasets × {self.table.shape[1]} "
                 "algorithms, each dataset's likelihood over the algorithms it has (missing cells left out, taken "
                 "as missing at random given the dataset's difficulty: Mislevy & Wu 1996)"]
        if self.sparse_algorithms:
            notes.append(f"left out {_names(self.sparse_algorithms)} algorithm(s) with results on fewer than "
                         f"{MIN_DATASETS_PER_ALGORITHM} datasets")
        if self.sparse_datasets:
            notes.append(f"left out {_names(self.sparse_datasets)} dataset(s) with results of fewer than "
                         f"{MIN_ALGORITHMS_PER_DATASET} algorithms")
        if self.unlinked_algorithms or self.unlinked_datasets:
            notes.append(f"left out {_names(self.unlinked_datasets)} dataset(s) and {_names(self.unlinked_algorithms)} "
                         "algorithm(s) sharing no result with the rest: their difficulties could not be compared")
        return notes


def _names(names: list[str]) -> str:
    """``"3 (a, b, c)"``, or the first :data:`NAMES_SHOWN` names and how many more."""
    shown = ", ".join(names[:NAMES_SHOWN]) + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN
                                              else "")
    return f"{len(names)} ({shown})" if names else "0"


def _enough(observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns kept once every line below its minimum is left out, repeatedly (module docstring)."""
    rows = np.ones(observed.shape[0], dtype=bool)
    cols = np.ones(observed.shape[1], dtype=bool)
    while True:
        inside = observed & rows[:, None] & cols[None, :]
        new_cols = cols & (inside.sum(axis=0) >= MIN_DATASETS_PER_ALGORITHM)
        new_rows = rows & ((inside & new_cols[None, :]).sum(axis=1) >= MIN_ALGORITHMS_PER_DATASET)
        if (new_rows == rows).all() and (new_cols == cols).all():
            return rows, cols
        rows, cols = new_rows, new_cols


def _linked(observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the connected group of the bipartite graph of observed cells with the most cells."""
    n_rows, n_cols = observed.shape
    r, c = np.nonzero(observed)
    graph = coo_matrix((np.ones(r.size), (r, n_rows + c)), shape=(n_rows + n_cols,) * 2)
    _, label = connected_components(graph, directed=False)
    cells = np.bincount(label[r], minlength=label.max() + 1)
    keep = label == int(np.argmax(cells))
    return keep[:n_rows], keep[n_rows:]


def observed_field(perf: pd.DataFrame) -> ObservedField:
    """The datasets and algorithms of ``perf`` (rows datasets, columns algorithms, NaN = not observed) AIRT can fit on
    their observed cells (module docstring). The result may hold fewer than AIRT needs;
    :func:`benchirt.airt.fit_airt` says so."""
    observed = perf.notna().to_numpy()
    rows, cols = _enough(observed)
    kept = observed & rows[:, None] & cols[None, :]
    linked_rows, linked_cols = _linked(kept) if kept.any() else (rows, cols)
    linked_rows &= rows
    linked_cols &= cols
    index, columns = perf.index.map(str), perf.columns.map(str)
    return ObservedField(
        table=perf.loc[linked_rows, linked_cols], n_cells=int(observed.size), n_observed=int(observed.sum()),
        sparse_algorithms=list(columns[~cols]), sparse_datasets=list(index[~rows]),
        unlinked_algorithms=list(columns[cols & ~linked_cols]), unlinked_datasets=list(index[rows & ~linked_rows]))

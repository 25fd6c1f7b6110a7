"""The largest complete block of a sparse datasets × classifiers table, for methods that need every cell.

AIRT (Kandanaarachchi & Smith-Miles 2023) fits every algorithm on every dataset; a sparse field (imported runs, a flow
on some tasks only) has no such table, and dropping every classifier with a missing cell can leave none. The largest
all-present submatrix is the maximum edge biclique problem, NP-hard (Peeters 2003); this module takes the usual greedy
route: drop, one at a time, the dataset or classifier with the largest share of missing cells (ties: the dataset first,
then the later name) until no cell is missing. Hand-written because no maintained library offers it for a pandas table;
it is a dozen lines."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class CompleteBlock:
    """Result of :func:`largest_complete_block`: ``table``, the kept rows and columns in input order with no missing
    cell, and ``dropped_rows``, ``dropped_columns`` in the order they were dropped."""

    table: pd.DataFrame
    dropped_rows: list[str]
    dropped_columns: list[str]

    def note(self, *, rows: str = "datasets", columns: str = "classifiers") -> str | None:
        """One sentence on what was dropped and why; None when nothing was."""
        if not self.dropped_rows and not self.dropped_columns:
            return None
        shown = ", ".join(self.dropped_columns[:8]) + (f" and {len(self.dropped_columns) - 8} more"
                                                       if len(self.dropped_columns) > 8 else "")
        parts = [f"{len(self.dropped_rows)} {rows} ({', '.join(self.dropped_rows)})" if self.dropped_rows else "",
                 f"{len(self.dropped_columns)} {columns} ({shown})" if self.dropped_columns else ""]
        return (f"a sparse table: kept its largest complete block found greedily, {self.table.shape[0]} {rows} × "
                f"{self.table.shape[1]} {columns}; left out " + " and ".join(p for p in parts if p)
                + f" — each missing on some of the others (the {rows} or {columns} with the largest share of "
                "missing cells dropped first)")


def largest_complete_block(table: pd.DataFrame) -> CompleteBlock:
    """Drop rows and columns of ``table`` (NaN = missing) until none is missing, greedily (module docstring).

    >>> t = pd.DataFrame({"a": [1, 1, 1], "b": [1, None, 1], "c": [None, None, 1]}, index=["d1", "d2", "d3"])
    >>> block = largest_complete_block(t)
    >>> block.table.index.tolist(), block.table.columns.tolist(), block.dropped_columns
    (['d1', 'd3'], ['a', 'b'], ['c'])
    """
    present = table.notna().to_numpy()
    rows, columns = np.ones(present.shape[0], bool), np.ones(present.shape[1], bool)
    dropped_rows: list[str] = []
    dropped_columns: list[str] = []
    while True:
        block = present[np.ix_(rows, columns)]
        if block.all() or not block.size:
            break
        row_missing = np.where(rows, 0.0, -1.0)
        row_missing[rows] = 1.0 - block.mean(axis=1)
        column_missing = np.where(columns, 0.0, -1.0)
        column_missing[columns] = 1.0 - block.mean(axis=0)
        i, j = _last_argmax(row_missing), _last_argmax(column_missing)
        if row_missing[i] >= column_missing[j]:
            rows[i] = False
            dropped_rows.append(str(table.index[i]))
        else:
            columns[j] = False
            dropped_columns.append(str(table.columns[j]))
    return CompleteBlock(table.loc[rows, columns], dropped_rows, dropped_columns)


def _last_argmax(values: np.ndarray) -> int:
    """Position of the largest value, the last one among equals."""
    return len(values) - 1 - int(np.argmax(values[::-1]))

"""Turn a raw table into a :class:`~benchirt.data.dataset.Dataset`: pick the target, apply the load-time rules.

Every source (ARFF/CSV/parquet files, scikit-learn builtins, OpenML) ends here, so every dataset obeys the same rules:

1. Column names must be unique, else :class:`~benchirt.errors.DataError` (renaming silently would make ``target=`` and
   the ignore lists ambiguous).
2. Target: the column named ``target`` (unknown name → ``DataError`` listing the columns), else the last column.
   Labels become a ``category`` Series of strings (``1``, not ``1.0``); a numeric target with non-integer values is a
   regression target → ``DataError``. Declared classes without instances are removed.
3. Rows whose target is missing are dropped (note, ``extra["dropped_rows"]`` = their 0-based positions); the index is
   reset to ``0..n-1``.
4. Columns dropped, each recorded in ``extra["dropped_columns"]`` (name → reason): the ``ignore`` list, columns
   declared free text (ARFF ``string``), entirely-missing and constant columns (missing values do not count), and
   *identifier* columns — nominal with at least 20 present values of which 90 % or more are distinct (splice's
   ``Instance_name``), which no classifier can generalise from.
5. Feature types: numeric → ``float64``, except exact small integers a reader stored compactly
   (:mod:`benchirt.data.compact`); everything else → ``category`` (ARFF nominal columns keep their declared
   categories).

A dataset with one class or no usable feature loads (its metadata can be computed); :attr:`Dataset.skip_reason` says
why a stage must skip it.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from benchirt.data.compact import is_compact
from benchirt.data.dataset import Dataset
from benchirt.errors import DataError

#: Numeric columns checked for being empty or constant at once (100,000 rows: 51 MB as float64).
_NUMERIC_BATCH = 64
#: A nominal column with at least this many present values ...
_ID_MIN_ROWS = 20
#: ... of which at least this share are distinct is an identifier (splice: 3,178 of 3,190).
_ID_DISTINCT_SHARE = 0.9


def prepare_dataset(
    frame: pd.DataFrame,
    *,
    name: str,
    where: str,
    target: str | None = None,
    source: str = "",
    openml_id: int | None = None,
    task_id: int | None = None,
    ignore: Iterable[str] = (),
    text_columns: Iterable[str] = (),
    notes: Iterable[str] = (),
    extra: dict | None = None,
) -> Dataset:
    """Split ``frame`` (every column, target included) into features and target and apply the module's cleaning rules.

    ``where`` is what error messages name (a path, ``"OpenML dataset 31"``); ``target`` defaults to the last column;
    ``source``, ``openml_id``, ``task_id`` are copied to the :class:`Dataset`; ``ignore`` are columns to drop (names
    not in ``frame`` skipped); ``text_columns`` are declared free text and dropped; the reader's ``notes`` and
    ``extra`` go to ``Dataset.extra``, which also holds ``target``, ``dropped_columns`` (name → reason) and
    ``dropped_rows``.
    """
    frame, target = _with_target(frame, target, where)
    notes = list(notes)
    dropped_columns: dict[str, str] = {}

    y_raw = frame[target]
    keep_rows = y_raw.notna().to_numpy()
    dropped_rows = np.flatnonzero(~keep_rows).tolist()
    if dropped_rows:
        notes.append(f"dropped {len(dropped_rows)} row(s) whose target {target!r} is missing")
        frame = frame.loc[keep_rows].reset_index(drop=True)
        y_raw = frame[target]
    else:
        frame = frame.reset_index(drop=True)
    y = _labels(y_raw.reset_index(drop=True), target, where).rename(target)

    X = frame.drop(columns=[target])
    dropped_columns.update(_declared_drops(X.columns, ignore, text_columns))
    X = _typed_features(X.drop(columns=list(dropped_columns)))
    dropped_columns.update(_uninformative_columns(X))
    if dropped_columns:
        X = X.drop(columns=[c for c in dropped_columns if c in X.columns])
        notes.append(f"dropped {len(dropped_columns)} column(s): "
                     + ", ".join(f"{c} ({r})" for c, r in list(dropped_columns.items())[:10])
                     + (" …" if len(dropped_columns) > 10 else ""))
    info = dict(extra or {})
    info.update(target=target, notes=notes, dropped_columns=dropped_columns, dropped_rows=dropped_rows)
    return Dataset(name=name, X=X, y=y, openml_id=openml_id, task_id=task_id, source=source, extra=info)


def _with_target(frame: pd.DataFrame, target: str | None, where: str) -> tuple[pd.DataFrame, str]:
    """``frame`` with string column names and the target column (default the last) after checking both."""
    columns = [str(c) for c in frame.columns]
    duplicates = sorted({c for c in columns if columns.count(c) > 1})
    if duplicates:
        raise DataError(f"{where}: duplicate column names {duplicates}; rename them so every column is unique")
    if frame.shape[1] == 0:
        raise DataError(f"{where}: the table has no columns")
    frame = frame.set_axis(columns, axis=1)
    if target is None:
        return frame, columns[-1]
    if target not in frame.columns:
        raise DataError(
            f"{where}: target column {target!r} not found; columns are {columns[:30]}"
            f"{' …' if len(columns) > 30 else ''}. Pass one of them as target"
        )
    return frame, target


def _declared_drops(columns, ignore: Iterable[str], text_columns: Iterable[str]) -> dict[str, str]:
    """The feature columns the source says to leave out: ignored attributes and free-text ones."""
    dropped: dict[str, str] = {}
    for column in columns:
        if column in ignore:
            dropped[column] = "ignored attribute"
        elif column in text_columns:
            dropped[column] = "free-text (string) attribute"
    return dropped


def _labels(y: pd.Series, target: str, where: str) -> pd.Series:
    """Class labels as a ``category`` Series of strings, without empty classes."""
    if isinstance(y.dtype, pd.CategoricalDtype):
        y = y.cat.remove_unused_categories()
        return y.cat.rename_categories([str(c) for c in y.cat.categories])
    if pd.api.types.is_bool_dtype(y.dtype):
        return y.astype(str).astype("category")
    if pd.api.types.is_numeric_dtype(y.dtype):
        values = y.to_numpy(dtype="float64")
        if not np.all(np.isfinite(values)) or np.any(values != np.round(values)):
            raise DataError(
                f"{where}: target {target!r} has non-integer numbers (a regression target?); "
                "benchirt needs class labels — choose another target column"
            )
        labels = pd.Series(values.astype(np.int64), index=y.index)
        categories = np.unique(labels.to_numpy())
        return pd.Series(pd.Categorical(labels.astype(str), categories=[str(c) for c in categories]), index=y.index)
    return y.astype("string").str.strip().astype("category")


def _uninformative_columns(X: pd.DataFrame) -> dict[str, str]:
    """Entirely-missing, constant and identifier columns of a typed feature frame (float64 / category), in a few
    vectorised passes (numeric columns as one 2-D array, nominal ones through their category codes)."""
    numeric = [c for c in X.columns if not isinstance(X[c].dtype, pd.CategoricalDtype)]
    reasons = _uninformative_numeric(X, numeric)
    known = set(numeric)
    reasons.update(_uninformative_nominal(X, [c for c in X.columns if c not in known]))
    return {c: reasons[c] for c in X.columns if c in reasons}


def _uninformative_numeric(X: pd.DataFrame, numeric: list[str]) -> dict[str, str]:
    """Entirely-missing and constant numeric columns, checked :data:`_NUMERIC_BATCH` columns at a time."""
    if not len(X):
        return {column: "entirely missing" for column in numeric}
    reasons: dict[str, str] = {}
    for start in range(0, len(numeric), _NUMERIC_BATCH):  # a batch at a time: wide tables stay small
        batch = numeric[start:start + _NUMERIC_BATCH]
        values = X[batch].to_numpy(dtype="float64")
        present = ~np.isnan(values)
        n_present = present.sum(axis=0)
        low = np.where(present, values, np.inf).min(axis=0)
        high = np.where(present, values, -np.inf).max(axis=0)
        for column, count, lo, hi in zip(batch, n_present, low, high):
            if count == 0:
                reasons[column] = "entirely missing"
            elif lo == hi:
                reasons[column] = "constant"
    return reasons


def _uninformative_nominal(X: pd.DataFrame, nominal: list[str]) -> dict[str, str]:
    """Entirely-missing, constant and identifier nominal columns, from their category codes."""
    reasons: dict[str, str] = {}
    for column in nominal:
        codes = X[column].cat.codes.to_numpy()
        codes = codes[codes >= 0]
        n_distinct = int(np.count_nonzero(np.bincount(codes))) if codes.size else 0
        if codes.size == 0:
            reasons[column] = "entirely missing"
        elif n_distinct == 1:
            reasons[column] = "constant"
        elif codes.size >= _ID_MIN_ROWS and n_distinct >= _ID_DISTINCT_SHARE * codes.size:
            reasons[column] = "identifier (a different value in almost every row)"
    return reasons


def _typed_features(X: pd.DataFrame) -> pd.DataFrame:
    """Numeric columns as ``float64`` (exact small integers kept), all others as ``category`` (existing categories kept)."""
    changes = {}
    for column, dtype in X.dtypes.items():
        if isinstance(dtype, pd.CategoricalDtype) or dtype == np.float64 or is_compact(dtype):
            continue
        numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        changes[column] = "float64" if numeric else "category"
    return X.astype(changes) if changes else X

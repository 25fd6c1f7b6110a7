"""Feature preprocessing for the response stage: impute, one-hot encode nominals, scale when a model needs it.

decodIRT (Cardoso et al. 2021 §4.3) replaced missing values by zero and fed nominal codes to every model as numbers.
benchirt instead fits, on each training part only (so cross-validation never sees its held-out fold): for numeric
columns median imputation, then standardisation for models that need it (:attr:`benchirt.pool.RealClassifier.scale`:
KNN, SVC, MLP); for nominal columns most-frequent imputation, then one-hot encoding that ignores categories unseen in
training and folds rare ones into an "infrequent" column beyond ``max_categories``. :func:`clean_features` first
normalises the frame (nominal → object strings, numeric → float64, ±inf → missing) and drops entirely-missing columns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from benchirt.data.compact import is_compact
from benchirt.data.dataset import is_nominal
from benchirt.errors import DataError


def clean_features(X: pd.DataFrame, *, dataset: str = "dataset") -> tuple[pd.DataFrame, list[str]]:
    """Normalise column types and drop columns that are entirely missing; ``dataset`` names it in messages.

    Returns the cleaned frame — nominal columns as ``object`` holding ``str`` or ``np.nan``, numeric columns as
    ``float64`` with ``np.nan`` for missing and infinite values, or as the exact small integers a reader stored
    (:mod:`benchirt.data.compact`; scikit-learn turns them into the same ``float64`` values) — and notes on what was
    changed. DataError when no column has any observed value.
    """
    X = X.reset_index(drop=True)
    if X.columns.duplicated().any():
        duplicated = sorted({str(c) for c in X.columns[X.columns.duplicated()]})
        raise DataError(f"dataset {dataset!r}: duplicate column name(s) {duplicated}; rename them so each is unique")
    notes: list[str] = []
    columns: dict[str, pd.Series] = {}
    empty, infinite = [], []
    for name in X.columns:
        column = X[name]
        if column.isna().all():
            empty.append(str(name))
            continue
        if is_nominal(column):
            columns[name] = pd.Series(
                [np.nan if missing else str(value) for value, missing in zip(column, column.isna())],
                index=column.index,
                dtype=object,
            )
        elif is_compact(column.dtype):
            columns[name] = column  # exact small integers (benchirt.data.compact): no missing or infinite value
        else:
            values = column if column.dtype == np.float64 else pd.to_numeric(column, errors="coerce").astype("float64")
            if np.isinf(values).any():
                infinite.append(str(name))
                values = values.where(np.isfinite(values), np.nan)
            columns[name] = values
    if empty:
        notes.append(f"dropped {len(empty)} entirely missing column(s): {', '.join(empty)}")
    if infinite:
        notes.append(f"treated infinite values as missing in column(s): {', '.join(infinite)}")
    if not columns:
        raise DataError(
            f"dataset {dataset!r}: no feature column has an observed value; nothing to train on — "
            "remove the dataset from the suite or fix its file"
        )
    return pd.DataFrame(columns, index=X.index), notes


def make_preprocessor(X: pd.DataFrame, scale: bool, *, max_categories: int | None = 32) -> ColumnTransformer:
    """An unfitted transformer from a cleaned frame (:func:`clean_features`; only names and dtypes used) to a dense
    ``float64`` matrix: numeric columns first (standardised after imputation when ``scale``), then the one-hot columns
    (at most ``max_categories`` per feature; rarer categories share one "infrequent" column)."""
    nominal = [c for c in X.columns if is_nominal(X[c])]
    numeric = [c for c in X.columns if c not in set(nominal)]
    numeric_steps: list = [("impute", SimpleImputer(strategy="median"))]
    if scale:
        numeric_steps.append(("scale", StandardScaler()))
    nominal_steps = [
        ("impute", SimpleImputer(strategy="most_frequent")),
        (
            "onehot",
            OneHotEncoder(
                handle_unknown="infrequent_if_exist",
                max_categories=max_categories,
                sparse_output=False,
                dtype=np.float64,
            ),
        ),
    ]
    return ColumnTransformer(
        [("numeric", Pipeline(numeric_steps), numeric), ("nominal", Pipeline(nominal_steps), nominal)],
        sparse_threshold=0.0,
    )


def transform_pair(
    X: pd.DataFrame, train: np.ndarray, other: np.ndarray, scale: bool, *, max_categories: int | None = 32
) -> tuple[np.ndarray, np.ndarray]:
    """Fit the preprocessor on rows ``train`` of ``X`` and transform rows ``train`` and ``other``."""
    preprocessor = make_preprocessor(X, scale=scale, max_categories=max_categories)
    X_train = preprocessor.fit_transform(X.iloc[train])
    return np.asarray(X_train, dtype=np.float64), np.asarray(preprocessor.transform(X.iloc[other]), dtype=np.float64)

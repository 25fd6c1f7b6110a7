"""The one in-memory dataset type every benchirt stage consumes.

A :class:`Dataset` holds the features as a :class:`pandas.DataFrame` (nominal columns ``category``), the target as a
categorical :class:`pandas.Series`, its name and OpenML ids when known. :meth:`Dataset.metadata` computes the nine
characteristics Cardoso et al. 2021 §5.6 draws from OpenML (plus the instance count), so that benchmark subsets can be
characterised the same way offline.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd



@dataclass
class Dataset:
    """A classification dataset.

    Attributes
    ----------
    name : str
        Human-readable name (OpenML's when it comes from OpenML).
    X : pandas.DataFrame, shape (n_instances, n_features)
        Features; nominal ones ``category``, numeric ones a float/int dtype.
    y : pandas.Series, shape (n_instances,)
        Class labels, ``category`` dtype.
    openml_id, task_id : int or None
        OpenML dataset and task ids, when known.
    source : str
        Where the data came from, e.g. ``"builtin:breast_cancer"``, ``"file:/path/x.arff"``, ``"openml:31"``.
    extra : dict
        What loading did (:mod:`benchirt.data.cleaning`): ``target``, ``notes``, ``dropped_columns`` (name → reason),
        ``dropped_rows`` (0-based source positions of rows without a label); files add ``file`` (ARFF
        ``relation``), OpenML ``openml_version``.
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    openml_id: int | None = None
    task_id: int | None = None
    source: str = ""
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.X) != len(self.y):
            raise ValueError(
                f"dataset {self.name!r}: X has {len(self.X)} rows but y has {len(self.y)} labels"
            )
        if not isinstance(self.y.dtype, pd.CategoricalDtype):
            self.y = self.y.astype("category")

    @property
    def n_classes(self) -> int:
        return int(self.y.dropna().nunique())

    @property
    def n_instances(self) -> int:
        """Number of rows, without computing any other metadata."""
        return len(self.y)

    @property
    def skip_reason(self) -> str | None:
        """Why no classifier can be evaluated on this dataset (one class, no rows, no usable feature), or ``None``.
        Loading never fails for these, so metadata stays available; the response stage records a skip."""
        if len(self.y) == 0:
            return f"dataset {self.name!r} has no rows with a class label"
        if self.n_classes < 2:
            labels = list(self.y.dropna().unique())[:1]
            return f"dataset {self.name!r} has a single class {labels}; a classifier cannot be evaluated"
        if self.X.shape[1] == 0:
            return f"dataset {self.name!r} has no usable feature (all were dropped: {self.extra.get('dropped_columns', {})})"
        return None

    def metadata(self) -> dict:
        """The dataset characteristics of Cardoso et al. 2021 §5.6, keyed by :data:`METADATA_COLUMNS`. Percentages
        are in [0, 100]; ``pct_missing_instances`` counts rows with a missing feature; a binary feature has exactly two
        distinct observed values; ``dimensionality`` is ``n_features / n_instances``."""
        n, p = self.X.shape
        nominal = [c for c in self.X.columns if is_nominal(self.X[c])]
        n_distinct = self.X.nunique(dropna=True)
        class_share = self.y.value_counts(normalize=True, dropna=True)
        class_share = class_share[class_share > 0]
        pct = (lambda k: 100.0 * k / p) if p else (lambda k: 0.0)
        return {
            "n_instances": int(n),
            "n_features": int(p),
            "n_classes": self.n_classes,
            "pct_missing_instances": 100.0 * float(self.X.isna().any(axis=1).mean()) if n else 0.0,
            "pct_categorical_features": pct(len(nominal)),
            "pct_numeric_features": pct(p - len(nominal)),
            "pct_binary_features": pct(int((n_distinct == 2).sum())),
            "pct_majority_class": 100.0 * float(class_share.max()) if len(class_share) else 0.0,
            "pct_minority_class": 100.0 * float(class_share.min()) if len(class_share) else 0.0,
            "dimensionality": float(p) / n if n else float("nan"),
        }


def is_nominal(column: pd.Series) -> bool:
    """True for categorical, object, boolean and string columns (pandas 3's default ``str`` too); False for numeric ones."""
    dtype = column.dtype
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )

"""Does a subset keep the character of the full suite? (Cardoso et al. 2021 §5.6, Tables 7–9).

Each dataset is classed by task (binary or multiclass) and data type (categorical: every feature nominal; numeric: every
feature numeric; or mixed) from its metadata (:meth:`benchirt.data.Dataset.metadata`). Tables 7–8 are the shares of
these classes in a suite; Table 9 compares the means of the metadata (here also median and sd, which §5.6 quotes).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from benchirt.data.names import METADATA_COLUMNS
from benchirt.errors import DataError

TASKS = ("binary", "multiclass")
DATA_TYPES = ("categorical", "numeric", "mixed")


def classify_datasets(metadata: pd.DataFrame) -> pd.DataFrame:
    """Task (binary, multiclass) and data type (categorical, numeric, mixed) of every dataset: columns ``task,
    data_type`` indexed by dataset, from ``metadata``'s ``n_classes``, ``pct_categorical_features`` and
    ``pct_numeric_features``."""
    task = np.where(metadata["n_classes"].astype(float) <= 2, "binary", "multiclass")
    categorical = metadata["pct_categorical_features"].astype(float) >= 100.0
    numeric = metadata["pct_numeric_features"].astype(float) >= 100.0
    data_type = np.select([categorical, numeric], ["categorical", "numeric"], default="mixed")
    return pd.DataFrame({"task": task, "data_type": data_type}, index=metadata.index)


def characterize(
    scenarios: Mapping[str, list[str]], metadata: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Cardoso et al. 2021 Tables 7–9 for every scenario (full suite and subsets).

    ``scenarios``: ``{name: [dataset, ...]}``; ``metadata``: one row per dataset (index or column ``dataset``) with
    columns of :data:`benchirt.data.dataset.METADATA_COLUMNS` (at least ``n_classes``, ``pct_categorical_features``,
    ``pct_numeric_features``).

    Returns
    -------
    shares : DataFrame
        ``subset, data_type, task, share``: percentage of the scenario's datasets in each cell, with ``total`` rows and
        columns as in Tables 7–8.
    summary : DataFrame
        ``subset, metadata, mean, median, sd`` (ddof = 1, 0 for one dataset) of each metadata column (Table 9); missing
        values left out.

    Raises
    ------
    DataError
        Metadata missing a dataset of a scenario, or the columns the classes need.
    """
    metadata = metadata.set_index("dataset") if "dataset" in metadata.columns else metadata
    metadata.index = metadata.index.map(str)
    needed = ["n_classes", "pct_categorical_features", "pct_numeric_features"]
    missing = [c for c in needed if c not in metadata.columns]
    if missing:
        raise DataError(f"the dataset metadata lack column(s) {', '.join(missing)} (see Dataset.metadata())")
    all_datasets = sorted({d for datasets in scenarios.values() for d in datasets})
    uncovered = [d for d in all_datasets if d not in metadata.index]
    if uncovered:
        raise DataError(f"no metadata for dataset(s) {', '.join(uncovered)}; give one metadata row per dataset")
    classes = classify_datasets(metadata.loc[all_datasets])
    columns = [c for c in METADATA_COLUMNS if c in metadata.columns]
    shares = [_class_shares(classes.loc[datasets]).assign(subset=name)[["subset", "data_type", "task", "share"]]
              for name, datasets in scenarios.items()]
    summary = [{"subset": name, **row} for name, datasets in scenarios.items()
               for row in _metadata_statistics(metadata.loc[datasets], columns)]
    return pd.concat(shares, ignore_index=True), pd.DataFrame(summary)


def _class_shares(classes: pd.DataFrame) -> pd.DataFrame:
    """Tables 7–8 of one scenario, long: ``data_type, task, share`` (percent of its datasets, totals included)."""
    counts = pd.crosstab(classes["data_type"], classes["task"])
    counts = counts.reindex(index=list(DATA_TYPES), columns=list(TASKS), fill_value=0)
    counts.loc["total"] = counts.sum(axis=0)
    counts["total"] = counts.sum(axis=1)
    share = 100.0 * counts / len(classes)
    return share.rename_axis(index="data_type", columns="task").stack().rename("share").reset_index()


def _metadata_statistics(metadata: pd.DataFrame, columns: list[str]) -> list[dict]:
    """Table 9 of one scenario: ``metadata, mean, median, sd`` per column with any value (missing ones left out)."""
    rows = []
    for column in columns:
        values = pd.to_numeric(metadata[column], errors="coerce").dropna()
        if values.empty:
            continue
        rows.append({"metadata": column, "mean": float(values.mean()), "median": float(values.median()),
                     "sd": float(values.std(ddof=1)) if len(values) > 1 else 0.0})
    return rows


def share_table(shares: pd.DataFrame, subset: str) -> pd.DataFrame:
    """One scenario's shares in the layout of Cardoso et al. 2021 Tables 7–8 (rows data type, columns task)."""
    frame = shares[shares["subset"] == subset]
    table = frame.pivot(index="data_type", columns="task", values="share")
    return table.reindex(index=[*DATA_TYPES, "total"], columns=[*TASKS, "total"])

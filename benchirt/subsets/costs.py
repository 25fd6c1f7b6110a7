"""What each dataset of a suite costs to run: training CPU seconds from the packaged shape-based cost model.

The subset rules and the dataset-value table weigh datasets by cost. A run knows each dataset's shape (rows,
features, classes) from its metadata; the cost model (:func:`benchirt.pipeline.estimate.response_cost`, calibrated
on measured fits) turns a shape into the seconds decodIRT's protocol spends on it. A dataset without a shape (a
response matrix imported without its data) has no cost: NaN, for the caller to say so.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: The metadata keys of a dataset's shape (:meth:`benchirt.data.dataset.Dataset.metadata`).
SHAPE_KEYS = ("n_instances", "n_features", "n_classes")


def training_costs(metadata: Mapping[str, Mapping[str, Any]]) -> pd.Series:
    """Dataset → predicted training CPU seconds of the protocol's defaults; NaN where the shape is unknown."""
    from benchirt.pipeline.estimate import Shape, load_cost_model, response_cost
    from benchirt.responses import ResponseConfig

    model, protocol = load_cost_model(), ResponseConfig()
    costs = {}
    for name, meta in metadata.items():
        values = [float(meta[key]) if meta.get(key) is not None else np.nan for key in SHAPE_KEYS]
        if not np.isfinite(values).all():
            costs[name] = np.nan
            continue
        rows, features, classes = (int(value) for value in values)
        costs[name] = response_cost(Shape(rows=rows, features=features, classes=classes, source="file"), protocol,
                                    model)["seconds"]
    return pd.Series(costs, dtype=float)


def costs_or_counts(costs: pd.Series, datasets: Sequence[str]) -> tuple[np.ndarray, str]:
    """The costs of ``datasets`` in their order, or 1 each when any is unknown (NaN or not positive), with the note
    that says so (empty when every cost is known)."""
    cost = costs.reindex(list(datasets)).to_numpy(float)
    if np.isnan(cost).any() or (cost <= 0).any():
        return np.ones(len(cost)), ("the datasets' costs are unknown (a dataset without rows, features and classes: "
                                    "a matrix imported without its data, or 'benchirt subset' without --metadata), "
                                    "so the budget rule counts every dataset as 1 (its budgets are shares of the "
                                    "datasets, not of the CPU) and cheapest-first is not a baseline")
    return cost, ""

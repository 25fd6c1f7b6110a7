"""The protocol every stage result follows, and the two interval rules its ``conf_int`` methods share.

Every stage result (``ResponseResult``, ``DatasetIRT``, ``IRTFit``, ``RatingResult``, ``Leaderboard``,
``Tournament``, ``SubsetEvaluation``, ``AIRTResult``, the placement results) has ``summary() -> str`` (a few lines for
a terminal, as statsmodels' ``Results.summary``) and ``to_frames() -> dict[str, pandas.DataFrame]`` (its tables by
file stem). Every estimate carrying an uncertainty has ``conf_int(level=0.95) -> DataFrame`` (the level a parameter,
as scipy.stats' ``confidence_interval``): the columns naming the estimate, then ``estimate, low, high`` — and ``se``
when the interval is ``estimate ± z·se``. Two rules build them: :func:`normal_interval` (Glicko-2 ratings ± z·RD, IRT
parameters and θ ± z·SE) and :func:`percentile_interval` (the leaderboard's bootstrap, Efron & Tibshirani 1993
§13.3). Coverage is checked on simulated data (``tests/test_interval_coverage.py``,
``benchmarks/interval_coverage.py``).
"""
from __future__ import annotations

from statistics import NormalDist
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from benchirt.options import Number

#: The columns every ``conf_int`` table ends with (``se`` comes before them for normal intervals).
INTERVAL_COLUMNS = ("estimate", "low", "high")
#: The declared constraint of every ``conf_int(level)``.
LEVEL = Number(above=0, below=1)


@runtime_checkable
class StageResult(Protocol):
    """What every stage result offers: a text summary and its tables."""

    def summary(self) -> str: ...

    def to_frames(self) -> dict[str, pd.DataFrame]: ...


@runtime_checkable
class IntervalEstimate(Protocol):
    """A result whose estimates carry an interval at any level."""

    def conf_int(self, level: float = 0.95) -> pd.DataFrame: ...


def check_level(level: float) -> float:
    """``level`` as a float when it is a number in (0, 1); otherwise a ``ConfigError`` naming ``conf_int.level``."""
    LEVEL.check("conf_int", "level", level)
    return float(level)


def normal_interval(estimate, se, *, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """``estimate ∓ z·se`` with ``z`` the standard normal's ``(1 + level) / 2`` quantile (1.96 at 95 %)."""
    z = NormalDist().inv_cdf(0.5 + check_level(level) / 2.0)
    estimate, se = np.asarray(estimate, dtype=float), np.asarray(se, dtype=float)
    return estimate - z * se, estimate + z * se


def percentile_interval(replicates, *, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The central ``level`` share of bootstrap ``replicates`` (B, k) per column, NaN replicates left out: the
    percentile interval of Efron & Tibshirani 1993 §13.3 (``numpy.nanquantile``'s linear rule). A column without any
    finite replicate gives NaN."""
    tail = (1.0 - check_level(level)) / 2.0
    values = np.asarray(replicates, dtype=float)
    if values.ndim != 2 or values.shape[0] == 0:
        nan = np.full(values.shape[-1] if values.ndim == 2 else 0, np.nan)
        return nan, nan.copy()
    empty = np.isnan(values).all(axis=0)
    filled = np.where(empty[None, :], 0.0, values)
    low, high = np.nanquantile(filled, tail, axis=0), np.nanquantile(filled, 1.0 - tail, axis=0)
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def interval_frame(names: dict, estimate, low, high, *, se=None) -> pd.DataFrame:
    """A ``conf_int`` table: the naming columns ``names`` (column -> values), ``[se,] estimate, low, high``."""
    frame = pd.DataFrame({key: np.asarray(values) for key, values in names.items()})
    if se is not None:
        frame["se"] = np.asarray(se, dtype=float)
    frame["estimate"] = np.asarray(estimate, dtype=float)
    frame["low"] = np.asarray(low, dtype=float)
    frame["high"] = np.asarray(high, dtype=float)
    return frame

"""Small stand-in stage functions for the pipeline-engine tests (the shipped pipeline calls the real stages).

They live in an importable module (not in a test file) so joblib and Dask worker processes can
unpickle them; tests put this folder on PYTHONPATH for the workers. It imports no scikit-learn (a second
of every worker's start-up): the fake classifier is in :mod:`killing_classifier`.
"""
from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.pipeline.artifact_types import register


@register
@dataclass
class FakeResult:
    """A result shaped like the real ones: a frame, a series, an array, a dict."""

    dataset: str
    table: pd.DataFrame
    column: pd.Series
    values: np.ndarray
    summary: dict


def square_table(name: str, n: int, log_dir: str | None = None, sleep: float = 0.0) -> FakeResult:
    """Log the call (one file per call, so concurrent workers never interleave), sleep, return a result."""
    if log_dir is not None:
        Path(log_dir, f"{name}.{os.getpid()}.{time.time_ns()}").write_text(name)
    time.sleep(sleep)
    if name.startswith("single-class"):
        raise DataError(f"dataset {name!r} has a single class; nothing to classify")
    if name.startswith("broken"):
        raise RuntimeError(f"worker crashed on {name}")
    if name.startswith("killer"):  # what the out-of-memory killer does to a worker process
        os.kill(os.getpid(), signal.SIGKILL)
    if name.startswith("killed-once"):
        marker = Path(log_dir, f"{name}.failed-once")
        if not marker.exists():
            marker.write_text("x")
            os.kill(os.getpid(), signal.SIGKILL)
    if name.startswith("flaky"):
        marker = Path(log_dir, f"{name}.failed-once")
        if not marker.exists():
            marker.write_text("x")
            raise OSError(f"transient failure on {name}")
    rng = np.random.default_rng(n)
    table = pd.DataFrame(rng.integers(0, 2, size=(20, 300)).astype("int8"), columns=[f"i{j}" for j in range(300)])
    return FakeResult(name, table, pd.Series(np.arange(n, dtype=float), name="col"), np.arange(n) ** 2,
                      {"n": n, "square": float(n * n)})


def calls(log_dir: str | Path) -> list[str]:
    """Names of the datasets the fake stage was called on (one entry per call)."""
    return sorted(p.read_text() for p in Path(log_dir).iterdir() if not p.name.endswith(".failed-once"))

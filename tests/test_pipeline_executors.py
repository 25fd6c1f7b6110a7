"""Executors: local (in-process and joblib) and Dask LocalCluster; failures are retried, recorded, never fatal."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchirt.pipeline.executors import DaskExecutor, LocalExecutor
from pipeline_fakes import calls, square_table

TESTS_DIR = str(Path(__file__).parent)
NAMES = ["a", "single-class", "broken", "flaky", "b"]


@pytest.fixture
def workers_see_fakes(monkeypatch):
    """Worker processes import the fake stage module from the tests folder."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [TESTS_DIR, os.environ.get("PYTHONPATH")])))


def _run(executor, log_dir):
    tasks = [(name, (name, i + 2, str(log_dir))) for i, name in enumerate(NAMES)]
    return {o.name: o for o in executor.map(square_table, tasks)}


def _check(outcomes, log_dir, retries):
    assert set(outcomes) == set(NAMES)
    assert outcomes["a"].status == "ok" and outcomes["a"].value.summary["square"] == 4.0
    assert outcomes["b"].status == "ok" and outcomes["b"].value.summary["n"] == 6
    assert outcomes["single-class"].status == "skipped"
    assert "single class" in outcomes["single-class"].error
    assert outcomes["broken"].status == "failed" and "RuntimeError: worker crashed on broken" in outcomes["broken"].error
    assert outcomes["flaky"].status == "ok"  # failed once, then succeeded on the retry
    made = calls(log_dir)
    assert made.count("single-class") == 1, "a data error is not retried"
    assert made.count("broken") == retries + 1
    assert made.count("flaky") == 2


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_local_executor_records_failures_and_finishes_the_rest(tmp_path, n_jobs, workers_see_fakes):
    outcomes = _run(LocalExecutor(n_jobs=n_jobs, retries=2), tmp_path)
    _check(outcomes, tmp_path, retries=2)
    assert outcomes["broken"].attempts == 3


def test_dask_scheduler_address_retries_and_records(tmp_path, workers_see_fakes):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        executor = DaskExecutor(scheduler=cluster.scheduler_address, retries=1)  # as `--scheduler tcp://...`
        try:
            assert executor.describe() == f"dask scheduler {cluster.scheduler_address}"
            outcomes = _run(executor, tmp_path)
        finally:
            executor.close()
    _check(outcomes, tmp_path, retries=1)
    assert outcomes["broken"].attempts == 2


def test_unreachable_scheduler_is_a_clear_error():
    from benchirt.errors import BenchirtError

    with pytest.raises(BenchirtError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskExecutor(scheduler="tcp://127.0.0.1:9", retries=0, connect_timeout="1s")

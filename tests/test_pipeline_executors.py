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


@pytest.mark.slow  # about 13 CPU-s; Dask runs a real stage in every CI run in test_pipeline_run.py's test_dask_local_cluster_runs_the_real_irt_stage (heavy), retries by default in test_local_executor_records_failures_and_finishes_the_rest
def test_dask_scheduler_address_retries_and_records(tmp_path, workers_see_fakes):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        executor = DaskExecutor(scheduler=cluster.scheduler_address, retries=1)  # as `--scheduler tcp://...`
        try:
            assert executor.describe().startswith(f"dask scheduler {cluster.scheduler_address}")
            assert "re-runs a task whose worker died up to 3 times" in executor.describe()  # Dask's default
            outcomes = _run(executor, tmp_path)
        finally:
            executor.close()
    _check(outcomes, tmp_path, retries=1)
    assert outcomes["broken"].attempts == 2


@pytest.mark.heavy
def test_unreachable_scheduler_is_a_clear_error():
    from benchirt.errors import BenchirtError

    with pytest.raises(BenchirtError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskExecutor(scheduler="tcp://127.0.0.1:9", retries=0, connect_timeout="1s")


KILL_NAMES = ["a", "killer", "killed-once", "b", "c"]


def _check_killed(outcomes, log_dir, retries):
    """A task that kills its worker every time fails after a bounded number of tries; the others finish."""
    assert set(outcomes) == set(KILL_NAMES)
    for name in ("a", "b", "c"):
        assert outcomes[name].status == "ok", outcomes[name].error
    killer = outcomes["killer"]
    assert killer.status == "failed" and killer.error.startswith("worker lost")
    # one loss while others ran (charged to nobody), then retries + 1 losses while it ran alone
    assert retries + 1 <= killer.attempts <= retries + 2
    assert killer.lost_workers == killer.attempts
    assert calls(log_dir).count("killer") == killer.attempts
    once = outcomes["killed-once"]  # lost its worker once (maybe once more to the killer), then succeeded
    assert once.status == "ok" and 1 <= once.lost_workers <= 2 and once.attempts == once.lost_workers + 1


@pytest.mark.slow  # about 16 CPU-s; a killed worker is counted, retried and charged in every CI run in test_the_manifest_counts_attempts_and_lost_workers (heavy)
def test_local_executor_survives_killed_workers(tmp_path, workers_see_fakes):
    tasks = [(name, (name, i + 2, str(tmp_path), 0.2)) for i, name in enumerate(KILL_NAMES)]
    outcomes = {o.name: o for o in LocalExecutor(n_jobs=2, retries=1).map(square_table, tasks)}
    _check_killed(outcomes, tmp_path, retries=1)


@pytest.mark.slow
def test_dask_local_cluster_survives_killed_workers(tmp_path, workers_see_fakes):
    executor = DaskExecutor(n_workers=2, retries=1)
    try:
        assert executor.scheduler_reruns == 0  # benchirt's own LocalCluster: every lost worker is counted
        tasks = [(name, (name, i + 2, str(tmp_path), 0.2)) for i, name in enumerate(KILL_NAMES)]
        outcomes = {o.name: o for o in executor.map(square_table, tasks)}
    finally:
        executor.close()
    _check_killed(outcomes, tmp_path, retries=1)


def _worker_pids(log_dir, names) -> set[int]:
    """Process ids of the workers that ran the named tasks (square_table logs ``name.pid.time``)."""
    return {int(p.name.split(".")[1]) for p in Path(log_dir).iterdir() if p.name.split(".")[0] in names}


@pytest.mark.heavy
def test_one_pool_serves_every_map_until_close(tmp_path, workers_see_fakes):
    """(A pool a lost worker broke is replaced at the next submit, within a map or in the next one: the
    killed-worker tests.)"""
    executor = LocalExecutor(n_jobs=2, retries=0)
    first = [(name, (name, 2, str(tmp_path), 0.3)) for name in ("a", "b")]
    assert {o.status for o in executor.map(square_table, first)} == {"ok"}
    workers = _worker_pids(tmp_path, {"a", "b"})
    assert len(workers) == 2
    second = [(name, (name, 3, str(tmp_path), 0.3)) for name in ("c", "d")]
    assert {o.status for o in executor.map(square_table, second)} == {"ok"}
    assert _worker_pids(tmp_path, {"c", "d"}) == workers   # no second start-up
    executor.close()
    for pid in workers:   # close waited for the workers to end
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.heavy
def test_the_manifest_counts_attempts_and_lost_workers(tmp_path, workers_see_fakes):
    from benchirt.pipeline.runner import DatasetInput, Run
    from benchirt.pipeline.store import ArtifactStore

    run = Run(ArtifactStore(tmp_path / "run"), LocalExecutor(n_jobs=2, retries=0), show_progress=False)
    run.start(["respond"])
    items = [DatasetInput(name, {"fingerprint": name}, lambda name=name: (name, 3, str(tmp_path), 0.2))
             for name in ("a", "killer", "b")]
    done = run.per_dataset("respond", {"option": 1}, items, square_table)
    run.finish()
    assert set(done) == {"a", "b"}
    entry = run.manifest.datasets["killer"]["respond"]
    assert entry["status"] == "failed" and entry["reason"].startswith("worker lost")
    assert entry["attempts"] == entry["lost_workers"] == 2  # an uncharged first loss, then one alone (retries=0)
    assert run.manifest.status == "finished with failures"


@pytest.mark.heavy
def test_an_attempt_records_its_cpu_seconds_beside_its_wall_seconds():
    """A task that waits costs wall time and no CPU; one that computes costs both (what --calibrate-run reads)."""
    import time as clock

    from benchirt.pipeline.executors import attempt

    waited = attempt(clock.sleep, "wait", (0.3,))
    assert waited.seconds >= 0.3 and waited.cpu_seconds < 0.1

    def spin(seconds):
        end = clock.process_time() + seconds
        while clock.process_time() < end:
            pass

    worked = attempt(spin, "work", (0.2,))
    assert worked.cpu_seconds >= 0.2 and worked.seconds >= worked.cpu_seconds * 0.99

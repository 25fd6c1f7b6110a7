"""A run killed with SIGKILL in the middle resumes: finished datasets are reused, partial files never read."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from benchirt.pipeline.store import MARKER, ArtifactStore, artifact_key
from pipeline_fakes import calls

TESTS_DIR = Path(__file__).parent
NAMES = [f"d{i:02d}" for i in range(8)]

SCRIPT = textwrap.dedent(
    """
    import sys
    from benchirt.pipeline.executors import LocalExecutor
    from benchirt.pipeline.runner import DatasetInput, Run
    from benchirt.pipeline.store import ArtifactStore
    from pipeline_fakes import square_table

    out, log_dir, n_jobs, sleep = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    names = [f"d{i:02d}" for i in range(8)]
    run = Run(ArtifactStore(out), LocalExecutor(n_jobs), show_progress=False)
    run.start(["respond"])
    items = [DatasetInput(n, {"fingerprint": n}, lambda n=n, i=i: (n, 1000 + i, log_dir, sleep))
             for i, n in enumerate(names)]
    done = run.per_dataset("respond", {"option": 1}, items, square_table)
    run.finish()
    print("done", len(done))
    """
)


def _start(tmp_path, out, log_dir, n_jobs, sleep):
    script = tmp_path / "run_fake.py"
    script.write_text(SCRIPT)
    log_dir.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, str(script), str(out), str(log_dir), str(n_jobs), str(sleep)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _kill(proc):
    """SIGKILL the run and its worker processes (its own process group) at once, like a killed job."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _key(name):
    return artifact_key("respond", {"option": 1}, {"fingerprint": name})


def _complete(store):
    return {n for n in NAMES if store.has("respond", n, _key(n))}


def _assert_every_visible_artifact_is_whole(store):
    """Each non-temporary folder has a valid marker and loads with the right content."""
    folders = (store.artifacts / "respond").iterdir() if (store.artifacts / "respond").is_dir() else ()
    for folder in folders:
        if folder.name.startswith(".tmp-"):
            continue
        marker = json.loads((folder / MARKER).read_text())
        result = store.load("respond", marker["name"], marker["key"])
        assert result.summary["n"] == 1000 + NAMES.index(marker["name"])
        assert result.table.shape == (20, 300)


@pytest.mark.heavy
@pytest.mark.parametrize("n_jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_sigkill_mid_run_then_rerun_reuses_finished_datasets(tmp_path, n_jobs):
    out = tmp_path / "run"
    store = ArtifactStore(out)
    first_log = tmp_path / "calls-1"
    proc = _start(tmp_path, out, first_log, n_jobs, sleep=0.4)
    deadline = time.time() + 60
    while len(_complete(store)) < 3 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    _kill(proc)
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    finished_before = _complete(store)
    assert 3 <= len(finished_before) < len(NAMES)
    manifest = json.loads((out / "manifest.json").read_text())  # never half-written
    assert manifest["status"] == "running"
    _assert_every_visible_artifact_is_whole(store)

    second_log = tmp_path / "calls-2"
    proc = _start(tmp_path, out, second_log, n_jobs, sleep=0.0)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "done 8" in stdout
    recomputed = set(calls(second_log))
    assert recomputed == set(NAMES) - finished_before, "a finished dataset was computed again"
    assert _complete(store) == set(NAMES)
    _assert_every_visible_artifact_is_whole(store)
    assert not list((out / "artifacts" / "respond").glob(".tmp-*")), "leftovers of the killed run remain"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "finished"
    statuses = {n: manifest["datasets"][n]["respond"]["status"] for n in NAMES}
    assert {n for n, s in statuses.items() if s == "reused"} == finished_before
    assert manifest["stages"]["respond"]["reused"] == len(finished_before)


@pytest.mark.slow  # about 10 CPU-s; a SIGKILL mid-run and the rerun that reuses what finished run in every CI run in test_sigkill_mid_run_then_rerun_reuses_finished_datasets (heavy)
def test_repeated_kills_at_random_moments_never_expose_partial_artifacts(tmp_path):
    out = tmp_path / "run"
    store = ArtifactStore(out)
    rng = __import__("random").Random(0)
    for round_ in range(3):
        log_dir = tmp_path / f"calls-{round_}"
        proc = _start(tmp_path, out, log_dir, 1, sleep=0.05)
        deadline = time.time() + 60  # start-up (imports) takes a few seconds on a loaded machine
        while proc.poll() is None and not any(log_dir.iterdir()) and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.4))  # the kills land during the computations and writes
        _kill(proc)
        _assert_every_visible_artifact_is_whole(store)
    proc = _start(tmp_path, out, tmp_path / "calls-final", 1, sleep=0.0)
    assert proc.wait(timeout=120) == 0
    assert _complete(store) == set(NAMES)
    _assert_every_visible_artifact_is_whole(store)


@pytest.mark.slow
def test_sigkill_of_a_real_benchirt_run_then_rerun(tmp_path):
    """The same with the shipped stages: `benchirt run` killed after its first dataset, then run again."""
    import yaml

    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({
        "suite": "builtin:iris,wine,wdbc", "stages": ["respond", "irt", "rate", "report"],
        "responses": {"cv_folds": 3, "ladder_epochs": 10, "pool": ["gaussian_nb", "knn_3", "decision_tree", "svc"]},
        "rating": {"n_permutations": 10}, "execution": {"n_jobs": 1}}))
    out = tmp_path / "run"
    command = [sys.executable, "-m", "benchirt.cli", "run", str(config), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        done = list((out / "artifacts" / "respond").glob("*/" + MARKER)) if (out / "artifacts" / "respond").is_dir() else []
        if done:
            break
        time.sleep(0.05)
    _kill(proc)
    finished = {json.loads(p.read_text())["name"] for p in (out / "artifacts" / "respond").glob("*/" + MARKER)}
    assert 1 <= len(finished) < 3
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    statuses = {name: entry["respond"]["status"] for name, entry in manifest["datasets"].items()}
    assert {n for n, s in statuses.items() if s == "reused"} == finished
    assert {n for n, s in statuses.items() if s == "computed"} == {"iris", "wine", "wdbc"} - finished
    assert manifest["status"] == "finished" and (out / "report.html").is_file()

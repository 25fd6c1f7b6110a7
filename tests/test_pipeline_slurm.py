"""``execution.backend: slurm`` without a cluster: ``sbatch``, ``squeue``, ``sacct`` and ``scancel`` are the shims of
:mod:`slurm_shims`, which run the real batch scripts (dask-jobqueue's) as local processes.

Pinned here: the messages of the ``execution.slurm`` block's rules (the generated cases of every declared option
are in ``tests/test_option_constraints.py``), the job plan on hand-computed numbers, the dry run's files (and that
it submits nothing), a lost job (its task retried alone, a job submitted in its place, each job's state recorded),
and a real run on the jobs giving the ``--n-jobs 1`` files byte for byte, whose rerun submits only what is missing.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pandas as pd
import pytest
import yaml

import slurm_shims
from benchirt.cli import main
from benchirt.errors import ConfigError
from benchirt.pipeline.config import load_config
from benchirt.pipeline.slurm import SlurmExecutor, plan_jobs
from benchirt.pipeline.slurm_options import SlurmOptions

TESTS_DIR = str(Path(__file__).parent)
SMALL = {
    "suite": ["builtin:iris,wine"],
    "stages": ["respond", "irt"],
    "respond": {"cv_folds": 3, "ladder_epochs": 5,
                "pool": ["gaussian_nb", "knn_3", "decision_tree", "random_forest_5", "svc"]},
}


@pytest.fixture
def shims(tmp_path, monkeypatch):
    """The four SLURM commands first on PATH (jobs run as local processes that import the tests' modules); every
    job still running is killed at the end."""
    pytest.importorskip("dask_jobqueue")  # the extra benchirt[slurm] (in dev too)
    folder = tmp_path / "slurm-shims"
    monkeypatch.setenv("PATH", f"{slurm_shims.install(folder)}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [TESTS_DIR, os.environ.get("PYTHONPATH")])))
    yield folder
    slurm_shims.cancel_all(folder)


def _config(folder: Path, name: str, **execution) -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump({**SMALL, "execution": execution}))
    return path


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["run", *args])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("execution, message", [
    ({"backend": "slurm", "slurm": {"directives": ["--comment=$(id)"]}},
     "<dict>: execution.slurm.directives: got ['--comment=$(id)'], expected a list of sbatch directives, each "
     "--key=value or --flag without spaces or shell characters, none of --partition, --mem, --time, --cpus-per-task, "
     "--ntasks, --job-name, --output, --error (set by the block's own options) or --export, --export-file, "
     "--get-user-env, --wrap (they change what the job runs)"),
    ({"backend": "slurm", "slurm": {"walltime": "00:20:00", "job_minutes": 30}},
     "<dict>: execution.slurm.job_minutes: got 30, expected at most the job time limit walltime (00:20:00)"),
    ({"slurm": {"partition": "short"}},
     "<dict>: execution.backend: got 'local', expected 'slurm' when execution.slurm is given (the block is read by "
     "that backend only)"),
    ({"backend": "slurm", "scheduler": "tcp://h:8786"},
     "<dict>: execution.scheduler: got 'tcp://h:8786', expected null when execution.backend is slurm (the run "
     "starts its own scheduler)"),
    ({"backend": "slurm", "slurm": {"queue": "short"}},
     "<dict>: unknown execution.slurm option(s) 'queue'; valid options: partition, memory, walltime, cores, "
     "max_jobs, job_minutes, directives"),
    ({"backend": "slurm", "slurm": {"memory": "4 GB; reboot"}},
     "<dict>: execution.slurm.memory: got '4 GB; reboot', expected a memory size such as 4G (a whole number, then "
     "K, M, G or T)"),
])
def test_the_slurm_block_refuses_in_pinned_words(execution, message):
    with pytest.raises(ConfigError) as info:
        load_config({"execution": execution})
    assert str(info.value) == message


def test_backend_slurm_without_a_block_takes_the_defaults_and_round_trips():
    config = load_config({"execution": {"backend": "slurm"}})
    assert config.execution.slurm == SlurmOptions()
    assert load_config(config.to_dict()).execution == config.execution


def test_jobs_are_planned_from_the_estimated_cpu_and_capped():
    # 600 + 1500 + 300 = 2400 CPU-s; jobs of 20 min on 1 core: ceil(2400 / 1200) = 2
    plan = plan_jobs([600.0, 1500.0, 300.0], SlurmOptions(job_minutes=20, max_jobs=5))
    assert (plan.needed, plan.jobs) == (2, 2)
    assert plan.job_of == (1, 0, 1)                   # longest first, each to the least busy job
    # 2 cores per job do 2400 CPU-s in 20 min: one job
    assert plan_jobs([600.0, 1500.0, 300.0], SlurmOptions(job_minutes=20, cores=2)).jobs == 1
    # 10 h of CPU in jobs of 30 min: 20 needed, max_jobs 4
    capped = plan_jobs([3600.0] * 10, SlurmOptions(job_minutes=30, max_jobs=4))
    assert (capped.needed, capped.jobs) == (20, 4)
    assert sorted(capped.job_of) == [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    assert plan_jobs([1.0], SlurmOptions()).jobs == 1            # a little work is still one job
    assert plan_jobs([], SlurmOptions()).jobs == 0                # nothing to compute: no job


def test_task_costs_come_from_the_cost_model_and_an_unknown_one_counts_as_the_longest(tmp_path):
    from benchirt.pipeline.slurm import StageCosts

    costs = StageCosts(load_config({**SMALL, "execution": {"backend": "slurm"}}))
    iris, wine, unknown = costs("respond", ["iris", "wine", "not-in-the-suite"])
    assert 0 < iris < wine == unknown and costs.problem is None     # wine is the larger dataset
    assert costs("irt", ["iris"])[0] > 0
    missing = StageCosts(load_config({"suite": [str(tmp_path / "gone.csv")], "execution": {"backend": "slurm"}}))
    assert missing("respond", ["gone"]) == [60.0]
    assert missing.problem == (f"no cost estimate ({tmp_path / 'gone.csv'}: no such file or folder (looked at "
                               f"{tmp_path / 'gone.csv'})): 60 s per task assumed")


def test_job_states_read_sacct_and_say_when_it_cannot(tmp_path, monkeypatch):
    from benchirt.pipeline.slurm import job_states

    sacct = tmp_path / "bin" / "sacct"
    sacct.parent.mkdir()
    sacct.write_text("#!/bin/sh\nprintf '7|PREEMPTED\\n7.batch|CANCELLED\\n8|CANCELLED by 1234\\n9|TIMEOUT\\n'\n")
    sacct.chmod(0o755)
    monkeypatch.setenv("PATH", str(sacct.parent))
    assert job_states(["7", "8", "9", "10"]) == {"7": "PREEMPTED", "8": "CANCELLED", "9": "TIMEOUT", "10": "UNKNOWN"}
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert job_states(["7"])["7"].startswith("UNKNOWN (sacct: ")


def test_nothing_to_compute_submits_no_job(tmp_path):
    executor = SlurmExecutor(SlurmOptions(), retries=0, costs=lambda stage, datasets: [1.0] * len(datasets),
                             folder=tmp_path / "slurm")
    assert executor.expect("irt", [], 3) == "slurm: irt: nothing to submit, 3 dataset(s) reused from the run folder"
    assert list(executor.map(slurm_shims.sleepy, [])) == []
    assert executor.scheduler_record() == {"submissions": [{"stage": "irt", "datasets": 0, "reused": 3,
                                                            "estimated_cpu_seconds": 0, "jobs": 0, "jobs_needed": 0}],
                                           "jobs": {}}
    executor.close()
    assert not (tmp_path / "slurm").exists()


def test_dry_run_writes_the_job_list_and_the_batch_script_and_submits_nothing(tmp_path, shims):
    config = _config(tmp_path, "slurm.yaml", backend="slurm",
                     slurm={"partition": "short", "memory": "2G", "walltime": "00:20:00", "cores": 2,
                            "job_minutes": 10, "directives": ["--account=proj42", "--qos=low"]})
    out = tmp_path / "run"
    code, stdout, _ = _run(str(config), "--out", str(out), "--dry-run")
    assert code == 0
    assert stdout.startswith("benchirt run --dry-run: nothing was submitted.")
    assert f"Job list: {out / 'slurm' / 'jobs.csv'}" in stdout and f"Batch script: {out / 'slurm' / 'job.sh'}" in stdout
    script = (out / "slurm" / "job.sh").read_text().splitlines()
    for line in ("#SBATCH -p short", "#SBATCH --mem=2G", "#SBATCH -t 00:20:00", "#SBATCH --cpus-per-task=2",
                 "#SBATCH --account=proj42", "#SBATCH --qos=low", "#SBATCH -J benchirt"):
        assert line in script
    assert "tcp://DRIVER-ADDRESS:8786 --name benchirt-worker --nthreads 1" in script[-1]   # 2 one-thread workers
    assert "--nworkers 2" in script[-1]
    jobs = pd.read_csv(out / "slurm" / "jobs.csv")
    assert list(jobs.columns) == ["stage", "dataset", "estimated_cpu_s", "job"]
    assert list(zip(jobs["stage"], jobs["dataset"])) == [("respond", "iris"), ("respond", "wine"),
                                                         ("irt", "iris"), ("irt", "wine")]
    assert (jobs["estimated_cpu_s"] > 0).all() and set(jobs["job"]) == {0}   # seconds of CPU: one job per stage
    assert slurm_shims.jobs(shims) == []                                     # nothing submitted
    assert not (out / "manifest.json").exists()
    code, _, stderr = _run(str(config), "--out", str(out), "--dry-run")     # the folder is the run's own
    assert code == 0


def test_dry_run_needs_the_slurm_backend(tmp_path):
    config = _config(tmp_path, "local.yaml", n_jobs=1)
    code, _, stderr = _run(str(config), "--out", str(tmp_path / "run"), "--dry-run")
    assert code == 2
    assert stderr.strip().endswith("--dry-run writes SLURM jobs, but execution.backend is 'local'; set execution: "
                                   "{backend: slurm} in the config (or run --estimate)")


@pytest.mark.heavy
def test_a_lost_job_costs_only_its_task_and_is_replaced(tmp_path, shims):
    """Two jobs serve six 1-second tasks; one job is killed mid-task: that task alone is tried again (its loss
    is not charged), a job is submitted in its place, and sacct's states are recorded."""
    import dask

    names = [f"t{i:02d}" for i in range(6)]
    executor = SlurmExecutor(SlurmOptions(max_jobs=2, job_minutes=1, walltime="00:10:00"), retries=0,
                             costs=lambda stage, datasets: [60.0] * len(datasets), folder=tmp_path / "slurm")
    outcomes = {}
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "1s"}):
        try:
            line = executor.expect("respond", names, 0)
            for outcome in executor.map(slurm_shims.sleepy, [(name, (name, 1.0)) for name in names]):
                outcomes[outcome.name] = outcome
                if len(outcomes) == 1:   # the other job is mid-task (this one waits for its next)
                    done_on = os.getpgid(outcome.value[1])
                    busy = next(job for job in slurm_shims.jobs(shims) if job["script_pgid"] != done_on)
                    slurm_shims.kill_job(shims, busy["id"])
            record = executor.scheduler_record()
        finally:
            executor.close()
    assert line == ("slurm: respond: 6 dataset(s) submitted, 0 reused from the run folder; estimated 6.0 min CPU on "
                    "2 job(s) of 1 core(s), target 1 min each (capped by max_jobs 2; 6 needed)")
    assert {o.status for o in outcomes.values()} == {"ok"}
    lost = [o for o in outcomes.values() if o.lost_workers]
    assert [(o.attempts, o.lost_workers) for o in lost] == [(2, 1)]
    assert all(o.attempts == 1 for o in outcomes.values() if not o.lost_workers)
    states = {job: entry["state"] for job, entry in record["jobs"].items()}
    killed = busy["id"]
    assert states == {"1001": "CANCELLED", "1002": "CANCELLED", "1003": "CANCELLED", killed: "FAILED"}  # 1003 replaced it
    assert "ended_by" not in record["jobs"][killed] and record["jobs"]["1003"]["ended_by"].startswith("benchirt")
    assert record["submissions"] == [{"stage": "respond", "datasets": 6, "reused": 0, "estimated_cpu_seconds": 360.0,
                                      "jobs": 2, "jobs_needed": 6}]
    assert (tmp_path / "slurm" / "job.sh").read_text().count("#SBATCH") >= 5   # the script the jobs ran


def test_a_refused_submission_stops_the_run_before_any_job_in_one_line(tmp_path, shims):
    sbatch = shims / "bin" / "sbatch"
    sbatch.write_text("#!/bin/sh\necho 'sbatch: error: invalid partition specified: nope' >&2\nexit 1\n")
    config = _config(tmp_path, "slurm.yaml", backend="slurm", slurm={"partition": "nope"})
    code, _, stderr = _run(str(config), "--out", str(tmp_path / "run"), "--quiet")
    assert code != 0
    script = tmp_path / "run" / "slurm" / "job.sh"
    assert stderr.strip().splitlines()[-1].endswith(
        f"sbatch refuses the batch script {script} (sbatch: error: invalid partition specified: nope); check "
        "execution.slurm: partition, memory, walltime, directives")
    assert "#SBATCH -p nope" in script.read_text()


def test_sbatch_accepting_no_job_stops_the_run_in_one_line(tmp_path, shims, monkeypatch):
    """sbatch passes --test-only but submits nothing: the run stops instead of waiting for workers forever."""
    from benchirt.pipeline import slurm

    sbatch = shims / "bin" / "sbatch"
    sbatch.write_text("#!/bin/sh\ncase \"$1\" in --test-only) exit 0;; esac\necho 'sbatch: error: QOSMaxSubmitJobPerUserLimit' >&2\nexit 1\n")
    monkeypatch.setattr(slurm, "SUBMIT_SECONDS", 1.0)
    config = _config(tmp_path, "slurm.yaml", backend="slurm")
    code, _, stderr = _run(str(config), "--out", str(tmp_path / "run"), "--quiet")
    assert code != 0
    assert stderr.strip().splitlines()[-1].endswith(
        "sbatch submitted no job in 1 s; check the partition, memory, time limit and directives of execution.slurm "
        f"with `sbatch --test-only {tmp_path / 'run' / 'slurm' / 'job.sh'}`")


def _csvs(run_dir: Path) -> dict[str, bytes]:
    """The run's CSV files as bytes; model_comparison.csv without its ``seconds`` column (a fit's wall time)."""
    files = {}
    for path in sorted(run_dir.rglob("*.csv")):
        if "slurm" in path.parts:
            continue
        data = path.read_bytes()
        if path.name == "model_comparison.csv":
            data = pd.read_csv(path, dtype=str).drop(columns="seconds").to_csv(index=False).encode()
        files[str(path.relative_to(run_dir))] = data
    return files


@pytest.mark.slow  # about 35 s wall on 2 shared cores (three runs); the lost job alone is in the test above
def test_a_slurm_run_gives_the_local_files_and_a_rerun_submits_only_what_is_missing(tmp_path, shims):
    from benchirt.pipeline.results import load_run

    local, on_jobs = tmp_path / "local", tmp_path / "jobs"
    assert _run(str(_config(tmp_path, "local.yaml", n_jobs=1)), "--out", str(local), "--quiet")[0] == 0
    config = _config(tmp_path, "slurm.yaml", backend="slurm", slurm={"max_jobs": 2, "walltime": "00:10:00",
                                                                     "job_minutes": 5})
    code, _, stderr = _run(str(config), "--out", str(on_jobs))
    assert code == 0
    assert "slurm: respond: 2 dataset(s) submitted, 0 reused from the run folder" in stderr
    files = _csvs(local)
    assert files and _csvs(on_jobs) == files               # byte for byte
    ours, theirs = load_run(on_jobs), load_run(local)
    for name in ("iris", "wine"):
        pd.testing.assert_frame_equal(ours.respond[name].responses, theirs.respond[name].responses, check_exact=True)
    manifest = json.loads((on_jobs / "manifest.json").read_text())
    assert [job["state"] for job in manifest["slurm"]["jobs"].values()] == ["CANCELLED"]
    assert manifest["executor"].startswith("slurm (dask-jobqueue) on the default partition")

    # a result lost (as when a job is preempted before its result is stored): the rerun submits that task only
    import shutil

    (stored,) = (on_jobs / "artifacts" / "irt").glob("wine-*")
    shutil.rmtree(stored)
    code, _, stderr = _run(str(config), "--out", str(on_jobs))
    assert code == 0
    assert "slurm: respond: nothing to submit, 2 dataset(s) reused from the run folder" in stderr
    assert "slurm: irt: 1 dataset(s) submitted, 1 reused from the run folder" in stderr
    manifest = json.loads((on_jobs / "manifest.json").read_text())
    assert [s["datasets"] for s in manifest["slurm"]["submissions"]] == [0, 1]
    assert len(manifest["slurm"]["jobs"]) == 1
    assert _csvs(on_jobs) == files
    code, _, stderr = _run(str(config), "--out", str(on_jobs))          # everything stored: no job at all
    assert code == 0 and "slurm: irt: nothing to submit, 2 dataset(s) reused from the run folder" in stderr
    assert json.loads((on_jobs / "manifest.json").read_text())["slurm"]["jobs"] == {}


@pytest.mark.slow  # about 40 s wall: a local run, then a run on jobs with a job killed mid-run
def test_a_job_killed_mid_run_costs_only_its_task_and_the_files_stay_the_local_ones(tmp_path, shims):
    import threading
    import time

    import dask

    local, on_jobs = tmp_path / "local", tmp_path / "jobs"
    assert _run(str(_config(tmp_path, "local.yaml", n_jobs=1)), "--out", str(local), "--quiet")[0] == 0
    config = _config(tmp_path, "slurm.yaml", backend="slurm", slurm={"max_jobs": 2, "walltime": "00:10:00",
                                                                     "job_minutes": 0.001})  # 2 jobs
    killed: list[str] = []

    def kill_when_fitting() -> None:   # once both jobs run and a fit task has started, kill the first job
        end = time.monotonic() + 120
        while time.monotonic() < end and not killed:
            running = [job for job in slurm_shims.jobs(shims) if job.get("script_pgid")]
            if len(running) == 2 and any((on_jobs / ".progress").glob("*.json")):
                slurm_shims.kill_job(shims, running[0]["id"])
                killed.append(running[0]["id"])
            time.sleep(0.05)

    killer = threading.Thread(target=kill_when_fitting, daemon=True)
    killer.start()
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "1s"}):
        code, _, stderr = _run(str(config), "--out", str(on_jobs))   # not --quiet: the tasks write .progress
    killer.join()
    assert code == 0 and killed == ["1001"]
    manifest = json.loads((on_jobs / "manifest.json").read_text())
    jobs = manifest["slurm"]["jobs"]
    assert jobs["1001"]["state"] == "FAILED" and len(jobs) >= 3          # a job was submitted in its place
    entries = [entry for stages in manifest["datasets"].values() for entry in stages.values()]
    assert sum(entry["lost_workers"] for entry in entries) <= 1         # at most the task it was running
    assert all(entry["status"] == "computed" and entry["attempts"] == 1 + entry["lost_workers"] for entry in entries)
    assert _csvs(on_jobs) == _csvs(local)

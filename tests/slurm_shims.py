"""A SLURM without a cluster, for the tests: ``sbatch``, ``squeue``, ``sacct`` and ``scancel`` as small scripts.

:func:`install` writes the four commands into a folder to put first on ``PATH``. ``sbatch SCRIPT`` runs the
real batch script as a local background process (its own session, so a test can kill the whole job) under a
keeper that records its end; every job is a file ``jobs/<id>.json`` of the shim's state folder (id, pid of the
keeper, state); ``sbatch --test-only`` accepts any script. ``squeue`` lists the live ones, ``sacct -j IDS -n -P -o JobID,State`` reports the recorded
states (RUNNING while the keeper lives; COMPLETED or FAILED by the script's exit status; CANCELLED after
``scancel``), ``scancel ID`` kills the job's process groups (the script's and its keeper's). A job whose keeper
was killed with it is reported as :data:`LOST_STATE` (what a node failure looks like to sacct).
"""
from __future__ import annotations

import json
import os
import signal
import stat
import sys
from pathlib import Path

#: The state ``sacct`` reports of a job killed together with its keeper (no exit status recorded).
LOST_STATE = "NODE_FAIL"

_COMMON = '''#!{python}
import json, os, signal, subprocess, sys, time
from pathlib import Path
STATE = Path({state!r})
JOBS = STATE / "jobs"
JOBS.mkdir(parents=True, exist_ok=True)

def load(job):
    return json.loads((JOBS / f"{{job}}.json").read_text())

def save(record):
    tmp = JOBS / f".{{record['id']}}.tmp"
    tmp.write_text(json.dumps(record))
    os.replace(tmp, JOBS / f"{{record['id']}}.json")

def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped) is not alive
        return Path(f"/proc/{{pid}}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False

def state(record):
    if record.get("state") not in (None, "RUNNING"):
        return record["state"]
    return "RUNNING" if alive(record["pid"]) else {lost!r}

def records():
    return sorted((json.loads(p.read_text()) for p in JOBS.glob("*.json")), key=lambda r: int(r["id"]))
'''

_SBATCH = '''
if sys.argv[1:2] == ["--keep"]:  # the keeper: run the script, record how it ended
    job, script = sys.argv[2], sys.argv[3]
    child = subprocess.Popen(["bash", script], stdout=open(STATE / f"{{job}}.out", "w"), stderr=subprocess.STDOUT,
                             env={{**os.environ, "SLURM_JOB_ID": job}}, start_new_session=True)
    while not (JOBS / f"{{job}}.json").exists():
        time.sleep(0.01)
    record = load(job)
    record["script_pgid"] = child.pid
    save(record)
    rc = child.wait()
    record = load(job)
    if record.get("state") in (None, "RUNNING"):
        record["state"] = "COMPLETED" if rc == 0 else "FAILED"
        record["exit"] = rc
        save(record)
    sys.exit(0)
if "--test-only" in sys.argv:
    print("sbatch: Job 1 to start at now using 1 processors")
    sys.exit(0)
counter = STATE / "counter"
job = str(int(counter.read_text()) + 1 if counter.exists() else 1001)
counter.write_text(job)
script = STATE / f"{{job}}.sh"  # sbatch keeps a copy: the submitted file may go at once
script.write_text(Path(sys.argv[-1]).read_text())
keeper = subprocess.Popen([sys.executable, __file__, "--keep", job, str(script)], start_new_session=True,
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
save({{"id": job, "pid": keeper.pid, "state": "RUNNING", "script": script.read_text()}})
print(f"Submitted batch job {{job}}")
'''

_SQUEUE = '''
for record in records():
    if state(record) == "RUNNING":
        print(f"{{record['id']}} R")
'''

_SACCT = '''
wanted = set()
args = sys.argv[1:]
for i, arg in enumerate(args):
    if arg == "-j":
        wanted |= set(args[i + 1].split(","))
    elif arg.startswith("--jobs="):
        wanted |= set(arg.split("=", 1)[1].split(","))
for record in records():
    if not wanted or record["id"] in wanted:
        print(f"{{record['id']}}|{{state(record)}}")
'''

_SCANCEL = '''
for job in sys.argv[1:]:
    try:
        record = load(job)
    except OSError:
        continue
    if state(record) == "RUNNING":
        record["state"] = "CANCELLED"
        save(record)
        for group in (record.get("script_pgid"), record["pid"]):
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, TypeError):
                pass
'''


def install(folder: str | os.PathLike) -> Path:
    """Write ``sbatch``, ``squeue``, ``sacct`` and ``scancel`` into ``folder/bin``; returns that folder (put it
    first on PATH). The jobs' state and output go to ``folder/state``."""
    folder = Path(folder)
    bin_dir, state = folder / "bin", folder / "state"
    bin_dir.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    common = _COMMON.format(python=sys.executable, state=str(state), lost=LOST_STATE)
    for name, body in {"sbatch": _SBATCH, "squeue": _SQUEUE, "sacct": _SACCT, "scancel": _SCANCEL}.items():
        path = bin_dir / name
        path.write_text(common + body.format())
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bin_dir


def jobs(folder: str | os.PathLike) -> list[dict]:
    """The recorded jobs of the shims installed in ``folder`` (id, keeper pid, state, script), by id."""
    paths = (Path(folder) / "state" / "jobs").glob("*.json")
    return sorted((json.loads(p.read_text()) for p in paths), key=lambda r: int(r["id"]))


def kill_job(folder: str | os.PathLike, job: str) -> None:
    """Kill the processes of job ``job``'s batch script (the Dask worker and its nanny), as the kernel's
    out-of-memory killer or a crash would: its keeper records the exit and sacct then says FAILED."""
    record = next(r for r in jobs(folder) if r["id"] == job)
    os.killpg(record["script_pgid"], signal.SIGKILL)


def cancel_all(folder: str | os.PathLike) -> None:
    """Kill every job still running (a test's clean-up)."""
    for record in jobs(folder):
        for group in (record.get("script_pgid"), record["pid"]):
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, TypeError):
                pass


def sleepy(name: str, seconds: float) -> tuple[str, int]:
    """A task for the executor tests: sleep, then say which process ran it."""
    import time

    time.sleep(seconds)
    return name, os.getpid()

"""Killing ``benchirt run`` leaves no worker process behind (issue 25): SIGKILL, SIGTERM and SIGINT of the
parent, with the run's own worker pool and with joblib's pool inside the response stage
(:mod:`benchirt.workers`)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest
import yaml

#: A worker must be gone this long after its parent (the watchdog checks every 0.5 s).
GRACE_SECONDS = 5.0


def _workers(parent: psutil.Process, wanted: int, timeout: float = 120.0) -> list[psutil.Process]:
    """The parent's descendants once ``wanted`` worker processes (not resource trackers) run, plus a moment of work."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = parent.children(recursive=True)
        if sum("resource_tracker" not in " ".join(p.cmdline()) for p in found if p.is_running()) >= wanted:
            time.sleep(1.0)
            return parent.children(recursive=True)
        time.sleep(0.2)
    raise AssertionError(f"the run started no {wanted} workers within {timeout} s")


def _sigint_as_at_a_terminal() -> None:
    """In the child before it starts: SIGINT back to its default action (the interpreter then raises
    KeyboardInterrupt on it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    out = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                out.append(process)
        except psutil.NoSuchProcess:
            continue
    return out


@pytest.mark.heavy
@pytest.mark.parametrize("signum, where", [(signal.SIGKILL, "run pool"), (signal.SIGTERM, "run pool"),
                                          (signal.SIGINT, "run pool"), (signal.SIGKILL, "response stage pool")])
def test_killing_the_run_leaves_no_worker_process(tmp_path, signum, where):
    outer = 2 if where == "run pool" else 1
    config = {"suite": "embedded", "stages": ["respond"], "execution": {"n_jobs": outer},
              "responses": {"n_jobs": 2 if outer == 1 else 1}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    out = tmp_path / "run"
    # Ctrl-C as at a terminal: a suite started in the background by a non-interactive shell has SIGINT ignored,
    # its children inherit that, and benchirt rightly leaves an ignored SIGINT ignored (as nohup asks).
    run = subprocess.Popen([sys.executable, "-m", "benchirt.cli", "run", str(tmp_path / "c.yaml"), "--out", str(out),
                            "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=_sigint_as_at_a_terminal)
    try:
        descendants = _workers(psutil.Process(run.pid), wanted=2)
        os.kill(run.pid, signum)
        _, err = run.communicate(timeout=60)
        deadline = time.monotonic() + GRACE_SECONDS
        while _alive(descendants) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _alive(descendants)
        assert not left, f"{len(left)} of {len(descendants)} processes outlived the run: {[p.cmdline() for p in left]}"
    finally:
        for process in _alive(psutil.Process(run.pid).children(recursive=True)) if run.poll() is None else ():
            process.kill()
        run.kill()
    expected = {signal.SIGKILL: -9, signal.SIGTERM: 143, signal.SIGINT: 130}[signum]
    assert run.returncode == expected, f"exit status {run.returncode}; the run's stderr ends: {err[-1500:]}"
    if signum == signal.SIGTERM:
        assert "benchirt run: terminated (SIGTERM) — rerun the same command to resume" in err
    if signum != signal.SIGKILL:
        assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"

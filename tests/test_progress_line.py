"""The progress line of :mod:`progress_line`: under ``-q`` a line per tenth of the tests in a log instead of dots, each
failure on its own line as it happens, pytest's summary unchanged; without ``-q`` pytest's own output."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
SAMPLE = '''
import pytest

@pytest.mark.parametrize("i", range(18))
def test_a(i):
    assert i != 7

@pytest.fixture
def broken():
    raise RuntimeError("no fixture today")

def test_b(broken):
    pass

def test_skipped():
    pytest.skip("not here")
'''


def _pytest(folder: Path, *options: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(TESTS_DIR)}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "progress_line", "-rfEs",
                           *options, "test_sample.py"], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120)


def test_quiet_prints_a_line_per_tenth_and_each_failure_as_it_happens(tmp_path):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    done = _pytest(tmp_path, "-q")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    progress = [line for line in lines if line.startswith("[")]
    assert [re.match(r"\[\s*(\d+)/20\]\s+(\d+) %  \d+:\d\d", line).groups() for line in progress] == \
        [(str(n), str(5 * n)) for n in range(2, 21, 2)]
    assert "failed" not in progress[2] and "1 failed" in progress[3] and progress[-1].endswith("2 failed")   # test_a[7], then test_b's error
    failed = lines.index("FAILED test_sample.py::test_a[7]")
    assert lines.index(progress[2]) < failed < lines.index(progress[3])        # said when it happened
    assert "ERROR test_sample.py::test_b (at setup)" in lines
    assert not [line for line in lines if re.fullmatch(r"[.FEs]+( +\[.*\])?", line)]   # no row of dots
    assert lines[-1].startswith("1 failed, 17 passed, 1 skipped, 1 error")       # pytest's own summary
    skip_line = SAMPLE.splitlines().index('    pytest.skip("not here")') + 1
    assert f"SKIPPED [1] test_sample.py:{skip_line}: not here" in lines


def test_without_quiet_the_output_is_pytests(tmp_path):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    done = _pytest(tmp_path)
    assert done.returncode == 1
    assert re.search(r"^test_sample\.py \.{7}F\.{10}Es +\[100%\]$", done.stdout, flags=re.M), done.stdout
    assert not [line for line in done.stdout.splitlines() if re.match(r"\[\s*\d+/20\]", line)]

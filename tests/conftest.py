"""Shared test fixtures.

Tests that read the real offline data use the ``shared_data`` fixture: it points at
``../shared/data`` beside the project (or ``$BENCHIRT_SHARED_DATA``) and skips the test
with a clear reason when that folder is absent, so the suite still runs on a user's machine.

``BENCHIRT_TEST_TOY_STAGE=1`` registers the toy stage of :mod:`toy_stage` for the whole session, before the
tests are collected (``tests/test_toy_stage.py`` runs the registry-derived tests so).
"""
from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

PROJECT_ROOT = Path(__file__).resolve().parents[1]
pytest_plugins = ("progress_line",)   # under -q: one progress line instead of dots


def pytest_configure(config) -> None:
    if os.environ.get("BENCHIRT_TEST_TOY_STAGE") == "1":
        import toy_stage

        config.toy_stage_patch = pytest.MonkeyPatch()
        toy_stage.install(config.toy_stage_patch)


def pytest_unconfigure(config) -> None:
    if hasattr(config, "toy_stage_patch"):
        config.toy_stage_patch.undo()


def _shared_data_dir() -> Path:
    return Path(os.environ.get("BENCHIRT_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The offline data folder ``../shared/data``; skips when it is not there."""
    path = _shared_data_dir()
    if not path.is_dir():
        pytest.skip(f"offline data not found at {path} (set BENCHIRT_SHARED_DATA to its location)")
    return path


@pytest.fixture(scope="session")
def arff_samples(tmp_path_factory) -> Path:
    """A folder holding the hand-written ARFF samples of :mod:`data_samples`."""
    from data_samples import write_arff_samples

    return write_arff_samples(tmp_path_factory.mktemp("arff_samples"))


@pytest.fixture
def users_folder(tmp_path) -> Path:
    """A folder of the user's own files (not written by benchirt), for the --out refusal tests."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes")
    (folder / "data.csv").write_text("a,b\n1,2\n")
    return folder

"""``--out`` never takes over a user's folder (issue 25): a non-empty folder that is not a benchirt run is
refused (one line, exit 2, nothing written) unless --force, and even then no file it did not write is replaced."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from benchirt.cli import main

CONFIG = {"suite": "builtin:iris", "stages": ["respond"],
          "responses": {"pool": ["gaussian_nb"], "ladder_epochs": 0, "cv_folds": 3}}


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(folder.rglob("*"))}


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(CONFIG))
    return path


def test_a_non_empty_folder_that_is_not_a_run_is_refused_and_nothing_is_written(config, users_folder, capsys):
    before = _snapshot(users_folder)
    assert main(["run", str(config), "--out", str(users_folder), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == (f"benchirt run: error: --out {users_folder} is not empty and was not written by `benchirt run` (it "
                   "holds data.csv, notes.txt); give a new or empty folder, or add --force to write beside those "
                   "files\n")
    assert _snapshot(users_folder) == before


def test_the_parent_folder_is_refused(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(config.parent)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    before = _snapshot(tmp_path)
    assert main(["run", str(config), "--out", "..", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith(
        "benchirt run: error: --out .. is not empty and was not written by `benchirt run`")
    assert _snapshot(tmp_path) == before


def test_force_writes_beside_the_users_files_without_touching_them(config, users_folder):
    before = _snapshot(users_folder)
    assert main(["run", str(config), "--out", str(users_folder), "--quiet", "--force"]) == 0
    after = _snapshot(users_folder)
    assert all(after[name] == content for name, content in before.items())
    assert (users_folder / "manifest.json").is_file()
    assert main(["run", str(config), "--out", str(users_folder), "--quiet"]) == 0  # now a run: reused


@pytest.mark.parametrize("own", ["config.yaml", "summary.md", "report.html", "manifest.json", "artifacts"])
def test_force_never_overwrites_a_file_of_a_name_the_run_writes(config, users_folder, capsys, own):
    if own == "artifacts":
        (users_folder / own).mkdir()
        (users_folder / own / "keep.txt").write_text("mine")
    else:
        (users_folder / own).write_text("the user's own " + own)
    before = _snapshot(users_folder)
    assert main(["run", str(config), "--out", str(users_folder), "--quiet", "--force"]) == 2
    assert capsys.readouterr().err == (
        f"benchirt run: error: --out {users_folder} was not written by `benchirt run` and holds {own}, which "
        "`benchirt run` writes; benchirt never overwrites files it did not write — give a new or empty folder\n")
    assert _snapshot(users_folder) == before


def test_a_new_an_empty_folder_and_an_existing_run_are_accepted(config, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["run", str(config), "--out", str(empty), "--quiet"]) == 0
    assert main(["run", str(config), "--out", str(empty), "--quiet"]) == 0
    assert main(["run", str(config), "--out", str(tmp_path / "new" / "run"), "--quiet"]) == 0
    assert os.path.isfile(tmp_path / "new" / "run" / "manifest.json")

"""Recovery that does what it says (issue 25): the message after a failed dataset is the command that
recovers it; a refused run leaves the previous manifest untouched; ``benchirt add`` on a busy run says so."""
from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from benchirt.cli import main
from benchirt.pipeline import respond_stage as stage_functions
from benchirt.pipeline.store import ArtifactStore

CONFIG = {"suite": "builtin:iris,wine", "stages": ["respond", "report"],
          "responses": {"pool": ["gaussian_nb", "knn_3"], "ladder_epochs": 0, "cv_folds": 3},
          "execution": {"n_jobs": 1}}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recovery")
    config = folder / "study.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    out = folder / "run"
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 0
    return config, out


def _copy(small_run, tmp_path) -> tuple[Path, Path]:
    config, out = small_run
    shutil.copy(config, tmp_path / "study.yaml")
    shutil.copytree(out, tmp_path / "run")
    return tmp_path / "study.yaml", tmp_path / "run"


@pytest.mark.heavy
def test_the_message_after_a_failed_dataset_is_the_command_that_recovers_it(small_run, tmp_path, capsys, monkeypatch):
    config, out = _copy(small_run, tmp_path)
    out = tmp_path / "fresh"
    real = stage_functions.respond_dataset

    def full_disk_on_wine(spec, *args, **kwargs):
        if spec.name == "wine":
            raise OSError(28, "No space left on device")
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(stage_functions, "respond_dataset", full_disk_on_wine)
    capsys.readouterr()
    assert main(["run", str(config), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "(a rerun with --retry-failed tries it again)" in captured.err
    command = f"benchirt run {config} --out {out} --retry-failed"
    line = f"To try wine again: {command}  (a plain rerun does not retry a failed dataset)"
    assert line in captured.out.splitlines()
    monkeypatch.undo()
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 1  # a plain rerun: not retried
    assert "To try wine again" in capsys.readouterr().out
    assert main(shlex.split(command)[1:] + ["--quiet"]) == 0  # the command the message gave
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["datasets"]["wine"]["respond"]["status"] == "computed"
    assert "To try" not in capsys.readouterr().out


def test_a_full_disk_while_saving_fails_only_that_dataset_and_the_next_stages_leave_it_out(tmp_path, capsys,
                                                                                            monkeypatch):
    """ENOSPC while wine's responses are saved: wine fails (recorded, with the command that retries it), iris goes
    on through the next stage (irt: skipped there for too few respondents), exit status 1, not 2."""
    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump({**CONFIG, "stages": ["respond", "irt", "report"]}))
    real = ArtifactStore.save

    def full_disk_for_wine(self, stage, name, key, **kwargs):
        if (stage, name) == ("respond", "wine"):
            raise OSError(28, "No space left on device")
        return real(self, stage, name, key, **kwargs)

    monkeypatch.setattr(ArtifactStore, "save", full_disk_for_wine)
    capsys.readouterr()
    assert main(["run", str(config), "--out", str(tmp_path / "run")]) == 1
    captured = capsys.readouterr()
    datasets = json.loads((tmp_path / "run" / "manifest.json").read_text())["datasets"]
    assert datasets["wine"]["respond"]["status"] == "failed"
    assert datasets["wine"]["respond"]["reason"] == "could not save the result: No space left on device"
    assert "irt" not in datasets["wine"] and datasets["iris"]["irt"]["status"] == "skipped"
    assert "To try wine again: " in captured.out and "error:" not in captured.err


def test_a_run_refused_for_a_changed_artifact_leaves_the_previous_manifest_and_config(small_run, tmp_path, capsys):
    config, out = _copy(small_run, tmp_path)
    manifest, saved_config = (out / "manifest.json").read_bytes(), (out / "config.yaml").read_bytes()
    wine = out / json.loads(manifest)["datasets"]["wine"]["respond"]["path"]
    target = next(p for p in sorted((wine / "result").rglob("*")) if p.is_file())
    target.write_bytes(target.read_bytes() + b" ")
    changed = dict(CONFIG, responses={**CONFIG["responses"], "cv_folds": 3}, report={"top_classifiers": 3})
    config.write_text(yaml.safe_dump(changed))
    capsys.readouterr()
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 2
    assert "refused — " in capsys.readouterr().err
    assert (out / "manifest.json").read_bytes() == manifest
    assert (out / "config.yaml").read_bytes() == saved_config
    assert main(["report", str(out)]) == 2  # the report refuses the changed file instead of dropping wine
    assert "refused — " in capsys.readouterr().err


def test_a_first_run_stopped_by_an_error_says_so_in_its_manifest(tmp_path, capsys):
    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump({**CONFIG, "suite": str(tmp_path / "nowhere")}))
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 2
    status = json.loads((tmp_path / "run" / "manifest.json").read_text())["status"]
    assert status.startswith("stopped: ") and "nowhere" in status


def test_report_on_a_run_in_progress_is_refused_and_writes_nothing(small_run, tmp_path, capsys):
    _, out = _copy(small_run, tmp_path)
    before = {p.name: p.read_bytes() for p in (out / "report.html", out / "summary.md") if p.exists()}
    holder = ArtifactStore(out)
    holder.lock()
    try:
        capsys.readouterr()
        assert main(["report", str(out), "--out", str(tmp_path / "elsewhere")]) == 2
        assert capsys.readouterr().err == (f"benchirt report: error: {out} is in use by a benchirt run in progress; wait "
                                           "for it to finish, then run this command again\n")
        assert not (tmp_path / "elsewhere").exists()
    finally:
        holder.unlock()
    assert {p.name: p.read_bytes() for p in (out / "report.html", out / "summary.md") if p.exists()} == before


def test_add_on_a_run_in_progress_says_it_is_in_use(small_run, tmp_path, capsys):
    _, out = _copy(small_run, tmp_path)
    holder = ArtifactStore(out)
    holder.lock()
    try:
        capsys.readouterr()
        assert main(["add", str(out), "--classifier", "lr=sklearn.linear_model.LogisticRegression"]) == 2
        err = capsys.readouterr().err
        assert err == (f"benchirt add: error: {out} is in use by a benchirt run in progress; wait for it to finish, "
                       "then run this command again\n")
    finally:
        holder.unlock()

"""A classifier the user asked for never disappears (issue 25): a fit failure is named in the console,
the manifest, summary.md and the report, makes the exit status 1, and fails the dataset under --strict."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from benchirt.cli import main

L1 = {"estimator": "sklearn.linear_model.LogisticRegression", "params": {"penalty": "l1", "solver": "lbfgs"}}
STACK = {"estimator": "sklearn.ensemble.StackingClassifier", "params": {"estimators": [["a", "not_an_estimator"]]}}
L1_ERROR = "ValueError: Solver lbfgs supports only 'l2' or None penalties, got l1 penalty."


def _config(folder: Path, extra: dict, **execution) -> Path:
    config = {"suite": "builtin:iris,wine", "stages": ["respond", "report"],
              "responses": {"pool": ["gaussian_nb", "knn_3"], "ladder_epochs": 0, "cv_folds": 3, "extra": extra},
              "execution": {"n_jobs": 1, **execution}}
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture(scope="module")
def left_out_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("left_out")
    config = _config(folder, {"l1": L1, "stack": STACK})
    out = folder / "run"
    import contextlib
    import io

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["run", str(config), "--out", str(out)])
    return {"config": config, "out": out, "code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


def test_a_classifier_whose_fit_fails_makes_the_exit_status_1_and_is_named_at_the_end(left_out_run):
    assert left_out_run["code"] == 1
    stdout = left_out_run["stdout"]
    assert stdout.startswith("benchirt run: finished with classifiers left out")
    assert "Classifiers LEFT OUT (their fit failed; --strict fails the dataset instead):" in stdout
    assert f"  l1 on 2 dataset(s) (iris, wine): fold fit: {L1_ERROR}" in stdout
    assert "  stack on 2 dataset(s) (iris, wine): fold fit: TypeError: Cannot clone object" in stdout
    assert "respond: iris: classifier 'l1' LEFT OUT, its fit failed: fold fit: ValueError" in left_out_run["stderr"]


def test_the_manifest_summary_and_report_name_the_classifier_the_dataset_and_the_error(left_out_run):
    out = left_out_run["out"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "finished with classifiers left out"
    for dataset in ("iris", "wine"):
        entry = manifest["datasets"][dataset]["respond"]
        assert entry["status"] == "computed"
        assert entry["left_out"]["l1"] == f"fold fit: {L1_ERROR}"
        assert entry["left_out"]["stack"].startswith("fold fit: TypeError: Cannot clone object")
    assert manifest["stages"]["respond"]["left_out"] == 4
    summary = (out / "summary.md").read_text()
    assert f"• Left out: classifier 'l1' on 2 dataset(s) (iris, wine) — its fit failed: fold fit: {L1_ERROR}" in summary
    assert f"| wine | respond | classifier 'l1' left out, its fit failed: fold fit: {L1_ERROR} |" in summary
    report = (out / "report.html").read_text()
    assert "Left out: classifier &#x27;stack&#x27; on 2 dataset(s) (iris, wine)" in report


def test_a_rerun_reuses_the_result_and_still_reports_the_left_out_classifier(left_out_run, capsys):
    capsys.readouterr()
    assert main(["run", str(left_out_run["config"]), "--out", str(left_out_run["out"]), "--quiet"]) == 1
    stdout = capsys.readouterr().out
    assert "  respond  done" in stdout and f"  l1 on 2 dataset(s) (iris, wine): fold fit: {L1_ERROR}" in stdout


@pytest.mark.parametrize("how", ["flag", "config"])
def test_strict_fails_the_dataset_and_a_run_without_it_reuses_the_stored_result(left_out_run, tmp_path, capsys, how):
    config = _config(tmp_path, {"l1": L1}, **({"strict": True} if how == "config" else {}))
    out = tmp_path / "run"
    capsys.readouterr()
    assert main(["run", str(config), "--out", str(out), "--quiet", *(["--strict"] if how == "flag" else [])]) == 1
    stdout = capsys.readouterr().out
    assert stdout.startswith("benchirt run: finished with failures")
    assert "  failed  respond iris: classifier(s) 'l1' could not be fitted (fold fit: ValueError" in stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["datasets"]["iris"]["respond"]["status"] == "failed"
    assert "execution.strict / --strict fails the dataset" in manifest["datasets"]["iris"]["respond"]["reason"]
    if how == "flag":  # without --strict the stored result is reused, the classifier named as left out
        assert main(["run", str(config), "--out", str(out), "--quiet"]) == 1
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["datasets"]["iris"]["respond"]["status"] == "reused"
        assert manifest["status"] == "finished with classifiers left out"


def test_strict_must_be_a_boolean(tmp_path, capsys):
    config = _config(tmp_path, {}, strict="yes")
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert "execution.strict: got 'yes', expected true or false" in capsys.readouterr().err


def test_a_run_where_every_classifier_fits_exits_0(tmp_path, capsys):
    config = _config(tmp_path, {"l2": {"estimator": "sklearn.linear_model.LogisticRegression",
                                       "params": {"max_iter": 500}}})
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    assert "LEFT OUT" not in capsys.readouterr().out

"""Issue 44's bad inputs (docs/bad-inputs.md): names are data, a stage with no result is not a success, rows are
held out only to choose, and a table's class is named, never guessed."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from benchirt.cli import main
from benchirt.irt.simulate import simulate_responses
from benchirt.pipeline.run import load_run
from benchirt.safe_text import MAX_NAME_LENGTH, name_problem
from benchirt.stored_runs.folder import read_runs_folder
from benchirt.stored_runs.matrices import read_matrix_csv
from benchirt.stored_runs.select import NOTHING_TO_CHOOSE, SelectionOptions, select
from runs_samples import write_small_task

ITEMS = [str(i) for i in range(30)]


def _matrix(path: Path, rows: dict[str, str]) -> Path:
    """A matrix file of ``rows`` (name -> 30 answers as a 0/1 string)."""
    lines = [",".join(["run", *ITEMS])] + [",".join([f'"{name}"' if "," in name else name, *answers])
                                            for name, answers in rows.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _answers(seed: int) -> str:
    """30 answers of a respondent of ability ``seed`` (a 1PL draw; distinct per seed)."""
    sim = simulate_responses(12, n_items=30, model="1PL", seed=7)
    return "".join(str(v) for v in sim.responses.iloc[seed % 12].to_numpy())


def _field(folder: Path, first: str) -> list[Path]:
    """Three tasks of 13 flows with one run each; the first row is named ``first``."""
    folder.mkdir()
    names = [first, *(f"f{i}||1" for i in range(12))]
    return [_matrix(folder / f"{task}.csv", {name: _answers(i + shift) for i, name in enumerate(names)})
            for shift, task in enumerate(("alpha", "beta", "gamma"))]


# --- 1. names are data ---------------------------------------------------------------------------------------

def test_name_problems_are_named():
    assert name_problem("x ") == "ends with a space" and name_problem(" x") == "begins with a space"
    assert name_problem("a\tb") == "holds the control character \\x09"
    assert name_problem("x" * MAX_NAME_LENGTH) is None
    assert name_problem("x" * (MAX_NAME_LENGTH + 1)) == "is 65,537 characters long, more than the 65,536 a name may have"
    assert name_problem("weka.J48(1) -C 0.25") is None  # a space inside is fine


def test_a_flow_name_ending_in_a_space_skips_that_row_only_and_says_so(tmp_path, capsys):
    """`x ||1` named a flow 'x ' that the rating stage could not find: every classifier lost its leaderboard."""
    [alpha, *_] = _field(tmp_path / "field", "x ||1")
    assert main(["import-runs", str(alpha), "--out", str(tmp_path / "out")]) == 0
    console = capsys.readouterr().out
    assert "  skipped: row 'x ||1' (line 2): its flow name 'x ' ends with a space; rename the row in the file" in console
    folder = tmp_path / "out" / "responses" / "alpha"
    responses = pd.read_csv(folder / "responses.csv", index_col=0)
    assert sorted(responses.index) == sorted(f"f{i}" for i in range(12))  # every other row kept
    assert json.loads((folder / "import.json").read_text())["skipped"] == [
        "row 'x ||1' (line 2): its flow name 'x ' ends with a space; rename the row in the file"]


@pytest.mark.heavy
def test_a_run_over_a_flow_name_with_a_space_has_its_leaderboard(tmp_path):
    files = _field(tmp_path / "field", "x ||1")
    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump({
        "suite": "stored-runs", "stages": ["respond", "irt", "rate"],
        "responses": {"source": "openml-runs", "path": [str(f) for f in files], "per_flow": "best"},
        "irt": {"model": "1PL"}, "rating": {"n_permutations": 0, "n_bootstrap": 0}, "execution": {"n_jobs": 1}}))
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    board = load_run(tmp_path / "run").rate.leaderboard
    assert sorted(board["classifier"]) == sorted(f"f{i}" for i in range(12))


BAD_NAMES = {"escape": ("svm\x1b]0;pwned\x07", "holds the control character \\x1b"),
             "space": ("svm ", "ends with a space")}
#: A name over the limit is refused by the table's name check before its row is read, in one line.
TOO_LONG = "x" * 65_537


def _responses_naming(tmp_path, name: str):
    """A 12 × 10 response matrix CSV whose second respondent (data row 2) is ``name``."""
    sim = simulate_responses(12, n_items=10, model="1PL", seed=1).responses
    sim.index = ["a", name, *(f"r{i}" for i in range(10))]
    responses = tmp_path / "responses.csv"
    sim.rename_axis("respondent").reset_index().to_csv(responses, index=False)
    return responses


def _shown(name: str) -> str:
    return repr(name.replace("\x1b", "\\x1b").replace("\x07", "\\x07")[:80])


@pytest.mark.parametrize("case", sorted(BAD_NAMES))
def test_irt_refuses_a_bad_respondent_name_naming_its_row(tmp_path, capsys, case):
    name, problem = BAD_NAMES[case]
    responses = _responses_naming(tmp_path, name)
    assert main(["irt", str(responses), "--out", str(tmp_path / "irt")]) == 2
    assert capsys.readouterr().err == (f"benchirt irt: error: {responses}: respondent {_shown(name)} (data row 2) "
                                       f"{problem}; rename it in the first column\n")
    assert not (tmp_path / "irt").exists()


@pytest.mark.parametrize("case", sorted(BAD_NAMES))
def test_rate_refuses_a_bad_classifier_name_naming_its_row(tmp_path, capsys, case):
    name, problem = BAD_NAMES[case]
    scores = tmp_path / "scores.csv"
    pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "classifier": ["a", name, "a", name],
                  "score": [1.0, 2.0, 3.0, 4.0]}).to_csv(scores, index=False)
    assert main(["rate", str(scores), "--out", str(tmp_path / "rate")]) == 2
    assert capsys.readouterr().err == (f"benchirt rate: error: {scores}: classifier {_shown(name)} (data row 2) "
                                       f"{problem}; rename it where the scores are written\n")
    assert not (tmp_path / "rate").exists()


def test_irt_and_rate_refuse_a_name_over_the_limit_in_one_line(tmp_path, capsys):
    responses = _responses_naming(tmp_path, TOO_LONG)
    assert main(["irt", str(responses), "--out", str(tmp_path / "irt")]) == 2
    assert capsys.readouterr().err == (f"benchirt irt: error: {responses}: a respondent name of 65,537 characters, "
                                       "more than the 65,536 a name may have; shorten it (long names are shown cut in "
                                       "the middle and kept whole in the CSVs)\n")
    scores = tmp_path / "scores.csv"
    pd.DataFrame({"dataset": ["d1", "d1"], "classifier": ["a", TOO_LONG], "score": [1.0, 2.0]}).to_csv(scores, index=False)
    assert main(["rate", str(scores), "--out", str(tmp_path / "rate")]) == 2
    assert "a classifier name of 65,537 characters, more than the 65,536 a name may have" in capsys.readouterr().err
    assert not (tmp_path / "irt").exists() and not (tmp_path / "rate").exists()


def test_a_run_whose_description_gives_a_flow_name_with_a_control_character_is_skipped(tmp_path):
    """XML carries a tab or a right-to-left override (U+202E) in a flow name: that run only is skipped."""
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3, 4))
    for run, name in (("3", "flow&#9;tab"), ("4", "flow\u202e(1)")):
        path = root / "runs" / run / "description.xml"
        path.write_text(path.read_text(encoding="utf-8").replace(f"flow-{int(run) - 1}", name), encoding="utf-8")
    [matrix] = read_runs_folder(root)
    assert list(matrix.runs["run_id"]) == [1, 2]  # the other runs kept
    assert matrix.source_skipped == [
        "run folder 3: its flow name 'flow\\ttab' holds the control character \\x09; it cannot name a respondent",
        "run folder 4: its flow name 'flow\\\\u202e(1)' holds the control character \\u202e; it cannot name a respondent"]


def test_a_stage_that_skips_every_dataset_makes_the_run_exit_1_naming_it(tmp_path, capsys):
    folder = tmp_path / "field"
    folder.mkdir()
    files = [_matrix(folder / f"{task}.csv", {f"f{i}||1": _answers(i) for i in range(5)}) for task in ("a", "b")]
    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump({
        "suite": "stored-runs", "stages": ["respond", "irt", "rate"], "irt": {"model": "3PL"},
        "responses": {"source": "openml-runs", "path": [str(f) for f in files]}, "execution": {"n_jobs": 1}}))
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "benchirt run: finished without a result from irt, rate — " in out
    assert "No result from the irt, rate stages (skipped for every dataset; the reasons above): exit status 1" in out
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "finished without a result from irt, rate"


# --- 3. rows held out only to choose -------------------------------------------------------------------------

def test_best_held_out_keeps_every_row_when_every_flow_has_one_run(tmp_path, capsys):
    path = _matrix(tmp_path / "task.csv", {f"f{i}||1": _answers(i) for i in range(12)})
    assert main(["import-runs", str(path), "--out", str(tmp_path / "out")]) == 0
    console = capsys.readouterr().out
    assert f"task: 12 respondents x 30 items from 12 runs ({NOTHING_TO_CHOOSE}) -> " in console
    assert ("  best-held-out: each of the 12 flows has one run, so there is no run to choose and no row is held out: "
            "all 30 rows are the items") in console
    record = json.loads((tmp_path / "out" / "responses" / "task" / "import.json").read_text())
    assert record["rule_applied"] == NOTHING_TO_CHOOSE and record["items"] == 30
    assert pd.read_csv(tmp_path / "out" / "responses" / "task" / "responses.csv", index_col=0).shape == (12, 30)


def test_best_held_out_halves_the_rows_when_a_flow_has_runs_to_choose_among(tmp_path, capsys):
    rows = {f"f{i}||1": _answers(i) for i in range(12)} | {"f0||2": _answers(5)}
    path = _matrix(tmp_path / "task.csv", rows)
    assert main(["import-runs", str(path), "--out", str(tmp_path / "out")]) == 0
    assert "task: 12 respondents x 15 items from 13 runs (best-held-out) -> " in capsys.readouterr().out
    record = json.loads((tmp_path / "out" / "responses" / "task" / "import.json").read_text())
    assert record["rule_applied"] == "best-held-out" and record["items"] == 15


def test_a_pool_beside_the_runs_keeps_its_training_half(tmp_path):
    """With benchirt's pool answering beside the runs, the held-out half is what the pool trains on: kept."""
    matrix = read_matrix_csv(_matrix(tmp_path / "task.csv", {f"f{i}||1": _answers(i) for i in range(12)}))
    assert select(matrix).rule_applied == NOTHING_TO_CHOOSE and select(matrix).responses.shape == (12, 30)
    beside = select(matrix, options=SelectionOptions(pool_trains=True))
    assert beside.rule_applied == "best-held-out" and beside.responses.shape == (12, 15)


# --- 6. a table's class is named, never guessed ---------------------------------------------------------------

def test_a_csv_whose_class_is_first_is_refused_listing_its_columns(tmp_path, capsys):
    folder = tmp_path / "suite"
    folder.mkdir()
    frame = pd.DataFrame({"kind": ["a", "b", "c"] * 14, "x": range(42), "grade": [i % 7 for i in range(42)]})
    frame.to_csv(folder / "grades.csv", index=False)
    assert main(["datasets", str(folder)]) == 2  # no dataset of the suite can be read
    out = capsys.readouterr().out
    assert "which column is the class? no column is named class or target (columns: 'kind', 'x', 'grade')" in out
    assert "7" not in out.replace(str(tmp_path), "")  # not read as 7 classes (the temporary path may hold a 7)
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"name": "mine", "datasets": [
        {"name": "grades", "file": str(folder / "grades.csv"), "target": "kind"}]}))
    from benchirt.data import resolve_suite

    [spec] = resolve_suite(str(suite))
    assert spec.load().y.nunique() == 3  # the suite file's target


def test_a_run_with_no_readable_dataset_exits_1(tmp_path, capsys):
    folder = tmp_path / "junk"
    folder.mkdir()
    (folder / "a.csv").write_text("hello world\nnot a table\n")
    (folder / "b.csv").write_text("a,b\n1,2\n3,4\n")
    config = tmp_path / "junk.yaml"
    config.write_text(yaml.safe_dump({"suite": str(folder), "stages": ["respond", "irt"],
                                      "responses": {"pool": ["gaussian_nb"], "ladder_epochs": 0, "cv_folds": 3}}))
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "No result from the respond, irt stages (skipped for every dataset; the reasons above): exit status 1" in out
    assert "  skipped respond b: " in out
    reason = json.loads((tmp_path / "run" / "manifest.json").read_text())["datasets"]["b"]["respond"]["reason"]
    assert "which column is the class? no column is named class or target (columns: 'a', 'b')" in reason

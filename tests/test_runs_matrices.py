"""A multi-task field given as respondents × items matrices, one file per task (issue 34 item 1): names mapped to
flows and runs (``<flow>||<run>`` or a regular expression), a flow the same respondent on every task, the
sparse field counted; and the real 20-task ``cv-fold0`` field's counts."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.errors import ConfigError, DataError
from benchirt.pipeline.config import load_config
from benchirt.pipeline.run import load_run, run_pipeline
from benchirt.stored_runs.config import ImportConfig
from benchirt.stored_runs.field import percent
from benchirt.stored_runs.matrices import read_matrices
from benchirt.stored_runs.respondent_names import RespondentNaming
from benchirt.stored_runs.responses import imported_results
from benchirt.stored_runs.sources import read_offline

CHECKPOINTS = r"(?P<flow>.+)_(?P<run>best|\d+)$"

#: Three tasks of checkpoints: bert on all three, roberta and gpt on two, a human on one (a sparse field).
FIELD = {
    "alpha": ([str(i) for i in range(10)], {
        "bert_best": "1111111100", "bert_3": "1111000000", "roberta_1": "1111110000", "roberta_2": "1111111000",
        "gpt_best": "1110000000"}),
    "beta": ([str(100 + i) for i in range(8)], {
        "bert_best": "11111100", "bert_3": "11000000", "roberta_2": "11110000", "gpt_best": "11111110",
        "roberta_x": "1111?111"}),
    "gamma": ([f"q{i}" for i in range(6)], {"bert_best": "110000", "bert_2": "111100", "human": "111111"}),
}


def _write_field(folder, floats: str = "alpha"):
    """The :data:`FIELD` as CSV files; the ``floats`` task's cells written as pandas writes a float column."""
    folder.mkdir(parents=True, exist_ok=True)
    for task, (items, rows) in FIELD.items():
        lines = [",".join(["model", *items])]
        for name, answers in rows.items():
            cells = ["" if a == "?" else (f"{a}.0" if task == floats else a) for a in answers]
            lines.append(",".join([name, *cells]))
        (folder / f"{task}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _answers(bits: str) -> list[int]:
    return [int(b) for b in bits]


def test_checkpoint_names_map_to_flows_and_each_flow_is_one_respondent_per_task(tmp_path, capsys):
    folder = _write_field(tmp_path / "field")
    out = tmp_path / "out"
    assert main(["import-runs", str(folder), "--out", str(out), "--per-flow", "best",
                 "--respondent-pattern", CHECKPOINTS]) == 0
    console = capsys.readouterr().out
    assert f"{folder}: 3 matrix file(s): 3 read, 0 skipped" in console
    assert "field: 4 flows over 3 datasets; 1 on all 3, 3 on ≥ 2, 1 on one only" in console
    for task, share in (("alpha", "75 %"), ("beta", "75 %"), ("gamma", "50 %")):
        assert f"  {task}: {3 if task != 'gamma' else 2} of the field's 4 flows ({share})" in console
    responses = {t: pd.read_csv(out / "responses" / t / "responses.csv", index_col=0) for t in FIELD}
    assert sorted(responses["alpha"].index) == ["bert", "gpt", "roberta"]
    assert sorted(responses["gamma"].index) == ["bert", "human"]
    # the best run of each flow, by accuracy on all the task's rows: bert_best (0.8), roberta_2 (0.7) on alpha
    assert responses["alpha"].loc["bert"].tolist() == _answers(FIELD["alpha"][1]["bert_best"])
    assert responses["alpha"].loc["roberta"].tolist() == _answers(FIELD["alpha"][1]["roberta_2"])
    assert responses["gamma"].loc["bert"].tolist() == _answers(FIELD["gamma"][1]["bert_2"])  # 4/6 beats 2/6
    respondents = pd.read_csv(out / "responses" / "alpha" / "respondents.csv", dtype=str).set_index("respondent")
    assert respondents.loc["roberta", "run_id"] == "2" and respondents.loc["bert", "run_id"] == "best"
    assert list(responses["beta"].columns) == [str(100 + i) for i in range(8)]  # OpenML row ids kept
    assert list(responses["gamma"].columns) == [f"q{i}" for i in range(6)]     # named items keep their names
    record = json.loads((out / "responses" / "beta" / "import.json").read_text())
    assert record["field"] == {"datasets": 3, "flows": 4, "flows_by_number_of_datasets": {"1": 1, "2": 2, "3": 1},
                               "flows_here": 3, "share_here": 0.75}
    assert record["skipped"] == ["row 'roberta_x' (line 6): 1 cell(s) missing or not 0/1 (first: item '104' is "
                                 "missing); a respondent needs an answer to every item"]
    gamma = json.loads((out / "responses" / "gamma" / "import.json").read_text())
    assert "gamma.csv: 1 respondent name(s) do not match the pattern '(?P<flow>.+)_(?P<run>best|\\\\d+)$'; each is " \
           "a flow of its own (first: 'human')" in gamma["notes"]
    assert "item names are not dataset row ids (first: 'q0'): the items keep their names, and the import cannot be " \
           "paired with a dataset's rows" in gamma["notes"]


def test_the_default_rule_splits_flow_and_run_at_the_first_double_bar(tmp_path):
    path = tmp_path / "task.csv"
    path.write_text('run,0,1,2,3\n'
                    'weka.J48(1)||-C 0.25,1,1,0,0\n'
                    'weka.J48(1)||-C 0.5,1,1,1,0\n'
                    '"sk.Pipeline(a=1, b=""x"")||",1.0,0.0,0.0,0.0\n'
                    '"sk.Pipeline(a=1, b=""x"")||",0,1,1,1\n', encoding="utf-8")
    [matrix] = read_matrices(path)
    assert matrix.runs["flow_name"].tolist() == ["weka.J48(1)", "weka.J48(1)", 'sk.Pipeline(a=1, b="x")',
                                                 'sk.Pipeline(a=1, b="x")']
    assert matrix.runs["run_id"].tolist() == ["-C 0.25", "-C 0.5", "row3", "row4"]  # no run given: the row number
    assert matrix.responses.tolist() == [[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0], [0, 1, 1, 1]]
    assert matrix.n_rows == 4  # items 0..3: every row of the dataset
    assert RespondentNaming().split("flow-only") == ("flow-only", "")
    assert RespondentNaming(CHECKPOINTS).split("bert_large_best") == ("bert_large", "best")
    assert RespondentNaming(CHECKPOINTS).split("bert") is None


def test_a_bad_pattern_and_a_file_that_is_no_matrix_are_said(tmp_path):
    with pytest.raises(ConfigError, match=r"respondent pattern '\(\?P<model>\.\+\)' has no group named 'flow'"):
        RespondentNaming("(?P<model>.+)")
    with pytest.raises(ConfigError, match=r"respondent pattern '\(' is not a regular expression"):
        RespondentNaming("(")
    folder = _write_field(tmp_path / "field")
    (folder / "index.csv").write_text("file,runs,flows\nalpha,5,3\n", encoding="utf-8")
    (folder / "semicolons.csv").write_text("run;0;1\na;1;0\n", encoding="utf-8")
    matrices = read_matrices(folder, naming=RespondentNaming(CHECKPOINTS))
    assert [m.dataset for m in matrices] == ["alpha", "beta", "gamma"]
    assert matrices[0].source_found == 5 and matrices[0].source_skipped == [
        f"{folder / 'index.csv'}: no row of 0/1 answers (first: row 'alpha' (line 2): 2 cell(s) missing or not 0/1 "
        "(first: item 'runs' is '5', not 0/1); a respondent needs an answer to every item); expected a header row of "
        "item names and one row of 0/1 per respondent",
        f"{folder / 'semicolons.csv'}: the first row has no comma but 2 semicolons; save it comma-separated"]
    with pytest.raises(DataError, match="none of the 1 matrix file"):
        read_matrices([folder / "index.csv"])
    runs = tmp_path / "runs-folder"
    (runs / "runs" / "1").mkdir(parents=True)
    with pytest.raises(ConfigError, match="the respondent pattern applies to matrix files only: leave it out"):
        read_offline(runs, naming=RespondentNaming(CHECKPOINTS))
    paired = ImportConfig.from_dict({"source": "openml-runs", "path": str(folder / "gamma.csv"),
                                     "pair_with_suite": True})
    with pytest.raises(ConfigError, match=r"the items of gamma are named, not rows of a dataset, so no dataset can be "
                                          r"paired with them"):
        imported_results(paired)
    with pytest.raises(ConfigError, match="respond.respondent_pattern: .*no pattern with tasks"):
        ImportConfig.from_dict({"source": "openml-runs", "tasks": 3, "respondent_pattern": CHECKPOINTS})


def test_a_list_of_matrices_in_the_respond_stage_carries_the_sparse_field(tmp_path):
    folder = _write_field(tmp_path / "field")
    config = load_config({
        "suite": "stored-runs", "stages": ["respond", "report"], "report": {"max_dataset_plots": 0, "dpi": 40},
        "responses": {"source": "openml-runs", "path": [str(folder / "alpha.csv"), str(folder / "gamma.csv")],
                      "respondent_pattern": CHECKPOINTS, "per_flow": "best"}})
    run_pipeline(config, out=tmp_path / "run", show_progress=False)
    results = load_run(tmp_path / "run").respond
    assert sorted(results) == ["alpha", "gamma"]
    assert sorted(results["alpha"].responses.index) == ["bert", "gpt", "roberta"]
    assert "field: 4 flows over 2 datasets; 1 on all 2, 4 on ≥ 1, 3 on one only (a flow has no answers on the " \
           "datasets it did not run on)" in results["gamma"].notes
    assert "gamma: 2 of the field's 4 flows (50 %)" in results["gamma"].notes
    assert list(results["gamma"].responses.columns) == [f"q{i}" for i in range(6)]
    assert results["gamma"].test_index.tolist() == list(range(6))  # positions in the file, not dataset rows
    assert results["alpha"].test_index.tolist() == list(range(10))
    summary = (tmp_path / "run" / "summary.md").read_text(encoding="utf-8")
    section = summary.split("## Respondents from stored runs", 1)[1]
    assert "| dataset | flows present | share of the field's flows (%) |" in section
    assert "| alpha | 3 | 75.0 |" in section and "| gamma | 2 | 50.0 |" in section
    assert "*field: 4 flows over 2 datasets; 1 on all 2, 4 on ≥ 1, 3 on one only" in section
    assert "> gamma: field: " not in section  # the summary is the table's caption, not repeated per dataset


def test_a_configs_paths_are_relative_to_its_folder_and_change_the_fingerprint(tmp_path):
    from benchirt.stored_runs.responses import read_configured_source, source_fingerprint

    _write_field(tmp_path / "field")
    config = ImportConfig.from_dict({"source": "openml-runs", "path": ["field/alpha.csv", "field/beta.csv"]})
    assert [m.dataset for m in read_configured_source(config, base_dir=tmp_path)] == ["alpha", "beta"]
    before = source_fingerprint(config, base_dir=tmp_path)
    patterned = ImportConfig.from_dict({**config.to_dict(), "respondent_pattern": CHECKPOINTS})
    assert source_fingerprint(patterned, base_dir=tmp_path) != before  # another naming rule: another import
    (tmp_path / "field" / "beta.csv").write_text("model,0,1\nbert_best,1,0\n", encoding="utf-8")
    assert source_fingerprint(config, base_dir=tmp_path) != before      # a changed file: recomputed


def test_percentages_have_at_most_one_decimal():
    assert [percent(s) for s in (0.75, 2 / 3, 0.0649, 1.0, 0.00004)] == ["75 %", "66.7 %", "6.5 %", "100 %", "0 %"]


@pytest.mark.slow  # about 8 s of the 20-task field's published counts; reading a folder of matrices runs by
# default in test_a_bad_pattern_and_a_file_that_is_no_matrix_are_said, the real OpenML files in test_runs_roundtrip.py
def test_the_cv_fold0_field_imports_with_the_published_counts(shared_data, tmp_path):
    """../shared/data/openml-runs/cv-fold0: 20 tasks; runs, flows and rows per task as its index.csv states
    them; 277 flows, 187 on at least 10 tasks, none on all 20 (its README)."""
    folder = shared_data / "openml-runs" / "cv-fold0"
    if not folder.is_dir():
        pytest.skip(f"{folder} not found")
    matrices = read_matrices(folder)
    index = pd.read_csv(folder / "index.csv").set_index("file")
    assert sorted(m.dataset for m in matrices) == sorted(index.index)
    for matrix in matrices:
        expected = index.loc[matrix.dataset]
        assert (len(matrix.runs), matrix.runs["flow_name"].nunique(), len(matrix.items)) == \
            (expected["runs"], expected["flows"], expected["rows"]), matrix.dataset
        assert matrix.responses.mean() == pytest.approx(expected["mean_correct"], abs=5e-4)
        assert matrix.skipped == []
    assert len(matrices[0].source_skipped) == 1 and "index.csv: no row of 0/1 answers" in matrices[0].source_skipped[0]
    tasks_per_flow = pd.concat([m.runs["flow_name"].drop_duplicates() for m in matrices]).value_counts()
    assert (len(tasks_per_flow), int((tasks_per_flow >= 10).sum()), int(tasks_per_flow.max())) == (277, 187, 19)
    assert sum(m.responses.size for m in matrices) == pytest.approx(11.1e6, rel=0.01)
    assert main(["import-runs", str(folder), "--out", str(tmp_path / "out")]) == 0
    record = json.loads((tmp_path / "out" / "responses" / "letter" / "import.json").read_text())
    assert record["field"]["flows"] == 277 and record["field"]["flows_here"] == 229
    assert record["runs_read"] == 294 and record["respondents"] == 229 and record["items"] == 1000

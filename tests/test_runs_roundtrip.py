"""Round trips on a whole CC18 task: benchirt's own cross-validated predictions on kr-vs-kp, on the real split
of OpenML task 3, written as predictions files in four layouts, import to the same matrix cell for cell.
Plus the refusals (one line naming the run and the fix) and the two real predictions files."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import BernoulliNB, GaussianNB
from sklearn.tree import DecisionTreeClassifier

from benchirt.cli import main
from benchirt.data.arff import read_arff
from benchirt.errors import DataError
from benchirt.stored_runs.folder import read_runs_folder
from benchirt.stored_runs.predictions import read_predictions
from benchirt.stored_runs.task import read_split, read_truth
from runs_samples import LAYOUTS, write_predictions, write_run_description

CLASSIFIERS = {  # flow id -> (name, estimator)
    101: ("sklearn.tree.DecisionTreeClassifier(max_depth=3)", DecisionTreeClassifier(max_depth=3, random_state=0)),
    102: ("sklearn.naive_bayes.BernoulliNB", BernoulliNB()),
    103: ("sklearn.naive_bayes.GaussianNB", GaussianNB()),
}


@pytest.fixture(scope="module")
def kr_vs_kp(shared_data, tmp_path_factory):
    """A runs folder for task 3: three classifiers' 10-fold predictions on the real split, each in all four
    layouts (12 runs), and the expected 0/1 matrix computed directly from the predictions."""
    task_dir = shared_data / "openml-cache" / "org" / "openml" / "www" / "tasks" / "3"
    arff = shared_data / "cc18-arff" / "3-kr-vs-kp.arff"
    root = tmp_path_factory.mktemp("task3")
    (root / "tasks" / "3").mkdir(parents=True)
    for name in ("task.xml", "datasplits.arff"):
        shutil.copy(task_dir / name, root / "tasks" / "3" / name)
    (root / "datasets" / "3").mkdir(parents=True)
    (root / "datasets" / "3" / "dataset.arff").symlink_to(arff)
    frame = read_arff(arff).frame
    X = pd.get_dummies(frame.iloc[:, :-1]).to_numpy(float)
    y = frame["class"].cat.codes.to_numpy()
    classes = tuple(frame["class"].cat.categories)
    split = read_split(root / "tasks" / "3" / "datasplits.arff")
    expected, run_id = {}, 1000
    for flow_id, (flow_name, model) in CLASSIFIERS.items():
        predicted = np.empty(len(y), int)
        proba = np.empty((len(y), len(classes)))
        for fold in range(10):
            test = split.row_id[split.fold == fold]
            train = np.setdiff1d(np.arange(len(y)), test)
            model.fit(X[train], y[train])
            predicted[test], proba[test] = model.predict(X[test]), model.predict_proba(X[test])
        for offset, layout in enumerate(LAYOUTS):
            run_id += 1
            folder = root / "runs" / str(run_id)
            write_run_description(folder, run_id, 3, flow_id, flow_name, setup_id=run_id, dataset_id=3)
            write_predictions(folder / "predictions.arff", layout, split.row_id, split.fold,
                              predicted[split.row_id], y[split.row_id], proba[split.row_id], classes, seed=run_id)
            expected[run_id] = (predicted == y).astype(np.int8)
    return root, expected, split


def test_four_layouts_import_to_the_same_matrix_cell_for_cell(kr_vs_kp):
    root, expected, split = kr_vs_kp
    [matrix] = read_runs_folder(root)
    assert matrix.dataset == "kr-vs-kp" and matrix.task_id == 3 and not matrix.skipped
    assert np.array_equal(matrix.items, np.arange(3196)) and np.array_equal(matrix.item_fold, split.fold)
    for i, run_id in enumerate(matrix.runs["run_id"]):
        assert np.array_equal(matrix.responses[i], expected[run_id]), run_id
    blocks = matrix.responses.reshape(3, 4, -1)  # flow × layout × items
    assert (blocks == blocks[:, :1]).all()
    assert 0.6 < matrix.accuracy.min() and matrix.accuracy.max() < 1.0


def test_probability_of_the_true_class_survives_every_layout(kr_vs_kp):
    root, _, split = kr_vs_kp
    truth = read_truth(root / "datasets" / "3" / "dataset.arff", "class")
    read = [read_predictions(root / "runs" / str(r) / "predictions.arff", f"run {r}", truth=truth, split=split)
            for r in (1001, 1002, 1003, 1004)]
    for other in read[1:]:
        np.testing.assert_allclose(other.p_true, read[0].p_true, rtol=1e-6)
        assert np.array_equal(other.true_class, truth.label)


@pytest.mark.heavy
def test_import_runs_command_writes_responses_and_provenance(kr_vs_kp, tmp_path, capsys):
    root, expected, _ = kr_vs_kp
    assert main(["import-runs", str(root), "--out", str(tmp_path), "--per-flow", "all", "--keep-duplicates"]) == 0
    folder = tmp_path / "responses" / "kr-vs-kp"
    responses = pd.read_csv(folder / "responses.csv", index_col=0)
    respondents = pd.read_csv(folder / "respondents.csv")
    assert responses.shape == (12, 3196) and list(responses.columns[:3]) == ["0", "1", "2"]
    for name, run_id in zip(respondents["respondent"], respondents["run_id"]):
        assert np.array_equal(responses.loc[name].to_numpy(), expected[run_id])
    assert set(respondents["flow_id"]) == set(CLASSIFIERS)
    assert respondents["openml_url"].iloc[0] == f"https://www.openml.org/r/{respondents['run_id'].iloc[0]}"
    np.testing.assert_allclose(respondents["accuracy"], responses.mean(axis=1).to_numpy())
    # the default rule: one run per flow chosen on the even folds, items are the odd folds' rows
    assert main(["import-runs", str(root), "--out", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    held = pd.read_csv(tmp_path / "d" / "responses" / "kr-vs-kp" / "responses.csv", index_col=0)
    odd = read_split(root / "tasks" / "3" / "datasplits.arff")
    assert list(held.columns.astype(int)) == odd.row_id[odd.fold % 2 == 1].tolist()
    assert held.shape[0] == 3  # the four layouts of a flow are identical: one respondent each
    assert "chosen on the even folds" in out and "3 runs not chosen" not in out


def _copy_run(root, run_id, tmp_path):
    target = tmp_path / "bad"
    for part in ("tasks", "datasets"):
        shutil.copytree(root / part, target / part, symlinks=True, dirs_exist_ok=True)
    shutil.copytree(root / "runs" / str(run_id), target / "runs" / str(run_id))
    return target, target / "runs" / str(run_id) / "predictions.arff"


def _edit_rows(path, edit):
    lines = path.read_text().splitlines()
    start = lines.index("@DATA") + 1
    path.write_text("\n".join(lines[:start] + edit(lines[start:])) + "\n")


@pytest.mark.parametrize("edit, message", [
    (lambda rows: rows[1:], "1 test row(s) missing (first: row"),
    (lambda rows: rows + rows[:1], "is predicted twice in repeat 0"),
    (lambda rows: [",".join(f if i != 1 else str((int(f) + 1) % 10) for i, f in enumerate(rows[0].split(",")))]
     + rows[1:], "folds do not match the task's split"),
    (lambda rows: [rows[0].replace(",won,", ",draw,").replace(",nowin,", ",draw,")] + rows[1:],
     "are not among the task's classes"),
])
def test_a_damaged_file_is_refused_with_one_line_naming_the_run(kr_vs_kp, tmp_path, edit, message):
    root, _, _ = kr_vs_kp
    folder, path = _copy_run(root, 1001, tmp_path)
    _edit_rows(path, edit)
    with pytest.raises(DataError, match="none of the 1 run") as error:
        read_runs_folder(folder)
    assert "run 1001" in str(error.value) and message in str(error.value) and "\n" not in str(error.value)


def test_a_run_on_another_dataset_version_is_skipped_and_said(kr_vs_kp, tmp_path):
    root, _, _ = kr_vs_kp
    folder, path = _copy_run(root, 1001, tmp_path)
    shutil.copytree(root / "runs" / "1002", folder / "runs" / "1002")
    description = folder / "runs" / "1002" / "description.xml"
    description.write_text(description.read_text().replace("<oml:did>3</oml:did>", "<oml:did>40999</oml:did>"))
    # a file whose 'correct' column contradicts the dataset: the same run made on another version
    _edit_rows(path, lambda rows: [r.replace(",won,", ",X,").replace(",nowin,", ",won,").replace(",X,", ",nowin,")
                                   for r in rows])
    shutil.copytree(root / "runs" / "1003", folder / "runs" / "1003")
    [matrix] = read_runs_folder(folder)
    assert list(matrix.runs["run_id"]) == [1003]
    assert len(matrix.skipped) == 2
    assert "contradict the dataset" in matrix.skipped[0] and "another dataset version" in matrix.skipped[0]
    assert "made on dataset 40999, but task 3 uses dataset 3 (another version)" in matrix.skipped[1]


def test_a_file_without_correct_needs_the_dataset(kr_vs_kp, tmp_path):
    root, _, _ = kr_vs_kp
    path = root / "runs" / "1004" / "predictions.arff"  # the 'coded' layout
    with pytest.raises(DataError, match=r"run 1004 .*no 'correct' column; put the task's dataset beside it"):
        read_predictions(path, "run 1004")


def test_the_two_real_openml_files(shared_data):
    folder = shared_data / "openml-runs" / "predictions"
    new = read_predictions(folder / "task-119-sklearn-2025" / "predictions.arff", "run a")
    old = read_predictions(folder / "task-6-sklearn-2019" / "predictions.arff", "run b")
    assert new.classes == ("tested_negative", "tested_positive") and len(new.row_id) == 253
    assert old.classes == ("1", "2", "3", "4", "5", "U") and len(old.row_id) == 296
    # the 2019 run's description states its accuracy (fold 0): the reader's share of correct rows is it
    assert old.accuracy == pytest.approx(0.8108108108108109, abs=1e-12)
    # row 412: confidences 0, 0, 0.863, 0, 0.137, 0 for 1..U, prediction 3, correct 5
    assert old.row_id[np.searchsorted(old.row_id, 412)] == 412
    assert old.p_true[np.searchsorted(old.row_id, 412)] == pytest.approx(0.13657704612383778, rel=1e-6)
    assert not old.correct[np.searchsorted(old.row_id, 412)]
    row53 = np.searchsorted(new.row_id, 53)  # prediction tested_negative, correct tested_positive, p 0.3417
    assert not new.correct[row53] and new.p_true[row53] == pytest.approx(0.341747572815534, rel=1e-6)

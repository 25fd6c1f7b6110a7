"""Predictions files in OpenML's layouts, written from known predictions (the test bed of tests/test_runs_*.py).

A predictions file is written from ``rows`` (OpenML row ids), ``folds``, ``predicted`` and ``truth`` (class
indices into ``classes``) and ``proba`` (rows × classes) in one of :data:`LAYOUTS`:

* ``2025`` — openml-python 0.16: ``repeat, fold, sample, row_id, prediction, correct, confidence.*``;
* ``2019`` — openml-python 2019: ``confidence.*`` first, then ``prediction, correct``;
* ``weka`` — Weka's: lower-case keywords, no ``sample``, quoted labels, ``correct`` before ``prediction``;
* ``coded`` — no ``correct`` column, rows shuffled, ``prediction`` NUMERIC holding the class index.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

LAYOUTS = ("2025", "2019", "weka", "coded")


def _nominal(classes) -> str:
    return "{" + ", ".join(classes) + "}"


def write_predictions(path: Path, layout: str, rows, folds, predicted, truth, proba, classes, seed: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    order = np.arange(len(rows))
    if layout == "coded":
        order = np.random.default_rng(seed).permutation(len(rows))
    conf = [f"confidence.{c}" for c in classes]
    if layout == "2025":
        header = ["repeat", "fold", "sample", "row_id", "prediction", "correct", *conf]
    elif layout == "2019":
        header = ["repeat", "fold", "sample", "row_id", *conf, "prediction", "correct"]
    elif layout == "weka":
        header = ["repeat", "fold", "row_id", *conf, "correct", "prediction"]
    else:
        header = ["repeat", "fold", "row_id", "prediction", *conf]
    keyword = "@attribute" if layout == "weka" else "@ATTRIBUTE"
    lines = ["% written by tests/runs_samples.py", f"{'@relation' if layout == 'weka' else '@RELATION'} predictions", ""]
    for name in header:
        if name in ("prediction", "correct") and layout != "coded":
            kind = _nominal(f"'{c}'" if layout == "weka" else c for c in classes)
        else:
            kind = "NUMERIC"
        lines.append(f"{keyword} {name} {kind}")
    lines += ["", "@DATA" if layout != "weka" else "@data"]
    for i in order:
        label = (lambda k: f"'{classes[k]}'") if layout == "weka" else (lambda k: classes[k])
        values = {"repeat": "0", "fold": str(int(folds[i])), "sample": "0", "row_id": str(int(rows[i])),
                  "prediction": str(int(predicted[i])) if layout == "coded" else label(predicted[i]),
                  "correct": label(truth[i])}
        values.update({f"confidence.{c}": repr(float(proba[i, k])) for k, c in enumerate(classes)})
        lines.append(",".join(values[name] for name in header))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_run_description(folder: Path, run_id: int, task_id: int, flow_id: int, flow_name: str, setup_id: int,
                          dataset_id: int, uploader: int = 1, dataset_name: str = "kr-vs-kp") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = f"""<oml:run xmlns:oml="http://openml.org/openml">
  <oml:run_id>{run_id}</oml:run_id>
  <oml:uploader>{uploader}</oml:uploader>
  <oml:uploader_name>benchirt tests</oml:uploader_name>
  <oml:task_id>{task_id}</oml:task_id>
  <oml:flow_id>{flow_id}</oml:flow_id>
  <oml:flow_name>{flow_name}</oml:flow_name>
  <oml:setup_id>{setup_id}</oml:setup_id>
  <oml:input_data><oml:dataset><oml:did>{dataset_id}</oml:did><oml:name>{dataset_name}</oml:name></oml:dataset></oml:input_data>
  <oml:output_data><oml:file><oml:file_id>{run_id * 10}</oml:file_id><oml:name>predictions</oml:name></oml:file></oml:output_data>
</oml:run>
"""
    (folder / "description.xml").write_text(text, encoding="utf-8")
    return folder / "description.xml"


def write_split(path: Path, folds) -> Path:
    """``datasplits.arff`` of a 10-fold-style task: every row once a TEST row (of its fold), else TRAIN."""
    folds = np.asarray(folds)
    lines = ["@relation splits", "", "@attribute type {TRAIN,TEST}", "@attribute rowid numeric",
             "@attribute repeat numeric", "@attribute fold numeric", "", "@data"]
    for fold in range(int(folds.max()) + 1):
        lines += [f"{'TEST' if f == fold else 'TRAIN'},{row},0,{fold}" for row, f in enumerate(folds)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_study_folder(root: Path, arffs: dict, flows: dict, n_folds: int = 10) -> dict:
    """A runs folder of several tasks: for each dataset ``arffs`` (task id -> (dataset id, name, ARFF path)),
    a seeded stratified ``n_folds``-fold split (``tasks/<id>/datasplits.arff``), the dataset
    (``datasets/<did>/dataset.arff``, a link) and one run per (flow, setting) of ``flows`` (flow id ->
    (flow name, [scikit-learn estimators])): its out-of-fold predictions in the 2025 layout.

    Returns run id -> the expected 0/1 answers of every row."""
    import pandas as pd
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    from benchirt.data.arff import read_arff

    expected, run_id = {}, 5000
    for task_id, (did, name, arff) in arffs.items():
        frame = read_arff(arff).frame
        target = frame.columns[-1]
        X = pd.get_dummies(frame.drop(columns=[target])).astype(float).fillna(0.0).to_numpy()
        y = frame[target].cat.codes.to_numpy()
        classes = tuple(str(c) for c in frame[target].cat.categories)
        folds = np.empty(len(y), np.int64)
        for fold, (_, test) in enumerate(StratifiedKFold(n_folds, shuffle=True, random_state=task_id).split(X, y)):
            folds[test] = fold
        write_split(root / "tasks" / str(task_id) / "datasplits.arff", folds)
        (root / "datasets" / str(did)).mkdir(parents=True, exist_ok=True)
        (root / "datasets" / str(did) / "dataset.arff").symlink_to(arff)
        rows = np.arange(len(y))
        for flow_id, (flow_name, settings) in flows.items():
            for setting, model in enumerate(settings):
                predicted, proba = np.empty(len(y), int), np.zeros((len(y), len(classes)))
                for fold in range(n_folds):
                    test, train = rows[folds == fold], rows[folds != fold]
                    fitted = clone(model).fit(X[train], y[train])
                    predicted[test] = fitted.predict(X[test])
                    proba[np.ix_(test, fitted.classes_)] = fitted.predict_proba(X[test])
                run_id += 1
                folder = root / "runs" / str(run_id)
                write_run_description(folder, run_id, task_id, flow_id, flow_name, setup_id=flow_id * 10 + setting,
                                      dataset_id=did, dataset_name=name)
                write_predictions(folder / "predictions.arff", "2025", rows, folds, predicted, y, proba, classes)
                expected[run_id] = (predicted == y).astype(np.int8)
    return expected


def write_task_xml(path: Path, task_id: int, dataset_id: int, target: str = "class") -> Path:
    """``tasks/<id>/task.xml`` stating the task's dataset and target, as the server writes it (the fields read)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"""<oml:task xmlns:oml="http://openml.org/openml">
  <oml:task_id>{task_id}</oml:task_id>
  <oml:input name="source_data"><oml:data_set><oml:data_set_id>{dataset_id}</oml:data_set_id>
  <oml:target_feature>{target}</oml:target_feature></oml:data_set></oml:input>
</oml:task>
""", encoding="utf-8")
    return path


def write_small_task(root: Path, task_id: int, dataset_id: int, name: str, run_ids, n_rows: int = 24,
                     seed: int = 0) -> dict:
    """A two-fold task of ``n_rows`` rows (classes yes/no) with a split and one run per id of ``run_ids``
    (flow ``flow-<k>``, k-th run), each a seeded random guess at 80 % accuracy in the 2025 layout.

    Returns run id -> the run's 0/1 answers of every row."""
    rng = np.random.default_rng(seed)
    rows, folds = np.arange(n_rows), np.arange(n_rows) % 2
    truth = rng.integers(0, 2, n_rows)
    write_split(root / "tasks" / str(task_id) / "datasplits.arff", folds)
    expected = {}
    for k, run_id in enumerate(run_ids):
        predicted = np.where(rng.random(n_rows) < 0.8, truth, 1 - truth)
        folder = root / "runs" / str(run_id)
        write_run_description(folder, run_id, task_id, 100 + k, f"flow-{k}", setup_id=run_id, dataset_id=dataset_id,
                              dataset_name=name)
        proba = np.eye(2)[predicted]
        write_predictions(folder / "predictions.arff", "2025", rows, folds, predicted, truth, proba, ("yes", "no"))
        expected[run_id] = (predicted == truth).astype(np.int8)
    return expected

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
                          dataset_id: int, uploader: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = f"""<oml:run xmlns:oml="http://openml.org/openml">
  <oml:run_id>{run_id}</oml:run_id>
  <oml:uploader>{uploader}</oml:uploader>
  <oml:uploader_name>benchirt tests</oml:uploader_name>
  <oml:task_id>{task_id}</oml:task_id>
  <oml:flow_id>{flow_id}</oml:flow_id>
  <oml:flow_name>{flow_name}</oml:flow_name>
  <oml:setup_id>{setup_id}</oml:setup_id>
  <oml:input_data><oml:dataset><oml:did>{dataset_id}</oml:did><oml:name>kr-vs-kp</oml:name></oml:dataset></oml:input_data>
  <oml:output_data><oml:file><oml:file_id>{run_id * 10}</oml:file_id><oml:name>predictions</oml:name></oml:file></oml:output_data>
</oml:run>
"""
    (folder / "description.xml").write_text(text, encoding="utf-8")
    return folder / "description.xml"

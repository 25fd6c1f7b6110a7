"""A folder of stored runs in OpenML's cache layout, read into one :class:`~benchirt.runs.matrix.RunMatrix` per task.

Layout (what openml-python's cache and :mod:`benchirt.runs.fetch` write)::

    runs/<run_id>/description.xml     the run (task, flow, setup, uploader, dataset)
    runs/<run_id>/predictions.arff    its predictions, any of OpenML's layouts
    tasks/<task_id>/task.xml          optional: the task's dataset and target
    tasks/<task_id>/datasplits.arff   optional: the split every run is checked against
    datasets/<did>/description.xml    optional: name and version
    datasets/<did>/dataset.arff       optional: the truth, needed by files without a 'correct' column

An openml-python cache root (``org/openml/www/``) is found below the folder. A folder whose
sub-folders each hold a ``predictions.arff`` (or one run folder) is read as the ``runs/`` part alone.
A run that cannot be used is skipped with one line saying why (:attr:`RunMatrix.skipped`), never silently.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.runs.descriptions import (
    RunDescription, read_dataset_description, read_run_description, read_task_description,
)
from benchirt.runs.matrix import PROVENANCE, RunMatrix
from benchirt.runs.predictions import RunPredictions, read_predictions
from benchirt.runs.task import TaskSplit, TaskTruth, read_split, read_truth


@dataclass(frozen=True)
class RunFiles:
    """Where one run's files are, and what its description says."""

    folder: Path
    run_id: int | str
    description: RunDescription


def cache_root(source: Path) -> Path:
    """``source`` itself, or the openml-python cache root below it (``org/openml/www``)."""
    nested = source / "org" / "openml" / "www"
    return nested if nested.is_dir() and not (source / "runs").is_dir() else source


def list_runs(source: str | Path, only: set[str] | None = None) -> list[RunFiles]:
    """Every run folder under ``source`` (see the module docstring), by run id; ``only``: these folder names."""
    root = cache_root(Path(source))
    if not root.is_dir():
        raise DataError(f"{source}: no such folder; give a runs folder (runs/<run_id>/predictions.arff)")
    if (root / "predictions.arff").is_file():
        folders = [root]
    else:
        base = root / "runs" if (root / "runs").is_dir() else root
        folders = sorted(p for p in base.iterdir() if (p / "predictions.arff").is_file()
                         and (only is None or p.name in only))
    if not folders:
        raise DataError(f"{source}: no runs/<run_id>/predictions.arff found; give a folder in OpenML's cache layout")
    runs = []
    for folder in folders:
        described = folder / "description.xml"
        description = read_run_description(described) if described.is_file() else RunDescription(
            *([None] * len(RunDescription.__dataclass_fields__)))
        run_id = description.run_id if description.run_id is not None else (
            int(folder.name) if folder.name.isdigit() else folder.name)
        runs.append(RunFiles(folder=folder, run_id=run_id, description=description))
    return runs


@dataclass(frozen=True)
class TaskContext:
    """What the folder knows about one task: its dataset id, split, truth and name."""

    task_id: int | None
    dataset_id: int | None
    split: TaskSplit | None
    truth: TaskTruth | None
    name: str


def task_context(root: Path, task_id: int | None, runs: list[RunFiles]) -> TaskContext:
    """The task's split, truth and dataset name from the folder (each optional)."""
    task_dir = root / "tasks" / str(task_id)
    task = read_task_description(task_dir / "task.xml") if (task_dir / "task.xml").is_file() else None
    did = task.dataset_id if task and task.dataset_id is not None else next(
        (r.description.dataset_id for r in runs if r.description.dataset_id is not None), None)
    split = read_split(task_dir / "datasplits.arff") if (task_dir / "datasplits.arff").is_file() else None
    data_dir = root / "datasets" / str(did)
    dataset = read_dataset_description(data_dir / "description.xml") if (data_dir / "description.xml").is_file() else None
    name = (dataset.name if dataset and dataset.name else None) or next(
        (r.description.dataset_name for r in runs if r.description.dataset_name), None)
    truth = None
    arff = next((p for p in (data_dir / "dataset.arff", data_dir / "dataset.arff.gz") if p.is_file()), None)
    if arff is not None:
        target = (task.target if task else None) or (dataset.default_target if dataset else None)
        truth = read_truth(arff, target, name)
        name = name or truth.name
    return TaskContext(task_id=task_id, dataset_id=did, split=split, truth=truth,
                       name=name or (f"task-{task_id}" if task_id is not None else root.name))


def read_runs_folder(source: str | Path, only: set[str] | None = None) -> list[RunMatrix]:
    """One :class:`RunMatrix` per task found under ``source``, tasks in id order (``only``: these run folders)."""
    root = cache_root(Path(source))
    by_task: dict[int | None, list[RunFiles]] = defaultdict(list)
    for run in list_runs(source, only):
        by_task[run.description.task_id].append(run)
    return [_task_matrix(task_context(root, task_id, runs), runs)
            for task_id, runs in sorted(by_task.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]


def _task_matrix(context: TaskContext, runs: list[RunFiles]) -> RunMatrix:
    read: list[tuple[RunFiles, RunPredictions]] = []
    skipped, notes = [], []
    for run in runs:
        label = f"run {run.run_id}"
        did = run.description.dataset_id
        if did is not None and context.dataset_id is not None and did != context.dataset_id:
            skipped.append(f"{label}: made on dataset {did}, but task {context.task_id} uses dataset "
                           f"{context.dataset_id} (another version); import it against its own task")
            continue
        try:
            predictions = read_predictions(run.folder / "predictions.arff", label, context.truth, context.split)
        except DataError as exc:
            skipped.append(str(exc))
            continue
        notes.extend(predictions.notes)
        read.append((run, predictions))
    if not read:
        raise DataError(f"{context.name}: none of the {len(runs)} run(s) can be used: " + " | ".join(skipped[:3]))
    items, item_fold, read = _common_items(context, read, skipped)
    responses = np.empty((len(read), len(items)), np.int8)
    for i, (_, predictions) in enumerate(read):
        responses[i] = predictions.correct
    first = read[0][1]
    rows = []
    for run, _ in read:
        d = run.description
        rows.append({"run_id": run.run_id, "flow_id": d.flow_id, "flow_name": d.flow_name or f"run {run.run_id}",
                     "setup_id": d.setup_id, "uploader": d.uploader, "uploader_name": d.uploader_name,
                     "task_id": context.task_id})
    item_class = first.true_class if (first.true_class >= 0).all() else None
    return RunMatrix(dataset=context.name, responses=responses, items=items, item_fold=item_fold,
                     item_class=item_class, runs=pd.DataFrame(rows, columns=list(PROVENANCE)),
                     task_id=context.task_id, classes=first.classes if item_class is not None else None,
                     n_rows=context.truth.n_rows if context.truth is not None else None,
                     notes=_summarised(notes), skipped=skipped)


def _common_items(context: TaskContext, read: list, skipped: list[str]):
    """The items every kept run answered: the split's test rows, else the row set most runs share.

    Runs whose rows differ from it are skipped (a missing row, or rows of another task).
    """
    if context.split is not None:
        return context.split.row_id, context.split.fold, read
    signatures = pd.Series([hash(p.row_id.tobytes()) for _, p in read])
    common = signatures.mode().iloc[0]
    kept = []
    reference = next(p for (_, p), s in zip(read, signatures) if s == common)
    for (run, predictions), signature in zip(read, signatures):
        if signature == common:
            kept.append((run, predictions))
            continue
        absent = np.setdiff1d(reference.row_id, predictions.row_id)
        what = (f"{len(absent)} row(s) missing (first: row {int(absent[0])})" if len(absent)
                else f"rows beyond the other runs' {len(reference.row_id)}")
        skipped.append(f"run {run.run_id}: {what}; with no task split beside it the items are the "
                       f"rows most runs share; download the run again or add tasks/<id>/datasplits.arff")
    return reference.row_id, reference.fold, kept


def _summarised(notes: list[str]) -> list[str]:
    """At most three notes of a kind, then a count (a note per run would bury the rest)."""
    if len(notes) <= 5:
        return notes
    return notes[:3] + [f"… and {len(notes) - 3} similar note(s) about other runs"]

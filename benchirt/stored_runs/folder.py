"""A folder of stored runs in OpenML's cache layout, read into one :class:`~benchirt.stored_runs.matrix.RunMatrix` per task.

Layout (what openml-python's cache and :mod:`benchirt.stored_runs.fetch` write)::

    runs/<run_id>/description.xml     the run (task, flow, setup, uploader, dataset)
    runs/<run_id>/predictions.arff    its predictions, any of OpenML's layouts
    tasks/<task_id>/task.xml          optional: the task's dataset and target
    tasks/<task_id>/datasplits.arff   optional: the split every run is checked against
    datasets/<did>/description.xml    optional: name and version
    datasets/<did>/dataset.arff       optional: the truth, needed by files without a 'correct' column

An openml-python cache root (``org/openml/www/``) is found below the folder; a folder whose sub-folders each hold a
``predictions.arff`` (or one run folder) is read as the ``runs/`` part alone. Every run folder found is read or
skipped with one line saying why (:attr:`RunMatrix.skipped`, or :attr:`RunMatrix.source_skipped` before its task is
known), never silently: its files must be regular files inside the folder under the size limit
(:mod:`benchirt.stored_runs.inputs`), its description readable and naming its task. A run is checked against its
task's dataset as ``task.xml`` states it, else as most runs' descriptions do (said); the dataset's name comes from the
task's files, else the runs read, never a refused one. (``datasets/<did>/dataset.arff`` may link anywhere, as users
keep data elsewhere; the other files of ``tasks/`` and ``datasets/`` must be in the folder.)
"""
from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.stored_runs.descriptions import (
    RunDescription, read_dataset_description, read_run_description, read_task_description,
)
from benchirt.stored_runs.inputs import file_problem, inside
from benchirt.stored_runs.matrix import PROVENANCE, RunMatrix
from benchirt.stored_runs.predictions import RunPredictions, read_predictions
from benchirt.stored_runs.task import TaskSplit, TaskTruth, read_split, read_truth
from benchirt.safe_text import name_problem, printable

T = TypeVar("T")


@dataclass(frozen=True)
class RunFiles:
    """Where one run's files are, and what its description says."""

    folder: Path
    run_id: int | str
    description: RunDescription


@dataclass
class RunsScan:
    """The run folders found under a source: those that can be read and those refused before their task
    was known (one line each, saying why). ``found`` counts both."""

    runs: list[RunFiles]
    skipped: list[str]
    found: int


def cache_root(source: Path) -> Path:
    """``source`` itself, or the openml-python cache root below it (``org/openml/www``)."""
    nested = source / "org" / "openml" / "www"
    return nested if nested.is_dir() and not (source / "runs").is_dir() else source


#: Sub-folders of a cache root that are not run folders.
_NOT_RUNS = frozenset({"tasks", "datasets", "runs", "org"})


def _run_folders(root: Path, only: set[str] | None) -> list[Path]:
    """Every entry that is (or claims to be) a run folder: ``root`` itself when it holds a predictions file,
    else every entry of ``runs/`` (or, without it, every sub-folder and link of ``root``)."""
    if os.path.lexists(root / "predictions.arff"):
        return [root]
    if (root / "runs").is_dir() and not (root / "runs").is_symlink():
        entries = list((root / "runs").iterdir())
    else:
        entries = [p for p in root.iterdir()
                   if (p.is_dir() or p.is_symlink()) and p.name not in _NOT_RUNS and not p.name.startswith(".")]
    return sorted(p for p in entries if only is None or p.name in only)


def _run_problem(folder: Path, root: Path) -> str | None:
    """Why the run folder cannot be read before its description is parsed, or None."""
    if folder.is_symlink() and not inside(folder, root):
        return "a symbolic link leaving the runs folder; not followed (copy the run into the folder)"
    if not folder.is_dir():
        return "not a run folder (a file)"
    return (file_problem(folder / "predictions.arff", root, "predictions.arff")
            or file_problem(folder / "description.xml", root, "description.xml (the run's task and dataset)"))


def scan_runs(source: str | Path, *, only: set[str] | None = None) -> RunsScan:
    """Every run folder under ``source`` (``only``: these folder names), each read or refused with its reason: a
    symbolic link leaving the folder, a missing or non-regular ``predictions.arff`` or ``description.xml``, a file over
    the size limit (:func:`benchirt.stored_runs.inputs.file_problem`), an unreadable description (damaged, entity
    expansion, external entities), no task named, a run id already read from another folder."""
    root = cache_root(Path(source))
    if not root.is_dir():
        raise DataError(f"{source}: no such folder; give a runs folder (runs/<run_id>/predictions.arff)")
    folders = _run_folders(root, only)
    if not folders:
        raise DataError(f"{source}: no runs/<run_id>/predictions.arff found; give a folder in OpenML's cache layout")
    runs, skipped = [], []
    seen: dict[int | str, str] = {}  # run id (or folder name) -> the folder it was read from
    for folder in folders:
        label = f"run folder {printable(folder.name)}"
        problem = _run_problem(folder, root)
        if problem is None:
            try:
                description = read_run_description(folder / "description.xml")
            except DataError as exc:
                problem = f"unreadable description.xml: {exc}"
        if problem is None:
            problem = _description_problem(description)
        if problem is None:
            run_id = description.run_id if description.run_id is not None else folder.name
            if run_id in seen:
                problem = f"run {run_id} again (already read from folder {printable(seen[run_id])}); kept once"
        if problem is not None:
            skipped.append(f"{label}: {problem}")
            continue
        seen[run_id] = folder.name
        runs.append(RunFiles(folder=folder, run_id=run_id, description=description))
    return RunsScan(runs=runs, skipped=skipped, found=len(folders))


def _description_problem(description: RunDescription) -> str | None:
    """Why a readable description cannot make a respondent: no task, or a flow name
    :func:`benchirt.safe_text.name_problem` refuses (a control character, too long); else None."""
    if description.task_id is None:
        return "its description.xml names no task (oml:task_id); download the run again"
    name = description.flow_name
    problem = name_problem(name) if name is not None else None
    if name is not None and problem:
        return f"its flow name {printable(name[:80])!r} {problem}; it cannot name a respondent"
    return None


@dataclass(frozen=True)
class TaskContext:
    """What the folder knows about one task: its dataset id, split, truth and name (None: the runs' name).

    ``notes`` says where a fact came from when not from the task's own files."""

    task_id: int | None
    dataset_id: int | None
    split: TaskSplit | None
    truth: TaskTruth | None
    name: str | None
    notes: tuple[str, ...] = ()


def _majority(values: Iterable[T | None]) -> tuple[T | None, int, int]:
    """The most common non-None value (ties: the smallest), its count and the count of non-None values."""
    counts = Counter(v for v in values if v is not None)
    if not counts:
        return None, 0, 0
    value, count = min(counts.items(), key=lambda kv: (-kv[1], _order(kv[0])))
    return value, count, sum(counts.values())


def _order(value) -> tuple:
    """Numbers before text, each in its own order (so dataset 9 comes before dataset 10)."""
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value))


def _own_file(path: Path, root: Path) -> Path | None:
    """``path`` when the folder holds it, None when it does not; DataError when it must not be read (a link
    leaving the folder, not a regular file, over the size limit: :func:`benchirt.stored_runs.inputs.file_problem`)."""
    if not os.path.lexists(path):
        return None
    problem = file_problem(path, root, path.name)
    if problem:
        raise DataError(f"{path}: {problem}")
    return path


def task_dataset(root: Path, task_id: int | None, runs: list[RunFiles]):
    """The task's description (None without ``task.xml``), its dataset id and a note when that id comes from
    the majority of the runs' descriptions instead of the task's own file."""
    task_xml = _own_file(root / "tasks" / str(task_id) / "task.xml", root)
    task = read_task_description(task_xml) if task_xml else None
    if task is not None and task.dataset_id is not None:
        return task, task.dataset_id, ()
    did, count, total = _majority(r.description.dataset_id for r in runs)
    if did is None:
        return task, None, ()
    return task, did, (f"task {task_id}: dataset {did} from the runs' descriptions ({count} of {total} name it; no "
                       f"tasks/{task_id}/task.xml stating it)",)


def task_context(root: Path, task_id: int | None, runs: list[RunFiles]) -> TaskContext:
    """The task's split, truth and dataset name from the folder (each optional): the dataset ``task.xml`` names, else
    the runs' majority (said in ``notes``); its name ``datasets/<did>/description.xml``'s, else None (then
    :func:`_dataset_name`; never a refused run's)."""
    task, did, notes = task_dataset(root, task_id, runs)
    split_file = _own_file(root / "tasks" / str(task_id) / "datasplits.arff", root)
    split = read_split(split_file) if split_file else None
    data_dir = root / "datasets" / str(did)
    described = _own_file(data_dir / "description.xml", root)
    dataset = read_dataset_description(described) if described else None
    name = dataset.name if dataset else None
    truth = None
    arff = next((p for p in (data_dir / "dataset.arff", data_dir / "dataset.arff.gz") if p.is_file()), None)
    if arff is not None:
        target = (task.target if task else None) or (dataset.default_target if dataset else None)
        truth = read_truth(arff, target, name=name)
    return TaskContext(task_id=task_id, dataset_id=did, split=split, truth=truth, name=name, notes=notes)


def read_runs_folder(source: str | Path, *, only: set[str] | None = None) -> list[RunMatrix]:
    """One :class:`RunMatrix` per task found under ``source``, tasks in id order (``only``: these run folders).

    Every run folder is read into a matrix or skipped with its reason: in its task's :attr:`RunMatrix.skipped`, else
    in every matrix's :attr:`RunMatrix.source_skipped` (with :attr:`RunMatrix.source_found`). A task none of whose runs
    can be used, or whose own files cannot be read, skips its runs and the others go on. DataError when no run of any
    task can be used (the first reasons named).
    """
    root = cache_root(Path(source))
    scan = scan_runs(source, only=only)
    by_task: dict[int, list[RunFiles]] = defaultdict(list)
    for run in scan.runs:
        assert run.description.task_id is not None  # scan_runs skips a run without a task
        by_task[run.description.task_id].append(run)
    matrices, skipped = [], list(scan.skipped)
    for task_id, runs in sorted(by_task.items(), key=lambda kv: kv[0]):
        try:
            matrix, refused = _task_matrix(task_context(root, task_id, runs), runs)
        except DataError as exc:
            matrix, refused = None, [f"run {r.run_id}: task {task_id}'s own files cannot be used: {exc}" for r in runs]
        if matrix is None:
            skipped.extend(refused)
        else:
            matrices.append(matrix)
    if not matrices:
        raise DataError(f"{source}: none of the {scan.found} run folder(s) can be used: " + " | ".join(skipped[:3]))
    for matrix in matrices:
        matrix.source_skipped, matrix.source_found = skipped, scan.found
    return matrices


def _read_runs(context: TaskContext, runs: list[RunFiles]):
    """The runs whose predictions fit the task, and one line per run refused."""
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
            predictions = read_predictions(run.folder / "predictions.arff", label, truth=context.truth,
                                           split=context.split)
        except DataError as exc:
            skipped.append(str(exc))
            continue
        notes.extend(predictions.notes)
        read.append((run, predictions))
    return read, skipped, notes


def _dataset_name(context: TaskContext, read: list) -> tuple[str, list[str]]:
    """The task's dataset name: its description's, else the majority of the runs read (said), else the dataset
    ARFF's relation, else ``task-<id>``."""
    if context.name:
        return context.name, []
    name, count, total = _majority(run.description.dataset_name for run, _ in read)
    if name is None and context.truth is not None:
        return context.truth.name, []
    if name is None:
        return f"task-{context.task_id}", [f"task {context.task_id}: no dataset name in the folder; named task-"
                                           f"{context.task_id}"]
    return name, [f"task {context.task_id}: dataset name {name!r} from the descriptions of the runs read "
                  f"({count} of {total} name it; no datasets/<did>/description.xml)"]


def _task_matrix(context: TaskContext, runs: list[RunFiles]) -> tuple[RunMatrix | None, list[str]]:
    """The task's matrix (None when no run can be used) and one line per run refused."""
    read, skipped, notes = _read_runs(context, runs)
    if not read:
        return None, skipped
    name, named = _dataset_name(context, read)
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
    return RunMatrix(dataset=name, responses=responses, items=items, item_fold=item_fold,
                     item_class=item_class, runs=pd.DataFrame(rows, columns=list(PROVENANCE)),
                     task_id=context.task_id, classes=first.classes if item_class is not None else None,
                     n_rows=context.truth.n_rows if context.truth is not None else None,
                     notes=[*context.notes, *named, *_summarised(notes)], skipped=skipped), skipped


def _common_items(context: TaskContext, read: list, skipped: list[str]):
    """The items every kept run answered: the split's test rows, else the row set most runs share; runs whose rows
    differ are skipped."""
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

"""OpenML suites, tasks and dataset ids as :class:`~benchirt.data.spec.DatasetSpec` lists.

The forms ``OpenML-CC18`` / ``openml:99``, ``openml-task:ID`` and ``openml-dataset:ID`` of
:func:`benchirt.data.resolve_suite` resolve here, every call through
:func:`~benchirt.data.openml_source.openml_errors`. openml-python does not cache suite listings; benchirt keeps the
listing of every suite it resolved online (:func:`suite_listing_path`) and uses it, saying so, when the server cannot
be reached, so a suite whose datasets are cached runs offline after one online run.
"""
from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone
from pathlib import Path

import openml
import pandas as pd

from benchirt.data.openml_source import OFFLINE_OPTIONS, openml_errors, suite_id
from benchirt.data.spec import DatasetSpec
from benchirt.errors import DataError, OpenMLUnavailableError
from benchirt.io import atomic_write_json


def suite_specs(suite: int | str) -> list[DatasetSpec]:
    """The datasets of an OpenML benchmark suite (id or alias: ``99``, ``"OpenML-CC18"``, ``"OpenML100"``), in the
    suite's task order: ``kind="openml"`` with dataset id, task id and the task's target, named by OpenML (made unique
    with ``-<id>`` when two tasks share a name)."""
    sid = suite_id(suite)
    try:
        task_ids, listing = _fetch_suite(suite, sid)
    except OpenMLUnavailableError as exc:
        cached = suite_listing_path(sid)
        if not cached.is_file():
            raise OpenMLUnavailableError(f"{exc} (no listing of suite {sid} cached at {cached} either: "
                                         "resolve it once online)") from None
        record = json.loads(cached.read_text(encoding="utf-8"))
        warnings.warn(f"OpenML cannot be reached: suite {sid} is read from the listing benchirt cached on "
                      f"{record['fetched']} ({cached})", OfflineListingWarning, stacklevel=2)
        task_ids, listing = record["task_ids"], pd.DataFrame(record["tasks"])
    else:
        _save_listing(sid, task_ids, listing)
    rows = {int(row["tid"]): row for _, row in pd.DataFrame(listing).iterrows()}
    missing = [t for t in task_ids if t not in rows]
    if missing:
        raise DataError(f"OpenML suite {suite!r}: tasks {missing[:10]} are not listed by the server")
    specs, seen = [], set()
    for tid in task_ids:
        row = rows[tid]
        did = int(row["did"])
        name = str(row["name"])
        if name in seen:
            name = f"{name}-{did}"
        seen.add(name)
        target = row.get("target_feature")
        specs.append(DatasetSpec(name=name, kind="openml", location=str(did), openml_id=did, task_id=tid,
                                 target=str(target) if isinstance(target, str) and target else None))
    return specs


class OfflineListingWarning(UserWarning):
    """A suite was resolved from benchirt's cached listing because OpenML could not be reached."""


#: Columns of OpenML's task listing a :class:`DatasetSpec` needs (what the cached listing keeps).
LISTING_COLUMNS = ("tid", "did", "name", "target_feature")


def suite_listing_path(sid: int | str) -> Path:
    """Where benchirt keeps the listing of suite ``sid``: beside openml-python's cached files."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(sid))
    return Path(openml.config.get_cache_directory()) / "benchirt-suites" / f"{safe}.json"


def _fetch_suite(suite: int | str, sid: int | str) -> tuple[list[int], pd.DataFrame]:
    """The suite's task ids and OpenML's listing of those tasks, from the server."""
    with openml_errors(f"suite {suite!r}"):
        study = openml.study.get_suite(sid)
        task_ids = [int(t) for t in (study.tasks or [])]
        if not task_ids:
            raise DataError(f"OpenML suite {suite!r} lists no tasks. {OFFLINE_OPTIONS}")
        listing = openml.tasks.list_tasks(task_id=task_ids, output_format="dataframe")
    return task_ids, pd.DataFrame(listing)


def _save_listing(sid: int | str, task_ids: list[int], listing: pd.DataFrame) -> None:
    columns = [c for c in LISTING_COLUMNS if c in listing.columns]
    tasks = [{c: (row[c].item() if hasattr(row[c], "item") else row[c]) for c in columns}
             for _, row in listing.iterrows()]
    record = {"suite": sid, "fetched": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "task_ids": task_ids, "tasks": tasks}
    atomic_write_json(suite_listing_path(sid), record)


def dataset_spec(dataset_id: int, *, target: str | None = None) -> DatasetSpec:
    """One OpenML dataset (its default target unless ``target`` is given)."""
    did = int(dataset_id)
    with openml_errors(f"dataset {did}"):
        description = openml.datasets.get_dataset(did, download_data=False)
    return DatasetSpec(name=str(description.name), kind="openml", location=str(did), openml_id=did, target=target)


def task_spec(task_id: int) -> DatasetSpec:
    """The dataset and target of one OpenML task."""
    tid = int(task_id)
    with openml_errors(f"task {tid}"):
        task = openml.tasks.get_task(tid, download_splits=False)
        did = int(task.dataset_id)
        description = openml.datasets.get_dataset(did, download_data=False)
    target = getattr(task, "target_name", None)
    return DatasetSpec(name=str(description.name), kind="openml", location=str(did), openml_id=did,
                       task_id=tid, target=target or None)

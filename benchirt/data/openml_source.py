"""OpenML suites, tasks and datasets through the ``openml`` package (openml-python ≥ 0.14) and its cache.

openml-python keeps every downloaded description and data file in its cache directory
(``~/.cache/openml`` by default; :func:`set_openml_cache` moves it), so a dataset is fetched once
and later runs read it from disk. A spec carries the cache folder it was resolved with
(``DatasetSpec.openml_cache``) and :func:`load_openml` uses it, so worker processes and Dask workers
read the driver's cache rather than their own default.

openml-python does not cache suite listings: they always ask the server. benchirt keeps the
listing of every suite it resolved online (:func:`suite_listing_path`, beside openml's own files) and
uses it when the server cannot be reached, saying so, so a suite whose datasets are cached runs
offline after one online run.

Every call into openml goes through :func:`openml_errors`, which turns the library's failures
into one-line benchirt errors:

* no connection (``requests`` errors, DNS failures) → :class:`OpenMLUnavailableError`;
* the server answering "unknown id" (``OpenMLServerException``) or any other openml failure →
  :class:`DataError`;

and both messages name the offline alternatives (:data:`OFFLINE_OPTIONS`). Note that
openml-python retries a failed connection a few times (about 10 s in all) before giving up.
"""
from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import openml
import pandas as pd
import requests
from openml.exceptions import OpenMLServerException, PyOpenMLError

from benchirt.data.cleaning import prepare_dataset
from benchirt.data.compact import read_parquet_compact
from benchirt.data.dataset import Dataset
from benchirt.data.spec import DatasetSpec
from benchirt.data.suites import OPENML_SUITE_ALIASES
from benchirt.errors import DataError, OpenMLUnavailableError
from benchirt.io import atomic_write_json


OFFLINE_OPTIONS = (
    "To work offline name an offline suite as the SUITE argument or a config's 'suite:': 'embedded' (12 small "
    "datasets shipped with benchirt), 'cc18-offline' (the CC18 ARFF mirror in ../shared/data plus wdbc), "
    "'builtin' (datasets shipped with scikit-learn) or a folder PATH of ARFF/CSV/parquet files"
)


def set_openml_cache(path: str | Path) -> None:
    """Make openml-python keep its downloads under ``path`` (created on first use)."""
    openml.config.set_root_cache_directory(str(Path(path).expanduser()))


def suite_id(suite: int | str) -> int | str:
    """The numeric id of a known alias (``"OpenML-CC18"`` → 99); other values are passed on unchanged."""
    if isinstance(suite, str):
        text = suite.strip()
        if text.isdigit():
            return int(text)
        return OPENML_SUITE_ALIASES.get(text.lower(), text)
    return int(suite)


@contextmanager
def openml_errors(what: str) -> Iterator[None]:
    """Translate openml/requests failures while fetching ``what`` into benchirt errors."""
    try:
        yield
    except requests.exceptions.RequestException as exc:
        raise OpenMLUnavailableError(
            f"OpenML cannot be reached while fetching {what} ({type(exc).__name__}). {OFFLINE_OPTIONS}"
        ) from None
    except OpenMLServerException as exc:
        raise DataError(
            f"OpenML refused {what}: {exc.message} (code {exc.code}); check the id on openml.org. "
            f"{OFFLINE_OPTIONS}"
        ) from None
    except PyOpenMLError as exc:
        raise DataError(f"OpenML failed on {what}: {exc}. {OFFLINE_OPTIONS}") from None


def suite_specs(suite: int | str) -> list[DatasetSpec]:
    """The datasets of an OpenML benchmark suite (its tasks), in the suite's task order.

    Parameters
    ----------
    suite : int or str
        Suite id or alias (``99``, ``"OpenML-CC18"``, ``"OpenML100"``).

    Returns
    -------
    list of DatasetSpec
        ``kind="openml"``, with dataset id, task id and the task's target. Names are the OpenML
        dataset names, made unique with ``-<id>`` when two tasks share a name.
    """
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


def dataset_spec(dataset_id: int, target: str | None = None) -> DatasetSpec:
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


@lru_cache(maxsize=None)
def dataset_version(dataset_id: int) -> int | None:
    """The OpenML version of a dataset (from openml's cache or the server), or None when unreachable."""
    try:
        return openml.datasets.get_dataset(int(dataset_id), download_data=False).version
    except (requests.exceptions.RequestException, PyOpenMLError, OSError):
        return None


def openml_shape(spec: DatasetSpec) -> tuple[int, int, int]:
    """(rows, features without the target, classes) from OpenML's qualities, without downloading the data."""
    did = int(spec.location)
    if spec.openml_cache:
        set_openml_cache(spec.openml_cache)
    with openml_errors(f"the qualities of dataset {did}"):
        qualities = openml.datasets.get_dataset(did, download_data=False, download_qualities=True).qualities or {}
    try:
        return (int(qualities["NumberOfInstances"]), int(qualities["NumberOfFeatures"]) - 1,
                int(qualities["NumberOfClasses"]))
    except (KeyError, TypeError, ValueError):
        raise DataError(f"OpenML dataset {did} has no NumberOfInstances/NumberOfFeatures/NumberOfClasses qualities") from None


def has_cached_qualities(spec: DatasetSpec) -> bool:
    """Whether openml-python's cache (the spec's, else the current one) holds dataset ``spec``'s description
    and qualities, so :func:`openml_shape` answers without the server."""
    if spec.openml_cache:
        set_openml_cache(spec.openml_cache)
    folder = Path(openml.config.get_cache_directory()) / "datasets" / str(int(spec.location))
    return (folder / "description.xml").is_file() and (folder / "qualities.xml").is_file()


def load_openml(spec: DatasetSpec) -> Dataset:
    """Download (or read from openml's cache) the dataset of ``spec`` and clean it like any source.

    The target is ``spec.target`` or the dataset's ``default_target_attribute``; OpenML's row-id and
    ignore attributes are dropped and recorded in ``extra["dropped_columns"]``. A dataset openml
    fetched as parquet is read by :func:`benchirt.data.compact.read_parquet_compact` (a batch of columns
    at a time, exact small integers stored compactly: CC18's image datasets fit in memory) instead of
    openml's ``get_data``, which holds the whole table as ``float64`` and caches it as a pickle.
    """
    did = int(spec.location)
    if spec.openml_cache:
        set_openml_cache(spec.openml_cache)
    notes = []
    with openml_errors(f"dataset {did}"):
        data = openml.datasets.get_dataset(did, download_data=True)
        target = spec.target or data.default_target_attribute
        if data.parquet_file is not None and Path(data.parquet_file).is_file():
            frame, compacted = read_parquet_compact(data.parquet_file)
            if compacted:
                notes.append(f"stored {compacted} numeric column(s) as small integers (every value exact)")
        else:
            frame, _, _, _ = data.get_data(target=None, include_row_id=True, include_ignore_attribute=True,
                                           dataset_format="dataframe")
    if not target or "," in str(target):
        raise DataError(
            f"OpenML dataset {did} ({data.name}) has no single default target ({target!r}); "
            "give the target explicitly (e.g. target: class)"
        )
    ignore = list(data.ignore_attribute or []) + ([data.row_id_attribute] if data.row_id_attribute else [])
    return prepare_dataset(
        frame, name=spec.name or str(data.name), where=f"OpenML dataset {did} ({data.name})", target=target,
        source=f"openml:{did}", openml_id=did, task_id=spec.task_id, ignore=tuple(ignore) + spec.ignore,
        notes=notes, extra={"openml_version": data.version},
    )

"""Exporting subsets: suite files that ``benchirt run`` reads back, and OpenML benchmark suites.

A subset is written as a suite file of :mod:`benchirt.data.suite_file` (YAML or JSON: ``name``, ``description``, a
``datasets`` list of ``name``, ``openml_id``, ``task_id``, ``file``, ``builtin``, ...) through
:func:`benchirt.data.suite_file.write_suite_file`, so :func:`benchirt.data.resolve_suite` and ``benchirt run`` accept
it. Each member needs a source: its :class:`~benchirt.data.DatasetSpec` from the full suite (a local folder's subset
comes back as the same files, an OpenML suite's as the same datasets), or at least an OpenML dataset id from an id
table.

Publishing (Cardoso et al. 2021 §4.6: decodIRT stores its subsets as OpenML studies) creates an OpenML benchmark suite
with :func:`openml.study.create_benchmark_suite` and ``.publish()``. OpenML suites hold *tasks*; a dataset known only by
its id is looked up with :func:`openml.tasks.list_tasks` (:func:`find_task_id`). The API key (argument,
``OPENML_APIKEY`` or openml's configuration file) is set on ``openml.config`` only during the call, removed from every
error message, and never logged or written.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pandas as pd

from benchirt.data.spec import DatasetSpec
from benchirt.data.suite_file import is_suite_file, read_suite_file, write_suite_file
from benchirt.errors import BenchirtError, ConfigError, DataError, OpenMLUnavailableError

#: Environment variable holding the OpenML API key.
APIKEY_ENV = "OPENML_APIKEY"
#: Column names accepted in an id table (e.g. the offline mirror's cc18-arff/manifest.csv).
_ALIASES = {
    "name": ("name", "dataset"),
    "openml_id": ("openml_id", "openml_did", "did", "data_id"),
    "task_id": ("task_id", "tid"),
}


def read_dataset_ids(path: str | os.PathLike) -> pd.DataFrame:
    """Dataset names with their OpenML ids, from a CSV table or a suite file: index = dataset name, columns ``openml_id,
    task_id`` (nullable ``Int64``).

    A CSV needs a name column (``name`` or ``dataset``) and may have ``openml_id`` (or
    ``openml_did``/``did``/``data_id``) and ``task_id`` (or ``tid``) — e.g. the offline mirror's
    ``cc18-arff/manifest.csv``.
    """
    path = Path(path)
    if is_suite_file(path):
        specs = read_suite_file(path).specs
        frame = pd.DataFrame({"name": [s.name for s in specs], "openml_id": [s.openml_id for s in specs],
                              "task_id": [s.task_id for s in specs]})
    else:
        try:
            frame = pd.read_csv(path)
        except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise DataError(f"cannot read the dataset id table {path}: {exc}") from None
        renamed = {}
        for key, aliases in _ALIASES.items():
            found = next((a for a in aliases if a in frame.columns), None)
            if found is not None:
                renamed[found] = key
        frame = frame.rename(columns=renamed)
    if "name" not in frame.columns:
        raise DataError(f"{path}: the dataset id table needs a 'name' (or 'dataset') column")
    frame["name"] = frame["name"].astype(str)
    for key in ("openml_id", "task_id"):
        frame[key] = pd.to_numeric(frame[key], errors="coerce").astype("Int64") if key in frame.columns else pd.NA
    return frame[["name", "openml_id", "task_id"]].drop_duplicates("name").set_index("name")


def subset_specs(
    datasets: Sequence[str],
    *, suite: Iterable[DatasetSpec] | None = None,
    ids: pd.DataFrame | None = None,
) -> tuple[list[DatasetSpec], list[str]]:
    """The :class:`DatasetSpec` of every member of a subset.

    ``datasets``: the subset's names. ``suite`` (optional): the full suite's specs, matched by name and preferred, ids
    missing from a spec completed from ``ids``. ``ids`` (optional): from :func:`read_dataset_ids`; a dataset known only
    there becomes an OpenML spec. Returns ``specs`` (the datasets that have a source, in subset order) and ``missing``
    (those with neither a spec nor an OpenML dataset id).
    """
    by_name = {spec.name: spec for spec in suite or ()}
    specs, missing = [], []
    for name in datasets:
        known = ids.loc[name] if ids is not None and name in ids.index else None
        openml_id = None if known is None or pd.isna(known["openml_id"]) else int(known["openml_id"])
        task_id = None if known is None or pd.isna(known["task_id"]) else int(known["task_id"])
        if name in by_name:
            spec = by_name[name]
            specs.append(replace(spec, openml_id=spec.openml_id or openml_id, task_id=spec.task_id or task_id))
        elif openml_id is not None:
            specs.append(DatasetSpec(name=name, kind="openml", location=str(openml_id),
                                     openml_id=openml_id, task_id=task_id))
        else:
            missing.append(name)
    return specs, missing


def export_suite(
    subset_name: str, specs: Sequence[DatasetSpec], path: str | os.PathLike, *, description: str = ""
) -> Path:
    """Write one subset as a suite file (YAML for ``.yaml``/``.yml``, JSON for ``.json``), atomically, and return
    ``path``.

    ``subset_name`` is the suite's name (e.g. ``budget-50``), ``specs`` the members (:func:`subset_specs`),
    ``description`` free text stored with the suite; :func:`benchirt.data.resolve_suite` reads the file back.
    """
    return write_suite_file(path, subset_name, specs, description=description)


def resolve_api_key(api_key: str | None = None) -> str:
    """The OpenML API key: the argument, else ``$OPENML_APIKEY``, else openml's configuration file; ``ConfigError``
    when none holds one."""
    if api_key:
        return api_key
    if os.environ.get(APIKEY_ENV):
        return os.environ[APIKEY_ENV]
    import openml

    if getattr(openml.config, "apikey", None):
        return openml.config.apikey
    raise ConfigError(
        f"publishing to OpenML needs an API key: set the {APIKEY_ENV} environment variable or run "
        "'openml configure apikey' (the key is read, never written or logged by benchirt)"
    )


def find_task_id(openml_id: int) -> int:
    """The OpenML task to publish for a dataset known only by its dataset id: among its active supervised-classification
    tasks (:func:`openml.tasks.list_tasks`) the one with 10-fold cross-validation (OpenML-CC18's protocol), then the
    lowest id; ``DataError`` when there is none."""
    import openml
    from openml.tasks import TaskType

    tasks = openml.tasks.list_tasks(
        task_type=TaskType.SUPERVISED_CLASSIFICATION, data_id=int(openml_id), output_format="dataframe"
    )
    if tasks is None or len(tasks) == 0:
        raise DataError(f"OpenML dataset {openml_id} has no classification task; create one or give its task_id")
    tasks = pd.DataFrame(tasks)
    if "status" in tasks.columns:
        tasks = tasks[tasks["status"].astype(str) == "active"]
    if tasks.empty:
        raise DataError(f"OpenML dataset {openml_id} has no active classification task; give its task_id")
    procedure = tasks.get("estimation_procedure", pd.Series("", index=tasks.index)).astype(str)
    tasks = tasks.assign(_cv10=~procedure.str.contains("10-fold Crossvalidation", regex=False))
    return int(tasks.sort_values(["_cv10", "tid"]).iloc[0]["tid"])


def publish_suite(
    name: str,
    datasets: Sequence[Any],
    *, description: str = "",
    api_key: str | None = None,
    alias: str | None = None,
    lookup_tasks: bool = True,
) -> int:
    """Publish a subset as an OpenML benchmark suite; return the new suite's id.

    ``name``: the suite's name; ``datasets``: members with ``task_id`` and/or ``openml_id`` (attributes or keys) and a
    ``name``; ``description``: required by OpenML (a default naming benchirt when empty); ``api_key``: default
    :func:`resolve_api_key`; ``alias``: URL-friendly unique alias on the server; ``lookup_tasks``: find the task of
    datasets without ``task_id`` with :func:`find_task_id` (when False they are an error).

    Raises
    ------
    DataError
        A dataset with neither a task id nor an OpenML dataset id (or without a task while ``lookup_tasks`` is False).
    ConfigError
        No API key.
    OpenMLUnavailableError
        The server could not be reached or refused the suite; the message never contains the key.
    """
    entries = [_ids(d) for d in datasets]
    without_ids = [e["name"] for e in entries if "task_id" not in e and "openml_id" not in e]
    if without_ids:
        raise DataError(
            f"cannot publish suite {name!r}: dataset(s) {', '.join(without_ids)} have no OpenML task or dataset "
            "id (only OpenML datasets can form an OpenML suite; give their ids, e.g. with --ids)"
        )
    if not lookup_tasks:
        no_task = [e["name"] for e in entries if "task_id" not in e]
        if no_task:
            raise DataError(
                f"cannot publish suite {name!r}: dataset(s) {', '.join(no_task)} have no OpenML task id; "
                "OpenML suites list tasks (give task ids, or allow looking them up)"
            )
    key = resolve_api_key(api_key)
    import openml

    with _openml_key(key):
        task_ids = [e["task_id"] if "task_id" in e else find_task_id(e["openml_id"]) for e in entries]
        suite = openml.study.create_benchmark_suite(
            name=name,
            description=description or f"{name}: benchmark subset chosen by benchirt from IRT item parameters",
            task_ids=task_ids,
            alias=alias,
        )
        suite.publish()
    assert suite.study_id is not None  # publish() sets it
    return int(suite.study_id)


@contextmanager
def _openml_key(key: str) -> Iterator[None]:
    """Set ``openml.config.apikey`` for the block, restore it after; scrub the key from errors."""
    import openml

    previous = openml.config.apikey
    openml.config.apikey = key
    try:
        yield
    except BenchirtError as exc:
        raise type(exc)(_scrub(str(exc), key)) from None
    except Exception as exc:  # openml/network/XML errors: one clean message, never the key
        message = _scrub(f"{type(exc).__name__}: {exc}", key)
        raise OpenMLUnavailableError(
            f"publishing to OpenML failed ({message}); check the connection and the API key's rights, "
            "or share the exported suite file instead"
        ) from None
    finally:
        openml.config.apikey = previous


def _ids(dataset: Any) -> dict[str, Any]:
    """``name`` and the known OpenML ids of a spec or mapping."""
    get = dataset.get if isinstance(dataset, Mapping) else lambda key: getattr(dataset, key, None)
    entry: dict[str, Any] = {"name": str(get("name"))}
    for key in ("openml_id", "task_id"):
        value = get(key)
        if value is not None and not pd.isna(value):
            entry[key] = int(value)
    return entry


def _scrub(text: str, key: str) -> str:
    return text.replace(key, "***") if key else text

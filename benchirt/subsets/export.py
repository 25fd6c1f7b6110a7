"""Exporting subsets: suite definition files that ``benchirt run`` reads back, and OpenML suites.

Suite file format (YAML when the path ends in ``.yaml``/``.yml``, JSON otherwise)::

    name: combined-50
    description: 50 % of OpenML-CC18 chosen by benchirt (combined rule) ...
    datasets:
      - name: banknote-authentication
        openml_id: 1462          # OpenML dataset id, when known
        task_id: 9952            # OpenML task id, when known
        kind: openml             # as in benchirt.data.DatasetSpec, when known
        location: "1462"         # builtin name, file path or OpenML id, when known
        target: Class            # target column, when it is not the default

Only ``name`` is required per dataset; the other keys are written when the suite's specification
knows them (a :class:`benchirt.data.DatasetSpec`, a mapping or a table row), so a subset of an
OpenML suite comes back as OpenML datasets and a subset of a local folder as the same files.

Publishing (seed 003 §4.6: decodIRT stores its subsets as OpenML studies) creates an OpenML
benchmark suite with :func:`openml.study.create_benchmark_suite` and ``.publish()``. OpenML suites
hold *tasks*; a dataset known only by its dataset id is looked up with
:func:`openml.tasks.list_tasks` (see :func:`find_task_id`). The API key comes from the argument,
the ``OPENML_APIKEY`` environment variable or openml's own configuration file, is set on
``openml.config`` only for the duration of the call, and is removed from every error message; it
is never logged or written.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
import yaml

from benchirt.errors import BenchirtError, ConfigError, DataError, OpenMLUnavailableError
from benchirt.io import atomic_write_text

#: Keys a dataset entry of a suite file may carry besides ``name``, in the order written.
ENTRY_KEYS = ("openml_id", "task_id", "kind", "location", "target")
#: Environment variable holding the OpenML API key.
APIKEY_ENV = "OPENML_APIKEY"
#: Column names accepted for each entry key when reading an id table (e.g. cc18-arff/manifest.csv).
_ALIASES = {
    "name": ("name", "dataset"),
    "openml_id": ("openml_id", "openml_did", "did", "data_id"),
    "task_id": ("task_id", "tid"),
}


def dataset_entry(dataset: Any) -> dict[str, Any]:
    """One suite-file entry from a dataset name, a mapping or a ``DatasetSpec``-like object.

    Returns
    -------
    dict
        ``name`` and whichever of :data:`ENTRY_KEYS` are known (ids as int).
    """
    if isinstance(dataset, str):
        return {"name": dataset}
    get = dataset.get if isinstance(dataset, Mapping) else lambda key, default=None: getattr(dataset, key, default)
    name = get("name")
    if not name:
        raise DataError(f"a suite entry needs a dataset name, got {dataset!r}")
    entry: dict[str, Any] = {"name": str(name)}
    for key in ENTRY_KEYS:
        value = get(key, None)
        if value is None or (isinstance(value, float) and pd.isna(value)):
            continue
        entry[key] = int(value) if key in ("openml_id", "task_id") else str(value)
    return entry


def suite_document(name: str, datasets: Iterable[Any], description: str = "") -> dict[str, Any]:
    """The suite file's content as a dict (see the module docstring for the format)."""
    entries = [dataset_entry(d) for d in datasets]
    if not entries:
        raise DataError(f"suite {name!r} has no dataset; a suite file needs at least one")
    names = [e["name"] for e in entries]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise DataError(f"suite {name!r} lists dataset(s) {', '.join(duplicated)} more than once")
    return {"name": name, "description": description, "datasets": entries}


def export_suite(
    subset_name: str, datasets: Sequence[Any], path: str | os.PathLike, description: str = ""
) -> Path:
    """Write one subset as a suite file (YAML for ``.yaml``/``.yml``, else JSON), atomically.

    Parameters
    ----------
    subset_name : str
        The suite's name, e.g. ``combined-50``.
    datasets : sequence
        Dataset names, mappings or ``DatasetSpec``-like objects (see :func:`dataset_entry`).
    path : path
        Destination file.
    description : str
        Free text stored with the suite.

    Returns
    -------
    Path
        ``path``.
    """
    path = Path(path)
    document = suite_document(subset_name, datasets, description)
    if path.suffix.lower() in (".yaml", ".yml"):
        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(document, indent=2) + "\n"
    atomic_write_text(path, text)
    return path


def read_suite_file(path: str | os.PathLike) -> dict[str, Any]:
    """Read a suite file written by :func:`export_suite` (YAML or JSON) and check its shape.

    Raises
    ------
    DataError
        Unreadable file, malformed YAML/JSON, or a document without ``name`` and ``datasets``.
    """
    path = Path(path)
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"cannot read suite file {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise DataError(f"suite file {path} is not valid YAML/JSON: {exc}") from None
    if not isinstance(document, dict) or "datasets" not in document or not isinstance(document["datasets"], list):
        raise DataError(f"suite file {path} needs a mapping with 'name' and a 'datasets' list")
    document["datasets"] = [dataset_entry(d) for d in document["datasets"]]
    document.setdefault("name", path.stem)
    document.setdefault("description", "")
    return document


def read_dataset_ids(path: str | os.PathLike) -> pd.DataFrame:
    """Dataset names with their OpenML ids, from a CSV table or a suite file.

    A CSV needs a name column (``name`` or ``dataset``) and may have ``openml_id`` (or
    ``openml_did``/``did``/``data_id``) and ``task_id`` (or ``tid``) — e.g. the offline mirror's
    ``cc18-arff/manifest.csv``.

    Returns
    -------
    DataFrame, index = dataset name, columns of :data:`ENTRY_KEYS` that are known (ids as
    nullable ``Int64``).
    """
    path = Path(path)
    if path.suffix.lower() in (".yaml", ".yml", ".json"):
        frame = pd.DataFrame(read_suite_file(path)["datasets"])
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
        if key in frame.columns:
            frame[key] = pd.to_numeric(frame[key], errors="coerce").astype("Int64")
    keep = ["name", *[k for k in ENTRY_KEYS if k in frame.columns]]
    return frame[keep].drop_duplicates("name").set_index("name")


def subset_entries(datasets: Sequence[str], ids: pd.DataFrame | None) -> list[dict[str, Any]]:
    """Suite entries for the named datasets, enriched with their ids where ``ids`` knows them."""
    entries = []
    for name in datasets:
        if ids is not None and name in ids.index:
            row = {k: (None if pd.isna(v) else v) for k, v in ids.loc[name].items()}
            entries.append(dataset_entry({"name": name, **row}))
        else:
            entries.append({"name": name})
    return entries


def resolve_api_key(api_key: str | None = None) -> str:
    """The OpenML API key: the argument, else ``$OPENML_APIKEY``, else openml's configuration file.

    Raises
    ------
    ConfigError
        When none of them holds a key.
    """
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
    """The OpenML task to publish for a dataset known only by its dataset id.

    Among the dataset's active supervised-classification tasks (:func:`openml.tasks.list_tasks`),
    the one with 10-fold cross-validation is preferred (the protocol of OpenML-CC18), then the
    lowest task id.

    Raises
    ------
    DataError
        The dataset has no active supervised-classification task.
    """
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
    description: str = "",
    api_key: str | None = None,
    alias: str | None = None,
    lookup_tasks: bool = True,
) -> int:
    """Publish a subset as an OpenML benchmark suite; return the new suite's id.

    Parameters
    ----------
    name : str
        Suite name.
    datasets : sequence
        Entries with ``task_id`` and/or ``openml_id`` (see :func:`dataset_entry`).
    description : str
        Suite description (OpenML requires one; a default naming benchirt is used when empty).
    api_key : str, optional
        OpenML API key; default ``$OPENML_APIKEY`` or openml's configuration (:func:`resolve_api_key`).
    alias : str, optional
        URL-friendly unique alias on the server.
    lookup_tasks : bool
        Find the task of datasets without ``task_id`` with :func:`find_task_id`; when False they are an error.

    Raises
    ------
    DataError
        A dataset with neither a task id nor an OpenML dataset id (or without a task while
        ``lookup_tasks`` is False).
    ConfigError
        No API key.
    OpenMLUnavailableError
        The server could not be reached or refused the suite; the message never contains the key.
    """
    entries = [dataset_entry(d) for d in datasets]
    without_ids = [e["name"] for e in entries if "task_id" not in e and "openml_id" not in e]
    if without_ids:
        raise DataError(
            f"cannot publish suite {name!r}: dataset(s) {', '.join(without_ids)} have no OpenML task or dataset "
            "id (only OpenML datasets can form an OpenML suite; give ids with --ids)"
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


def _scrub(text: str, key: str) -> str:
    return text.replace(key, "***") if key else text

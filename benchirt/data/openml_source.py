"""OpenML datasets through the ``openml`` package (openml-python ≥ 0.14) and its cache: loading a
spec's data, its version and shape, and the translation of openml's errors.

openml-python keeps every downloaded description and data file in its cache (``~/.cache/openml`` by default;
:func:`set_openml_cache` moves it). A spec carries the cache folder it was resolved with (``DatasetSpec.openml_cache``)
and :func:`load_openml` uses it, so every worker reads the driver's cache. Building specs is
:mod:`benchirt.data.openml_specs` (none here, so :class:`~benchirt.data.spec.DatasetSpec` loads through this module
without an import cycle). Every call into openml goes through :func:`openml_errors`: no connection →
:class:`OpenMLUnavailableError`; an unknown id or any other openml failure → :class:`DataError`; both name the offline
alternatives (:data:`OFFLINE_OPTIONS`). openml-python retries a failed connection a few times before giving up.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import openml
import requests
from openml.exceptions import OpenMLServerException, PyOpenMLError

from benchirt.data.cleaning import prepare_dataset
from benchirt.data.compact import read_parquet_compact
from benchirt.data.dataset import Dataset
from benchirt.data.names import OPENML_SUITE_ALIASES
from benchirt.errors import DataError, OpenMLUnavailableError


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


@lru_cache(maxsize=None)
def dataset_version(dataset_id: int) -> int | None:
    """The OpenML version of a dataset (from openml's cache or the server), or None when unreachable."""
    try:
        return openml.datasets.get_dataset(int(dataset_id), download_data=False).version
    except (requests.exceptions.RequestException, PyOpenMLError, OSError):
        return None


def openml_shape(spec) -> tuple[int, int, int]:
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


def has_cached_qualities(spec) -> bool:
    """Whether openml-python's cache (the spec's, else the current one) holds dataset ``spec``'s description
    and qualities, so :func:`openml_shape` answers without the server."""
    if spec.openml_cache:
        set_openml_cache(spec.openml_cache)
    folder = Path(openml.config.get_cache_directory()) / "datasets" / str(int(spec.location))
    return (folder / "description.xml").is_file() and (folder / "qualities.xml").is_file()


def load_openml(spec) -> Dataset:
    """Download (or read from openml's cache) the dataset of ``spec`` and clean it like any source.

    The target is ``spec.target`` or the ``default_target_attribute``; OpenML's row-id and ignore attributes are
    dropped (``extra["dropped_columns"]``). Parquet is read by :func:`benchirt.data.compact.read_parquet_compact`
    (large image datasets fit in memory) instead of openml's ``get_data``, which holds the whole table as ``float64``
    and caches it as a pickle.
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

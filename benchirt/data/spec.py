"""A suite member that is loaded on demand: :class:`DatasetSpec`.

A spec is small, frozen and picklable, so a suite can be listed, filtered, written to a suite file and shipped to
workers before any data is read; :meth:`DatasetSpec.fingerprint` is the content key of the pipeline's cache.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from benchirt.data.builtin import builtin_info, load_builtin, sklearn_version
from benchirt.data.dataset import Dataset
from benchirt.data.files import load_file
from benchirt.errors import DataError

KINDS = ("builtin", "file", "openml")

# (resolved path, size, mtime_ns) → sha256 hex, so that a file is hashed once per process.
_FILE_HASHES: dict[tuple[str, int, int], str] = {}


@dataclass(frozen=True)
class DatasetSpec:
    """How to load one dataset of a suite.

    Attributes
    ----------
    name : str
        Dataset name, unique within a suite (the OpenML name when known).
    kind : str
        ``"builtin"`` (a scikit-learn dataset), ``"file"`` (ARFF/CSV/parquet) or ``"openml"``.
    location : str
        Builtin name (``"breast_cancer"``), file path, or OpenML dataset id (as text).
    openml_id, task_id : int or None
        OpenML dataset and task ids, when known.
    target : str or None
        Target column; None = the last column (files) or OpenML's default target attribute.
    ignore : tuple of str
        Columns dropped from the features (row ids, ignored attributes).
    sha256 : str or None
        Expected sha256 of a file (from a manifest); :meth:`load` refuses a file that differs.
    openml_cache : str or None
        openml-python's cache folder (a suite's ``cache:`` option); travels with the spec so that every worker reads
        the driver's cache. Not part of :meth:`fingerprint`: where the cache lives does not change the data.
    """

    name: str
    kind: str
    location: str
    openml_id: int | None = None
    task_id: int | None = None
    target: str | None = None
    ignore: tuple[str, ...] = ()
    sha256: str | None = None
    openml_cache: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise DataError(f"dataset {self.name!r}: unknown kind {self.kind!r}; expected one of {KINDS}")
        if not isinstance(self.ignore, tuple):
            object.__setattr__(self, "ignore", tuple(self.ignore))

    def load(self) -> Dataset:
        """Read the dataset, again on each call; DataError when the source cannot be read or is malformed
        (:class:`OpenMLUnavailableError` when OpenML cannot be reached)."""
        if self.kind == "builtin":
            dataset = load_builtin(self.location)
        elif self.kind == "file":
            if self.sha256 is not None and Path(self.location).is_file():
                actual = file_sha256(self.location)
                if actual != self.sha256.lower():
                    raise DataError(
                        f"{self.location}: content differs from its manifest (sha256 {actual[:12]}… instead of "
                        f"{self.sha256[:12]}…); restore the original file or update the manifest"
                    )
            dataset = load_file(self.location, target=self.target, name=self.name, ignore=self.ignore,
                                openml_id=self.openml_id, task_id=self.task_id)
        else:  # imported here: openml is slow to import and imports this module
            from benchirt.data.openml_source import load_openml

            dataset = load_openml(self)
        dataset.name = self.name
        if dataset.openml_id is None:
            dataset.openml_id = self.openml_id
        if dataset.task_id is None:
            dataset.task_id = self.task_id
        return dataset

    def fingerprint(self) -> str:
        """A stable key of the dataset's content: ``"sha256:<hex of the file bytes>"`` for files (hashed once per
        process and file version), ``"builtin:<name>:sklearn-<version>"``, or ``"openml:<dataset id>:<version or
        'unknown'>"``; followed by ``";target=<name>"`` and ``";ignore=<a,b>"`` when set, as they change the loaded
        dataset."""
        if self.kind == "file":
            key = f"sha256:{file_sha256(self.location)}"
        elif self.kind == "builtin":
            key = f"builtin:{builtin_info(self.location).name}:sklearn-{sklearn_version()}"
        else:
            from benchirt.data.openml_source import dataset_version

            version = dataset_version(int(self.location))
            key = f"openml:{self.location}:{version if version is not None else 'unknown'}"
        if self.target is not None:
            key += f";target={self.target}"
        if self.ignore:
            key += f";ignore={','.join(self.ignore)}"
        return key


def file_sha256(path: str | Path) -> str:
    """sha256 (hex) of a file's bytes, cached per (path, size, modification time)."""
    path = Path(path)
    try:
        stat = path.resolve().stat()
    except OSError:
        raise DataError(f"{path}: no such file") from None
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _FILE_HASHES:
        with path.open("rb") as handle:
            _FILE_HASHES[key] = hashlib.file_digest(handle, "sha256").hexdigest()
    return _FILE_HASHES[key]

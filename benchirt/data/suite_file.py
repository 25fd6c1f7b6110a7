"""Suite files: a named list of datasets in YAML or JSON, written by ``benchirt.subsets`` and read back.

Format (YAML shown; JSON has the same structure)::

    name: cc18-irt-hard-50          # required: the suite's name
    description: free text          # optional
    datasets:                       # required, non-empty list
      - name: credit-g              # required, unique within the file
        openml_id: 31               # OpenML dataset id (optional)
        task_id: 31                 # OpenML task id (optional)
        file: data/31-credit-g.arff # optional; relative paths are relative to this file
        target: class               # optional target column
        ignore: [id]                # optional columns to drop
        sha256: 177171ed…           # optional checksum of `file`
      - name: wdbc
        openml_id: 1510
        builtin: breast_cancer      # a scikit-learn dataset (see benchirt.data.builtin)

Each entry becomes one :class:`~benchirt.data.spec.DatasetSpec` from the first source that applies: ``file`` when it
exists, else ``builtin``, else ``openml_id`` (so a suite file also works on a machine lacking the file), else an error.
Unknown keys are refused, so a typo does not silently change a suite.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any
from dataclasses import dataclass
from pathlib import Path

import yaml

from benchirt.data.builtin import builtin_info
from benchirt.data.spec import DatasetSpec
from benchirt.errors import ConfigError, DataError
from benchirt.io import atomic_write_text
from benchirt.safe_yaml import safe_load

SUITE_KEYS = ("name", "description", "datasets")
ENTRY_KEYS = ("name", "openml_id", "task_id", "file", "builtin", "target", "ignore", "sha256")
SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class SuiteFile:
    """The content of a suite file: its name, description and dataset specs (in file order)."""

    name: str
    specs: tuple[DatasetSpec, ...]
    description: str = ""


def is_suite_file(path: str | Path) -> bool:
    """Whether ``path`` has a suite-file suffix (``.yaml``, ``.yml``, ``.json``)."""
    return Path(path).suffix.lower() in SUFFIXES


def write_suite_file(path: str | os.PathLike[str], name: str, specs: Iterable[DatasetSpec], *,
                     description: str = "") -> Path:
    """Write a suite file (YAML for ``.yaml``/``.yml``, JSON for ``.json``) atomically; returns ``path``. File paths
    are stored relative to the suite file's folder when inside it, else absolute."""
    path = Path(path)
    if not is_suite_file(path):
        raise ConfigError(f"{path}: a suite file must end in {', '.join(SUFFIXES)}")
    entries = [_entry(spec, path.parent) for spec in specs]
    if not entries:
        raise ConfigError(f"suite {name!r} has no datasets; nothing to write to {path}")
    document: dict = {"name": str(name)}
    if description:
        document["description"] = str(description)
    document["datasets"] = entries
    if path.suffix.lower() == ".json":
        text = json.dumps(document, indent=2) + "\n"
    else:
        text = "# benchirt suite file (format: benchirt/data/suite_file.py)\n" + yaml.safe_dump(
            document, sort_keys=False, allow_unicode=True)
    atomic_write_text(path, text)
    return path


def read_suite_file(path: str | Path) -> SuiteFile:
    """Read a suite file written by :func:`write_suite_file` (or by hand); ConfigError for an unreadable or malformed
    file, missing/unknown keys, duplicate names, entries with no source."""
    path = Path(path)
    document = _read_document(path)
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: expected a mapping with keys {SUITE_KEYS}")
    _refuse_unknown(document, SUITE_KEYS, str(path))
    entries = document.get("datasets")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: 'datasets' must be a non-empty list of dataset entries")
    specs = tuple(_spec(entry, number, path) for number, entry in enumerate(entries, start=1))
    names = [s.name for s in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"{path}: dataset names must be unique; repeated: {duplicates}")
    return SuiteFile(name=str(document.get("name") or path.stem), specs=specs,
                     description=str(document.get("description") or ""))


def _read_document(path: Path):
    """The parsed JSON (``.json``) or YAML (any other suffix) document of a suite file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the suite file ({exc.strerror or exc})") from None
    try:
        return json.loads(text) if path.suffix.lower() == ".json" else safe_load(text, str(path))
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {'JSON' if path.suffix.lower() == '.json' else 'YAML'}: "
                          f"{str(exc).splitlines()[0]}") from None


def _refuse_unknown(mapping: dict, keys: tuple[str, ...], where: str) -> None:
    """A ConfigError at ``where`` naming the keys of ``mapping`` that are not among ``keys``, and listing those."""
    unknown = sorted(set(mapping) - set(keys))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown}; valid keys are {list(keys)}")


def _entry(spec: DatasetSpec, base: Path) -> dict:
    if not isinstance(spec, DatasetSpec):
        raise ConfigError(f"suite files hold DatasetSpec objects, got {type(spec).__name__} {spec!r}")
    entry: dict = {"name": spec.name}
    if spec.openml_id is not None:
        entry["openml_id"] = int(spec.openml_id)
    if spec.task_id is not None:
        entry["task_id"] = int(spec.task_id)
    if spec.kind == "file":
        entry["file"] = _relative(Path(spec.location), base)
        if spec.sha256:
            entry["sha256"] = spec.sha256
    elif spec.kind == "builtin":
        entry["builtin"] = spec.location
    if spec.target is not None:
        entry["target"] = spec.target
    if spec.ignore:
        entry["ignore"] = list(spec.ignore)
    return entry


def _relative(file: Path, base: Path) -> str:
    """``file`` relative to ``base`` when it lies inside it (the pair moves together), else absolute."""
    file, base = file.resolve(), base.resolve()
    return file.relative_to(base).as_posix() if file.is_relative_to(base) else file.as_posix()


def _spec(entry: object, number: int, path: Path) -> DatasetSpec:
    where = f"{path}, dataset {number}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a mapping with keys among {list(ENTRY_KEYS)}, got {entry!r}")
    _refuse_unknown(entry, ENTRY_KEYS, where)
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}: every dataset needs a 'name'")
    openml_id = _optional_int(entry.get("openml_id"), "openml_id", where)
    common: dict[str, Any] = dict(name=name.strip(), openml_id=openml_id, task_id=_optional_int(entry.get("task_id"), "task_id", where),
                  target=entry.get("target") or None, ignore=tuple(str(c) for c in entry.get("ignore") or ()))
    file = entry.get("file")
    if file:
        file_path = Path(file) if Path(file).is_absolute() else path.parent / file
        if file_path.is_file():
            return DatasetSpec(kind="file", location=str(file_path.resolve()), sha256=entry.get("sha256"), **common)
    if entry.get("builtin"):
        try:
            info = builtin_info(str(entry["builtin"]))
        except DataError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        return DatasetSpec(kind="builtin", location=info.loader, **common)
    if openml_id is not None:
        return DatasetSpec(kind="openml", location=str(openml_id), **common)
    if file:
        raise ConfigError(f"{where}: file {file!r} does not exist (relative to {path.parent}) and no openml_id "
                          "is given to download it instead")
    raise ConfigError(f"{where}: dataset {name!r} needs a 'file', 'builtin' or 'openml_id'")


def _optional_int(value: object, key: str, where: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, (str, int, float)):
        try:
            return int(value)
        except (TypeError, ValueError):
            pass
    raise ConfigError(f"{where}: {key} must be an integer, got {value!r}")

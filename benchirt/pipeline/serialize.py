"""Write stage result objects to a folder and read them back, with no pickle and no import from disk.

Results are dataclasses holding pandas/numpy objects (DESIGN.md). Each field goes to a format a user can open and that
cannot carry code:

- DataFrames and Series: parquet (labels that are not unique strings — integers, MultiIndex tuples — stored as
  positional names plus the labels in ``fields.json``);
- numeric/boolean/string arrays: ``.npy`` read with ``allow_pickle=False``;
- plain data (numbers including NaN/inf, strings, None, lists and string-keyed dicts of them): ``fields.json``;
- nested dataclasses, and containers holding any of the above: a sub-folder each.

Any other value is a ``TypeError`` at dump time naming the field, never a silent fallback to an opaque format. A
folder's ``_type.json`` names its class, looked up on reading in :mod:`benchirt.pipeline.artifact_types` (a fixed
registry); nothing named on disk is ever imported. An unknown name or field kind, or a malformed folder, raises
:class:`~benchirt.errors.ArtifactError`.
"""
from __future__ import annotations

import json
import re
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchirt.errors import ArtifactError
from benchirt.pipeline import artifact_types

TYPE_FILE = "_type.json"
PLAIN_FILE = "fields.json"

#: Field names written as file names: anything else (a dict key) is stored under a positional name.
_SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


def dump(obj: Any, directory: str | Path) -> None:
    """Write the result dataclass ``obj`` into ``directory`` (created; must be fresh); TypeError when ``obj`` is not a
    registered result dataclass or a field has no storable form."""
    if not (is_dataclass(obj) and not isinstance(obj, type)):
        raise TypeError(f"cannot store a {type(obj).__name__}: artifacts hold benchirt result dataclasses only")
    _dump_container(Path(directory), {"kind": "dataclass", "class": artifact_types.name_of(type(obj))},
                    [(f.name, getattr(obj, f.name)) for f in fields(obj)])


def load(directory: str | Path) -> Any:
    """Read back what :func:`dump` wrote into ``directory``; ArtifactError for anything else."""
    directory = Path(directory)
    meta = _read_json(directory / TYPE_FILE)
    if not isinstance(meta, dict) or meta.get("kind") != "dataclass":
        raise ArtifactError(f"{directory}: not a benchirt result folder (its {TYPE_FILE} names no result class)")
    return _load_container(directory, meta)


def load_frame(directory: str | Path, path: str) -> pd.DataFrame:
    """One DataFrame field of a stored result, e.g. ``"tournament/table"``, without building the result (for readers
    that need one table, such as the end-of-run summary)."""
    *parents, name = path.split("/")
    folder = Path(directory).joinpath(*parents)
    meta = _read_json(folder / TYPE_FILE)
    if not isinstance(meta, dict) or (meta.get("fields") or {}).get(name) != "frame":
        raise ArtifactError(f"{folder}: no table field {name!r}")
    return _load_frame(name, folder / f"{name}.parquet", _read_json(folder / PLAIN_FILE))


# -- writing -------------------------------------------------------------------------------------
def _dump_container(directory: Path, meta: dict, entries: list[tuple[str, Any]]) -> None:
    """Write ``entries`` (storage name, value) into ``directory`` with ``meta`` + their kinds as _type.json."""
    directory.mkdir(parents=True, exist_ok=True)
    plain: dict[str, Any] = {}
    meta["fields"] = {name: _dump_value(name, value, directory, plain) for name, value in entries}
    _write_json(directory / PLAIN_FILE, plain)
    _write_json(directory / TYPE_FILE, meta)


def _dump_value(name: str, value: Any, directory: Path, plain: dict) -> str:
    """Store one value under ``name`` in ``directory`` (or in ``plain``); returns its kind."""
    columnar = _dump_columnar(name, value, directory, plain)
    if columnar is not None:
        return columnar
    if is_dataclass(value) and not isinstance(value, type):
        type_name = artifact_types.name_of(type(value))
        _dump_container(directory / name, {"kind": "dataclass", "class": type_name},
                        [(f.name, getattr(value, f.name)) for f in fields(value)])
        return "dataclass"
    converted = _python_scalars(value)
    if isinstance(value, tuple) and _is_plain(list(converted)):
        plain[name] = list(converted)
        return "tuple"
    if _is_plain(converted):
        plain[name] = converted
        return "plain"
    return _dump_nested(name, value, directory)


def _dump_columnar(name: str, value: Any, directory: Path, plain: dict) -> str | None:
    """Store a DataFrame or Series as parquet, a non-object array as npy; returns its kind (None: neither)."""
    if isinstance(value, pd.DataFrame):
        _dump_frame(name, value, directory, plain, f"{name}.parquet")
        return "frame"
    if isinstance(value, pd.Series):
        _dump_frame(name, value.to_frame("value"), directory, plain, f"{name}.series.parquet")
        plain[f"{name}.__name__"] = _label(value.name, name)
        return "series"
    if isinstance(value, np.ndarray) and value.dtype != object:
        np.save(directory / f"{name}.npy", value, allow_pickle=False)
        return "array"
    return None


def _dump_nested(name: str, value: Any, directory: Path) -> str:
    """Store a dict, list or tuple that is not plain JSON as a folder of numbered values; anything else is refused."""
    if isinstance(value, dict):
        keys = [_label(key, name) for key in value]
        _dump_container(directory / name, {"kind": "mapping", "keys": keys},
                        [(f"v{i}", item) for i, item in enumerate(value.values())])
        return "mapping"
    if isinstance(value, (list, tuple)):
        _dump_container(directory / name, {"kind": "tuple" if isinstance(value, tuple) else "list"},
                        [(f"v{i}", item) for i, item in enumerate(value)])
        return "sequence"
    raise TypeError(
        f"cannot store field {name!r}: a {type(value).__module__}.{type(value).__name__} has no parquet, JSON or "
        "npy form; convert it to a DataFrame, Series, array, plain data or a benchirt result dataclass"
    )


def _dump_frame(name: str, frame: pd.DataFrame, directory: Path, plain: dict, file: str) -> None:
    columns = list(frame.columns)
    if not (all(isinstance(c, str) for c in columns) and len(set(columns)) == len(columns)):
        plain[f"{name}.__columns__"] = [_label(c, name) for c in columns]
        frame = frame.set_axis([f"c{i}" for i in range(len(columns))], axis=1)
    for column in frame.columns:
        if frame[column].dtype == object and not frame[column].map(lambda v: v is None or isinstance(v, str)).all():
            raise TypeError(f"cannot store field {name!r}: column {column!r} mixes Python types; parquet needs one type")
    frame.to_parquet(directory / file)


def _label(label: Any, name: str) -> Any:
    """A column label, Series name or dict key as JSON (tuples tagged so they come back as tuples)."""
    label = _python_scalars(label)
    if isinstance(label, tuple):
        return {"tuple": [_label(part, name) for part in label]}
    if label is None or isinstance(label, (str, int, float, bool)):
        return label
    raise TypeError(f"cannot store field {name!r}: label {label!r} is not a string, number or tuple of them")


def _python_scalars(value: Any) -> Any:
    """numpy scalars (also inside lists, tuples and dicts) as the Python numbers JSON knows."""
    if isinstance(value, (np.bool_, np.integer, np.floating, np.str_)):
        return value.item()
    if isinstance(value, list):
        return [_python_scalars(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_python_scalars(v) for v in value)
    if isinstance(value, dict):
        return {k: _python_scalars(v) for k, v in value.items()}
    return value


def _is_plain(value: Any) -> bool:
    """True when JSON stores ``value`` exactly (no tuples, numpy scalars or non-string keys)."""
    if value is None or isinstance(value, (bool, str, int, float)):
        return True
    if isinstance(value, list):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False


# -- reading -------------------------------------------------------------------------------------
def _load_container(directory: Path, meta: dict) -> Any:
    kinds = meta.get("fields")
    if not isinstance(kinds, dict):
        raise ArtifactError(f"{directory / TYPE_FILE}: no field list")
    plain = _read_json(directory / PLAIN_FILE)
    values = {name: _load_value(name, kind, directory, plain) for name, kind in kinds.items()}
    if meta["kind"] == "dataclass":
        return _load_dataclass(directory, meta, values)
    if not all(f"v{i}" in values for i in range(len(values))):
        raise ArtifactError(f"{directory}: entries are not numbered v0..v{len(values) - 1}")
    items = [values[f"v{i}"] for i in range(len(values))]
    if meta["kind"] == "mapping":
        keys = meta.get("keys")
        if not isinstance(keys, list) or len(keys) != len(items):
            raise ArtifactError(f"{directory}: the mapping's keys do not match its values")
        return {_unlabel(key): item for key, item in zip(keys, items)}
    if meta["kind"] in ("list", "tuple"):
        return items if meta["kind"] == "list" else tuple(items)
    raise ArtifactError(f"{directory / TYPE_FILE}: unknown kind {meta['kind']!r}")


def _load_dataclass(directory: Path, meta: dict, values: dict[str, Any]) -> Any:
    """The registered result dataclass ``meta`` names, filled with ``values`` (which must be its fields)."""
    cls = artifact_types.lookup(meta.get("class"), directory)
    expected = {f.name for f in fields(cls)}
    if set(values) != expected:
        raise ArtifactError(f"{directory}: fields {sorted(values)} do not match {cls.__name__}'s {sorted(expected)}")
    obj = cls.__new__(cls)
    for name, value in values.items():
        # object.__setattr__ also fills frozen dataclasses, without re-running __post_init__ checks
        object.__setattr__(obj, name, value)
    return obj


def _load_value(name: str, kind: str, directory: Path, plain: dict) -> Any:
    if not _SAFE_NAME.match(str(name)):
        raise ArtifactError(f"{directory / TYPE_FILE}: field name {name!r} is not a field name")
    if kind == "frame":
        return _load_frame(name, directory / f"{name}.parquet", plain)
    if kind == "series":
        series = _load_frame(name, directory / f"{name}.series.parquet", plain).iloc[:, 0]
        series.name = _unlabel(plain.get(f"{name}.__name__"))
        return series
    if kind == "array":
        return np.load(directory / f"{name}.npy", allow_pickle=False)
    if kind in ("dataclass", "mapping", "sequence"):
        meta = _read_json(directory / name / TYPE_FILE)
        expected = ("dataclass",) if kind == "dataclass" else ("mapping",) if kind == "mapping" else ("list", "tuple")
        if not isinstance(meta, dict) or meta.get("kind") not in expected:
            raise ArtifactError(f"{directory / name / TYPE_FILE}: expected a {kind} folder")
        return _load_container(directory / name, meta)
    if kind in ("plain", "tuple"):
        if name not in plain:
            raise ArtifactError(f"{directory / PLAIN_FILE}: no value for field {name!r}")
        return tuple(plain[name]) if kind == "tuple" else plain[name]
    raise ArtifactError(f"{directory / TYPE_FILE}: field {name!r} has unknown kind {kind!r} (benchirt stores no pickles)")


def _load_frame(name: str, path: Path, plain: dict) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise ArtifactError(f"{path}: unreadable parquet ({exc})") from None
    labels = plain.get(f"{name}.__columns__")
    if labels is not None:
        restored = [_unlabel(label) for label in labels]
        if all(isinstance(label, tuple) for label in restored) and restored:
            frame.columns = pd.MultiIndex.from_tuples(restored)
        else:
            frame.columns = pd.Index(restored, dtype=object if not restored else None)
    return frame


def _unlabel(label: Any) -> Any:
    if isinstance(label, dict) and set(label) == {"tuple"}:
        return tuple(_unlabel(part) for part in label["tuple"])
    return label


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ArtifactError(f"{path}: missing or malformed ({exc})") from None


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


"""Write stage result objects to a folder and read them back.

Results are dataclasses holding pandas/numpy objects (DESIGN.md). Each field goes to the format a
user can open: DataFrames and Series as parquet, arrays as ``.npy``, plain data (numbers, strings,
dicts and lists of them) into ``fields.json``, nested dataclasses into a sub-folder. Objects that
none of these can hold faithfully (a fitted model without a dataclass form, a frame whose column
labels parquet cannot store) are pickled; the artifact key includes the benchirt version, so a pickle
is only read back by the version that wrote it.
"""
from __future__ import annotations

import importlib
import json
import math
import pickle
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

TYPE_FILE = "_type.json"


def dump(obj: Any, directory: str | Path) -> None:
    """Write ``obj`` into ``directory`` (created; must be fresh). See the module docstring for formats."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    if not (is_dataclass(obj) and not isinstance(obj, type)):
        _write_pickle(obj, directory / "object.pkl")
        _write_json(directory / TYPE_FILE, {"kind": "pickle"})
        return
    plain: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        kinds[f.name] = _dump_field(f.name, value, directory, plain)
    _write_json(directory / "fields.json", plain)
    cls = type(obj)
    _write_json(directory / TYPE_FILE, {"kind": "dataclass", "class": f"{cls.__module__}:{cls.__qualname__}", "fields": kinds})


def load(directory: str | Path) -> Any:
    """Read back what :func:`dump` wrote into ``directory``."""
    directory = Path(directory)
    meta = json.loads((directory / TYPE_FILE).read_text(encoding="utf-8"))
    if meta["kind"] == "pickle":
        return _read_pickle(directory / "object.pkl")
    module_name, qualname = meta["class"].split(":")
    cls: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    plain = json.loads((directory / "fields.json").read_text(encoding="utf-8"))
    obj = cls.__new__(cls)
    for name, kind in meta["fields"].items():
        # object.__setattr__ also fills frozen dataclasses, without re-running __post_init__ checks
        object.__setattr__(obj, name, _load_field(name, kind, directory, plain))
    return obj


def _dump_field(name: str, value: Any, directory: Path, plain: dict) -> str:
    if isinstance(value, pd.DataFrame) and _parquet_safe(value):
        value.to_parquet(directory / f"{name}.parquet")
        return "frame"
    if isinstance(value, pd.Series) and _parquet_safe(value.to_frame("value")):
        value.to_frame("value").to_parquet(directory / f"{name}.series.parquet")
        plain[f"{name}.__name__"] = value.name if _is_plain(value.name) else None
        return "series"
    if isinstance(value, np.ndarray) and value.dtype != object:
        np.save(directory / f"{name}.npy", value, allow_pickle=False)
        return "array"
    if is_dataclass(value) and not isinstance(value, type):
        dump(value, directory / name)
        return "dataclass"
    if isinstance(value, tuple) and _is_plain(_python_scalars(list(value))):
        plain[name] = _python_scalars(list(value))
        return "tuple"
    if _is_plain(_python_scalars(value)):
        plain[name] = _python_scalars(value)
        return "plain"
    _write_pickle(value, directory / f"{name}.pkl")
    return "pickle"


def _load_field(name: str, kind: str, directory: Path, plain: dict) -> Any:
    if kind == "frame":
        return pd.read_parquet(directory / f"{name}.parquet")
    if kind == "series":
        series = pd.read_parquet(directory / f"{name}.series.parquet")["value"]
        series.name = plain.get(f"{name}.__name__")
        return series
    if kind == "array":
        return np.load(directory / f"{name}.npy", allow_pickle=False)
    if kind == "dataclass":
        return load(directory / name)
    if kind == "plain":
        return plain[name]
    if kind == "tuple":
        return tuple(plain[name])
    return _read_pickle(directory / f"{name}.pkl")


def _parquet_safe(frame: pd.DataFrame) -> bool:
    """Parquet stores string column labels only, and no object columns of mixed Python types."""
    if isinstance(frame.columns, pd.MultiIndex) or not all(isinstance(c, str) for c in frame.columns):
        return False
    if frame.columns.duplicated().any():
        return False
    for column in frame.columns:
        if frame[column].dtype == object and not frame[column].map(lambda v: v is None or isinstance(v, str)).all():
            return False
    return True


def _python_scalars(value: Any) -> Any:
    """numpy scalars (also inside lists and dicts) as the Python numbers JSON knows."""
    if isinstance(value, (np.bool_, np.integer, np.floating)):
        return value.item()
    if isinstance(value, list):
        return [_python_scalars(v) for v in value]
    if isinstance(value, dict):
        return {k: _python_scalars(v) for k, v in value.items()}
    return value


def _is_plain(value: Any) -> bool:
    """True when JSON stores ``value`` exactly (no tuples, NaN, numpy scalars or non-string keys)."""
    if value is None or isinstance(value, (bool, str, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _write_pickle(value: Any, path: Path) -> None:
    with open(path, "wb") as handle:
        pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)


def _read_pickle(path: Path) -> Any:
    with open(path, "rb") as handle:
        return pickle.load(handle)

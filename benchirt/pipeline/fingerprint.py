"""What an artifact's key says about the code and libraries that produced it.

A stored result may be reused only when its inputs, options *and code* are unchanged. A stage's code is the source of
the modules it runs (:data:`STAGE_CODE` plus :data:`COMMON_CODE`; a stage not listed depends on the whole package) and
the versions of the numerical libraries its numbers depend on (:data:`LIBRARIES`); upstream code is carried by the
upstream keys. :func:`provenance` returns a key's parts as plain data, written into each completion marker so that a
rerun can say *why* it recomputes (:func:`changes`).
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import benchirt
from benchirt.pipeline import registry

#: The package folder whose ``.py`` files are fingerprinted.
PACKAGE_ROOT = Path(benchirt.__file__).resolve().parent

#: benchirt sub-packages and modules (relative to the package) whose source each stage runs: declared
#: with the stage (:data:`benchirt.pipeline.registry.STAGE_CODE`).
STAGE_CODE: dict[str, tuple[str, ...]] = registry.STAGE_CODE

#: Modules every stage runs (errors, option checks, file writing, the stage-plan records, the result protocol).
COMMON_CODE: tuple[str, ...] = ("__init__.py", "errors.py", "options.py", "io.py", "threads.py", "stage_plan.py",
                                "safe_text.py", "safe_yaml.py", "results.py")

#: Libraries whose version is part of every key (their numerical behaviour shapes the results).
LIBRARIES: tuple[str, ...] = ("numpy", "scipy", "scikit-learn", "pandas")


def provenance(stage: str) -> dict[str, Any]:
    """``{"code": {file: digest}, "libraries": {name: version}}`` of ``stage`` (see the module docstring)."""
    return {"code": dict(code_digests(stage)), "libraries": dict(library_versions())}


@lru_cache(maxsize=None)
def code_digests(stage: str) -> tuple[tuple[str, str], ...]:
    """(path relative to the package, sha256 prefix) of every source file ``stage`` depends on, sorted."""
    parts = STAGE_CODE.get(stage)
    if parts is None:
        files = sorted(PACKAGE_ROOT.rglob("*.py"))
    else:
        files = []
        for part in (*COMMON_CODE, *parts):
            path = PACKAGE_ROOT / part
            files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.is_file() else [])
        files = sorted(set(files))
    return tuple(
        (path.relative_to(PACKAGE_ROOT).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest()[:16])
        for path in files
        if "__pycache__" not in path.parts
    )


@lru_cache(maxsize=1)
def library_versions() -> tuple[tuple[str, str], ...]:
    """(name, installed version) of :data:`LIBRARIES`."""
    versions = []
    for name in LIBRARIES:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, "absent"))
    return tuple(versions)


def digest(value: Any) -> str:
    """sha256 of ``value`` as canonical JSON (what the store keys on)."""
    text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def changes(old: dict, new: dict) -> list[str]:
    """What differs between two provenance records (``options``/``inputs`` digests, ``code`` digests, ``libraries``,
    ``schema`` and ``benchirt`` version), in words; empty when nothing recorded differs."""
    reasons = []
    if old.get("options") != new.get("options"):
        reasons.append("its options changed")
    if old.get("inputs") != new.get("inputs"):
        reasons.append("its input changed")
    edited = [name for name, _, _ in _changed_entries(old, new, "code")]
    if edited:
        shown = ", ".join(f"benchirt/{f}" for f in edited[:3]) + (f" and {len(edited) - 3} more" if len(edited) > 3 else "")
        reasons.append(f"the code changed ({shown})")
    bumped = [f"{name} {before} -> {after}" for name, before, after in _changed_entries(old, new, "libraries")]
    if bumped:
        reasons.append(f"library versions changed ({', '.join(bumped)})")
    for part in ("schema", "benchirt"):
        if old.get(part) != new.get(part):
            reasons.append(f"the {part} version changed ({old.get(part)} -> {new.get(part)})")
    return reasons


def _changed_entries(old: dict, new: dict, part: str) -> list[tuple[str, Any, Any]]:
    """``(name, old value, new value)`` of every entry of the mapping ``part`` that differs, by name."""
    before, after = old.get(part) or {}, new.get(part) or {}
    return [(name, before.get(name), after.get(name)) for name in sorted(set(before) | set(after))
            if before.get(name) != after.get(name)]

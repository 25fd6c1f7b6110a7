"""The fixed registry of classes an artifact may hold: benchirt's stage results and their parts.

An artifact's ``_type.json`` names the class of each folder. Reading it must never import or call what that text
names (a tampered file could name ``os:system``), so names are only looked up here: every dataclass defined in
:data:`RESULT_MODULES` (named in this code, not on disk; imported only when one of their classes is read), plus
classes registered with :func:`register`. Writing refuses an unregistered dataclass, so no result that could not be
read back is stored.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchirt.errors import ArtifactError
from benchirt.pipeline import registry

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: Modules whose dataclasses are stage results or parts of them: declared with each stage
#: (:data:`benchirt.pipeline.registry.REGISTRY`, ``results``).
RESULT_MODULES: tuple[str, ...] = registry.RESULT_MODULES

_registered: dict[str, type] = {}


def register(cls: type) -> type:
    """Allow the dataclass ``cls`` in artifacts (for results defined outside :data:`RESULT_MODULES`)."""
    if not (inspect.isclass(cls) and is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a dataclass")
    _registered[_name(cls)] = cls
    return cls


def name_of(cls: type) -> str:
    """The registry name of ``cls`` (``module:qualname``); TypeError when it is not registered."""
    name = _name(cls)
    if _find(name) is not cls:
        raise TypeError(
            f"cannot store a {name}: it is not a registered benchirt result type; add its module to "
            "its stage's `results` in benchirt.pipeline.registry (or register() it)"
        )
    return name


def lookup(name: object, where: Path) -> type[DataclassInstance]:
    """The registered class called ``name``; ArtifactError for any other name. Only a module of
    :data:`RESULT_MODULES` is imported and only a dataclass defined in it returned: a name read from disk selects
    among these, it is never imported as such."""
    cls = _find(name) if isinstance(name, str) else None
    if cls is None:
        raise ArtifactError(
            f"{where}: the artifact names type {name!r}, which is not a benchirt result type; it was not written "
            "by this benchirt or was altered — delete the run directory's artifact or rerun with --force"
        )
    return cls


def _find(name: str) -> type[DataclassInstance] | None:
    if name in _registered:
        return _registered[name]
    module_name, _, qualname = name.partition(":")
    if module_name not in RESULT_MODULES or not qualname.isidentifier():
        return None
    member = getattr(importlib.import_module(module_name), qualname, None)
    if inspect.isclass(member) and is_dataclass(member) and member.__module__ == module_name:
        return member
    return None


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"

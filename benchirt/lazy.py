"""Lazy public names of benchirt's stage packages (PEP 562).

A stage package's ``__init__`` lists its public names and the submodule that defines each; the
submodule is imported when a name is first used, so ``import benchirt.rating`` (and validating a
config, which needs only ``benchirt.rating.config``) does not pull in scipy.stats, scikit-posthocs,
matplotlib or scikit-learn. ``from benchirt.rating import leaderboard`` and ``benchirt.rating.X``
behave as with eager imports.

Written here because the standard library has no such helper and the small ``lazy_loader`` package
would add a dependency for twenty lines.
"""
from __future__ import annotations

import importlib
import sys
import types
from typing import Mapping


class LazyPackage(types.ModuleType):
    """A package whose public names are imported from their submodules on first access."""

    _lazy_exports: Mapping[str, str] = {}

    def __getattr__(self, name: str):
        module_name = self._lazy_exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        setattr(self, name, value)
        return value

    def __setattr__(self, name: str, value) -> None:
        # Importing a submodule binds it on the package; a public name of the same spelling (e.g. the
        # function benchirt.rating.leaderboard of the module benchirt.rating.leaderboard) wins, as it
        # did when the package imported it eagerly.
        if (name in self._lazy_exports and isinstance(value, types.ModuleType)
                and value.__name__ == f"{self.__name__}.{name}"):
            return
        super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._lazy_exports))


def lazy_exports(package: str, exports: Mapping[str, str]) -> None:
    """Make the names of ``exports`` (name -> defining module) attributes of ``package`` on first use.

    Call it at the end of the package's ``__init__``; names the ``__init__`` defines itself stay eager.
    """
    module = sys.modules[package]
    module.__class__ = LazyPackage
    types.ModuleType.__setattr__(module, "_lazy_exports", dict(exports))

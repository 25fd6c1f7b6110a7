"""Lazy public names of benchirt's stage packages (PEP 562).

A stage package's public names are listed once, in its ``__init__.pyi`` stub: ``from benchirt.x.m import Y as Y``
re-exports ``Y`` from ``benchirt.x.m``, and a name the ``__init__`` defines itself is declared there (``def f(...) ->
T: ...``, ``NAME: T``). As ``lazy_loader.attach_stub`` does, the ``__init__`` derives ``__all__`` (sorted) and the lazy
table from it (:func:`attach_stub`); a stub spelling out ``__all__`` must list the same names. The submodule is
imported when a name is first used, so ``import benchirt.rating`` (and validating a config) does not pull in scipy,
matplotlib or scikit-learn, while ``from benchirt.rating import leaderboard`` behaves as with eager imports. Written
here because the standard library has no such helper and ``lazy_loader`` would add a dependency for a few lines.
"""
from __future__ import annotations

import ast
import importlib
import sys
import types
from pathlib import Path
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
    """Make the names of ``exports`` (name -> defining module) attributes of ``package`` on first use; call it at the
    end of the package's ``__init__`` (names the ``__init__`` defines stay eager)."""
    module = sys.modules[package]
    module.__class__ = LazyPackage
    types.ModuleType.__setattr__(module, "_lazy_exports", dict(exports))


def stub_exports(stub: str | Path) -> tuple[dict[str, str], list[str]]:
    """The re-exports (name -> defining module) and the public names (``__all__``) of the package stub ``stub``. A
    re-export is an absolute ``from benchirt.m import Y as Y`` (PEP 484's spelling); the public names are the
    re-exports and the stub's own declarations, sorted, or the stub's ``__all__`` when it spells one out."""
    path = Path(stub)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    exports = {alias.name: node.module for node in tree.body
               if isinstance(node, ast.ImportFrom) and node.module and not node.level
               and node.module.startswith("benchirt") for alias in node.names if alias.asname == alias.name}
    public = {name for name in set(exports) | _declared(tree) if not name.startswith("_")}
    names = _listed(tree)
    if names is not None and set(names) != public:
        raise ImportError(f"{path}: __all__ lists {sorted(set(names) - public)} that the stub neither re-exports nor"
                          f" declares, and leaves out {sorted(public - set(names))}")
    return exports, sorted(public) if names is None else names


def _declared(tree: ast.Module) -> set[str]:
    """The names a stub declares itself: its functions, classes and annotated names."""
    return ({node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
            | {node.target.id for node in tree.body
               if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)})


def _listed(tree: ast.Module) -> list[str] | None:
    """The stub's literal ``__all__``, None when it has none."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(target, "id", None) for target in node.targets] == ["__all__"]:
            return list(ast.literal_eval(node.value))
    return None


def attach_stub(package: str, init_file: str) -> None:
    """Give ``package`` the ``__all__`` and lazy names of its ``__init__.pyi`` beside ``init_file``; call it at the end
    of the ``__init__`` (``attach_stub(__name__, __file__)``), once the names the stub declares itself are defined."""
    exports, names = stub_exports(Path(init_file).with_suffix(".pyi"))
    module = sys.modules[package]
    missing = [name for name in names if name not in exports and name not in vars(module)]
    if missing:
        raise ImportError(f"{package}: the stub declares {missing}, which __init__.py does not define")
    lazy_exports(package, exports)
    setattr(module, "__all__", names)

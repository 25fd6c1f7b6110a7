"""Each lazily-exporting package has an ``__init__.pyi`` stub that type checkers and IDEs read (SPEC 1 style).

The stub cannot drift from the runtime: it re-exports exactly the names of the package's ``lazy_exports``
table, each from the module the table names, declares the names ``__init__.py`` defines eagerly, and has
the same ``__all__``.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import benchirt
from benchirt.lazy import LazyPackage

ROOT = Path(benchirt.__file__).resolve().parent


def _lazy_packages() -> list[str]:
    """Every benchirt package whose ``__init__`` calls ``lazy_exports`` (found at runtime, not listed by hand)."""
    names = []
    for info in pkgutil.walk_packages([str(ROOT)], "benchirt."):
        if info.ispkg and type(importlib.import_module(info.name)) is LazyPackage:
            names.append(info.name)
    return names


LAZY_PACKAGES = _lazy_packages()


def _stub(package: str) -> tuple[dict[str, str], set[str], list[str]]:
    """The stub's re-exports (name -> module), its own declarations, and its ``__all__``."""
    path = ROOT.joinpath(*package.split(".")[1:], "__init__.pyi")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reexports: dict[str, str] = {}
    declared: set[str] = set()
    all_names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchirt"):
            for alias in node.names:
                # "from m import X as X" is the stub convention for a re-export (PEP 484)
                assert alias.asname == alias.name, (package, alias.name)
                reexports[alias.name] = node.module
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            all_names = ast.literal_eval(node.value)
    return reexports, declared, all_names


def test_the_lazy_packages_are_found():
    assert {"benchirt.irt", "benchirt.rating", "benchirt.pipeline", "benchirt.data"} <= set(LAZY_PACKAGES)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_stub_reexports_exactly_the_lazy_table(package):
    module = importlib.import_module(package)
    reexports, declared, all_names = _stub(package)
    stub = f"{package.replace('.', '/')}/__init__.pyi"
    assert reexports == dict(module._lazy_exports), f"make {stub} re-export exactly the lazy_exports table"
    eager = {name for name in module.__all__ if name not in module._lazy_exports}
    assert declared == eager, f"declare in {stub} the public names __init__.py defines itself"
    assert all_names == list(module.__all__), f"copy __all__ into {stub}"


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_stub_name_is_the_runtime_object(package):
    """A stub line names the module that really defines (or re-exports) the value."""
    module = importlib.import_module(package)
    reexports, _, _ = _stub(package)
    for name, defining in reexports.items():
        assert getattr(module, name) is getattr(importlib.import_module(defining), name), (package, name)


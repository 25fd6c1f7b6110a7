"""Each lazily-exporting package has an ``__init__.pyi`` stub that type checkers and IDEs read (SPEC 1 style).

The stub is the package's one list of public names: ``__init__.py`` derives its ``__all__`` and its lazy
table from it (:func:`benchirt.lazy.attach_stub`) and lists none itself. The runtime cannot drift from the
stub: the lazy table is exactly the stub's re-exports, each from the module the stub names (and that module
really defines or re-exports the object), the stub declares the names ``__init__.py`` defines eagerly, and
``__all__`` is those names, sorted (as ``lazy_loader.attach_stub`` derives it), or the stub's own ``__all__``
where a stub still spells one out.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import benchirt
from benchirt.lazy import LazyPackage, attach_stub, stub_exports

ROOT = Path(benchirt.__file__).resolve().parent


def _lazy_packages() -> list[str]:
    """Every lazy benchirt package (found at runtime, not listed by hand)."""
    names = []
    for info in pkgutil.walk_packages([str(ROOT)], "benchirt."):
        if info.ispkg and type(importlib.import_module(info.name)) is LazyPackage:
            names.append(info.name)
    return names


LAZY_PACKAGES = _lazy_packages()


def _stub(package: str) -> tuple[dict[str, str], set[str], list[str] | None]:
    """The stub's re-exports (name -> module), its own declarations, and its ``__all__`` (None without one)."""
    path = ROOT.joinpath(*package.split(".")[1:], "__init__.pyi")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reexports: dict[str, str] = {}
    declared: set[str] = set()
    all_names: list[str] | None = None
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
    assert reexports == dict(module._lazy_exports), f"make {stub} re-export exactly the lazy table"
    eager = {name for name in module.__all__ if name not in module._lazy_exports}
    assert declared == eager, f"declare in {stub} the public names __init__.py defines itself"
    expected = sorted({*reexports, *declared}) if all_names is None else all_names
    assert list(module.__all__) == expected, f"__all__ of {package} is not the names of {stub}"


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_stub_name_is_the_runtime_object(package):
    """A stub line names the module that really defines (or re-exports) the value."""
    module = importlib.import_module(package)
    reexports, _, _ = _stub(package)
    for name, defining in reexports.items():
        assert getattr(module, name) is getattr(importlib.import_module(defining), name), (package, name)



@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_the_init_lists_no_public_name_itself(package):
    """One list: ``__init__.py`` takes ``__all__`` and the lazy table from the stub, it spells out neither."""
    tree = ast.parse(ROOT.joinpath(*package.split(".")[1:], "__init__.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        assert not (isinstance(node, ast.Assign) and "__all__" in [getattr(t, "id", None) for t in node.targets]), \
            f"{package}: __all__ spelled out in __init__.py"
        assert not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports"), \
            f"{package}: a lazy table spelled out in __init__.py"


def test_stub_exports_reads_reexports_and_all(tmp_path):
    stub = tmp_path / "__init__.pyi"
    stub.write_text("from pathlib import Path\nfrom benchirt.m import B, A as A\nfrom benchirt.n import c as c\n"
                    "def d(path: Path) -> None: ...\nE: int\n", encoding="utf-8")
    assert stub_exports(stub) == ({"A": "benchirt.m", "c": "benchirt.n"}, ["A", "E", "c", "d"])
    (tmp_path / "listed.pyi").write_text(stub.read_text() + "__all__ = ['d', 'c', 'E', 'A']\n", encoding="utf-8")
    assert stub_exports(tmp_path / "listed.pyi")[1] == ["d", "c", "E", "A"]


def test_attach_stub_refuses_a_stub_that_disagrees_with_the_init(tmp_path, monkeypatch):
    """A stub ``__all__`` naming what the stub neither re-exports nor declares, or omitting a re-export, fails the
    import; so does a declared name ``__init__.py`` does not define."""
    import types

    (tmp_path / "__init__.pyi").write_text("from benchirt.m import A as A\nfrom benchirt.m import B as B\n"
                                           "__all__ = ['A', 'z']\n", encoding="utf-8")
    monkeypatch.setitem(__import__("sys").modules, "fake_lazy_package", types.ModuleType("fake_lazy_package"))
    with pytest.raises(ImportError, match=r"\['z'\].*\['B'\]"):
        attach_stub("fake_lazy_package", str(tmp_path / "__init__.py"))
    (tmp_path / "__init__.pyi").write_text("from benchirt.m import A as A\ndef f() -> None: ...\n", encoding="utf-8")
    with pytest.raises(ImportError, match=r"declares \['f'\], which __init__.py does not define"):
        attach_stub("fake_lazy_package", str(tmp_path / "__init__.py"))

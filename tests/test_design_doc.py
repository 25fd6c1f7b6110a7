"""docs/DESIGN.md points at code that exists and restates no signature (issue 35: 3 of its 8 signatures had drifted).

Every ``benchirt.…`` name in a code span must resolve — a module or package of ``benchirt/``, then a name defined
at its top level (or lazily exported by its ``__init__``: its stub's re-exports), then optionally an attribute of
that class — and every file path in a code span must exist. Resolved by reading the source with ``ast``, so nothing
is imported but the stub reader (:func:`benchirt.lazy.stub_exports`).
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

from benchirt.lazy import stub_exports

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "DESIGN.md"
CODE_SPAN = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"benchirt(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"(?<![\w./])(?:benchirt|tests|benchmarks|configs|docs)/[\w./-]*\.(?:py|md|yaml|csv|json)")


def _spans() -> list[str]:
    return CODE_SPAN.findall(DESIGN.read_text(encoding="utf-8"))


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _defined(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """Names a module or class body defines: functions, classes, assignments, imports."""
    names: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            names.update({target.id: node for target in node.targets if isinstance(target, ast.Name)})
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update({(alias.asname or alias.name).split(".")[0]: node for alias in node.names})
    return names


def _lazy_names(path: Path) -> set[str]:
    """The names a package exports lazily (its ``__init__.pyi`` stub's re-exports)."""
    stub = path.with_suffix(".pyi")
    return set(stub_exports(stub)[0]) if path.name == "__init__.py" and stub.is_file() else set()


def unresolved(dotted: str) -> str | None:
    """Why ``dotted`` names nothing in benchirt's source, or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = _module_file(parts[:cut])
        if path is not None:
            break
    else:
        return f"{dotted}: no such module"
    rest = parts[cut:]
    if not rest:
        return None
    tree = _tree(path)
    names = _defined(tree.body)
    if rest[0] not in names and rest[0] not in _lazy_names(path):
        return f"{dotted}: {'.'.join(parts[:cut])} defines no {rest[0]}"
    node = names.get(rest[0])
    if len(rest) == 2 and isinstance(node, ast.ClassDef) and rest[1] not in _defined(node.body):
        return f"{dotted}: {rest[0]} has no attribute {rest[1]}"
    if len(rest) > 2:
        return f"{dotted}: too deep to check"
    return None


def test_design_doc_restates_no_signature():
    text = DESIGN.read_text(encoding="utf-8")
    assert "```python" not in text
    assert "->" not in text, "a return annotation: point at the function instead of restating it"
    # a call with arguments in a code span is a restated signature; `name` or `module.name` is a pointer
    calls = [span for span in _spans() if re.search(r"\w\((?!\))", span)]
    assert calls == []


def test_design_doc_names_resolve():
    names = sorted({name for span in _spans() for name in DOTTED.findall(span)})
    assert len(names) > 50          # the doc points at the code; this is not an empty check
    problems = [problem for problem in map(unresolved, names) if problem]
    assert problems == []


def test_design_doc_paths_exist():
    paths = sorted({path for span in _spans() for path in PATH.findall(span) if "<" not in path})
    assert paths, "no file path found"
    assert [path for path in paths if not (ROOT / path).exists()] == []


@pytest.mark.parametrize("dotted, expected", [
    ("benchirt.irt.estimation.fit_irt", None),
    ("benchirt.irt.fit_irt", None),                                   # a lazy export of the package
    ("benchirt.pipeline.manifest.Manifest.result_keys", None),        # a method
    ("benchirt.irt.estimation.fit_irt_fast", "benchirt.irt.estimation.fit_irt_fast: benchirt.irt.estimation "
                                             "defines no fit_irt_fast"),
    ("benchirt.pipeline.stages", "benchirt.pipeline.stages: benchirt.pipeline defines no stages"),
    ("benchirt.pipeline.manifest.Manifest.layout", "benchirt.pipeline.manifest.Manifest.layout: Manifest has "
                                                   "no attribute layout"),
])
def test_a_stale_pointer_is_named(dotted, expected):
    assert unresolved(dotted) == expected

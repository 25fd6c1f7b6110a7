"""benchirt's import graph read from the source with :mod:`ast` (every ``import``, function-level ones too).

Shared by the import-cycle test and the stage conformance suite (a stage's declared code must cover
what it imports). ``from benchirt.x import y`` counts as an import of ``benchirt.x.y`` when that is a
module, else of ``benchirt.x``; names exported lazily by a package (the re-exports of its ``__init__.pyi``
stub, :func:`benchirt.lazy.stub_exports`) count as imports of the module that defines them.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from benchirt.lazy import stub_exports

PACKAGE = Path(__file__).resolve().parents[1] / "benchirt"


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    """Module name -> source file of every module of the package."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _owner(name: str) -> str | None:
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _lazy_targets(path: Path) -> dict[str, str]:
    """The lazy table of a package ``__init__`` (its stub's re-exports): name -> module; {} for other modules."""
    stub = path.with_suffix(".pyi")
    return stub_exports(stub)[0] if path.name == "__init__.py" and stub.is_file() else {}


@lru_cache(maxsize=1)
def edges() -> dict[str, frozenset[str]]:
    """Module -> the benchirt modules it imports (anywhere in its source)."""
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in modules().items()}
    lazy = {name: _lazy_targets(path) for name, path in modules().items()}
    graph = {}
    for name, tree in trees.items():
        package = name if modules()[name].name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(_owner(alias.name) for alias in node.names if alias.name.startswith("benchirt"))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    head = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(head + ([base] if base else []))
                if not base.startswith("benchirt"):
                    continue
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    if full in modules():
                        targets.add(full)
                    elif alias.name in lazy.get(base, {}):
                        targets.add(_owner(lazy[base][alias.name]))
                    else:
                        targets.add(_owner(base))
        targets.discard(None)
        targets.discard(name)
        graph[name] = frozenset(targets)
    return graph


def cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan 1972), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def package_graph() -> dict[str, frozenset[str]]:
    """Sub-package or top-level module (``benchirt.x``) -> those it imports (the package's own ``__init__`` is ``benchirt``)."""
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    graph: dict[str, set[str]] = {}
    for module, targets in edges().items():
        graph.setdefault(package(module), set()).update(package(t) for t in targets)
    return {name: frozenset(t - {name}) for name, t in graph.items()}


def closure(start) -> set[str]:
    """Every module reachable from the modules ``start`` (themselves included)."""
    seen, todo = set(), list(start)
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(edges().get(module, ()))
    return seen

"""The tests and benchmarks use the estimator's public names only (issue 35, item 4).

The estimator is split into modules with one job each (``benchirt/irt/problem.py``, ``estep.py``, ``mstep.py``,
``em.py``, ``stationarity.py``, ``climb.py``, ``quadrature_grid.py``, ``multistart.py``, ``recombine.py``,
``standard_errors.py``, ``item_table.py``, composed by ``estimation.py``); what a test or a benchmark needs is
public and documented. Read with :mod:`ast`: an attribute ``_name`` of an imported ``benchirt.irt`` module, a
``from benchirt.irt... import _name``, or a ``monkeypatch.setattr(module, "_NAME", ...)`` is a reach into a
private name.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPLIT = ("problem", "estep", "mstep", "em", "stationarity", "climb", "quadrature_grid", "multistart", "recombine",
         "standard_errors", "item_table", "estimation")


def private_uses(source: str) -> list[str]:
    """``line: name`` of every use of a private name of a ``benchirt.irt`` module in ``source``."""
    tree = ast.parse(source)
    aliases: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update(alias.asname or alias.name for alias in node.names if alias.name.startswith("benchirt.irt."))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchirt.irt"):
            for alias in node.names:
                if alias.name.startswith("_"):
                    found.append(f"{node.lineno}: {alias.name}")
                elif node.module == "benchirt.irt" and alias.name in SPLIT:  # from benchirt.irt import em
                    aliases.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                and ast.unparse(node.value) in aliases:
            found.append(f"{node.lineno}: {node.attr}")
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("setattr") and len(node.args) >= 2 \
                and ast.unparse(node.args[0]) in aliases and isinstance(node.args[1], ast.Constant) \
                and str(node.args[1].value).startswith("_"):
            found.append(f"{node.lineno}: {node.args[1].value}")
    return sorted(found, key=lambda use: int(use.split(":")[0]))


def test_the_check_finds_each_kind_of_private_use():
    source = ("import benchirt.irt.em as em\nfrom benchirt.irt import mstep\nfrom benchirt.irt.problem import _x\n"
              "em._Record()\nmstep.em_step\nmonkeypatch.setattr(mstep, '_M_STEPS', 1)\nmonkeypatch.setattr(mstep, 'M_STEPS', 1)\n")
    assert private_uses(source) == ["3: _x", "4: _Record", "6: _M_STEPS"]


SOURCES = sorted([*ROOT.joinpath("tests").glob("*.py"), *ROOT.joinpath("benchmarks").glob("*.py")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_private_name_of_the_estimator_is_used_outside_it(path):
    assert private_uses(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("name", SPLIT)
def test_each_module_says_its_job_and_documents_its_public_functions(name):
    module = importlib.import_module(f"benchirt.irt.{name}")
    assert module.__doc__ and len(module.__doc__.split()) > 30
    public = [value for key, value in vars(module).items() if not key.startswith("_") and callable(value)
              and getattr(value, "__module__", None) == module.__name__]
    assert public, f"benchirt.irt.{name} exposes nothing"
    assert [function.__name__ for function in public if not (function.__doc__ or "").strip()] == []

"""Stage packages import their public names on first use (benchirt.lazy): validating a config is light."""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

PACKAGES = ("airt", "data", "irt", "pipeline", "placement", "pool", "rating", "report", "responses", "subsets")
HEAVY = ("sklearn", "matplotlib", "scipy.stats", "scikit_posthocs", "baycomp", "dask")


def _fresh(code: str):
    """Run ``code`` in a fresh interpreter; it prints one JSON value as its last line."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_validating_every_config_section_imports_no_fitting_or_plotting_library():
    code = ("import json, sys\n"
            "from benchirt.pipeline.config import load_config\n"
            f"for name in {PACKAGES!r}: __import__('benchirt.' + name)\n"
            "load_config(None)\n"
            "load_config({'suite': 'builtin', 'irt': {'model': '2PL'}, 'rating': {'glicko': 'decodirt'},\n"
            "             'subsets': {'cuts': [50]}, 'airt': {'polytomous': 'grm'}, 'report': {'dpi': 60},\n"
            "             'responses': {'pool': ['svc'], 'ladder_epochs': 0}})\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert _fresh(code) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves_to_its_defining_object(package):
    module = importlib.import_module(f"benchirt.{package}")
    for name in module.__all__:
        value = getattr(module, name)
        assert name in dir(module)
        assert not isinstance(value, types.ModuleType), (package, name)
    with pytest.raises(AttributeError, match=f"module 'benchirt.{package}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


@pytest.mark.heavy
def test_a_public_name_wins_over_its_submodule_of_the_same_name():
    code = ("import json, types\n"
            "import benchirt.rating.leaderboard, benchirt.placement.standing\n"
            "from benchirt.rating import leaderboard\n"
            "from benchirt.placement import standing\n"
            "print(json.dumps([type(f).__name__ for f in (leaderboard, standing)]))")
    assert _fresh(code) == ["function", "function"]


def test_docstrings_cite_works_by_author_and_year_not_by_seed_file():
    """References resolve without the project's seed files: no "seed 00N" is left in the package."""
    root = Path(__file__).resolve().parents[1] / "benchirt"
    offenders = [f"{path.relative_to(root)}:{number}" for path in sorted(root.rglob("*.py"))
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if "seed 00" in line.lower()]
    assert offenders == []

"""Type stub of :mod:`benchirt.subsets`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

Kept equal to the ``lazy_exports`` table of ``__init__.py`` by tests/test_lazy_stubs.py.
"""
from benchirt.subsets.config import RULES as RULES
from benchirt.subsets.config import SubsetConfig as SubsetConfig
from benchirt.subsets.evaluation import FULL as FULL
from benchirt.subsets.evaluation import SubsetEvaluation as SubsetEvaluation
from benchirt.subsets.evaluation import evaluate_subsets as evaluate_subsets
from benchirt.subsets.selection import PARAMETER_COLUMNS as PARAMETER_COLUMNS
from benchirt.subsets.selection import build_subsets as build_subsets
from benchirt.subsets.selection import subset_size as subset_size

__all__ = [
    "FULL",
    "PARAMETER_COLUMNS",
    "RULES",
    "SubsetConfig",
    "SubsetEvaluation",
    "build_subsets",
    "evaluate_subsets",
    "subset_size",
]

"""Type stub of :mod:`benchirt.subsets`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from benchirt.subsets.config import RULES as RULES
from benchirt.subsets.config import SubsetConfig as SubsetConfig
from benchirt.subsets.evaluation import FULL as FULL
from benchirt.subsets.evaluation import SubsetEvaluation as SubsetEvaluation
from benchirt.subsets.evaluation import evaluate_subsets as evaluate_subsets
from benchirt.subsets.selection import PARAMETER_COLUMNS as PARAMETER_COLUMNS
from benchirt.subsets.selection import build_subsets as build_subsets
from benchirt.subsets.selection import subset_size as subset_size

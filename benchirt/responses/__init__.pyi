"""Type stub of :mod:`benchirt.responses`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

Kept equal to the ``lazy_exports`` table of ``__init__.py`` by tests/test_lazy_stubs.py.
"""
from benchirt.pool import ROLES as ROLES
from benchirt.responses.config import ResponseConfig as ResponseConfig
from benchirt.responses.split import Split as Split
from benchirt.responses.split import cv_folds as cv_folds
from benchirt.responses.split import n_test_items as n_test_items
from benchirt.responses.split import split_train_test as split_train_test
from benchirt.responses.split import stratified_draw as stratified_draw
from benchirt.responses.stage import ResponseResult as ResponseResult
from benchirt.responses.stage import accuracy_matrix as accuracy_matrix
from benchirt.responses.stage import respond as respond
from benchirt.responses.stage import respond_more as respond_more

__all__ = [
    "ROLES",
    "ResponseConfig",
    "ResponseResult",
    "Split",
    "accuracy_matrix",
    "cv_folds",
    "n_test_items",
    "respond",
    "respond_more",
    "split_train_test",
    "stratified_draw",
]

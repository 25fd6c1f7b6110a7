"""Type stub of :mod:`benchirt.responses`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
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

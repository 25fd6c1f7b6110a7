"""The response stage: 0/1 response matrices of the classifier pool on each dataset's test items."""
from benchirt.pool import ROLES
from benchirt.responses.config import ResponseConfig
from benchirt.responses.split import Split, cv_folds, n_test_items, split_train_test, stratified_draw
from benchirt.responses.stage import ResponseResult, accuracy_matrix, respond, respond_more

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

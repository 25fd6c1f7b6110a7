"""The response stage: 0/1 response matrices of the classifier pool on each dataset's test items."""
from benchirt.lazy import lazy_exports

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

lazy_exports(__name__, {
    "ROLES": "benchirt.pool",
    "ResponseConfig": "benchirt.responses.config",
    "ResponseResult": "benchirt.responses.stage",
    "Split": "benchirt.responses.split",
    "accuracy_matrix": "benchirt.responses.stage",
    "cv_folds": "benchirt.responses.split",
    "n_test_items": "benchirt.responses.split",
    "respond": "benchirt.responses.stage",
    "respond_more": "benchirt.responses.stage",
    "split_train_test": "benchirt.responses.split",
    "stratified_draw": "benchirt.responses.split",
})

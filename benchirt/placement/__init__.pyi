"""Type stub of :mod:`benchirt.placement`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

Kept equal to the ``lazy_exports`` table of ``__init__.py`` by tests/test_lazy_stubs.py.
"""
from benchirt.placement.calibration import Calibration as Calibration
from benchirt.placement.calibration import load_calibration as load_calibration
from benchirt.placement.design import plan_datasets as plan_datasets
from benchirt.placement.model import ScoreModel as ScoreModel
from benchirt.placement.model import fit_score_model as fit_score_model
from benchirt.placement.predict import predict_new as predict_new
from benchirt.placement.standing import standing as standing

__all__ = [
    "Calibration",
    "ScoreModel",
    "fit_score_model",
    "load_calibration",
    "plan_datasets",
    "predict_new",
    "standing",
]

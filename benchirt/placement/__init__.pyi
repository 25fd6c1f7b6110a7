"""Type stub of :mod:`benchirt.placement`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from benchirt.placement.calibration import Calibration as Calibration
from benchirt.placement.calibration import load_calibration as load_calibration
from benchirt.placement.design import plan_datasets as plan_datasets
from benchirt.placement.model import ScoreModel as ScoreModel
from benchirt.placement.model import fit_score_model as fit_score_model
from benchirt.placement.predict import predict_new as predict_new
from benchirt.placement.standing import standing as standing

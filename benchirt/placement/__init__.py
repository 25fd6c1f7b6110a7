"""Place a new classifier in a finished study: plan which datasets to run, predict the rest.

>>> from benchirt.placement import load_calibration, fit_score_model, plan_datasets, predict_new
>>> model = fit_score_model(load_calibration("runs/cc18-offline").scores)
>>> plan_datasets(model, budget=5)                   # dataset, order, status, summary_sd
>>> predicted, standing = predict_new(model, observed)   # observed: classifier, dataset, score

See docs/new-classifier.md for the model and its measured accuracy.
"""
from benchirt.placement.calibration import Calibration, load_calibration
from benchirt.placement.design import plan_datasets
from benchirt.placement.model import ScoreModel, fit_score_model
from benchirt.placement.predict import predict_new
from benchirt.placement.standing import standing

__all__ = ["Calibration", "ScoreModel", "fit_score_model", "load_calibration", "plan_datasets", "predict_new", "standing"]

"""Place a new classifier in a finished study: plan which datasets to run, predict the rest.

Usage (not run as a doctest)::

    from benchirt.placement import load_calibration, fit_score_model, plan_datasets, predict_new
    model = fit_score_model(load_calibration("runs/cc18-offline").scores)
    plan_datasets(model, budget=5)                   # dataset, order, status, summary_sd
    predicted, standing = predict_new(model, observed)   # observed: classifier, dataset, score

See docs/new-classifier.md for the model, benchmarks/results/new-classifier.md for its measured accuracy.
"""
from benchirt.lazy import lazy_exports

__all__ = ["Calibration", "ScoreModel", "fit_score_model", "load_calibration", "plan_datasets", "predict_new", "standing"]

lazy_exports(__name__, {
    "Calibration": "benchirt.placement.calibration",
    "ScoreModel": "benchirt.placement.model",
    "fit_score_model": "benchirt.placement.model",
    "load_calibration": "benchirt.placement.calibration",
    "plan_datasets": "benchirt.placement.design",
    "predict_new": "benchirt.placement.predict",
    "standing": "benchirt.placement.standing",
})

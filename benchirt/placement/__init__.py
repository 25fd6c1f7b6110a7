"""Place a new classifier in a finished study: plan which datasets to run, predict the rest.

Usage (not run as a doctest)::

    from benchirt.placement import load_calibration, fit_score_model, plan_datasets, predict_new
    model = fit_score_model(load_calibration("runs/cc18-offline").scores)
    plan_datasets(model, budget=5)                   # dataset, order, status, summary_sd
    predicted, standing = predict_new(model, observed)   # observed: classifier, dataset, score

The model: docs/new-classifier.md; its measured accuracy: benchmarks/results/new-classifier.md.
"""
from benchirt.lazy import attach_stub

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)

"""The MLP epoch ladder: rung k of one training equals a separate MLPClassifier(max_iter=k) fit."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from benchirt.pool import ladder_name, ladder_predictions


def _separate(X, y, X_test, k, seed, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MLPClassifier(max_iter=k, random_state=seed, **params).fit(X, y)
    return model.predict(X_test), model.n_iter_


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(n_samples=260, n_features=6, n_informative=3, flip_y=0.15, random_state=1)
    X = StandardScaler().fit_transform(X)
    return X[:180], y[:180], X[180:]


def test_rungs_equal_separately_trained_mlps(binary):
    X, y, X_test = binary
    run = ladder_predictions(X, y, X_test, epochs=25, seed=7)
    assert run.predictions.shape == (25, len(X_test)) and run.epochs_trained == 25
    for k in (1, 2, 3, 9, 25):
        expected, _ = _separate(X, y, X_test, k, seed=7)
        assert np.array_equal(run.predictions[k - 1], expected), f"rung {k}"
    # the rungs really differ from each other: the ladder spans weak to trained models
    assert len({tuple(row) for row in run.predictions}) > 5


def test_rungs_equal_separate_fits_multiclass_with_more_than_one_batch():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    X = np.vstack([X, X + 0.05])  # 300 rows: two mini-batches per epoch
    y = np.concatenate([y, y])
    run = ladder_predictions(X, y, X, epochs=12, seed=0)
    for k in (1, 5, 12):
        expected, _ = _separate(X, y, X, k, seed=0)
        assert np.array_equal(run.predictions[k - 1], expected), f"rung {k}"


def test_stopping_rule_repeats_the_converged_model(binary):
    X, y, X_test = binary
    template = MLPClassifier(tol=0.05)  # stops after n_iter_no_change + 1 epochs without 0.05 improvement
    run = ladder_predictions(X, y, X_test, epochs=40, seed=2, mlp=template)
    expected, n_iter = _separate(X, y, X_test, 40, seed=2, tol=0.05)
    assert n_iter < 40 and run.epochs_trained == n_iter
    assert np.array_equal(run.predictions[-1], expected)
    for k in (n_iter - 1, n_iter + 3):
        rung, _ = _separate(X, y, X_test, k, seed=2, tol=0.05)
        assert np.array_equal(run.predictions[k - 1], rung), f"rung {k}"


def test_accuracy_rises_along_the_ladder(binary):
    X, y, X_test = binary
    y_test = make_classification(n_samples=260, n_features=6, n_informative=3, flip_y=0.15, random_state=1)[1][180:]
    accuracy = (ladder_predictions(X, y, X_test, epochs=60, seed=0).predictions == y_test).mean(axis=1)
    assert accuracy[-10:].mean() > accuracy[:3].mean() + 0.05


def test_rejects_solvers_without_epochs(binary):
    X, y, X_test = binary
    with pytest.raises(ValueError, match="Adam"):
        ladder_predictions(X, y, X_test, epochs=3, mlp=MLPClassifier(solver="lbfgs"))


def test_ladder_names_sort_in_epoch_order():
    names = [ladder_name(k) for k in (1, 9, 10, 100)]
    assert names == ["mlp_epoch_001", "mlp_epoch_009", "mlp_epoch_010", "mlp_epoch_100"] == sorted(names)

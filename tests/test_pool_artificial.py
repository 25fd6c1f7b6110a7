"""Artificial classifiers (Cardoso et al. 2021 §4.3): optimal, pessimal, majority, minority, three random ones."""
from __future__ import annotations

import numpy as np
import pytest

from benchirt.pool import ARTIFICIAL_NAMES, artificial_predictions


@pytest.fixture
def labels():
    rng = np.random.default_rng(5)
    y_train = rng.choice([0, 1, 2, 3], size=300, p=[0.5, 0.3, 0.15, 0.05])
    y_test = rng.choice([0, 1, 2, 3], size=120, p=[0.1, 0.2, 0.3, 0.4])  # test mix differs on purpose
    return y_train, y_test


def test_names_and_order(labels):
    predictions = artificial_predictions(*labels, seed=0)
    assert tuple(predictions) == ARTIFICIAL_NAMES
    assert all(p.shape == labels[1].shape for p in predictions.values())


def test_optimal_all_correct_pessimal_all_wrong(labels):
    y_train, y_test = labels
    predictions = artificial_predictions(y_train, y_test, seed=3)
    assert np.array_equal(predictions["optimal"] == y_test, np.ones(len(y_test), bool))
    assert not np.any(predictions["pessimal"] == y_test)
    assert set(predictions["pessimal"]) <= set(y_train)
    # with four classes the wrong label is drawn among the three others, so more than one wrong label occurs
    assert len(set(predictions["pessimal"][y_test == 3])) == 3


def test_pessimal_binary_predicts_the_other_class():
    y_test = np.array([0, 1, 1, 0, 1])
    predictions = artificial_predictions(np.array([0, 1, 1]), y_test, seed=0)
    assert np.array_equal(predictions["pessimal"], 1 - y_test)


def test_pessimal_for_a_label_unseen_in_training():
    predictions = artificial_predictions(np.array([0, 0, 1]), np.array([2, 2, 0]), seed=0)
    assert not np.any(predictions["pessimal"] == np.array([2, 2, 0]))


def test_majority_and_minority_come_from_the_training_part(labels):
    y_train, y_test = labels
    predictions = artificial_predictions(y_train, y_test, seed=0)
    # training majority is class 0, minority class 3 (the test part's majority is 3)
    assert np.array_equal(predictions["majority"] == y_test, y_test == 0)
    assert np.array_equal(predictions["minority"] == y_test, y_test == 3)


def test_majority_tie_goes_to_first_class():
    predictions = artificial_predictions(np.array([2, 1, 2, 1]), np.array([1, 2]), seed=0)
    assert set(predictions["majority"]) == {1} and set(predictions["minority"]) == {1}


def test_random_classifiers_are_seeded_distinct_and_uniform():
    y_train = np.repeat([0, 1, 2], [80, 15, 5])
    y_test = np.zeros(6000, dtype=int)
    first = artificial_predictions(y_train, y_test, seed=11)
    again = artificial_predictions(y_train, y_test, seed=11)
    other = artificial_predictions(y_train, y_test, seed=12)
    for name in ("pessimal", "random1", "random2", "random3"):
        assert np.array_equal(first[name], again[name])
    assert not np.array_equal(first["random1"], other["random1"])
    assert not np.array_equal(first["random1"], first["random2"])
    for name in ("random1", "random2", "random3"):
        shares = np.bincount(first[name], minlength=3) / len(y_test)
        assert np.allclose(shares, 1 / 3, atol=0.03)  # uniform over classes, not class frequencies


def test_needs_two_training_classes():
    with pytest.raises(ValueError, match="two training classes"):
        artificial_predictions(np.array([1, 1]), np.array([1]), seed=0)

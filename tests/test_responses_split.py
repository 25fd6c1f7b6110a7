"""Split rules: stratified 70/30 with a 500-item cap, degenerate classes, cross-validation folds."""
from __future__ import annotations

import numpy as np
import pytest

from benchirt.errors import DataError
from benchirt.responses import cv_folds, n_test_items, split_train_test, stratified_draw


@pytest.mark.parametrize(
    "n_rows, reference_items",
    # rows of the OpenML dataset -> test items in decodIRT's reference responses_pool.csv
    [(768, 231), (569, 171), (522, 157), (958, 288), (625, 188), (1109, 333), (797, 240), (690, 207), (2109, 500)],
)
def test_test_size_matches_decodirt_reference(n_rows, reference_items):
    assert n_test_items(n_rows, 0.3, 500) == reference_items


def test_test_size_rounding_and_cap():
    assert n_test_items(10, 0.3, 500) == 3  # not 4 from 0.3 * 10 = 3.0000000000000004
    assert n_test_items(3190, 0.3, 500) == 500  # decodIRT's 500/n fraction gave 501 items on splice
    assert n_test_items(200_000, 0.3, 500) == 500
    assert n_test_items(1000, 0.3, 100) == 100


def test_split_is_stratified_disjoint_and_complete():
    y = np.repeat([0, 1, 2], [700, 250, 50])
    split = split_train_test(y, 0.3, 500, seed=1)
    assert len(split.test) == 300 and len(split.train) == 700 and not split.notes
    assert np.array_equal(np.sort(np.concatenate([split.train, split.test])), np.arange(1000))
    assert np.array_equal(np.bincount(y[split.test]), [210, 75, 15])


def test_capped_split_is_stratified_and_keeps_the_rest_for_training():
    y = np.repeat([0, 1], [9000, 1000])
    split = split_train_test(y, 0.3, 500, seed=0)
    assert len(split.test) == 500 and len(split.train) == 9500
    assert np.array_equal(np.bincount(y[split.test]), [450, 50])


def test_split_depends_on_seed_only():
    y = np.repeat([0, 1], [60, 40])
    a, b, c = (split_train_test(y, 0.3, 500, seed=s) for s in (3, 3, 4))
    assert np.array_equal(a.test, b.test) and not np.array_equal(a.test, c.test)


def test_single_member_class_stays_in_training():
    y = np.array([0] * 30 + [1] * 20 + [2])
    split = split_train_test(y, 0.3, 500, seed=0)
    assert 50 in split.train and len(split.test) == 16
    assert any("single row" in note for note in split.notes)


def test_unstratified_fallback_when_test_part_cannot_hold_every_class():
    y = np.repeat(np.arange(6), 2)  # 12 rows, 6 classes: 4 test rows cannot hold all six
    split = split_train_test(y, 0.3, 500, seed=0)
    assert len(split.test) == 4 and any("without stratification" in note for note in split.notes)


def test_single_class_dataset_is_a_data_error():
    with pytest.raises(DataError, match="single class"):
        split_train_test(np.zeros(50, dtype=int), 0.3, 500, seed=0, dataset="constant")


def test_identifier_like_target_is_a_data_error():
    with pytest.raises(DataError, match="every class has a single row"):
        split_train_test(np.arange(20), 0.3, 500, seed=0)


def test_stratified_draw_of_zero_rows():
    split = stratified_draw(np.array([0, 1, 1]), 0, seed=0)
    assert len(split.test) == 0 and len(split.train) == 3


def test_cv_folds_partition_the_training_part():
    y = np.repeat([0, 1], [80, 20])
    folds, notes = cv_folds(y, 10, seed=0)
    assert len(folds) == 10 and not notes
    validated = np.concatenate([v for _, v in folds])
    assert np.array_equal(np.sort(validated), np.arange(100))
    assert all(np.bincount(y[v]).tolist() == [8, 2] for _, v in folds)


def test_cv_folds_with_rare_and_tiny_classes():
    folds, notes = cv_folds(np.array([0] * 20 + [1] * 3), 10, seed=0)
    assert len(folds) == 10 and any("fewer training rows than the 10 folds" in n for n in notes)
    folds, notes = cv_folds(np.array([0] * 4 + [1] * 3), 10, seed=0)
    assert len(folds) == 4 and any("4 folds instead of 10" in n for n in notes)
    with pytest.raises(DataError, match="cannot cross-validate"):
        cv_folds(np.array([0, 1]), 10, seed=0)

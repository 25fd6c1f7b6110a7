"""Preprocessing of the response stage: type cleaning, imputation, one-hot encoding, scaling."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import DataError
from benchirt.preprocess import clean_features, is_nominal, make_preprocessor, transform_pair


def test_clean_features_normalises_every_column_kind():
    X = pd.DataFrame(
        {
            "num": [1.0, np.inf, 3.0, np.nan],
            "nullable": pd.array([1, None, 3, 4], dtype="Int64"),
            "cat": pd.Categorical(["a", None, "b", "a"]),
            "string": pd.Series(["u", None, "v", "u"], dtype="string"),
            "str": pd.Series(["p", "q", None, "p"], dtype="str"),
            "flag": [True, False, True, True],
            "mixed": pd.Series([1, "x", 2.5, None], dtype=object),
            "gone": [np.nan] * 4,
        }
    )
    clean, notes = clean_features(X, dataset="demo")
    assert "gone" not in clean and any("entirely missing column(s): gone" in n for n in notes)
    assert any("infinite values" in n and "num" in n for n in notes)
    assert clean["num"].dtype == np.float64 and clean["num"].isna().tolist() == [False, True, False, True]
    assert clean["nullable"].dtype == np.float64 and np.isnan(clean["nullable"][1])
    for column in ("cat", "string", "str", "flag", "mixed"):
        assert clean[column].dtype == object and is_nominal(clean[column])
        assert clean[column].isna().tolist() == X[column].isna().tolist()
        assert all(isinstance(v, str) for v in clean[column].dropna())
    assert clean["mixed"].tolist()[:3] == ["1", "x", "2.5"] and clean["flag"][0] == "True"


def test_clean_features_errors():
    with pytest.raises(DataError, match="no feature column"):
        clean_features(pd.DataFrame({"a": [np.nan, np.nan]}), dataset="void")
    with pytest.raises(DataError, match="duplicate column"):
        clean_features(pd.DataFrame([[1, 2]], columns=["a", "a"]), dataset="twins")


def test_preprocessor_learns_from_the_training_rows_only():
    X, _ = clean_features(pd.DataFrame({"x": [0.0, 2.0, np.nan, 4.0, 100.0, 200.0], "c": ["a", "b", None, "a", "zzz", "b"]}))
    fit_rows, other_rows = np.array([0, 1, 2, 3]), np.array([4, 5])
    train, other = transform_pair(X, fit_rows, other_rows, scale=True)
    # numeric: the median of the training rows (2.0) imputes, then training mean 2 / sd sqrt(2) scale
    assert train[:, 0] == pytest.approx((np.array([0.0, 2.0, 2.0, 4.0]) - 2.0) / np.sqrt(2.0))
    assert other[:, 0] == pytest.approx((np.array([100.0, 200.0]) - 2.0) / np.sqrt(2.0))
    # nominal: most frequent training value 'a' imputes; the unseen 'zzz' encodes as all zeros
    assert train[:, 1:].tolist() == [[1, 0], [0, 1], [1, 0], [1, 0]]
    assert other[:, 1:].tolist() == [[0, 0], [0, 1]]
    unscaled, _ = transform_pair(X, fit_rows, other_rows, scale=False)
    assert unscaled[:, 0].tolist() == [0.0, 2.0, 2.0, 4.0]


def test_one_hot_width_is_capped():
    X = pd.DataFrame({"c": [f"v{i % 40}" for i in range(400)]}, dtype=object)
    assert make_preprocessor(X, scale=False, max_categories=8).fit_transform(X).shape == (400, 8)
    assert make_preprocessor(X, scale=False, max_categories=None).fit_transform(X).shape == (400, 40)

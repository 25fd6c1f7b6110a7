"""ResponseConfig: defaults follow decodIRT, from_dict validates, to_dict round-trips."""
from __future__ import annotations

import pytest

from benchirt.errors import ConfigError
from benchirt.pool import DEFAULT_POOL
from benchirt.responses import ResponseConfig


def test_defaults_are_decodirts_protocol():
    config = ResponseConfig()
    assert (config.test_size, config.max_test, config.cv_folds, config.ladder_epochs) == (0.3, 500, 10, 100)
    assert config.pool == DEFAULT_POOL and config.artificial


def test_unknown_key_lists_valid_ones():
    with pytest.raises(ConfigError) as info:
        ResponseConfig.from_dict({"test_size": 0.2, "folds": 5})
    assert "folds" in str(info.value) and "cv_folds" in str(info.value) and "ladder_epochs" in str(info.value)


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"test_size": 1.5}, "test_size"),
        ({"test_size": "0.3"}, "test_size"),
        ({"max_test": 0}, "max_test"),
        ({"cv_folds": 1}, "cv_folds"),
        ({"ladder_epochs": -1}, "ladder_epochs"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"max_train": 1}, "max_train"),
        ({"pool": "svc"}, "list of classifier names"),
        ({"pool": ["svc", "catboost"]}, "catboost"),
        ({"extra": ["sklearn.svm.LinearSVC"]}, "mapping"),
        ({"pool": [], "ladder_epochs": 0, "artificial": False}, "respond.pool: got \\[\\], expected at least one respondent"),
    ],
)
def test_bad_values(options, fragment):
    with pytest.raises(ConfigError, match=fragment):
        ResponseConfig.from_dict(options)


def test_round_trip_with_extra_estimator():
    config = ResponseConfig.from_dict(
        {
            "pool": ["gaussian_nb", "svc"],
            "extra": {"logreg": {"estimator": "sklearn.linear_model.LogisticRegression", "params": {"C": 2.0}}},
            "ladder_epochs": 0,
            "seed": 9,
        }
    )
    assert config.pool == ("gaussian_nb", "svc") and config.extra[0].params == {"C": 2.0}
    assert ResponseConfig.from_dict(config.to_dict()) == config
    assert ResponseConfig.from_dict(None) == ResponseConfig()

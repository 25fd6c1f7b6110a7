"""Real classifier pool: decodIRT's twelve, extra estimators by dotted path, decodIRT name mapping."""
from __future__ import annotations

import csv

import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

from benchirt.errors import ConfigError
from benchirt.pool import (
    ARTIFICIAL_NAMES,
    DECODIRT_NAMES,
    DEFAULT_POOL,
    REAL_CLASSIFIERS,
    ExtraEstimator,
    resolve_pool,
)


def test_default_pool_is_decodirts_twelve():
    assert len(DEFAULT_POOL) == 12
    built = {name: REAL_CLASSIFIERS[name].build(seed=4) for name in DEFAULT_POOL}
    assert [built[f"knn_{k}"].n_neighbors for k in (2, 3, 5, 8)] == [2, 3, 5, 8]
    assert [built[n].n_estimators for n in ("random_forest_3", "random_forest_5", "random_forest")] == [
        3, 5, RandomForestClassifier().n_estimators
    ]
    assert built["random_forest"].random_state == 4 and built["mlp"].random_state == 4
    assert built["mlp"].max_iter == 200  # scikit-learn's default MLP, not a ladder rung
    scaled = {name for name in DEFAULT_POOL if REAL_CLASSIFIERS[name].scale}
    assert scaled == {"knn_2", "knn_3", "knn_5", "knn_8", "svc", "mlp"}


def test_build_returns_fresh_estimators():
    spec = REAL_CLASSIFIERS["knn_5"]
    assert spec.build() is not spec.build() and isinstance(spec.build(), KNeighborsClassifier)


def test_decodirt_names_cover_the_reference_outputs(shared_data):
    folders = sorted(p for p in (shared_data / "decodirt-reference").iterdir() if p.is_dir())
    assert folders
    for folder in folders:
        for file in ("true_scores.csv", "test_accuracy.csv", "thetas.csv"):
            with open(folder / file, newline="") as handle:
                names = [row[0] for row in csv.reader(handle)][1:]
            assert set(names) <= set(DECODIRT_NAMES), (folder.name, file, set(names) - set(DECODIRT_NAMES))
    # every benchirt real and artificial name has a decodIRT counterpart
    assert set(DECODIRT_NAMES.values()) == set(DEFAULT_POOL) | set(ARTIFICIAL_NAMES)


def test_unknown_name_lists_known_ones():
    with pytest.raises(ConfigError) as info:
        resolve_pool(("svc", "xgboost"))
    message = str(info.value)
    assert "xgboost" in message and "gaussian_nb" in message and "random_forest_5" in message


def test_extra_estimator_by_dotted_path():
    extra = ExtraEstimator.from_dict("logreg", {"estimator": "sklearn.linear_model.LogisticRegression", "params": {"C": 0.5}})
    pool = resolve_pool(("gaussian_nb",), extra=(extra,))
    assert [spec.name for spec in pool] == ["gaussian_nb", "logreg"]
    model = pool[1].build(seed=3)
    assert isinstance(model, LogisticRegression) and model.C == 0.5 and model.random_state == 3
    assert pool[1].scale is True


@pytest.mark.parametrize(
    "entry, fragment",
    [
        ({"estimator": "sklearn.linear_model.NoSuchModel"}, "has no attribute"),
        ({"estimator": "LogisticRegression"}, "dotted class path"),
        ({"estimator": "sklearn.linear_model.LogisticRegression", "params": {"bogus": 1}}, "cannot be built"),
        ({"estimator": "sklearn.preprocessing.StandardScaler"}, "not a scikit-learn classifier"),
        ({"estimator": "sklearn.svm.SVC", "colour": "red"}, "unknown respond.extra.mine option\\(s\\) 'colour'; valid options: estimator, params, scale"),
        ({"params": {}}, "respond.extra.mine.estimator: got None, expected the dotted path of a classifier class"),
    ],
)
def test_bad_extra_estimators(entry, fragment):
    with pytest.raises(ConfigError, match=fragment):
        ExtraEstimator.from_dict("mine", entry)


def test_duplicate_names_rejected():
    with pytest.raises(ConfigError, match="more than once"):
        resolve_pool(("svc",), extra=(ExtraEstimator("svc", "sklearn.svm.LinearSVC"),))

"""respond(): response matrices of the real, ladder and artificial pools on one dataset (Cardoso et al. 2021 §4.3)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, make_classification

from benchirt.data import Dataset
from benchirt.errors import ConfigError, DataError
from benchirt.pool import ARTIFICIAL_NAMES, DEFAULT_POOL, ladder_name
from benchirt.responses import ResponseConfig, accuracy_matrix, respond

SMALL = ResponseConfig(cv_folds=3, ladder_epochs=4, pool=("gaussian_nb", "decision_tree", "knn_3"))


def _iris(name="iris") -> Dataset:
    data = load_iris(as_frame=True)
    return Dataset(name, data.data, data.target.map(dict(enumerate(data.target_names))))


def _messy(n=240, seed=0) -> Dataset:
    rng = np.random.default_rng(seed)
    X, y = make_classification(n_samples=n, n_features=4, n_informative=3, n_redundant=0, random_state=seed)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    frame.loc[rng.random(n) < 0.2, "a"] = np.nan
    frame.loc[3, "b"] = np.inf
    frame["colour"] = pd.Categorical(rng.choice(["red", "green", None], size=n))
    frame["flag"] = rng.random(n) < 0.5
    frame["text"] = pd.Series(rng.choice(["x", "y"], size=n), dtype=object)
    frame["empty"] = np.nan
    frame["constant"] = 1.0
    frame["count"] = pd.array(rng.integers(0, 5, size=n), dtype="Int64")
    frame.loc[5, "count"] = pd.NA
    labels = pd.Series(np.where(y == 1, "yes", "no"), dtype="object")
    labels[[7, 8]] = None
    return Dataset("messy", frame, labels)


@pytest.fixture(scope="module")
def iris_default():
    return respond(_iris(), config=ResponseConfig(cv_folds=2))  # the default pool and ladder; 2 folds keep it quick


@pytest.mark.heavy
def test_default_pool_rows_roles_and_items(iris_default):
    result = iris_default
    expected = list(DEFAULT_POOL) + [ladder_name(k) for k in range(1, 101)] + list(ARTIFICIAL_NAMES)
    assert result.responses.index.tolist() == expected
    assert result.roles.value_counts().to_dict() == {"ladder": 100, "real": 12, "artificial": 7}
    assert result.responses.shape == (119, 45) and result.responses.dtypes.eq(np.int8).all()
    assert result.responses.columns.tolist() == [str(i) for i in result.test_index]
    assert result.cv_accuracy.index.tolist() == list(DEFAULT_POOL)
    assert result.metadata["n_instances"] == 150 and result.metadata["n_classes"] == 3


@pytest.mark.heavy
def test_responses_score_predictions_against_the_true_labels(iris_default):
    result = iris_default
    truth = _iris().y.astype(str).to_numpy()[result.test_index]
    assert (result.responses.to_numpy() == (result.predictions.to_numpy() == truth)).all()
    # the dataset's label of each test item, read from the data (the suspect-label table shows it)
    assert result.test_labels.index.tolist() == result.responses.columns.tolist()
    assert result.test_labels.tolist() == truth.tolist()
    assert np.allclose(result.test_accuracy, result.responses.mean(axis=1))
    assert result.responses.loc["optimal"].eq(1).all() and result.responses.loc["pessimal"].eq(0).all()
    # majority: the indicator of the training part's majority class (iris trains 35/35/35: the first, setosa)
    assert np.array_equal(result.responses.loc["majority"].to_numpy(), (truth == "setosa").astype(int))
    assert np.array_equal(result.responses.loc["minority"].to_numpy(), (truth == "setosa").astype(int))
    # stratified test part of iris: every class a third, so majority/minority score 1/3 each
    assert result.test_accuracy["majority"] == pytest.approx(1 / 3)
    assert result.test_accuracy[list(DEFAULT_POOL)].median() > 0.85
    assert result.cv_accuracy.between(0, 1).all() and not result.cv_accuracy.isna().any()


@pytest.mark.heavy
def test_same_seed_same_responses_other_seed_other_split():
    dataset = _messy()
    first, again = respond(dataset, config=SMALL), respond(dataset, config=SMALL)
    pd.testing.assert_frame_equal(first.responses, again.responses)
    pd.testing.assert_series_equal(first.cv_accuracy, again.cv_accuracy)
    other = respond(dataset, config=ResponseConfig(**{**SMALL.to_dict(), "seed": 1, "extra": ()}))
    assert not np.array_equal(first.test_index, other.test_index)


def test_parallel_run_equals_sequential_run():
    dataset = _messy()
    config = ResponseConfig(cv_folds=2, ladder_epochs=3, pool=("gaussian_nb", "knn_3"))
    sequential = respond(dataset, config=config)
    parallel = respond(dataset, config=ResponseConfig(cv_folds=2, ladder_epochs=3, pool=("gaussian_nb", "knn_3"), n_jobs=2),
                       show_progress=True)
    pd.testing.assert_frame_equal(sequential.responses, parallel.responses)
    pd.testing.assert_series_equal(sequential.cv_accuracy, parallel.cv_accuracy)


def test_messy_features_and_missing_labels():
    result = respond(_messy(), config=SMALL)
    assert result.responses.shape == (3 + 4 + 7, 72)  # ceil(0.3 * 238 labelled rows)
    assert not set(result.test_index) & {7, 8}
    joined = " ".join(result.notes)
    assert "entirely missing column(s): empty" in joined and "infinite values" in joined
    assert "2 row(s) with a missing label" in joined
    assert result.test_accuracy[["gaussian_nb", "decision_tree", "knn_3"]].min() > 0.6
    assert np.isfinite(result.cv_accuracy).all() and np.isfinite(result.test_accuracy).all()
    labels = _messy().y
    training = labels.drop(index=result.test_index).dropna()
    truth = labels.iloc[result.test_index].astype(str).to_numpy()
    majority, minority = training.value_counts().idxmax(), training.value_counts().idxmin()
    assert np.array_equal(result.responses.loc["majority"].to_numpy(), (truth == majority).astype(int))
    assert np.array_equal(result.responses.loc["minority"].to_numpy(), (truth == minority).astype(int))


def test_tiny_classes_never_crash():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=list("abc"))
    y = pd.Series(["a"] * 30 + ["b"] * 7 + ["c"] * 2 + ["d"])  # d: one row, c: two rows
    result = respond(Dataset("tiny", X, y),
                     config=ResponseConfig(ladder_epochs=3, cv_folds=3, pool=("gaussian_nb", "svc", "mlp")))
    assert result.responses.shape[1] == 12 and "39" not in result.responses.columns  # the single 'd' row trains
    assert any("single row" in n for n in result.notes) and any("fewer training rows" in n for n in result.notes)
    assert set(result.cv_accuracy.index) == {"gaussian_nb", "svc", "mlp"}


def test_fold_with_a_single_class_is_answered_with_that_class():
    X = pd.DataFrame({"a": np.arange(20.0)})
    y = pd.Series(["a"] * 18 + ["b"] * 2)  # training part: 13 'a' + 1 'b'; the fold validating 'b' fits on 'a' only
    result = respond(Dataset("lopsided", X, y), config=ResponseConfig(ladder_epochs=0, cv_folds=2, pool=("svc",)))
    assert "svc" in result.cv_accuracy.index and 0 <= result.cv_accuracy["svc"] <= 1


def test_failing_classifier_is_left_out_with_a_note():
    config = ResponseConfig.from_dict(
        {"pool": ["gaussian_nb"], "ladder_epochs": 0, "cv_folds": 3,
         "extra": {"multinomial": {"estimator": "sklearn.naive_bayes.MultinomialNB", "scale": True}}}
    )
    result = respond(_messy(), config=config)  # standardised features are negative: MultinomialNB refuses them
    assert "multinomial" not in result.responses.index and "gaussian_nb" in result.responses.index
    assert any("multinomial" in n and "Negative values" in n for n in result.notes)
    only_failing = ResponseConfig(**{**config.to_dict(), "pool": (), "artificial": False, "extra": config.extra})
    with pytest.raises(DataError, match="no respondent is left.*Negative values"):
        respond(_messy(), config=only_failing)


def test_unusable_datasets_raise_data_error():
    X = pd.DataFrame({"a": np.arange(30.0)})
    with pytest.raises(DataError, match="single class"):
        respond(Dataset("one", X, pd.Series(["x"] * 30)), config=SMALL)
    with pytest.raises(DataError, match="no feature column"):
        respond(Dataset("hollow", pd.DataFrame({"a": [np.nan] * 30}), pd.Series(["x", "y"] * 15)), config=SMALL)


def test_large_dataset_caps_test_and_training_parts():
    rng = np.random.default_rng(1)
    n = 120_000
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=list("abcde"))
    y = pd.Series(np.where(X["a"] + rng.normal(scale=0.5, size=n) > 0, "pos", "neg"))
    config = ResponseConfig(ladder_epochs=2, pool=("gaussian_nb",), max_train=4000, max_cv_train=2000)
    result = respond(Dataset("big", X, y), config=config)
    assert result.responses.shape == (1 + 2 + 7, 500)
    assert any("subsample of 4000" in n for n in result.notes) and any("subsample of 2000" in n for n in result.notes)
    assert result.test_accuracy["gaussian_nb"] > 0.8
    assert result.sizes == {"rows": n, "test_rows": 500, "train_rows": n - 500, "train_used": 4000, "cv_rows": 2000,
                            "max_train": 4000, "max_cv_train": 2000, "time_budget": None, "skipped_classifiers": {},
                            "failed_classifiers": {}}


def test_time_budget_skips_the_classifiers_that_would_overrun_it():
    generous = respond(_iris(), config=replace(SMALL, time_budget=1e6))
    pd.testing.assert_frame_equal(generous.responses, respond(_iris(), config=SMALL).responses)  # a budget never met: same
    assert generous.sizes["skipped_classifiers"] == {}
    tight = respond(_iris(), config=replace(SMALL, time_budget=1e-9))  # every fit takes longer than 1e-9 / 4 s
    skipped = tight.sizes["skipped_classifiers"]
    assert sorted(skipped) == sorted(SMALL.pool)
    assert skipped["knn_3"].startswith("time budget: its first fit took") and "its 4 fits" in skipped["knn_3"]
    assert any(note.startswith("skipped classifier 'knn_3': time budget") for note in tight.notes)
    assert set(tight.roles) == {"ladder", "artificial"} and tight.cv_accuracy.empty
    with pytest.raises(ConfigError, match="time_budget"):
        ResponseConfig(time_budget=0)


def test_majority_and_minority_match_decodirt_reference(shared_data):
    """Stratified splits of the same size give decodIRT's class mix: majority/minority accuracies agree exactly."""
    data = load_breast_cancer(as_frame=True)
    wdbc = Dataset("wdbc", data.data, data.target.map({0: "malignant", 1: "benign"}))
    result = respond(wdbc, config=ResponseConfig(ladder_epochs=0, cv_folds=2, pool=("gaussian_nb", "random_forest")))
    reference = pd.read_csv(shared_data / "decodirt-reference" / "wdbc" / "test_accuracy.csv", index_col=0)["Acuracia"]
    assert result.responses.shape[1] == 171
    assert result.test_accuracy["majority"] == pytest.approx(reference["majoritario"], abs=1e-12)
    assert result.test_accuracy["minority"] == pytest.approx(reference["minoritario"], abs=1e-12)
    # scale-free models land near decodIRT's accuracies on another random split
    assert result.test_accuracy["gaussian_nb"] == pytest.approx(reference["GaussianNB"], abs=0.06)
    assert result.test_accuracy["random_forest"] == pytest.approx(reference["RandomForestClassifier"], abs=0.06)


def test_accuracy_matrix_for_airt():
    first, second = respond(_iris(), config=SMALL), respond(_messy(), config=SMALL)
    table = accuracy_matrix([first, second])
    assert table.index.tolist() == ["iris", "messy"] and table.columns.tolist() == list(SMALL.pool)
    assert table.loc["messy", "knn_3"] == second.test_accuracy["knn_3"]
    cv = accuracy_matrix([first, second], which="cv")
    assert cv.loc["iris"].tolist() == first.cv_accuracy.tolist()
    assert accuracy_matrix([first], role="artificial").loc["iris", "optimal"] == 1.0
    assert accuracy_matrix([first], role="ladder").shape == (1, 4)
    with pytest.raises(ConfigError, match="role='real' only"):
        accuracy_matrix([first], role="ladder", which="cv")
    with pytest.raises(ConfigError, match="^accuracy_matrix.which: got 'train', expected one of test, cv$"):
        accuracy_matrix([first], which="train")
    with pytest.raises(ConfigError, match="^accuracy_matrix.role: got 'pool', expected one of real, ladder, "
                                          "artificial, all$"):
        accuracy_matrix([first], role="pool")
    with pytest.raises(DataError, match="more than once"):
        accuracy_matrix([first, first])


def test_accuracy_matrix_drops_classifiers_missing_somewhere():
    first = respond(_iris(), config=SMALL)
    second = respond(_iris("iris2"), config=ResponseConfig(cv_folds=3, ladder_epochs=0, pool=("gaussian_nb",)))
    with pytest.warns(UserWarning, match="decision_tree"):
        table = accuracy_matrix([first, second])
    assert table.columns.tolist() == ["gaussian_nb"] and not table.isna().any().any()

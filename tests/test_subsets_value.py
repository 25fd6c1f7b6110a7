"""Which datasets are worth running: the dataset-value table's components."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from benchirt.irt.mcnemar import mcnemar_separated
from benchirt.subsets.value import (
    dataset_value, information, redundancy, separations_depending, top_contenders, value_sentence,
)


def test_mcnemar_separated_equals_scipys_binomial_test_pair_by_pair():
    rng = np.random.default_rng(0)
    answers = (rng.random((6, 40)) < np.linspace(0.3, 0.9, 6)[:, None]).astype(int)
    separated = mcnemar_separated(answers)
    for i in range(6):
        for j in range(6):
            b = int(((answers[i] == 1) & (answers[j] == 0)).sum())
            c = int(((answers[i] == 0) & (answers[j] == 1)).sum())
            expected = i != j and b + c > 0 and binomtest(b, b + c, 0.5).pvalue < 0.05
            assert separated[i, j] == expected


def _field(n_datasets=6, n_classifiers=8, seed=0):
    rng = np.random.default_rng(seed)
    names = [f"c{i}" for i in range(n_classifiers)]
    skill = np.linspace(0.95, 0.6, n_classifiers)
    rows, scores = {}, []
    for d in range(n_datasets):
        answers = (rng.random((n_classifiers, 300)) < skill[:, None] - 0.05 * d).astype(int)
        rows[f"d{d}"] = pd.DataFrame(answers, index=names)
        scores += [(f"d{d}", name, a) for name, a in zip(names, answers.mean(axis=1))]
    return pd.DataFrame(scores, columns=["dataset", "classifier", "score"]), rows, names


def test_a_saturated_dataset_has_no_power_at_the_top_and_a_duplicate_has_redundancy_1():
    scores, rows, names = _field()
    rows["easy"] = pd.DataFrame(np.ones((len(names), 50), dtype=int), index=names)   # everyone right everywhere
    scores = pd.concat([scores, pd.DataFrame({"dataset": "easy", "classifier": names, "score": 1.0 - 0.001 * np.arange(8)}),
                        scores[scores["dataset"] == "d1"].assign(dataset="copy_of_d1")])
    rows["copy_of_d1"] = rows["d1"]
    cost = {name: 3600.0 for name in rows}
    table = dataset_value(scores, rows, names, cost, n_tables=200).set_index("dataset")
    assert table.loc["easy", "top_pairs_separated"] == 0 and table.loc["easy", "saturation"] == 1.0
    assert table.loc["easy", "value"] == 0.0
    assert table.loc["copy_of_d1", "redundancy"] == pytest.approx(1.0)
    assert table.loc["d1", "redundancy"] == pytest.approx(1.0)
    assert table.loc["d0", "top_pairs_separated"] > 0 and table.loc["d0", "n_top_pairs"] == 28
    # value: top pairs separated per CPU-hour (each costs one hour here)
    assert table.loc["d0", "value"] == pytest.approx(table.loc["d0", "top_pairs_separated"])
    assert "easy" in value_sentence(table.reset_index())


def test_the_value_is_per_cpu_hour():
    scores, rows, names = _field(n_datasets=4)
    cheap = dataset_value(scores, rows, names, {name: 3600.0 for name in rows}, n_tables=50).set_index("dataset")
    dear = dataset_value(scores, rows, names, {name: 7200.0 for name in rows}, n_tables=50).set_index("dataset")
    assert (dear["value"] * 2).to_numpy() == pytest.approx(cheap.loc[dear.index, "value"].to_numpy())


def test_a_dataset_whose_removal_loses_a_separation_is_counted():
    """Six datasets on which a beats b by a wide margin (the step-down separates them: all 2^6 reflections, p
    2/64 < 0.05 at its one pair) — without any one of them only 2/32 remains, above 0.05."""
    matrix = pd.DataFrame([[0.9] * 6, [0.5] * 6], index=["a", "b"], columns=[f"d{i}" for i in range(6)])
    lost = separations_depending(matrix, 1000, 0.05, 0)
    assert (lost == 1).all()
    matrix[["d6", "d7"]] = [[0.9, 0.9], [0.5, 0.5]]
    assert (separations_depending(matrix, 1000, 0.05, 0) == 0).all()   # with 8 datasets no one is needed


def test_redundancy_needs_three_shared_classifiers():
    matrix = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan], "y": [1.0, 2.0, np.nan, 4.0], "z": [3.0, 1.0, 2.0, 0.0]})
    assert redundancy(matrix)["x"] == pytest.approx(max(np.corrcoef([1, 2, 3], [3, 1, 2])[0, 1] ** 2, 0.0))
    assert redundancy(matrix)["y"] == pytest.approx(np.corrcoef([1, 2, 4], [3, 1, 0])[0, 1] ** 2)


def test_information_of_a_2pl_item_at_its_difficulty_is_a_squared_over_4():
    items = pd.DataFrame({"discrimination": [2.0], "difficulty": [0.5], "guessing": [0.0]})
    assert information(0.5, items) == pytest.approx(1.0)


def test_top_contenders_are_real_and_strongest():
    scores = pd.DataFrame({"dataset": ["d"] * 4, "classifier": ["optimal", "a", "b", "c"], "score": [1, 0.9, 0.8, 0.7]})
    assert top_contenders(scores, ["a", "b", "c"], top_k=2) == ["a", "b"]


def test_without_a_cost_for_some_dataset_the_value_counts_per_dataset_and_says_so():
    scores, rows, names = _field(n_datasets=3)
    table = dataset_value(scores, rows, names, {"d0": 3600.0}, n_tables=50)
    assert (table["value"] == table["top_pairs_separated"]).all() and (table["cost_cpu_s"] == 0).all()
    assert table["cost_source"].str.startswith("unknown: a dataset has no shape").all()
    assert "per dataset (no costs: no shapes)" in value_sentence(table) and "CPU-s" not in value_sentence(table)

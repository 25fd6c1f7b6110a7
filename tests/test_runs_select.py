"""Selection rules on the real Iris matrix (OpenML study 59) and on simulated runs with a known truth."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import ConfigError
from benchirt.stored_runs.matrices import read_matrix_csv
from benchirt.stored_runs.matrix import PROVENANCE, RunMatrix
from benchirt.stored_runs.select import SelectionOptions, select


@pytest.fixture(scope="module")
def iris(shared_data):
    return read_matrix_csv(shared_data / "openml-runs" / "iris-matrices" / "results_Iris_Study59_4432x150.csv")


def test_iris_best_per_flow_above_35_percent_gives_the_published_counts(iris):
    """The data's README: best run per flow, runs below 35 % dropped → about 660 respondents, 163 patterns."""
    assert iris.responses.shape == (4432, 150)
    kept = select(iris, options=SelectionOptions(rule="best", min_accuracy=0.35, deduplicate=False))
    assert kept.responses.shape == (660, 150)
    assert len(kept.responses.drop_duplicates()) == 163
    merged = select(iris, options=SelectionOptions(rule="best", min_accuracy=0.35))
    assert merged.responses.shape == (163, 150) and merged.respondents["n_identical"].sum() == 660
    assert not merged.responses.duplicated().any()
    assert any("374 of 4432 runs below the accuracy floor 0.350 dropped (of them 26 at 0 %" in n for n in merged.notes)


def test_iris_rules_keep_one_run_per_flow_and_all_keeps_every_run(iris):
    for rule in ("best", "median", "first"):
        chosen = select(iris, options=SelectionOptions(rule=rule, min_accuracy=0.35, deduplicate=False))
        assert chosen.respondents["flow_name"].is_unique and len(chosen.respondents) == 660
    every = select(iris, options=SelectionOptions(rule="all", min_accuracy=0.0, deduplicate=False))
    assert every.responses.shape == (4432, 150)
    best = select(iris, options=SelectionOptions(rule="best", min_accuracy=0.35, deduplicate=False)).respondents
    median = select(iris, options=SelectionOptions(rule="median", min_accuracy=0.35, deduplicate=False)).respondents
    both = best.merge(median, on="flow_name", suffixes=("_best", "_median"))
    assert (both["accuracy_best"] >= both["accuracy_median"]).all()


def test_max_items_is_a_shared_stratified_sample(iris):
    picked = select(iris, options=SelectionOptions(rule="best", min_accuracy=0.35, max_items=40, seed=3))
    assert picked.responses.shape[1] == 40 and len(set(picked.responses.columns)) == 40
    assert any("a sample of 40 of 150 items" in n for n in picked.notes)


def _simulated(n_flows=60, runs_per_flow=25, n_items=400, p=0.8, seed=0) -> RunMatrix:
    """Every run of every flow answers each item correctly with the same probability p: no run is better."""
    rng = np.random.default_rng(seed)
    n_runs = n_flows * runs_per_flow
    runs = pd.DataFrame({c: [None] * n_runs for c in PROVENANCE})
    runs["run_id"] = np.arange(1, n_runs + 1)
    runs["flow_id"] = np.repeat(np.arange(n_flows), runs_per_flow)
    runs["flow_name"] = [f"flow{f}" for f in runs["flow_id"]]
    return RunMatrix(dataset="sim", responses=(rng.random((n_runs, n_items)) < p).astype(np.int8),
                     items=np.arange(n_items), item_fold=np.arange(n_items) % 10,
                     item_class=np.zeros(n_items, np.int16), runs=runs)


def test_choosing_on_the_scored_rows_is_optimistic_and_the_held_out_rule_is_not():
    """Baseline: 'best' (choose and score on all rows) against the default 'best-held-out', on runs whose
    true accuracy is 0.8: the baseline's respondents score about 2 standard errors above the truth (the
    winner's curse), the held-out rule's within one."""
    matrix = _simulated()
    options = dict(min_accuracy=0.0, deduplicate=False)
    naive = select(matrix, options=SelectionOptions(rule="best", **options)).respondents["item_accuracy"]
    held = select(matrix, options=SelectionOptions(rule="best-held-out", **options))
    honest = held.respondents["item_accuracy"]
    se_naive, se_held = np.sqrt(0.16 / 400 / 60), np.sqrt(0.16 / 200 / 60)  # of the mean over 60 flows
    assert naive.mean() - 0.8 > 10 * se_naive
    assert abs(honest.mean() - 0.8) < 3 * se_held
    curse = held.winners_curse
    assert len(curse) == 60 and curse["curse"].mean() > 0.02  # chosen-in beats chosen-out by the curse
    np.testing.assert_allclose(curse["curse"], curse["gap"] - curse["half_difference"])
    assert abs(curse["best_minus_median_out"].mean()) < 3 * np.sqrt(2 * 0.16 / 200 / 60)


def test_the_curse_does_not_count_a_harder_half_of_the_rows():
    """Baseline of the curse: when one half of the rows is harder for every run alike (p = 0.9 on the
    choosing half, 0.7 on the other), the raw gap is about 0.2 + the curse; ``curse`` removes the 0.2."""
    matrix = _simulated(n_items=400)
    rng = np.random.default_rng(1)
    choose = matrix.item_fold % 2 == 0
    p = np.where(choose, 0.9, 0.7)
    matrix.responses = (rng.random(matrix.responses.shape) < p).astype(np.int8)
    curse = select(matrix, options=SelectionOptions(min_accuracy=0.0, deduplicate=False)).winners_curse
    assert abs(curse["gap"].mean() - 0.2 - curse["curse"].mean()) < 0.01
    assert 0.0 < curse["curse"].mean() < 0.05


def test_bad_options_are_refused():
    with pytest.raises(ConfigError, match="^selection.rule: got 'top', expected one of best-held-out, all, best, median, "
                                          "first$"):
        SelectionOptions(rule="top")
    with pytest.raises(ConfigError, match=r"^selection.min_accuracy: got 35, expected null or a number in \[0, 1\]$"):
        SelectionOptions(min_accuracy=35)

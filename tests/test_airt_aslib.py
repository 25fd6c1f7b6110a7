"""AIRT inputs: ASlib scenarios and wide performance matrices (benchirt.airt.aslib)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from benchirt.airt.aslib import check_performance, load_aslib, load_performance, to_unit_interval
from benchirt.errors import DataError
from data_samples import runtime_description, write_aslib_scenario

DESCRIPTION = runtime_description("TOY-RUNTIME", 100) + "algorithm_cutoff_memory: '?'\n"

def _write_scenario(folder, rows, description=DESCRIPTION, cv_rows=None):
    return write_aslib_scenario(folder, rows, description, cv_rows)


TOY_RUNS = [
    # instance, repetition, algorithm, runtime, status
    ("i1", 1, "A", 10, "ok"), ("i1", 1, "B", 20, "ok"), ("i1", 1, "C", 5, "ok"),
    ("i2", 1, "A", 100, "timeout"), ("i2", 1, "B", 30, "ok"), ("i2", 1, "C", 7, "memout"),
    ("i3", 1, "A", 2, "ok"), ("i3", 1, "B", 3, "crash"), ("i3", 1, "C", 150, "ok"),   # 150 > cutoff
    ("i4", 1, "A", 4, "ok"), ("i4", 2, "A", 8, "ok"), ("i4", 1, "B", 50, "ok"),       # C missing on i4
]


def test_toy_scenario_penalises_failed_runs_with_par10(tmp_path):
    scenario = load_aslib(_write_scenario(tmp_path / "toy", TOY_RUNS))
    raw = scenario.raw_performance
    assert scenario.name == "TOY-RUNTIME" and scenario.measure == "runtime"
    assert scenario.maximize is False and scenario.cutoff == 100
    assert list(raw.columns) == ["A", "B", "C"] and list(raw.index) == ["i1", "i2", "i3", "i4"]
    # timeout, memout, crash and a runtime above the cutoff -> PAR10 = 10 x 100
    assert raw.loc["i2", "A"] == raw.loc["i2", "C"] == raw.loc["i3", "B"] == raw.loc["i3", "C"] == 1000
    # repetitions averaged; the missing (i4, C) pair counts as a failed run
    assert raw.loc["i4", "A"] == 6.0
    assert raw.loc["i4", "C"] == 1000
    assert raw.loc["i1", "C"] == 5
    notes = " ".join(scenario.notes)
    assert "not ok" in notes and "repetitions" in notes and "without a run" in notes
    assert scenario.folds is None and "no cv.arff" in notes


def test_toy_scenario_scales_minus_runtime_to_unit_interval(tmp_path):
    scenario = load_aslib(_write_scenario(tmp_path / "toy", TOY_RUNS))
    raw = scenario.raw_performance.to_numpy()
    perf = scenario.performance
    low, high = raw.min(), raw.max()          # 2 (i3, A) and 1000 (PAR10)
    assert perf.loc["i3", "A"] == 1.0 and perf.loc["i2", "A"] == 0.0
    assert perf.loc["i1", "B"] == pytest.approx((1000 - 20) / (1000 - 2))
    np.testing.assert_allclose(perf.to_numpy(), (high - raw) / (high - low))


def test_median_aggregate_and_par_factor(tmp_path):
    rows = TOY_RUNS + [("i4", 3, "A", 30, "ok")]
    scenario = load_aslib(_write_scenario(tmp_path / "toy", rows), aggregate="median", par_factor=2)
    assert scenario.raw_performance.loc["i4", "A"] == 8.0
    assert scenario.raw_performance.loc["i2", "A"] == 200


def test_cv_folds_are_read_from_repetition_one(tmp_path):
    cv = [("i1", 1, 1), ("i2", 1, 2), ("i3", 1, 1), ("i4", 1, 2), ("i1", 2, 2), ("i2", 2, 1)]
    scenario = load_aslib(_write_scenario(tmp_path / "toy", TOY_RUNS, cv_rows=cv))
    assert scenario.folds.to_dict() == {"i1": 1, "i2": 2, "i3": 1, "i4": 2}


def test_one_instance_only_is_a_clear_error(tmp_path):
    rows = [("i1", 1, "A", 1, "ok"), ("i1", 1, "B", 2, "ok")]
    with pytest.raises(DataError, match="at least 2"):
        load_aslib(_write_scenario(tmp_path / "one", rows))


def test_constant_algorithm_is_reported(tmp_path):
    rows = [(f"i{i}", 1, a, v, "ok") for i in range(4) for a, v in (("A", 5), ("B", i + 1))]
    scenario = load_aslib(_write_scenario(tmp_path / "const", rows))
    assert any("same runtime on every instance" in n and "'A'" in n for n in scenario.notes)


def test_missing_runs_file_names_it(tmp_path):
    folder = tmp_path / "norun"
    folder.mkdir()
    (folder / "description.txt").write_text(DESCRIPTION)
    with pytest.raises(DataError, match="algorithm_runs.arff"):
        load_aslib(folder)


def test_unknown_measure_and_missing_directory(tmp_path):
    folder = _write_scenario(tmp_path / "toy", TOY_RUNS)
    with pytest.raises(DataError, match="'PAR10' not found"):
        load_aslib(folder, measure="PAR10")
    with pytest.raises(DataError, match="directory not found"):
        load_aslib(tmp_path / "absent")


def test_quality_measure_to_maximize_uses_worst_value_for_failed_runs(tmp_path):
    description = DESCRIPTION.replace("false", "true").replace("performance_type:\n  - runtime", "performance_type:\n  - solution_quality")
    rows = [("i1", 1, "A", 0.9, "ok"), ("i1", 1, "B", 0.2, "crash"), ("i2", 1, "A", 0.5, "ok"),
            ("i2", 1, "B", 0.7, "ok"), ("i3", 1, "A", 0.4, "ok")]   # (i3, B) missing -> i3 dropped
    scenario = load_aslib(_write_scenario(tmp_path / "q", rows, description=description))
    assert scenario.maximize is True
    assert list(scenario.raw_performance.index) == ["i1", "i2"]
    assert scenario.raw_performance.loc["i1", "B"] == 0.4          # worst successful value of the scenario
    assert scenario.performance.loc["i1", "A"] == 1.0 and scenario.performance.loc["i1", "B"] == 0.0


@pytest.mark.heavy
def test_real_scenarios(shared_data):
    root = shared_data / "aslib"
    expected = {"ASP-POTASSCO": (1294, 11, 600.0), "SAT11-INDU": (300, 18, 5000.0),
                "MAXSAT-PMS-2016": (601, 19, 1800.0), "GRAPHS-2015": (5725, 7, 1e8)}
    for name, (n_inst, n_alg, cutoff) in expected.items():
        scenario = load_aslib(root / name)
        assert scenario.performance.shape == (n_inst, n_alg), name
        assert scenario.cutoff == cutoff
        values = scenario.performance.to_numpy()
        assert values.min() == 0.0 and values.max() == 1.0
        assert scenario.folds is not None and scenario.folds.nunique() == 10
        assert scenario.folds.index.equals(scenario.performance.index)
        assert scenario.raw_performance.to_numpy().max() == pytest.approx(10 * cutoff)
    with pytest.raises(DataError, match="PROTEUS-2014.*no algorithm_runs.arff"):
        load_aslib(root / "PROTEUS-2014")


def test_real_scenario_timeout_gets_par10(shared_data):
    scenario = load_aslib(shared_data / "aslib" / "ASP-POTASSCO")
    runs = scenario.raw
    timeout = runs[runs["runstatus"] == "timeout"].iloc[0]
    assert scenario.raw_performance.loc[timeout["instance_id"], timeout["algorithm"]] == 6000.0


# --- wide matrices ---------------------------------------------------------------------------------------
def test_accuracy_matrix_passes_unchanged():
    acc = pd.DataFrame({"rf": [0.9, 0.8, 0.7], "knn": [0.85, 0.6, 0.75]}, index=["d1", "d2", "d3"])
    out = load_performance(acc)
    pd.testing.assert_frame_equal(out, acc.astype(float))


def test_values_outside_unit_interval_are_refused_with_the_fix(tmp_path):
    path = tmp_path / "perf.csv"
    pd.DataFrame({"name": ["d1", "d2"], "A": [12.0, 3.0], "B": [5.0, 700.0]}).to_csv(path, index=False)
    with pytest.raises(DataError, match=r"\[3, 700\].*to_unit_interval"):
        load_performance(path)
    out = load_performance(path, maximize=False)          # runtimes: lower is better
    assert out.loc["d1", "B"] == pytest.approx((700 - 5) / (700 - 3))
    assert out.loc["d2", "A"] == 1.0 and out.loc["d2", "B"] == 0.0


def test_rescale_higher_is_better_scores():
    scores = pd.DataFrame({"A": [10.0, 20.0], "B": [30.0, 50.0]}, index=["x", "y"])
    out = load_performance(scores, rescale=True)
    np.testing.assert_allclose(out.to_numpy(), [[0.0, 0.5], [0.25, 1.0]])


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"A": [0.5], "B": [0.4]}, index=["only"]), "at least 2 datasets"),
    (pd.DataFrame({"A": [0.5, 0.2]}, index=["d1", "d2"]), "at least 2 algorithms (columns), found 1 ['A']"),
    (pd.DataFrame({"B": [0.5, 0.2]}, index=pd.Index([0.1, 0.3], name="A")),
     "found 1 ['B']; the first column ('A') is read as the dataset/instance names"),
    (pd.DataFrame({"A": [0.5, np.nan], "B": [0.1, 0.2]}, index=["d1", "d2"]), "missing value"),
    (pd.DataFrame({"A": [0.5, "high"], "B": [0.1, 0.2]}, index=["d1", "d2"]), "non-numeric value 'high'"),
    (pd.DataFrame({"A": [0.5, 0.3], "B": [0.1, 0.2]}, index=["d1", "d1"]), "duplicated row"),
])
def test_bad_matrices(frame, message):
    with pytest.raises(DataError, match=re.escape(message)):
        check_performance(frame)


def test_log_transform_and_constant_matrix():
    raw = pd.DataFrame({"A": [0.0, 9.0], "B": [99.0, 999.0]})
    out = to_unit_interval(raw, maximize=False, transform="log")
    np.testing.assert_allclose(out.to_numpy(), [[1.0, 1 / 3], [2 / 3, 0.0]])
    constant = to_unit_interval(pd.DataFrame({"A": [3.0, 3.0], "B": [3.0, 3.0]}), maximize=True)
    assert (constant.to_numpy() == 1.0).all()
    with pytest.raises(DataError, match="non-negative"):
        to_unit_interval(pd.DataFrame({"A": [-1.0, 2.0]}), maximize=False, transform="log")


def test_description_problems_are_clear(tmp_path):
    folder = _write_scenario(tmp_path / "nomax", TOY_RUNS,
                             description="scenario_id: X\nperformance_measures: [runtime]\n")
    with pytest.raises(DataError, match="no 'maximize' entry"):
        load_aslib(folder)
    folder = _write_scenario(tmp_path / "badyaml", TOY_RUNS, description="maximize: [false\n  : -")
    with pytest.raises(DataError, match="not valid YAML"):
        load_aslib(folder)


def test_incomplete_cv_file_falls_back_to_random_folds(tmp_path):
    scenario = load_aslib(_write_scenario(tmp_path / "toy", TOY_RUNS, cv_rows=[("i1", 1, 1), ("i2", 1, 2)]))
    assert scenario.folds is None
    assert any("no fold for 2 instance(s)" in note for note in scenario.notes)

"""``benchirt run --estimate``: the cost model's arithmetic, the schedule, and the command on real inputs."""
from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from benchirt.cli import main
from benchirt.pipeline.estimate import (Shape, estimate, expected_wall_seconds, lpt_makespan, response_cost,
                                       task_makespan, work_units)
from benchirt.responses import ResponseConfig

TOY_MODEL = {"seconds_per_unit": {"gaussian_nb": 1e-6, "svc": 1e-8, "ladder": 1e-7},
             "fixed_seconds_per_fit": {"gaussian_nb": 0.0, "svc": 0.0, "ladder": 0.0}, "fixed_seconds_per_dataset": 0.0,
             "load_seconds_per_value": 1e-7, "load_bytes_per_value": 30.0, "openml_load_bytes_per_value": 10.0, "irt_seconds": {"fixed": 0.0, "scale": 1e-4, "respondents_power": 1.0, "items_power": 1.0},
             "base_bytes": 1e8, "calibrated": "toy", "machine": "toy", "typical_error": "toy"}


def test_work_units_by_hand():
    assert work_units("svc", 100, 50, 10, 3) == 100 * 150 * 10
    assert work_units("knn_3", 100, 50, 10, 3) == 50 * 100 * 10
    assert work_units("gaussian_nb", 100, 50, 10, 3) == 150 * 10 * 3
    assert work_units("random_forest_5", 1024, 50, 16, 3) == 5 * 1024 * 10 * 4
    assert work_units("random_forest", 1024, 50, 16, 3) == 100 * 1024 * 10 * 4
    assert work_units("mlp", 100, 50, 10, 3) == 100 * 13


def test_response_cost_applies_the_size_policy():
    config = ResponseConfig(pool=("gaussian_nb", "svc"), ladder_epochs=10, cv_folds=10, max_train=10000,
                            max_cv_train=5000)
    cost = response_cost(Shape(70000, 100, 2, "x"), config, TOY_MODEL)
    assert (cost["test_rows"], cost["train_used"], cost["cv_rows"]) == (500, 10000, 5000)
    fold_fit, fold_predict = 4500, 500
    nb = 1e-6 * (10 * (fold_fit + fold_predict) * 100 * 2 + (10000 + 500) * 100 * 2)
    svc = 1e-8 * (10 * fold_fit * (fold_fit + fold_predict) * 100 + 10000 * 10500 * 100)
    ladder = 1e-7 * 10 * 10000 * 102
    load = 1e-7 * 70000 * 100
    assert cost["seconds"] == pytest.approx(nb + svc + ladder + load)
    assert cost["slowest"] == "svc"
    assert cost["peak_bytes"] == pytest.approx(30.0 * 70000 * 100 + 4 * 8 * 10000 * 100 + 1e8)
    from_openml = response_cost(Shape(70000, 100, 2, "OpenML qualities"), config, TOY_MODEL)  # parquet, not CSV
    assert from_openml["peak_bytes"] == pytest.approx(10.0 * 70000 * 100 + 4 * 8 * 10000 * 100 + 1e8)
    uncapped = response_cost(Shape(70000, 100, 2, "x"), ResponseConfig(pool=("svc",), ladder_epochs=0), TOY_MODEL)
    assert uncapped["train_used"] == 69500 and uncapped["seconds"] > 40 * cost["seconds"]


def test_longest_processing_time_schedule():
    assert lpt_makespan([5, 4, 3, 3, 3], 2) == 10  # 5+3+3 | 4+3 ... LPT: A=5, B=4, B=7, A=8, B=10
    assert lpt_makespan([5, 4, 3, 3, 3], 16) == 5
    assert lpt_makespan([5, 4, 3, 3, 3], 1) == 18


def test_the_cost_is_cut_into_the_runs_tasks():
    """Preparation, then per preprocessing kind k folds and the final fit, then the ladder — FitPlan's cut;
    a classifier the budget stops costs its first fold, in the first fold's task."""
    config = ResponseConfig(pool=("gaussian_nb", "svc"), ladder_epochs=10, cv_folds=10, max_train=10000,
                            max_cv_train=5000)
    cost = response_cost(Shape(70000, 100, 2, "x"), config, TOY_MODEL)
    tasks = cost["tasks"]
    assert len(tasks) == 1 + 2 * 11 + 1 and sum(tasks) == pytest.approx(cost["seconds"])
    assert tasks[0] == pytest.approx(1e-7 * 70000 * 100)  # loading (no fixed cost in the toy model)
    nb_fold, svc_fold = 1e-6 * (4500 + 500) * 100 * 2, 1e-8 * 4500 * 5000 * 100
    ladder = 1e-7 * 10 * 10000 * 102
    # FitPlan's order: first folds (unscaled gaussian_nb, scaled svc), the ladder, then the rest by kind
    assert tasks[1:4] == pytest.approx([nb_fold, svc_fold, ladder])
    assert tasks[4:13] == pytest.approx([nb_fold] * 9) and tasks[14:23] == pytest.approx([svc_fold] * 9)
    fixed = {**TOY_MODEL, "fixed_seconds_per_fit": {"gaussian_nb": 0.3, "svc": 1.0, "ladder": 0.01}}
    budget = response_cost(Shape(700, 10, 2, "x"), replace(config, time_budget=5.0), fixed)
    assert budget["skipped"] == ["svc"]
    assert budget["tasks"][2] == pytest.approx(1e-8 * work_units("svc", 441, 49, 10, 2) + 1.0)
    # the scaled kind's other folds and final fit had svc only: dropped, as the fits drop them
    assert len(budget["tasks"]) == 1 + 2 + 1 + 10 and "final fit (scaled)" not in budget["units"]


def test_task_schedule_waits_for_each_datasets_preparation():
    # one dataset: preparation 2, then fits 4, 3, 3 on 2 workers -> 2 + (4 | 3 + 3) = 8
    assert task_makespan([[2, 4, 3, 3]], 2) == 8
    assert task_makespan([[2, 4, 3, 3]], 16) == 6  # every fit at once after the preparation
    assert task_makespan([[2, 4, 3, 3]], 1) == 12
    # the second worker prepares the next dataset while the first prepares the big one: 1 + 9 + 1
    assert task_makespan([[1, 9, 9], [1, 1]], 2) == 11
    # a worker with nothing runnable waits for a preparation under way (no dataset left to prepare)
    assert task_makespan([[5, 1, 1, 1, 1]], 4) == 6
    table = estimate([], ResponseConfig(), workers=2, model=TOY_MODEL)
    assert table.empty


def test_expected_wall_time_follows_execution_tasks():
    import pandas as pd

    table = pd.DataFrame({"respond_s": [12.0, 2.0], "respond_tasks_s": [[2.0, 4.0, 3.0, 3.0], [1.0, 1.0]],
                          "irt_s": [1.0, 1.0]})
    # whole datasets: 13 | 3 on 2 workers; fit tasks: respond 8 (the small dataset fits in), then irt 1
    assert expected_wall_seconds(table, 2, tasks="datasets") == 13
    assert expected_wall_seconds(table, 2, tasks="fits") == pytest.approx(8 + 1)
    assert expected_wall_seconds(table, 1, tasks="fits") == 16


def test_estimate_command_prints_every_dataset_and_runs_nothing(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"suite": "builtin:iris,wine", "execution": {"n_jobs": 2},
                                      "responses": {"max_train": 100}, "out": str(tmp_path / "run")}))
    assert main(["run", str(config), "--estimate"]) == 0
    text = capsys.readouterr().out
    assert "iris" in text and "wine" in text and "Expected wall time on 2 worker(s)" in text
    assert "max_train 100" in text
    assert not (tmp_path / "run").exists()


def test_openml_shape_comes_from_qualities_without_the_data(shared_data, tmp_path, monkeypatch):
    import openml

    from benchirt.data import resolve_suite

    cache = tmp_path / "openml-cache"
    shutil.copytree(shared_data / "openml-cache", cache)
    (cache / "org/openml/www/datasets/2/dataset.arff").unlink()  # only metadata left: nothing to download from
    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    monkeypatch.setattr(openml.config, "connection_n_retries", 1)
    specs = resolve_suite({"openml_tasks": [1882], "cache": str(cache)})
    table = estimate(specs, ResponseConfig(), workers=2, model=TOY_MODEL)
    row = table.iloc[0]
    assert (row["dataset"], row["rows"], row["features"], row["classes"]) == ("anneal", 898, 38, 6)
    assert row["note"] == "OpenML qualities" and row["train_used"] == 898 - 270


def test_without_openml_the_estimate_takes_the_recorded_shapes_and_says_so(shared_data, tmp_path, monkeypatch):
    """Cached qualities first; once the server did not answer, the recorded table, named per dataset."""
    import openml

    from benchirt.data import DatasetSpec
    from benchirt.data.recorded_shapes import RECORDED_SOURCE
    from benchirt.pipeline.estimate import shape_sources_line

    cache = tmp_path / "openml-cache"
    shutil.copytree(shared_data / "openml-cache", cache)
    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    monkeypatch.setattr(openml.config, "connection_n_retries", 1)
    where = str(cache)
    specs = [DatasetSpec("kr-vs-kp", "openml", "3", openml_id=3, openml_cache=where),
             DatasetSpec("anneal", "openml", "2", openml_id=2, openml_cache=where),
             DatasetSpec("CIFAR_10", "openml", "40927", openml_id=40927, openml_cache=where),
             DatasetSpec("unknown", "openml", "999999", openml_id=999999, openml_cache=where)]
    table = estimate(specs, ResponseConfig(pool=("gaussian_nb",)), workers=2, model=TOY_MODEL).set_index("dataset")
    assert table.loc["kr-vs-kp", ["rows", "features", "classes"]].tolist() == [3196, 36, 2]
    assert table.loc["kr-vs-kp", "note"] == RECORDED_SOURCE  # the server was asked once, and did not answer
    assert table.loc["anneal", "note"] == "OpenML qualities"  # openml's cache still answers
    assert table.loc["CIFAR_10", ["rows", "features", "note"]].tolist() == [60000, 3072, RECORDED_SOURCE]
    assert table.loc["unknown", "note"].startswith("no shape: OpenML dataset 999999: OpenML was not reachable")
    assert shape_sources_line(table.reset_index()) == (
        "Shapes: 2 from recorded table (OpenML unreachable); 1 from OpenML qualities; 1 without a shape (see the note).")


def test_estimate_of_openml_cc18_offline_uses_the_recorded_listing(tmp_path, monkeypatch, capsys):
    import openml

    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    monkeypatch.setattr(openml.config, "connection_n_retries", 1)
    openml.config.set_root_cache_directory(str(tmp_path / "empty-cache"))
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"suite": "OpenML-CC18", "execution": {"n_jobs": 2},
                                      "responses": {"pool": ["gaussian_nb"], "ladder_epochs": 0, "max_train": 5000},
                                      "out": str(tmp_path / "run")}))
    assert main(["run", str(config), "--estimate"]) == 0
    text = capsys.readouterr().out
    assert "no listing of suite 99 is cached; its 72 datasets are taken from benchirt's recorded table" in text
    assert "Shapes: 72 from recorded table (OpenML unreachable)." in text
    assert "CPU time, one thread per fit:" in text and " over 72 dataset(s)" in text
    assert not (tmp_path / "run").exists()
    config.write_text(yaml.safe_dump({"suite": "openml:271", "out": str(tmp_path / "run")}))
    assert main(["run", str(config), "--estimate"]) == 2  # another suite is not guessed
    assert "OpenML cannot be reached" in capsys.readouterr().err


def test_fixed_seconds_per_dataset_and_per_fit_are_added_by_hand():
    config = ResponseConfig(pool=("gaussian_nb", "svc"), ladder_epochs=10, cv_folds=10, time_budget=5.0)
    shape = Shape(700, 10, 2, "x")  # 210 test rows, 490 training rows, folds of 441 + 49
    fixed = {**TOY_MODEL, "fixed_seconds_per_dataset": 2.0,
             "fixed_seconds_per_fit": {"gaussian_nb": 0.3, "svc": 1.0, "ladder": 0.01}}
    without, with_fixed = response_cost(shape, config, TOY_MODEL), response_cost(shape, config, fixed)
    assert without["skipped"] == [] and with_fixed["skipped"] == ["svc"]  # 11 fits of 1 s: over the 5 s budget
    svc_folds = 10 * 1e-8 * work_units("svc", 441, 49, 10, 2) + 1e-8 * work_units("svc", 490, 210, 10, 2)
    first_svc_fold = 1e-8 * work_units("svc", 441, 49, 10, 2) + 1.0  # what the budget leaves of it
    assert with_fixed["seconds"] - without["seconds"] == pytest.approx(
        2.0 + 11 * 0.3 + 10 * 0.01 + first_svc_fold - svc_folds)


def test_the_estimate_counts_nominal_features_as_the_one_hot_encoder_widens_them():
    import pandas as pd

    from benchirt.pipeline.estimate import encoded_width

    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "colour": pd.Categorical(["r", "g", "b", "r"]),
                      "id": [f"row{i}" for i in range(4)], "flag": [True, False, True, True]})
    assert encoded_width(X, max_categories=None) == 1 + 3 + 4 + 2
    assert encoded_width(X, max_categories=3) == 1 + 3 + 3 + 2


@pytest.mark.parametrize("config", [
    ResponseConfig(pool=("gaussian_nb", "svc"), ladder_epochs=3, cv_folds=3),
    ResponseConfig(pool=("svc", "knn_3"), ladder_epochs=0, cv_folds=4),        # one preprocessing kind, no ladder
    ResponseConfig(pool=(), ladder_epochs=2, cv_folds=3),                       # the ladder only
    ResponseConfig(pool=("gaussian_nb", "svc"), ladder_epochs=2, cv_folds=3, time_budget=5.0),
], ids=["two-kinds", "scaled-only", "ladder-only", "budget"])
def test_the_estimate_costs_the_units_the_fits_run(config):
    """The estimate's units are FitPlan's, in its order, also under a time budget that stops svc (its
    predicted first fold on 20000 rows, times its 4 fits, is over 5 s; the plan is given svc over it too)."""
    from benchirt.data import resolve_suite
    from benchirt.pool import resolve_pool
    from benchirt.responses.units import FitPlan, prepare

    model = {**TOY_MODEL, "seconds_per_unit": {**TOY_MODEL["seconds_per_unit"], "knn_3": 1e-8},
             "fixed_seconds_per_fit": {**TOY_MODEL["fixed_seconds_per_fit"], "knn_3": 0.0}}
    cost = response_cost(Shape(20000, 10, 2, "x"), config, model)
    [spec] = resolve_suite("builtin:iris")
    plan = FitPlan(prepare(spec.load(), config), resolve_pool(config.pool, extra=config.extra), config)
    handed = plan.take()
    if config.time_budget is not None:
        for unit in handed:
            plan.record(unit, {m.name: (None, None, 1e9 if m.name == "svc" else 0.0) for m in unit.members})
        handed += plan.take()
        assert cost["skipped"] == list(plan.over_budget) == ["svc"]
    assert cost["units"] == [unit.label for unit in handed] and len(cost["tasks"]) == 1 + len(handed)


def test_run_factors_rescale_their_groups_and_only_those():
    """``--calibrate-run``'s factors: svc's fits and the preparation times 2 and 3, gaussian_nb and the ladder as they were."""
    config = ResponseConfig(pool=("gaussian_nb", "svc"), ladder_epochs=10, cv_folds=10)
    shape = Shape(700, 10, 2, "x")
    base = response_cost(shape, config, TOY_MODEL)
    only_svc = response_cost(shape, ResponseConfig(pool=("svc",), ladder_epochs=0, cv_folds=10), TOY_MODEL)
    scaled = response_cost(shape, config, {**TOY_MODEL, "run_factors": {"svc": 2.0, "dataset": 3.0}})
    preparation = 1e-7 * 700 * 10
    assert scaled["tasks"][0] == pytest.approx(3 * preparation)
    assert scaled["seconds"] - base["seconds"] == pytest.approx((only_svc["seconds"] - preparation) + 2 * preparation)
    from benchirt.pipeline.estimate import cost_group

    assert [cost_group(name) for name in ("random_forest_3", "ladder", "mlp", "svc", "knn_8", "bernoulli_nb")] == [
        "forest", "neural", "neural", "svc", "knn", "light"]


def test_suite_wide_stages_cost_a_constant_per_dataset_and_rated_classifier():
    from benchirt.pipeline.estimate import expected_wall_seconds, suite_stage_seconds

    config = ResponseConfig()  # 12 real + 7 artificial classifiers are rated; the ladder is not
    model = {**TOY_MODEL, "suite_stage_seconds": {"rate": {"fixed": 0.0, "per_cell": 0.5},
                                                  "report": {"fixed": 2.0, "per_cell": 0.1}}}
    suite = suite_stage_seconds(("respond", "irt", "rate", "subset", "report"), 4, config, model)
    assert suite == pytest.approx({"rate": 0.5 * 4 * 19, "report": 2.0 + 0.1 * 4 * 19})  # subset: no entry, left out
    assert suite_stage_seconds(("respond", "irt"), 4, config, model) == {}
    import pandas as pd

    table = pd.DataFrame({"respond_s": [12.0, 2.0], "respond_tasks_s": [[2.0, 4.0, 3.0, 3.0], [1.0, 1.0]],
                          "irt_s": [1.0, 1.0]})
    assert expected_wall_seconds(table, 2, tasks="fits",
                                 suite_seconds=sum(suite.values())) == pytest.approx(8 + 1 + 38 + 9.6)


def test_group_factors_are_recovered_from_per_dataset_totals():
    """``scale.py --calibrate-run``: totals made of known factors times the groups' estimates give those factors back
    (a small ridge pulls them towards 1 by a little); a group no dataset uses keeps 1."""
    import sys
    from pathlib import Path

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from scale import fit_group_factors

    rng = np.random.default_rng(0)
    components = np.column_stack([rng.uniform(1, 20, 27), rng.uniform(0.5, 5, 27), rng.uniform(0, 3, 27),
                                  np.zeros(27)])
    truth = np.array([0.5, 2.0, 1.3, 7.0])
    measured = components @ truth
    factors = fit_group_factors(components, measured, ridge=1e-6)
    assert factors[:3] == pytest.approx(truth[:3], rel=1e-3) and factors[3] == 1.0
    pulled = fit_group_factors(components, measured)
    assert np.all(np.abs(np.log(pulled[:3])) <= np.abs(np.log(truth[:3])) + 1e-9)


def test_the_packaged_model_prices_every_stage_and_states_its_measured_error():
    """``--estimate`` covers every stage it names and says how wrong it was on a real run (scale.py --calibrate-run)."""
    import re

    from benchirt.pipeline.estimate import SUITE_STAGES, load_cost_model

    model = load_cost_model()
    assert set(model["suite_stage_seconds"]) == set(SUITE_STAGES)
    assert all(part["fixed"] >= 0 and part["per_cell"] >= 0 for part in model["suite_stage_seconds"].values())
    low, high = map(float, re.search(r"respond \+ irt (\d\.\d\d)-(\d\.\d\d)", model["typical_error"]).groups())
    assert 0 < low < 1 < high
    docs = (Path(__file__).resolve().parents[1] / "docs" / "scale.md").read_text(encoding="utf-8")
    assert f"{low:.2f}-{high:.2f}" in docs  # the doc states the error the estimate prints

"""The response stage as (dataset, fit) tasks: the same results as one task per dataset, whatever order the
units finish in; failures, lost workers and the time budget accounted per dataset (benchirt.pipeline.fits)."""
from __future__ import annotations

import os
import random
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from benchirt.data import resolve_suite
from benchirt.pipeline import load_config, run_pipeline
from benchirt.pipeline.executors import LocalExecutor, attempt
from benchirt.pipeline.fits import ResponseFits, response_fits
from benchirt.pipeline.respond_stage import respond_dataset
from benchirt.pool import resolve_pool
from benchirt.responses import ResponseConfig, respond
from benchirt.responses.units import FitPlan, prepare

SMALL = ResponseConfig(cv_folds=3, ladder_epochs=3, pool=("gaussian_nb", "decision_tree", "knn_3", "mlp"))
TESTS_DIR = str(Path(__file__).parent)


class ShuffledExecutor:
    """Starts every task its source can give, then hands their outcomes back in a shuffled order."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def map(self, fn, source):
        while True:
            batch = []
            while (task := source.next_task()) is not None:
                batch.append(task)
            if not batch:
                assert source.done
                return
            outcomes = [attempt(fn, name, args) for name, args in batch]
            self.rng.shuffle(outcomes)
            yield from outcomes


def _tasks(specs, config):
    return [(spec.name, (respond_dataset, spec, config, False, None)) for spec in specs]


def _same(result, expected):
    pd.testing.assert_frame_equal(result.responses, expected.responses)
    pd.testing.assert_frame_equal(result.predictions, expected.predictions)
    pd.testing.assert_series_equal(result.cv_accuracy, expected.cv_accuracy, check_exact=True)
    pd.testing.assert_series_equal(result.roles, expected.roles)
    assert result.notes == expected.notes and result.sizes == expected.sizes
    assert list(result.test_index) == list(expected.test_index)


@pytest.fixture(scope="module")
def specs():
    return resolve_suite("builtin:iris,wine")


@pytest.fixture(scope="module")
def expected(specs):
    return {spec.name: respond(spec.load(), config=SMALL) for spec in specs}


@pytest.mark.heavy
@pytest.mark.parametrize("seed", [0, 1])
def test_units_finishing_in_any_order_give_the_per_dataset_result(specs, expected, seed):
    outcomes = list(response_fits(ShuffledExecutor(seed), _tasks(specs, SMALL)))
    assert sorted(o.name for o in outcomes) == ["iris", "wine"]
    for outcome in outcomes:
        assert outcome.status == "ok" and outcome.attempts == 1 and outcome.lost_workers == 0
        _same(outcome.value, expected[outcome.name])


@pytest.mark.heavy
def test_a_capped_dataset_ships_only_the_rows_its_fits_use(specs):
    config = replace(SMALL, max_train=60, max_cv_train=30)
    prepared = prepare(specs[1].load(), config)  # wine: 178 rows, 54 test items, 124 training rows -> 60
    rows = prepared.rows
    assert len(rows.X) == 60 + 54 and len(rows.codes) == len(rows.X)
    assert rows.X.index.equals(pd.RangeIndex(len(rows.X)))
    assert sorted(rows.positions[rows.test]) == sorted(rows.test_positions) and rows.test_positions.max() < 178
    [outcome] = response_fits(LocalExecutor(n_jobs=1), _tasks(specs[1:], config))
    _same(outcome.value, respond(specs[1].load(), config=config))
    assert outcome.value.sizes["train_used"] == 60 and outcome.value.sizes["cv_rows"] == 30


@pytest.mark.heavy
def test_plan_order_progress_and_time_budget(specs):
    prepared = prepare(specs[0].load(), SMALL)
    pool = resolve_pool(SMALL.pool, extra=())
    plan = FitPlan(prepared, pool, SMALL)
    units = plan.take()
    # first folds (unscaled, scaled), the ladder, then folds 2-3 and the final fit of each kind
    assert [u.label for u in units[:3]] == ["fold 1 (unscaled)", "fold 1 (scaled)", "MLP ladder"]
    assert [u.index for u in units] == list(range(9)) and plan.progress() == (0, 4 * 4 + 1)
    tight = FitPlan(prepared, pool, replace(SMALL, time_budget=1e-9))
    first = tight.take()
    assert [u.label for u in first] == ["fold 1 (unscaled)", "fold 1 (scaled)"] and tight.take() == []
    from benchirt.responses.units import run_unit

    for unit in first:
        tight.record(unit, run_unit(prepared, unit, tight.config))
    assert [u.label for u in tight.take()] == ["MLP ladder"]  # every classifier over the budget: only the ladder left
    assert sorted(tight.over_budget) == sorted(SMALL.pool) and tight.progress() == (4, 5)
    [outcome] = response_fits(ShuffledExecutor(0), _tasks(specs[:1], tight.config))
    assert outcome.status == "ok" and sorted(outcome.value.sizes["skipped_classifiers"]) == sorted(SMALL.pool)
    assert set(outcome.value.roles) == {"ladder", "artificial"}
    ladder_only = FitPlan(prepared, [], tight.config)  # no classifier to time: the ladder is not held back
    assert [u.label for u in ladder_only.take()] == ["MLP ladder"]


@pytest.mark.heavy
def test_a_failing_unit_fails_its_dataset_only_after_its_retries(specs, expected, monkeypatch):
    from benchirt.responses import units

    real, calls = units.run_unit, []

    def flaky(prepared, unit, config):
        calls.append((prepared.name, unit.label))
        if prepared.name == "wine" and unit.kind == "ladder":
            raise RuntimeError("ladder broke")
        return real(prepared, unit, config)

    monkeypatch.setattr(units, "run_unit", flaky)
    outcomes = {o.name: o for o in response_fits(LocalExecutor(n_jobs=1, retries=2), _tasks(specs, SMALL))}
    _same(outcomes["iris"].value, expected["iris"])
    wine = outcomes["wine"]
    assert wine.status == "failed" and wine.error.startswith("MLP ladder: RuntimeError: ladder broke")
    assert wine.attempts == 3 and calls.count(("wine", "MLP ladder")) == 3
    assert outcomes["iris"].attempts == 1 and outcomes["iris"].seconds > 0


def test_a_dataset_that_cannot_be_prepared_is_skipped(specs, monkeypatch):
    source = ResponseFits(_tasks(specs[:1], SMALL))
    assert source.next_task()[0] == "iris · preparation" and source.next_task() is None and not source.done
    from benchirt.errors import DataError
    from benchirt.responses import units

    def refuse(dataset, config):
        raise DataError(f"dataset {dataset.name!r} has a single class; nothing to classify")

    monkeypatch.setattr(units, "prepare", refuse)
    [outcome] = response_fits(LocalExecutor(n_jobs=1), _tasks(specs[:1], SMALL))
    assert outcome.status == "skipped" and "single class" in outcome.error


@pytest.mark.slow
def test_a_unit_that_kills_its_worker_fails_that_dataset_and_the_manifest_counts_it(tmp_path, monkeypatch):
    """Real loky workers: the iris fits of a classifier that kills its process; wine finishes."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [TESTS_DIR, os.environ.get("PYTHONPATH")])))
    options = {"suite": "builtin:iris,wine", "stages": ["respond"],
               "responses": {"cv_folds": 2, "ladder_epochs": 0, "artificial": False, "pool": ["gaussian_nb"],
                             "allowed_packages": ["killing_classifier"],
                             "extra": {"killer": {"estimator": "killing_classifier.KillOnFourFeatures"}}},
               "execution": {"n_jobs": 2, "retries": 0}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(options))
    outcome = run_pipeline(load_config(str(tmp_path / "c.yaml")), out=tmp_path / "run", show_progress=False)
    assert outcome.exit_code == 1
    entries = {name: stages["respond"] for name, stages in outcome.manifest.datasets.items()}
    assert entries["wine"]["status"] == "computed"  # its tasks may have lost a worker to iris's (retried, uncharged)
    iris = entries["iris"]
    assert iris["status"] == "failed" and "): worker lost" in iris["reason"]  # "fold 1 (scaled): worker lost …"
    assert iris["lost_workers"] >= 1 and iris["attempts"] == 2  # an uncharged loss, then one alone (retries: 0)


@pytest.mark.heavy
def test_a_run_of_fit_tasks_on_workers_is_stored_once_and_reused_by_any_granularity(tmp_path, specs):
    options = {"suite": "builtin:iris,wine", "stages": ["respond"],
               "responses": {"cv_folds": 2, "ladder_epochs": 2, "pool": ["gaussian_nb", "knn_3"]},
               "execution": {"n_jobs": 2}}
    (tmp_path / "fits.yaml").write_text(yaml.safe_dump(options))
    (tmp_path / "one.yaml").write_text(yaml.safe_dump({**options, "execution": {"n_jobs": 1, "tasks": "datasets"}}))
    first = run_pipeline(load_config(str(tmp_path / "fits.yaml")), out=tmp_path / "run", show_progress=False)
    assert first.exit_code == 0 and first.manifest.stages["respond"]["computed"] == 2
    for name in ("iris", "wine"):
        entry = first.manifest.datasets[name]["respond"]
        assert entry["attempts"] == 1 and entry["lost_workers"] == 0 and entry["seconds"] > 0
    again = run_pipeline(load_config(str(tmp_path / "one.yaml")), out=tmp_path / "run", show_progress=False)
    assert again.manifest.stages["respond"]["reused"] == 2  # the granularity is not part of the key
    from benchirt.pipeline.results import load_run

    config = load_config(str(tmp_path / "one.yaml")).stage_config("respond")
    stored = load_run(tmp_path / "run").respond
    for spec in specs:
        _same(stored[spec.name], respond(spec.load(), config=config))


class VirtualClockExecutor:
    """``workers`` workers on a virtual clock: each task takes ``seconds[name]`` (it is run at once for
    its value); a free worker asks the source for a task, a finished task is handed back at its end time.
    Records ``(start, name)`` of every task in the order they start."""

    def __init__(self, workers: int, seconds: dict[str, float]) -> None:
        self.workers, self.seconds, self.started = workers, seconds, []

    def map(self, fn, source):
        import heapq

        now, running = 0.0, []
        while True:
            while len(running) < self.workers and (task := source.next_task()) is not None:
                name, args = task
                self.started.append((now, name))
                heapq.heappush(running, (now + self.seconds[name], len(self.started), attempt(fn, name, args)))
            if not running:
                assert source.done
                return
            now, _, outcome = heapq.heappop(running)
            yield outcome


@pytest.mark.parametrize("workers", [1, 2, 3, 5])
def test_the_makespan_estimate_hands_out_tasks_as_the_executor_does(specs, workers):
    """Replaying the executor's choices on a virtual clock, and the estimate's schedule of the same task
    durations, start the same tasks in the same order at the same times (benchirt.pipeline.handout)."""
    from benchirt.pipeline.estimate import task_schedule
    from benchirt.responses.units import plan_units

    config = replace(SMALL, pool=("gaussian_nb", "knn_3"), ladder_epochs=2)
    first, rest = plan_units(resolve_pool(config.pool, extra=()), config.cv_folds, config.ladder_epochs)
    labels = ["preparation"] + [unit.label for unit in first + rest]
    rng = random.Random(workers)
    durations = [[rng.uniform(0.5, 5.0) for _ in labels] for _ in specs]
    seconds = {f"{spec.name} · {label}": d for spec, row in zip(specs, durations) for label, d in zip(labels, row)}
    executor = VirtualClockExecutor(workers, seconds)
    outcomes = list(response_fits(executor, _tasks(specs, config)))
    assert [outcome.status for outcome in outcomes] == ["ok"] * len(specs)
    estimated = [(start, f"{specs[d].name} · {labels[t]}") for start, _, d, t in task_schedule(durations, workers)]
    assert len(executor.started) == len(specs) * len(labels)
    assert [name for _, name in executor.started] == [name for _, name in estimated]
    assert [start for start, _ in executor.started] == pytest.approx([start for start, _ in estimated])

"""Before loading: file shapes, the memory limit and guard, the run's ETA, and progress inside a dataset."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
import yaml

from benchirt.data import load_builtin
from benchirt.errors import ConfigError
from benchirt.pipeline import preflight as preflight_module
from benchirt.pipeline.config import ExecutionConfig, load_config
from benchirt.pipeline.estimate import Shape, response_cost
from benchirt.pipeline.eta import RunEta
from benchirt.pipeline import memory as memory_module
from benchirt.pipeline.memory import memory_limit
from benchirt.pipeline.preflight import file_shape, preflight
from benchirt.pipeline.results import load_run
from benchirt.pipeline.run import run_pipeline
from benchirt.responses import ResponseConfig, respond

TOY_MODEL = {"seconds_per_unit": {"gaussian_nb": 1e-6, "svc": 1e-8, "ladder": 1e-7},
             "fixed_seconds_per_fit": {"gaussian_nb": 0.0, "svc": 0.0, "ladder": 0.0}, "fixed_seconds_per_dataset": 0.0,
             "load_seconds_per_value": 1e-7, "load_bytes_per_value": 30.0, "openml_load_bytes_per_value": 10.0, "irt_seconds": {"fixed": 0.0, "scale": 1e-4, "respondents_power": 1.0, "items_power": 1.0},
             "base_bytes": 1e8, "calibrated": "toy", "machine": "toy", "typical_error": "toy"}


def _frame(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"a": np.arange(rows), "b": np.arange(rows) * 0.5, "c": np.arange(rows) % 3,
                         "class": ["x", "y"] * (rows // 2)})


def test_file_shape_reads_headers_and_lines_not_values(tmp_path):
    frame = _frame(40)
    frame.to_csv(tmp_path / "d.csv", index=False)
    frame.to_csv(tmp_path / "d.tsv", sep="\t", index=False)
    with gzip.open(tmp_path / "d.csv.gz", "wt") as handle:
        frame.to_csv(handle, index=False)
    frame.to_parquet(tmp_path / "d.parquet")
    (tmp_path / "d.arff").write_text(
        "% comment\n@relation d\n@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n"
        "@attribute class {x,y}\n\n@data\n" + "".join(f"{i},{i / 2},{i % 3},x\n" for i in range(40)))
    (tmp_path / "e.csv").write_text((tmp_path / "d.csv").read_text().rstrip("\n"))  # no final newline
    for name in ("d.csv", "d.tsv", "d.csv.gz", "d.parquet", "d.arff", "e.csv"):
        shape = file_shape(tmp_path / name)
        assert (shape.rows, shape.features) == (40, 3), name


def test_memory_limit_explicit_default_and_external_scheduler(monkeypatch):
    assert memory_limit(ExecutionConfig(memory_limit_gb=2.5), 4)[0] == 2.5e9
    monkeypatch.setattr(memory_module, "available_memory_bytes", lambda: 12e9)
    limit, source = memory_limit(ExecutionConfig(n_jobs=3), 3)
    assert limit == 4e9 and "12.0 GB / 3 worker(s)" in source
    assert memory_limit(ExecutionConfig(scheduler="tcp://127.0.0.1:8786"), 3)[0] is None
    assert memory_module.available_memory_bytes() > 0  # the real machine's figure (psutil or sysconf)
    with pytest.raises(ConfigError, match="execution.memory_limit_gb: got -1"):
        ExecutionConfig(memory_limit_gb=-1)


def test_preflight_skips_only_what_is_projected_over_the_limit(monkeypatch):
    config = ResponseConfig(pool=("gaussian_nb", "svc"), ladder_epochs=10, max_train=10000)
    shape = Shape(70000, 100, 2, "faked")
    monkeypatch.setattr(preflight_module, "shape_before_loading", lambda spec, ask_server=True: shape)
    peak = response_cost(shape, config, TOY_MODEL)["peak_bytes"]  # 30*7e6 + 32*1e6 + 1e8 = 342 MB
    assert peak == pytest.approx(30.0 * 70000 * 100 + 4 * 8 * 10000 * 100 + 1e8)
    over = preflight(None, config, peak - 1, TOY_MODEL, limit_source="test limit")
    assert over.skip_reason.startswith("memory guard: 70000 rows x 100 features (faked) would need about 0.3 GB")
    assert "test limit" in over.skip_reason
    under = preflight(None, config, peak + 1, TOY_MODEL)
    assert under.skip_reason is None and under.expected_seconds == pytest.approx(
        response_cost(shape, config, TOY_MODEL)["seconds"])
    assert preflight(None, config, None, TOY_MODEL).skip_reason is None  # no limit
    monkeypatch.setattr(preflight_module, "shape_before_loading", lambda spec, ask_server=True: None)
    assert preflight(None, config, 1, TOY_MODEL).skip_reason is None  # unknown shape: loaded, not guessed


def test_eta_rescales_the_model_and_falls_back_to_finished_datasets():
    eta = RunEta({"a": 10.0, "b": 20.0, "c": None}, workers=1, irt_seconds=6.0)
    assert eta.remaining_seconds() is None
    assert eta.describe() == ("ETA: unknown until a dataset finishes (1 of 3 shape(s) are not known before loading); "
                              "the 2 dataset(s) of known shape: about 30 s on 1 worker(s)")
    eta.finished("a", 20.0)           # twice the model: b is expected at 40 s, c as the mean finished (20 s)
    assert eta.scale() == 2.0
    assert eta.remaining_seconds() == 40.0 + 20.0 + 6.0
    assert "about 66 s on 1 worker(s)" in eta.describe() and "model x 2.00" in eta.describe()
    two = RunEta({"a": 10.0, "b": 20.0, "c": 30.0}, workers=2)
    assert two.remaining_seconds() == 30.0  # LPT: 30 | 20 + 10
    two.finished("c", 15.0)
    assert two.remaining_seconds() == 10.0  # scale 0.5: 10 | 5


def test_eta_schedules_the_fit_tasks_where_the_stage_runs_them():
    tasks = {"a": [2.0, 4.0, 3.0, 3.0], "b": [1.0, 1.0]}
    fine = RunEta({"a": 12.0, "b": 2.0}, workers=2, irt_seconds=2.0, tasks=tasks)
    whole = RunEta({"a": 12.0, "b": 2.0}, workers=2, irt_seconds=2.0)
    assert whole.remaining_seconds() == 12.0 + 1.0  # LPT of whole datasets: 12 | 2
    assert fine.remaining_seconds() == 8.0 + 1.0  # a's fits spread over both workers (test_pipeline_estimate)
    fine.finished("a", 24.0)  # twice the model: b's tasks take 2 + 2, one after the other
    assert fine.remaining_seconds() == 4.0 + 1.0
    assert RunEta({"a": 12.0}, workers=1, tasks={"a": tasks["a"]}).remaining_seconds() == 12.0


def test_respond_progress_counts_every_classifier_and_fit(monkeypatch):
    seen = {}

    class Recorder:
        def __init__(self, total, **kwargs):
            self.total, self.done = total, 0
            seen["bar"] = self

        def update(self, n):
            self.done += n

        def refresh(self):
            return None

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    from benchirt.responses import stage

    monkeypatch.setattr(stage, "tqdm", Recorder)
    config = ResponseConfig(pool=("gaussian_nb", "decision_tree", "knn_3"), cv_folds=3, ladder_epochs=2,
                            artificial=False)
    respond(load_builtin("iris"), config=config, show_progress=True)
    assert seen["bar"].total == seen["bar"].done == 3 * (3 + 1) + 1  # (classifier, fold or final) + the ladder


def test_memory_guard_in_a_run_records_the_skip_and_a_rerun_with_more_memory_computes(tmp_path, monkeypatch, capsys):
    frame = _frame(60)
    frame.to_csv(tmp_path / "small.csv", index=False)
    frame.to_csv(tmp_path / "huge.csv", index=False)
    real = preflight_module.shape_before_loading

    def faked(spec, ask_server=True):  # huge.csv claims CIFAR-like size; its 60 rows are what a run with more memory loads
        return Shape(1_000_000, 3072, 10, "faked") if spec.name == "huge" else real(spec)

    monkeypatch.setattr(preflight_module, "shape_before_loading", faked)
    options = {"suite": ["small.csv", "huge.csv"], "stages": ["respond"],
               "responses": {"cv_folds": 3, "ladder_epochs": 0, "pool": ["gaussian_nb"]},
               "execution": {"n_jobs": 1, "memory_limit_gb": 50}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(options))
    outcome = run_pipeline(load_config(str(tmp_path / "c.yaml")), out=tmp_path / "run")
    assert outcome.exit_code == 0
    entry = outcome.manifest.datasets["huge"]["respond"]
    assert entry["status"] == "skipped" and entry["reason"].startswith("memory guard: 1000000 rows x 3072 features")
    assert "limit of 50.0 GB (execution.memory_limit_gb 50)" in entry["reason"]
    assert outcome.manifest.datasets["small"]["respond"]["status"] == "computed"
    assert not (tmp_path / "run" / entry["path"]).exists()  # no artifact: nothing stored to reuse
    err = capsys.readouterr().err
    assert "respond: skipped huge before loading it: memory guard" in err
    assert "ETA of the response and IRT stages: about" in err and "cost model for 1 of 1 dataset(s)" in err
    assert "memory guard" in load_run(tmp_path / "run").skipped["huge"]["respond"]  # what the report lists

    options["execution"]["memory_limit_gb"] = 1e6
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(options))
    again = run_pipeline(load_config(str(tmp_path / "c.yaml")), out=tmp_path / "run", show_progress=False)
    assert again.manifest.datasets["huge"]["respond"]["status"] == "computed"
    assert again.manifest.datasets["small"]["respond"]["status"] == "reused"
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["status"] == "finished"


def test_the_executor_line_printed_at_start_names_the_dask_dashboard():
    from benchirt.pipeline.executors import DaskExecutor

    class SchedulerClient:  # what a distributed.Client connected to a scheduler serving a dashboard reports
        dashboard_link = "http://10.0.0.5:8787/status"

        class scheduler:
            address = "tcp://10.0.0.5:8786"

        def __init__(self, services):
            self.services = services

        def run_on_scheduler(self, fn):
            return 0

        def scheduler_info(self):
            return {"services": self.services, "workers": {}}

    served = DaskExecutor(client=SchedulerClient({"dashboard": 8787}))
    assert served.describe() == "dask scheduler tcp://10.0.0.5:8786, dashboard http://10.0.0.5:8787/status"
    assert DaskExecutor(client=SchedulerClient({})).describe() == "dask scheduler tcp://10.0.0.5:8786"


def test_checker_stops_asking_the_openml_server_once_it_gave_no_shape(monkeypatch):
    from benchirt.data import DatasetSpec
    from benchirt.pipeline.preflight import checker

    asked = []

    def unreachable(spec, ask_server=True):
        asked.append((spec.name, ask_server))
        return None if spec.kind == "openml" else Shape(100, 4, 2, "faked")

    monkeypatch.setattr(preflight_module, "shape_before_loading", unreachable)
    specs = [DatasetSpec("anneal", "openml", "2"), DatasetSpec("kr", "openml", "3"), DatasetSpec("f", "file", "f.csv")]
    check = checker(specs, ResponseConfig(pool=("gaussian_nb",)), None, TOY_MODEL)
    results = {spec.name: check(spec.name) for spec in specs}
    assert asked == [("anneal", True), ("kr", False), ("f", True)]
    assert results["kr"].shape is None and results["f"].expected_seconds > 0


def test_estimate_names_what_the_memory_guard_would_skip():
    from benchirt.pipeline.estimate import memory_guard_line

    table = pd.DataFrame({"dataset": ["cifar", "iris"], "peak_gb": [20.5, 0.3]})
    assert memory_guard_line(table, ExecutionConfig(memory_limit_gb=4), 2) == (
        "Memory guard: 4.0 GB per dataset (execution.memory_limit_gb 4); a run skips 1 dataset(s) before loading: cifar.")
    assert memory_guard_line(table, ExecutionConfig(memory_limit_gb=64), 2).endswith("no dataset is over it.")
    assert memory_guard_line(table, ExecutionConfig(scheduler="tcp://h:8786"), 2).startswith("Memory guard: no limit")


def test_worker_progress_files_and_the_text_beside_the_stage_bar(tmp_path):
    from benchirt.data import DatasetSpec
    from benchirt.pipeline.progress import StagePostfix, progress_writer, read_progress
    from benchirt.pipeline.respond_stage import respond_dataset

    class Bar:
        postfix = ""

        def set_postfix_str(self, text, refresh=True):
            self.postfix = text

    folder = tmp_path / ".progress"
    bar = Bar()
    with StagePostfix(bar, folder, interval=60) as postfix:
        write = progress_writer(folder / "a.json", every=3600)
        write(1, 13)
        write(2, 13)  # within the interval: not written
        assert read_progress(folder) == {"a": (1, 13)}
        config = ResponseConfig(pool=("gaussian_nb", "knn_3"), cv_folds=3, ladder_epochs=2, artificial=False)
        respond_dataset(DatasetSpec("iris", "builtin", "iris"), config, False, str(folder / "iris.json"))
        assert read_progress(folder) == {"a": (1, 13), "iris": (2 * 4 + 1, 2 * 4 + 1)}  # the end is always written
        (folder / "broken.json").write_text("{")
        postfix.eta = "ETA 2.0 min"
        assert postfix.text() == "a 1/13 · iris 9/9 fits | ETA 2.0 min"
        postfix.done("iris", eta="ETA 1.0 min")
        assert bar.postfix == "a 1/13 fits | ETA 1.0 min"
    assert not folder.exists()
    progress_writer(tmp_path / "missing" / "x.json")(1, 1)  # no folder on this worker: dropped, no error


@pytest.mark.heavy
def test_a_parallel_run_with_progress_leaves_no_progress_folder(tmp_path, capsys):
    frame = _frame(60)
    for name in ("p", "q"):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    options = {"suite": ["p.csv", "q.csv"], "stages": ["respond"],
               "responses": {"cv_folds": 3, "ladder_epochs": 0, "pool": ["gaussian_nb"]}, "execution": {"n_jobs": 2}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(options))
    outcome = run_pipeline(load_config(str(tmp_path / "c.yaml")), out=tmp_path / "run")
    assert outcome.exit_code == 0 and not (tmp_path / "run" / ".progress").exists()
    assert "ETA of the response and IRT stages" in capsys.readouterr().err


def test_offline_the_memory_guard_prices_cc18_datasets_from_the_recorded_shapes(monkeypatch, tmp_path):
    import openml

    from benchirt.data import DatasetSpec
    from benchirt.data import openml_source
    from benchirt.errors import OpenMLUnavailableError
    from benchirt.pipeline.preflight import checker

    asked = []

    def unreachable(spec):
        asked.append(spec.name)
        raise OpenMLUnavailableError("OpenML cannot be reached")

    monkeypatch.setattr(openml_source, "openml_shape", unreachable)
    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    openml.config.set_root_cache_directory(str(tmp_path))
    specs = [DatasetSpec("CIFAR_10", "openml", "40927"), DatasetSpec("kr-vs-kp", "openml", "3")]
    config = ResponseConfig(pool=("gaussian_nb",), ladder_epochs=0)
    check = checker(specs, config, 1e9, TOY_MODEL, limit_source="a 1 GB test limit")
    cifar, kr = check("CIFAR_10"), check("kr-vs-kp")
    assert asked == ["CIFAR_10"]  # the server is asked once
    assert cifar.shape == Shape(60000, 3072, 10, "recorded table (OpenML unreachable)")
    assert cifar.skip_reason.startswith("memory guard: 60000 rows x 3072 features (recorded table (OpenML unreachable))")
    assert kr.shape.rows == 3196 and kr.skip_reason is None

"""OpenML source, tested against faked openml-python responses (no network here)."""
from __future__ import annotations

from types import SimpleNamespace

import openml
import pandas as pd
import pytest
import requests
from openml.exceptions import OpenMLServerException

from benchirt.data import DatasetSpec, resolve_suite, set_openml_cache
from benchirt.data import openml_source
from benchirt.errors import DataError, OpenMLUnavailableError


@pytest.fixture(autouse=True)
def own_openml_cache(monkeypatch, tmp_path):
    """Each test gets an empty openml cache (benchirt caches suite listings there)."""
    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    set_openml_cache(tmp_path / "openml-cache")


class FakeDataset:
    """What ``openml.datasets.get_dataset`` returns, for the attributes benchirt reads."""

    def __init__(self, did, name, frame=None, target="class", version=2, ignore=None, row_id=None):
        self.dataset_id, self.name, self.version = did, name, version
        self.default_target_attribute = target
        self.ignore_attribute, self.row_id_attribute = ignore, row_id
        self.frame = frame
        self.parquet_file = None  # an ARFF-only dataset: read through get_data (parquet: tests/test_data_compact.py)
        self.calls = []

    def get_data(self, target=None, include_row_id=False, include_ignore_attribute=False,
                 dataset_format="dataframe"):
        self.calls.append(dict(target=target, include_row_id=include_row_id,
                               include_ignore_attribute=include_ignore_attribute))
        frame = self.frame.copy()
        return frame, None, [isinstance(frame[c].dtype, pd.CategoricalDtype) for c in frame], list(frame.columns)


def credit_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "row": [10, 11, 12, 13],
        "checking_status": pd.Categorical(["<0", ">=200", "<0", "no checking"],
                                          categories=["<0", "0<=X<200", ">=200", "no checking"]),
        "duration": [6.0, 48.0, 12.0, 42.0],
        "noise": ["a", "b", "c", "d"],
        "class": pd.Categorical(["good", "bad", "good", "good"]),
    })


@pytest.fixture()
def fake_openml(monkeypatch):
    """Fake suite 99 (tasks 3 and 31), datasets 3 and 31, task 31; records the calls."""
    calls = SimpleNamespace(suites=[], datasets=[], listed=[])
    datasets = {
        3: FakeDataset(3, "kr-vs-kp", version=1),
        31: FakeDataset(31, "credit-g", credit_frame(), ignore=["noise"], row_id="row"),
    }

    def get_suite(suite_id):
        calls.suites.append(suite_id)
        return SimpleNamespace(tasks=[31, 3], data=[3, 31])

    def list_tasks(task_id=None, output_format="dict", **_):
        calls.listed.append(list(task_id))
        return pd.DataFrame({"tid": [3, 31], "did": [3, 31], "name": ["kr-vs-kp", "credit-g"],
                             "target_feature": ["class", "class"]})

    def get_dataset(dataset_id, download_data=False, **_):
        calls.datasets.append((dataset_id, download_data))
        if dataset_id not in datasets:
            raise OpenMLServerException("Unknown dataset", code=111, url="https://www.openml.org/api/v1/data")
        return datasets[dataset_id]

    def get_task(task_id, download_splits=False, **_):
        return SimpleNamespace(task_id=task_id, dataset_id=31, target_name="class")

    monkeypatch.setattr(openml.study, "get_suite", get_suite)
    monkeypatch.setattr(openml.tasks, "list_tasks", list_tasks)
    monkeypatch.setattr(openml.tasks, "get_task", get_task)
    monkeypatch.setattr(openml.datasets, "get_dataset", get_dataset)
    openml_source.dataset_version.cache_clear()
    yield calls
    openml_source.dataset_version.cache_clear()


@pytest.mark.parametrize("form", ["OpenML-CC18", "openml-cc18", 99, "99", "openml:99", {"openml_suite": 99}])
def test_cc18_forms_ask_for_suite_99(fake_openml, form):
    specs = resolve_suite(form)
    assert fake_openml.suites == [99]
    assert [(s.name, s.openml_id, s.task_id, s.target, s.kind) for s in specs] == [
        ("credit-g", 31, 31, "class", "openml"), ("kr-vs-kp", 3, 3, "class", "openml")]  # suite task order
    assert fake_openml.listed == [[31, 3]]


def test_other_aliases_go_to_openml_unchanged(fake_openml):
    resolve_suite("openml:OpenML100")
    assert fake_openml.suites == ["OpenML100"]


def test_load_drops_row_id_and_ignored_attributes_and_keeps_categories(fake_openml):
    spec = resolve_suite("openml-dataset:31")[0]
    assert (spec.name, spec.location, spec.openml_id, spec.target) == ("credit-g", "31", 31, None)
    ds = spec.load()
    assert list(ds.X.columns) == ["checking_status", "duration"]
    assert ds.extra["dropped_columns"] == {"noise": "ignored attribute", "row": "ignored attribute"}
    assert list(ds.X["checking_status"].cat.categories) == ["<0", "0<=X<200", ">=200", "no checking"]
    assert ds.y.tolist() == ["good", "bad", "good", "good"]
    assert (ds.openml_id, ds.source, ds.extra["openml_version"]) == (31, "openml:31", 2)
    assert (31, True) in fake_openml.datasets


def test_task_spec_takes_the_tasks_target(fake_openml):
    (spec,) = resolve_suite({"openml_tasks": [31]})
    assert (spec.name, spec.openml_id, spec.task_id, spec.target) == ("credit-g", 31, 31, "class")


def test_explicit_target_overrides_the_default(fake_openml):
    (spec,) = resolve_suite({"openml_datasets": [31], "target": "checking_status"})
    ds = spec.load()
    assert "class" in ds.X.columns and ds.extra["target"] == "checking_status"


def test_fingerprint_uses_the_openml_version(fake_openml):
    assert DatasetSpec(name="credit-g", kind="openml", location="31").fingerprint() == "openml:31:2"


def test_fingerprint_when_openml_is_unreachable(monkeypatch):
    openml_source.dataset_version.cache_clear()

    def offline(*_, **__):
        raise requests.exceptions.ConnectionError("Failed to resolve 'www.openml.org'")

    monkeypatch.setattr(openml.datasets, "get_dataset", offline)
    assert DatasetSpec(name="x", kind="openml", location="40").fingerprint() == "openml:40:unknown"
    openml_source.dataset_version.cache_clear()


@pytest.mark.parametrize("form", ["OpenML-CC18", "openml-dataset:31", "openml-task:31"])
def test_unreachable_openml_names_the_offline_options(monkeypatch, form):
    def offline(*_, **__):
        raise requests.exceptions.ConnectionError("Failed to resolve 'www.openml.org'")

    for module, name in ((openml.study, "get_suite"), (openml.datasets, "get_dataset"), (openml.tasks, "get_task")):
        monkeypatch.setattr(module, name, offline)
    with pytest.raises(OpenMLUnavailableError) as info:
        resolve_suite(form)
    message = str(info.value)
    assert "cannot be reached" in message
    for option in ("'embedded'", "'cc18-offline'", "'builtin'", "folder PATH"):
        assert option in message
    assert "--suite" not in message  # no command has such a flag


def test_unreachable_openml_at_load_time(monkeypatch):
    def offline(*_, **__):
        raise requests.exceptions.Timeout("read timed out")

    monkeypatch.setattr(openml.datasets, "get_dataset", offline)
    with pytest.raises(OpenMLUnavailableError, match="dataset 31"):
        DatasetSpec(name="credit-g", kind="openml", location="31").load()


def test_unknown_dataset_id_is_a_data_error_naming_the_id_and_offline_options(fake_openml):
    with pytest.raises(DataError) as info:
        resolve_suite("openml-dataset:999999")
    assert not isinstance(info.value, OpenMLUnavailableError)
    assert "dataset 999999" in str(info.value) and "Unknown dataset" in str(info.value)
    assert "'cc18-offline'" in str(info.value)


def test_dataset_without_a_default_target(fake_openml):
    ds = openml.datasets.get_dataset(31)
    ds.default_target_attribute = None
    with pytest.raises(DataError, match="no single default target"):
        DatasetSpec(name="credit-g", kind="openml", location="31").load()


def test_suite_with_two_tasks_on_same_named_datasets_gets_unique_names(monkeypatch):
    monkeypatch.setattr(openml.study, "get_suite", lambda sid: SimpleNamespace(tasks=[1, 2], data=[5, 6]))
    monkeypatch.setattr(openml.tasks, "list_tasks", lambda **_: pd.DataFrame(
        {"tid": [1, 2], "did": [5, 6], "name": ["adult", "adult"]}))
    specs = resolve_suite("openml:7")
    assert [s.name for s in specs] == ["adult", "adult-6"]
    assert all(s.target is None for s in specs)


def test_empty_suite(monkeypatch):
    monkeypatch.setattr(openml.study, "get_suite", lambda sid: SimpleNamespace(tasks=None, data=None))
    with pytest.raises(DataError, match="lists no tasks"):
        resolve_suite("openml:7")


def test_cache_directory_is_configurable(fake_openml, monkeypatch, tmp_path):
    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    set_openml_cache(tmp_path / "cache")
    assert openml.config._root_cache_directory == tmp_path / "cache"
    resolve_suite({"openml_suite": "OpenML-CC18", "cache": str(tmp_path / "other")})
    assert openml.config._root_cache_directory == tmp_path / "other"

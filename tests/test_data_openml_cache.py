"""The real openml-python code path, offline, on openml-python's own fixtures (../shared/data/openml-cache).

anneal is dataset 2 and task 1882 there. openml writes into its cache, so each test works on a copy.
"""
from __future__ import annotations

import shutil
import warnings
from types import SimpleNamespace

import openml
import pandas as pd
import pytest

from benchirt.data import resolve_suite
from benchirt.data import openml_source
from benchirt.data.openml_specs import OfflineListingWarning, suite_listing_path
from benchirt.errors import OpenMLUnavailableError


@pytest.fixture
def cache(shared_data, tmp_path, monkeypatch):
    """A copy of the fixture cache, made openml's cache for the test; one try per unreachable request."""
    copy = tmp_path / "openml-cache"
    shutil.copytree(shared_data / "openml-cache", copy)
    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    monkeypatch.setattr(openml.config, "connection_n_retries", 1)
    openml_source.dataset_version.cache_clear()
    yield copy
    openml_source.dataset_version.cache_clear()


def test_task_1882_resolves_and_loads_anneal_from_the_cache(cache):
    [spec] = resolve_suite({"openml_tasks": [1882], "cache": str(cache)})
    assert (spec.name, spec.openml_id, spec.task_id, spec.target) == ("anneal", 2, 1882, "class")
    assert spec.openml_cache == str(cache.resolve())  # travels to the workers with the spec
    assert spec.fingerprint() == "openml:2:1;target=class"
    dataset = spec.load()
    assert dataset.n_instances == 898 and dataset.y.nunique() == 5
    assert dataset.source == "openml:2"


def _pretend_online(monkeypatch):
    """The server's answers for a one-task suite, built from the real cached task (as get_suite/list_tasks give)."""
    task = openml.tasks.get_task(1882, download_splits=False)
    name = openml.datasets.get_dataset(task.dataset_id, download_data=False).name
    listing = pd.DataFrame({"tid": [task.task_id], "did": [task.dataset_id], "name": [name],
                            "target_feature": [task.target_name]})
    online = pytest.MonkeyPatch()
    online.setattr(openml.study, "get_suite", lambda sid: SimpleNamespace(tasks=[1882]))
    online.setattr(openml.tasks, "list_tasks", lambda **_: listing)
    return online


def test_a_suite_resolved_once_online_runs_offline(cache, monkeypatch):
    openml_source.set_openml_cache(cache)
    with pytest.raises(OpenMLUnavailableError, match="no listing of suite 99 cached"):
        resolve_suite("OpenML-CC18")  # the real openml call: no network here, nothing cached yet
    online = _pretend_online(monkeypatch)
    online_specs = resolve_suite({"openml_suite": 99, "cache": str(cache)})
    online.undo()
    assert suite_listing_path(99).is_file() and suite_listing_path(99).is_relative_to(cache)
    with pytest.warns(OfflineListingWarning, match="suite 99 is read from the listing benchirt cached on"):
        offline_specs = resolve_suite({"openml_suite": 99, "cache": str(cache)})
    assert offline_specs == online_specs
    assert [(s.name, s.task_id, s.target) for s in offline_specs] == [("anneal", 1882, "class")]
    assert offline_specs[0].load().n_instances == 898


@pytest.mark.heavy
def test_dask_worker_reads_the_drivers_cache(cache, tmp_path, monkeypatch):
    """The worker processes start with openml's default cache; the spec tells them where the data are."""
    from benchirt.pipeline import load_config, run_pipeline

    config = load_config({
        "suite": {"openml_tasks": [1882], "cache": str(cache)}, "stages": ["respond"],
        "responses": {"cv_folds": 2, "ladder_epochs": 0, "pool": ["gaussian_nb"], "artificial": False},
        "execution": {"backend": "dask", "n_jobs": 1},
    })
    monkeypatch.setenv("OPENML_CACHE_DIR", str(tmp_path / "empty-default-cache"))  # what a fresh worker has
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = run_pipeline(config, out=tmp_path / "run", show_progress=False)
    entry = outcome.manifest.datasets["anneal"]["respond"]
    assert entry["status"] == "computed", entry.get("reason")
    assert outcome.manifest.executor.startswith("dask LocalCluster")

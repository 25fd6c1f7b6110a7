"""Suite files (round trip) and OpenML publishing against a faked openml API."""
from __future__ import annotations

import logging

import openml
import pandas as pd
import pytest

from benchirt.data import resolve_suite
from benchirt.data.spec import DatasetSpec
from benchirt.errors import ConfigError, DataError, OpenMLUnavailableError
from benchirt.subsets import export
from benchirt.subsets.export import (
    export_suite, find_task_id, publish_suite, read_dataset_ids, resolve_api_key, subset_specs,
)

KEY = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_suite_file_round_trip(tmp_path, suffix):
    data = tmp_path / "mine.csv"
    data.write_text("x,y\n1,a\n2,b\n")
    suite = [
        DatasetSpec("kc2", "openml", "1063", openml_id=1063, task_id=3913),
        DatasetSpec("mine", "file", str(data), target="y"),
        DatasetSpec("wdbc", "builtin", "breast_cancer", openml_id=1510),
    ]
    specs, missing = subset_specs(["mine", "kc2"], suite=suite)
    assert missing == [] and [s.name for s in specs] == ["mine", "kc2"]
    path = export_suite("decodirt-50", specs, tmp_path / "suites" / f"s.{suffix}", description="half")
    back = resolve_suite(str(path))
    assert back == specs


def test_specs_from_ids_and_missing_sources(tmp_path):
    csv = tmp_path / "manifest.csv"
    pd.DataFrame({"openml_did": [1063, 1462], "name": ["kc2", "banknote-authentication"], "file": ["a", "b"]}).to_csv(
        csv, index=False)
    ids = read_dataset_ids(csv)
    specs, missing = subset_specs(["banknote-authentication", "unknown"], suite=None, ids=ids)
    assert specs == [DatasetSpec("banknote-authentication", "openml", "1462", openml_id=1462)]
    assert missing == ["unknown"]
    # ids complete a spec of the suite that lacks them
    suite = [DatasetSpec("kc2", "file", "/x/kc2.arff")]
    (spec,), _ = subset_specs(["kc2"], suite=suite, ids=ids)
    assert spec.location == "/x/kc2.arff" and spec.openml_id == 1063
    path = export_suite("s", specs, tmp_path / "s.yaml")
    assert read_dataset_ids(path).loc["banknote-authentication", "openml_id"] == 1462


def test_id_table_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("openml_id\n3\n")
    with pytest.raises(DataError, match="'name'"):
        read_dataset_ids(bad)
    with pytest.raises(DataError, match="cannot read the dataset id table"):
        read_dataset_ids(tmp_path / "missing.csv")


class FakeSuite:
    def __init__(self, calls, **kwargs):
        self.kwargs, self.calls, self.study_id = kwargs, calls, None

    def publish(self):
        self.calls.append({"apikey": openml.config.apikey, **self.kwargs})
        logging.getLogger("openml").info("published suite %s", self.kwargs["name"])
        self.study_id = 4242
        return self


@pytest.fixture
def fake_openml(monkeypatch):
    calls, lookups = [], []

    def create_benchmark_suite(name, description, task_ids, alias=None):
        return FakeSuite(calls, name=name, description=description, task_ids=list(task_ids), alias=alias)

    def list_tasks(task_type=None, output_format="dict", **filters):
        lookups.append(filters)
        return pd.DataFrame({
            "tid": [70, 59, 61],
            "did": [filters["data_id"]] * 3,
            "estimation_procedure": ["33% Holdout set", "10-fold Crossvalidation", "10-fold Crossvalidation"],
            "status": ["active", "active", "deactivated"],
        })

    monkeypatch.setattr(openml.study, "create_benchmark_suite", create_benchmark_suite)
    monkeypatch.setattr(openml.tasks, "list_tasks", list_tasks)
    monkeypatch.setattr(openml.config, "apikey", "")
    monkeypatch.delenv("OPENML_APIKEY", raising=False)
    return calls, lookups


def test_publish_sends_the_task_ids_and_never_leaks_the_key(fake_openml, monkeypatch, tmp_path, caplog, capsys):
    calls, lookups = fake_openml
    monkeypatch.setenv("OPENML_APIKEY", KEY)
    caplog.set_level(logging.DEBUG)
    entries = [DatasetSpec("kc2", "openml", "1063", openml_id=1063, task_id=3913),
               DatasetSpec("pc1", "openml", "1068", openml_id=1068)]
    suite_id = publish_suite("decodirt-50", entries, description="half of CC18")
    assert suite_id == 4242
    # the task id is used where known; pc1's is looked up: active, 10-fold CV first, then lowest tid
    assert calls[0]["task_ids"] == [3913, 59] and lookups == [{"data_id": 1068}]
    assert calls[0]["name"] == "decodirt-50" and calls[0]["description"] == "half of CC18"
    assert calls[0]["apikey"] == KEY          # the key reached openml during the call ...
    assert openml.config.apikey == ""         # ... and is gone afterwards
    export_suite("decodirt-50", entries, tmp_path / "decodirt-50.yaml")
    written = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert KEY not in written
    assert all(KEY not in record.getMessage() for record in caplog.records)
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err


def test_server_error_message_is_scrubbed(fake_openml, monkeypatch, caplog):
    def failing_publish(self):
        raise RuntimeError(f"server said: bad request for api_key={KEY}")

    monkeypatch.setattr(FakeSuite, "publish", failing_publish)
    with pytest.raises(OpenMLUnavailableError) as info:
        publish_suite("s", [{"name": "kc2", "task_id": 3913}], api_key=KEY)
    assert KEY not in str(info.value) and "***" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert openml.config.apikey == ""


def test_key_from_openml_config(fake_openml, monkeypatch):
    calls, _ = fake_openml
    monkeypatch.setattr(openml.config, "apikey", "from-config-file")
    assert resolve_api_key() == "from-config-file"
    publish_suite("s", [{"name": "kc2", "task_id": 3913}])
    assert calls[0]["apikey"] == "from-config-file"


def test_publish_without_key_or_ids(fake_openml):
    calls, _ = fake_openml
    with pytest.raises(ConfigError, match="OPENML_APIKEY"):
        publish_suite("s", [{"name": "kc2", "task_id": 3913}])
    with pytest.raises(DataError, match="mine.*no OpenML task or dataset id"):
        publish_suite("s", [{"name": "mine"}], api_key=KEY)
    with pytest.raises(DataError, match="pc1.*no OpenML task id"):
        publish_suite("s", [{"name": "pc1", "openml_id": 1068}], api_key=KEY, lookup_tasks=False)
    assert calls == []


def test_dataset_without_classification_task(fake_openml, monkeypatch):
    monkeypatch.setattr(openml.tasks, "list_tasks", lambda **kwargs: pd.DataFrame())
    with pytest.raises(DataError, match="OpenML dataset 1068 has no classification task"):
        publish_suite("s", [{"name": "pc1", "openml_id": 1068}], api_key=KEY)


def test_find_task_id_prefers_active_ten_fold(fake_openml):
    assert find_task_id(31) == 59
    assert export.APIKEY_ENV == "OPENML_APIKEY"

"""Artifact store and result serialisation: round trips, keys, atomicity, trust only complete artifacts."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import BenchirtError
from benchirt.pipeline import serialize
from benchirt.pipeline.store import MARKER, ArtifactStore, artifact_key
from pipeline_fakes import FakeResult, square_table


@dataclass(frozen=True)
class Nested:
    inner: FakeResult
    labels: tuple
    odd: object
    ratios: pd.DataFrame


def test_dataclass_round_trip_keeps_types_and_values(tmp_path):
    result = square_table("wine", 7)
    frame_with_int_columns = pd.DataFrame(np.eye(3), columns=[0, 1, 2])  # parquet refuses: pickled
    original = Nested(result, ("a", "b"), {1: "non-string key"}, frame_with_int_columns)
    serialize.dump(original, tmp_path / "r")
    back = serialize.load(tmp_path / "r")
    assert type(back) is Nested and type(back.inner) is FakeResult
    pd.testing.assert_frame_equal(back.inner.table, result.table)
    assert back.inner.table.dtypes.eq("int8").all()
    pd.testing.assert_series_equal(back.inner.column, result.column)
    np.testing.assert_array_equal(back.inner.values, result.values)
    assert back.inner.summary == {"n": 7, "square": 49.0}
    assert back.labels == ("a", "b") and back.odd == {1: "non-string key"}
    pd.testing.assert_frame_equal(back.ratios, frame_with_int_columns)
    # readable formats on disk for a user, not one opaque pickle
    assert (tmp_path / "r" / "inner" / "table.parquet").is_file()
    assert json.loads((tmp_path / "r" / "inner" / "fields.json").read_text())["summary"]["n"] == 7


def test_numpy_scalars_in_dicts_become_json_numbers(tmp_path):
    result = square_table("x", 2)
    result.summary = {"n": np.int64(3), "share": np.float32(0.5), "flag": np.bool_(True)}
    serialize.dump(result, tmp_path / "r")
    assert serialize.load(tmp_path / "r").summary == {"n": 3, "share": 0.5, "flag": True}


def test_key_changes_with_options_and_inputs_only():
    base = artifact_key("irt", {"model": "3PL"}, {"responses": "abc"})
    assert base == artifact_key("irt", {"model": "3PL"}, {"responses": "abc"})
    assert base != artifact_key("irt", {"model": "2PL"}, {"responses": "abc"})
    assert base != artifact_key("irt", {"model": "3PL"}, {"responses": "abd"})
    assert base != artifact_key("respond", {"model": "3PL"}, {"responses": "abc"})
    assert len(base) == 64


def test_save_then_load_and_marker(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    assert not store.has("respond", "iris", key)
    path = store.save("respond", "iris", key, square_table("iris", 3), info={"seconds": 1.5})
    assert store.has("respond", "iris", key)
    assert store.load("respond", "iris", key).summary["n"] == 3
    marker = json.loads((path / MARKER).read_text())
    assert marker["key"] == key and marker["status"] == "ok" and marker["seconds"] == 1.5
    assert not any(p.name.startswith(".tmp-") for p in path.parent.iterdir())


def test_reader_trusts_no_folder_without_marker_or_with_another_key(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    path = store.save("respond", "iris", key, square_table("iris", 3))
    (path / MARKER).unlink()  # as if the writer died before the marker
    assert not store.has("respond", "iris", key)
    with pytest.raises(BenchirtError, match="no complete respond artifact"):
        store.load("respond", "iris", key)
    (path / MARKER).write_text(json.dumps({"key": "0" * 64}))  # a folder from another key
    assert not store.has("respond", "iris", key)
    (path / MARKER).write_text('{"key": "trunc')  # a truncated marker
    assert not store.has("respond", "iris", key)


def test_failed_write_leaves_nothing_and_old_artifact_survives(tmp_path, monkeypatch):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    store.save("respond", "iris", key, square_table("iris", 3))

    def explode(obj, directory):
        (directory / "half.parquet").mkdir(parents=True)
        raise KeyboardInterrupt  # e.g. Ctrl-C in the middle of a forced rewrite

    monkeypatch.setattr(serialize, "dump", explode)
    with pytest.raises(KeyboardInterrupt):
        store.save("respond", "iris", key, square_table("iris", 4))
    monkeypatch.undo()
    assert store.load("respond", "iris", key).summary["n"] == 3
    assert [p.name for p in store.path("respond", "iris", key).parent.iterdir() if p.name.startswith(".tmp")] == []


def test_forced_rewrite_replaces_and_leftover_temporaries_are_cleaned(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    store.save("respond", "iris", key, square_table("iris", 3))
    store.save("respond", "iris", key, square_table("iris", 5))
    assert store.load("respond", "iris", key).summary["n"] == 5
    leftover = store.artifacts / "respond" / ".tmp-iris-deadbeef-1234"
    leftover.mkdir()
    (leftover / "responses.parquet").write_bytes(b"PAR1 half")
    assert store.clean_temporary() == 1 and not leftover.exists()


def test_skip_record_is_complete_but_not_loadable(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    store.save("respond", "one-class", key, status="skipped", reason="a single class")
    assert store.has("respond", "one-class", key)
    with pytest.raises(BenchirtError, match="skipped: a single class"):
        store.load("respond", "one-class", key)


def test_odd_dataset_names_make_safe_folders(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    path = store.save("respond", "../evil/name: x", key, square_table("x", 1))
    assert path.parent == store.artifacts / "respond"
    assert store.has("respond", "../evil/name: x", key)


def test_a_run_directory_in_use_is_refused_until_released(tmp_path):
    first, second = ArtifactStore(tmp_path), ArtifactStore(tmp_path)
    first.lock()
    with pytest.raises(BenchirtError, match="in use by another benchirt run"):
        second.lock()
    first.unlock()
    second.lock()
    second.unlock()

"""Artifact store and result serialisation: round trips, keys, atomicity, trust only complete artifacts."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import ArtifactError, BenchirtError
from benchirt.pipeline import fingerprint, serialize
from benchirt.pipeline.artifact_types import register
from benchirt.pipeline.store import MARKER, ArtifactStore, artifact_key
from pipeline_fakes import FakeResult, square_table


@register
@dataclass(frozen=True)
class Nested:
    inner: FakeResult
    labels: tuple
    odd: object
    ratios: pd.DataFrame
    by_name: dict
    missing: float = float("nan")


def test_dataclass_round_trip_keeps_types_and_values(tmp_path):
    result = square_table("wine", 7)
    frame_with_int_columns = pd.DataFrame(np.eye(3), columns=[0, 1, 2])  # parquet needs string labels
    by_name = {"wine": square_table("wine", 2), "iris": pd.DataFrame({("a", 1): [1.0], ("a", 2): [2.0]})}
    original = Nested(result, ("a", "b"), {1: "non-string key", (2, "x"): [("t", 1)]}, frame_with_int_columns, by_name)
    serialize.dump(original, tmp_path / "r")
    back = serialize.load(tmp_path / "r")
    assert type(back) is Nested and type(back.inner) is FakeResult
    pd.testing.assert_frame_equal(back.inner.table, result.table)
    assert back.inner.table.dtypes.eq("int8").all()
    pd.testing.assert_series_equal(back.inner.column, result.column)
    np.testing.assert_array_equal(back.inner.values, result.values)
    assert back.inner.summary == {"n": 7, "square": 49.0}
    assert back.labels == ("a", "b") and back.odd == {1: "non-string key", (2, "x"): [("t", 1)]}
    pd.testing.assert_frame_equal(back.ratios, frame_with_int_columns)
    assert list(back.by_name) == ["wine", "iris"] and back.by_name["wine"].summary == {"n": 2, "square": 4.0}
    pd.testing.assert_frame_equal(back.by_name["iris"], by_name["iris"])
    assert np.isnan(back.missing)
    # readable formats on disk for a user; no pickle anywhere
    assert (tmp_path / "r" / "inner" / "table.parquet").is_file()
    assert json.loads((tmp_path / "r" / "inner" / "fields.json").read_text())["summary"]["n"] == 7
    suffixes = {p.suffix for p in (tmp_path / "r").rglob("*") if p.is_file()}
    assert suffixes <= {".parquet", ".npy", ".json"}


class Opaque:
    pass


@pytest.mark.parametrize(
    "value, message",
    [
        (Opaque(), "cannot store field 'odd': a test_pipeline_store.Opaque has no parquet, JSON or npy form"),
        (np.array([object()], dtype=object), "cannot store field 'odd': a numpy.ndarray has no parquet"),
        ({frozenset(): 1}, "cannot store field 'odd': label frozenset() is not a string, number or tuple of them"),
    ],
)
def test_a_field_without_a_storable_form_fails_at_dump_time(tmp_path, value, message):
    original = Nested(square_table("x", 1), (), value, pd.DataFrame(), {})
    with pytest.raises(TypeError) as info:
        serialize.dump(original, tmp_path / "r")
    assert str(info.value).startswith(message)


def test_unregistered_dataclass_is_refused_at_dump_time(tmp_path):
    @dataclass
    class Stray:
        x: int = 1

    with pytest.raises(TypeError, match="is not a registered benchirt result type"):
        serialize.dump(Stray(), tmp_path / "r")


def test_a_type_name_read_from_disk_is_never_imported(tmp_path):
    serialize.dump(square_table("x", 1), tmp_path / "r")
    type_file = tmp_path / "r" / serialize.TYPE_FILE
    meta = json.loads(type_file.read_text())
    meta["class"] = "os:system"
    type_file.write_text(json.dumps(meta))
    with pytest.raises(ArtifactError) as info:
        serialize.load(tmp_path / "r")
    assert "names type 'os:system', which is not a benchirt result type" in str(info.value)
    meta["class"], meta["fields"]["summary"] = "pipeline_fakes:FakeResult", "pickle"
    type_file.write_text(json.dumps(meta))
    with pytest.raises(ArtifactError, match="field 'summary' has unknown kind 'pickle' \\(benchirt stores no pickles\\)"):
        serialize.load(tmp_path / "r")


def test_tampered_artifact_is_refused(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    path = store.save("respond", "iris", key, result=square_table("iris", 3))
    store.verify("respond", "iris", key)
    (path / "result" / "comparisons.pkl").write_bytes(b"cos\nsystem\n(S'touch pwned'\ntR.")
    with pytest.raises(ArtifactError) as info:
        store.load("respond", "iris", key)
    assert str(info.value) == (f"{path}: refused — comparisons.pkl changed after benchirt wrote the artifact; "
                               "delete the folder or rerun with --force to recompute it")
    (path / "result" / "comparisons.pkl").unlink()
    (path / "result" / "table.parquet").write_bytes(b"PAR1 not the bytes benchirt wrote")
    with pytest.raises(ArtifactError, match="refused — table.parquet changed"):
        store.load("respond", "iris", key)
    assert not (tmp_path / "pwned").exists()


def test_numpy_scalars_in_dicts_become_json_numbers(tmp_path):
    result = square_table("x", 2)
    result.summary = {"n": np.int64(3), "share": np.float32(0.5), "flag": np.bool_(True)}
    serialize.dump(result, tmp_path / "r")
    assert serialize.load(tmp_path / "r").summary == {"n": 3, "share": 0.5, "flag": True}


def test_key_changes_with_options_inputs_and_code(monkeypatch):
    base = artifact_key("irt", {"model": "3PL"}, {"responses": "abc"})
    assert base == artifact_key("irt", {"model": "3PL"}, {"responses": "abc"})
    assert base != artifact_key("irt", {"model": "2PL"}, {"responses": "abc"})
    assert base != artifact_key("irt", {"model": "3PL"}, {"responses": "abd"})
    assert base != artifact_key("respond", {"model": "3PL"}, {"responses": "abc"})
    assert len(base) == 64
    digests = dict(fingerprint.code_digests("irt"))
    assert "irt/estimation.py" in digests and "errors.py" in digests and "rating/glicko.py" not in digests
    edited = tuple((f, "0" * 16 if f == "irt/estimation.py" else d) for f, d in digests.items())
    monkeypatch.setattr(fingerprint, "code_digests", lambda stage: edited if stage == "irt" else ())
    assert base != artifact_key("irt", {"model": "3PL"}, {"responses": "abc"})
    monkeypatch.undo()
    monkeypatch.setattr(fingerprint, "library_versions", lambda: (("numpy", "0.0"),))
    assert base != artifact_key("irt", {"model": "3PL"}, {"responses": "abc"})


def test_changes_name_what_differs():
    old = {"options": "a", "inputs": "b", "code": {"irt/estimation.py": "1", "irt/fit.py": "2"},
           "libraries": {"numpy": "2.3.0"}, "schema": 2, "benchirt": "0.1.0"}
    assert fingerprint.changes(old, dict(old)) == []
    new = {**old, "code": {"irt/estimation.py": "9", "irt/fit.py": "2"}, "libraries": {"numpy": "2.4.0"}}
    assert fingerprint.changes(old, new) == [
        "the code changed (benchirt/irt/estimation.py)", "library versions changed (numpy 2.3.0 -> 2.4.0)"]
    assert fingerprint.changes(old, {**old, "options": "z", "inputs": "y"}) == ["its options changed", "its input changed"]


def test_save_then_load_and_marker(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    assert not store.has("respond", "iris", key)
    path = store.save("respond", "iris", key, result=square_table("iris", 3), info={"seconds": 1.5})
    assert store.has("respond", "iris", key)
    assert store.load("respond", "iris", key).summary["n"] == 3
    marker = json.loads((path / MARKER).read_text())
    assert marker["key"] == key and marker["status"] == "ok" and marker["seconds"] == 1.5
    assert not any(p.name.startswith(".tmp-") for p in path.parent.iterdir())


def test_reader_trusts_no_folder_without_marker_or_with_another_key(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    path = store.save("respond", "iris", key, result=square_table("iris", 3))
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
    store.save("respond", "iris", key, result=square_table("iris", 3))

    def explode(obj, directory):
        (directory / "half.parquet").mkdir(parents=True)
        raise KeyboardInterrupt  # e.g. Ctrl-C in the middle of a forced rewrite

    monkeypatch.setattr(serialize, "dump", explode)
    with pytest.raises(KeyboardInterrupt):
        store.save("respond", "iris", key, result=square_table("iris", 4))
    monkeypatch.undo()
    assert store.load("respond", "iris", key).summary["n"] == 3
    assert [p.name for p in store.path("respond", "iris", key).parent.iterdir() if p.name.startswith(".tmp")] == []


def test_forced_rewrite_replaces_and_leftover_temporaries_are_cleaned(tmp_path):
    store = ArtifactStore(tmp_path)
    key = artifact_key("respond", {}, "fp")
    store.save("respond", "iris", key, result=square_table("iris", 3))
    store.save("respond", "iris", key, result=square_table("iris", 5))
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
    path = store.save("respond", "../evil/name: x", key, result=square_table("x", 1))
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


def test_editing_a_constant_in_a_copy_of_the_source_changes_only_that_stages_key(tmp_path):
    import shutil
    import subprocess
    import sys

    import benchirt

    shutil.copytree(Path(benchirt.__file__).parent, tmp_path / "benchirt", ignore=shutil.ignore_patterns("__pycache__"))
    probe = ("from benchirt.pipeline.store import artifact_key; "
             "print(artifact_key('irt', {}, 'in'), artifact_key('respond', {}, 'in'))")

    def keys():
        env = {**os.environ, "PYTHONPATH": str(tmp_path)}
        return subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True,
                              check=True).stdout.split()

    irt_before, respond_before = keys()
    source = tmp_path / "benchirt" / "irt" / "estimation.py"
    source.write_text(source.read_text() + "\nEDITED_CONSTANT = 1\n")
    irt_after, respond_after = keys()
    assert irt_after != irt_before and respond_after == respond_before

"""The run manifest: validated when read (pinned messages), and the accessors readers use."""
from __future__ import annotations

import json

import pytest

from benchirt.errors import ArtifactError, BenchirtError
from benchirt.pipeline.manifest import Manifest

GOOD = {
    "benchirt_run": 1, "config": {"suite": "builtin"}, "status": "finished",
    "stages": {"respond": {"status": "done"}, "rate": {"status": "done"}},
    "datasets": {"iris": {"respond": {"status": "computed", "key": "k1"}, "irt": {"status": "skipped", "key": "k2",
                                                                               "reason": "too few"}},
                 "wine": {"respond": {"status": "stored", "key": "k3"}, "irt": {"status": "failed", "key": "k4",
                                                                              "reason": "boom"}}},
    "artifacts": {"rate": {"status": "reused", "key": "k5"}, "airt": {"status": "skipped", "key": "k6"}},
}


def _write(tmp_path, data) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_accessors_answer_from_the_statuses(tmp_path):
    _write(tmp_path, GOOD)
    manifest = Manifest.read(tmp_path)
    assert manifest.result_keys("respond") == {"iris": "k1", "wine": "k3"}
    assert manifest.result_keys("irt") == {}  # skipped and failed results are not results
    assert manifest.suite_key("rate") == "k5" and manifest.suite_key("airt") is None
    assert manifest.suite_key("subset") is None
    assert manifest.problems() == {"iris": {"irt": "skipped: too few"}, "wine": {"irt": "failed: boom"}}
    assert manifest.entry("irt", "wine")["reason"] == "boom" and manifest.config == {"suite": "builtin"}
    (tmp_path / "copy").mkdir()
    manifest.write(tmp_path / "copy")
    assert Manifest.read(tmp_path / "copy") == manifest


@pytest.mark.parametrize("data, problem", [
    ("[1, 2]", "a JSON list, not an object"),
    ({**GOOD, "benchirt_run": 2}, "benchirt_run is 2, expected 1"),
    ({k: v for k, v in GOOD.items() if k != "config"}, "no config object"),
    ({**GOOD, "datasets": {"iris": {"irt": {"key": "k"}}}}, "datasets.iris.irt has no status or a key that is not text"),
    ({**GOOD, "artifacts": {"rate": "done"}}, "artifacts is not an object of entries with a status"),
])
def test_a_file_that_is_not_a_run_manifest_is_refused_naming_why(tmp_path, data, problem):
    _write(tmp_path, data)
    with pytest.raises(ArtifactError) as info:
        Manifest.read(tmp_path)
    assert str(info.value) == (f"{tmp_path / 'manifest.json'}: not a benchirt run manifest ({problem}); rerun "
                               "`benchirt run` with --force, or delete the folder")


def test_no_manifest_and_broken_json(tmp_path):
    with pytest.raises(BenchirtError, match="is not a benchirt run directory"):
        Manifest.read(tmp_path)
    _write(tmp_path, "{not json")
    with pytest.raises(ArtifactError, match="not JSON"):
        Manifest.read(tmp_path)

"""The run manifest: validated when read (pinned messages), and the accessors readers use."""
from __future__ import annotations

import ast
import json
from pathlib import Path

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
    assert manifest.entry("irt", name="wine")["reason"] == "boom" and manifest.config == {"suite": "builtin"}
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


# -- typed fields, and the JSON kept as it was (issue 35 item 1) ----------------------------------------------------
FIXTURE = Path(__file__).parent / "fixtures" / "manifest-9204efd.json"


def test_a_manifest_written_by_the_previous_code_is_written_back_byte_for_byte(tmp_path):
    """The fixture is the manifest.json of a run made by benchirt at 9204efd (before Manifest had typed fields):
    iris and wine rated and reported, a one-class CSV skipped, notes, the report's document entry, an added
    classifier (tests/fixtures/README.md)."""
    (tmp_path / "manifest.json").write_bytes(FIXTURE.read_bytes())
    manifest = Manifest.read(tmp_path)
    assert manifest.status == "finished" and manifest.entry("respond", name="one_class")["status"] == "skipped"
    assert manifest.result_keys("irt").keys() == {"iris", "wine"} and manifest.documents["report"]["status"]
    assert list(manifest.added) == ["logreg"] and len(manifest.notes) == 2 and manifest.unknown == {}
    (tmp_path / "copy").mkdir()
    manifest.write(tmp_path / "copy")
    assert (tmp_path / "copy" / "manifest.json").read_bytes() == FIXTURE.read_bytes()


def test_entries_the_file_lacks_stay_absent_and_unknown_or_null_ones_are_kept(tmp_path):
    data = {**GOOD, "created": None, "from_a_newer_benchirt": {"x": [1, 2]}}
    _write(tmp_path, data)
    manifest = Manifest.read(tmp_path)
    assert manifest.created is None and manifest.unknown == {"from_a_newer_benchirt": {"x": [1, 2]}}
    assert manifest.to_json() == data  # no versions, executor, notes, documents, … added
    manifest.status = "interrupted"
    manifest.add_note("a note")
    assert manifest.to_json() == {**data, "status": "interrupted", "notes": ["a note"]}


def test_a_run_that_extends_another_carries_its_config_results_and_records_and_lists_its_stages_after():
    previous = Manifest.from_json({**GOOD, "created": "yesterday", "notes": ["old"], "config_source": "a.yaml",
                                   "added": {"logreg": {"spec": {}}}, "executor": "dask", "somewhere_else": 1})
    manifest = Manifest.begin(config={"suite": "other"}, versions={"benchirt": "9"}, executor="local",
                              stages={"add": {"status": "pending"}, "rate": {"status": "pending"}},
                              created=previous.created, removed_partial_artifacts=0)
    manifest.carry(previous)
    data = manifest.to_json()
    assert data["config"] == GOOD["config"] and data["datasets"] == GOOD["datasets"]
    assert data["artifacts"] == GOOD["artifacts"] and data["notes"] == ["old"] and data["config_source"] == "a.yaml"
    assert data["added"] == {"logreg": {"spec": {}}} and data["somewhere_else"] == 1
    assert data["executor"] == "local" and data["versions"] == {"benchirt": "9"} and data["status"] == "running"
    assert list(data["stages"]) == ["respond", "rate", "add"] and data["stages"]["rate"] == {"status": "pending"}
    assert data["created"] == "yesterday"


def _string_key_reads(tree: ast.AST) -> list[int]:
    """Lines where a manifest (a name ``manifest``, an attribute ``.manifest`` or a run's ``.previous``) is indexed
    by a string literal or asked ``.get``/``.setdefault``/``.update``/``.items``/… like a dict."""
    def is_manifest(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id == "manifest") or \
            (isinstance(node, ast.Attribute) and node.attr in ("manifest", "previous"))

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_manifest(node.value) and isinstance(node.slice, ast.Constant):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_manifest(node.func.value) \
                and node.func.attr in ("get", "setdefault", "update", "items", "keys", "values", "pop"):
            lines.append(node.lineno)
    return lines


def test_no_module_outside_the_manifest_reads_the_manifest_by_string_key():
    package = Path(__file__).resolve().parents[1] / "benchirt"
    found = {}
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).as_posix() == "pipeline/manifest.py":
            continue
        lines = _string_key_reads(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[path.relative_to(package).as_posix()] = lines
    assert found == {}, "use the Manifest's fields and methods"


def test_the_string_key_check_finds_what_it_looks_for():
    source = ('run.manifest["status"] = "x"\nmanifest.get("stages", {})\nself.previous.setdefault("notes", [])\n'
              'manifest.status\nmanifest.entry("irt", "iris")["key"]\nother["status"]\n')
    assert _string_key_reads(ast.parse(source)) == [1, 2, 3]

"""resolve_suite forms, folders with and without manifests, suite files, DatasetSpec fingerprints."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import benchirt.data.spec as spec_module
from benchirt.data import DatasetSpec, read_suite_file, resolve_suite, write_suite_file
from benchirt.errors import ConfigError, DataError



@pytest.fixture()
def folder(tmp_path, arff_samples) -> Path:
    """A folder with two data files and a README."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "b-table.csv").write_text("x,class\n1,p\n2,q\n3,p\n")
    (data / "a-quirks.arff").write_text((arff_samples / "weka_quirks.arff").read_text())
    (data / "README.txt").write_text("not data")
    return data


# --- string forms ----------------------------------------------------------------------------

def test_builtin_suite():
    specs = resolve_suite("builtin")
    assert [s.name for s in specs] == ["wdbc", "digits", "wine", "iris"]
    assert specs[0].openml_id == 1510 and specs[0].location == "breast_cancer"
    assert {s.kind for s in specs} == {"builtin"}
    assert [s.name for s in resolve_suite("builtin:iris, breast_cancer")] == ["iris", "wdbc"]


def test_folder_without_manifest_lists_its_data_files_sorted(folder):
    specs = resolve_suite(str(folder))
    assert [s.name for s in specs] == ["a-quirks", "b-table"]
    assert all(s.kind == "file" and Path(s.location).is_absolute() for s in specs)
    assert specs[1].load().y.tolist() == ["p", "q", "p"]


def test_relative_paths_use_base(folder):
    specs = resolve_suite("data/b-table.csv", base=folder.parent)
    assert len(specs) == 1 and specs[0].name == "b-table"


def test_folder_with_manifest_uses_its_names_ids_targets_and_ignore_lists(folder):
    (folder / "manifest.csv").write_text(
        "file,name,openml_did,task_id,target,ignore,source\n"
        "a-quirks.arff,quirks,42,4242,colour,ratio;when,somewhere\n"
    )
    specs = resolve_suite(folder)
    assert len(specs) == 1  # the manifest defines the suite
    spec = specs[0]
    assert (spec.name, spec.openml_id, spec.task_id, spec.target, spec.ignore) == (
        "quirks", 42, 4242, "colour", ("ratio", "when"))
    ds = spec.load()
    assert ds.name == "quirks" and ds.openml_id == 42 and ds.task_id == 4242
    assert list(ds.X.columns) == ["clump thickness", "class"]
    assert ds.extra["dropped_columns"]["ratio"] == "ignored attribute"


def test_manifest_listing_a_missing_file(folder):
    (folder / "manifest.csv").write_text("file,name\ngone.arff,gone\n")
    with pytest.raises(DataError, match="gone.arff' does not exist"):
        resolve_suite(folder)


def test_manifest_checksum_mismatch_refuses_to_load(folder):
    (folder / "manifest.csv").write_text(f"file,sha256\nb-table.csv,{'0' * 64}\n")
    spec = resolve_suite(folder)[0]
    with pytest.raises(DataError, match="content differs from its manifest"):
        spec.load()


def test_folder_without_data_files(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(DataError, match="no .arff, .csv"):
        resolve_suite(tmp_path)


@pytest.mark.parametrize("text, message", [
    ("cc18-online", "unknown suite 'cc18-online'"),
    ("nowhere/data", "no such file or folder"),
    ("missing.arff", "no such file or folder"),
    ("openml-dataset:abc", "not an integer OpenML id"),
])
def test_unknown_strings_explain_the_accepted_forms(tmp_path, text, message):
    with pytest.raises(DataError, match=message):
        resolve_suite(text, base=tmp_path)


def test_unknown_data_suffix_for_a_single_file(tmp_path):
    path = tmp_path / "sheet.xlsx"
    path.write_text("x")
    with pytest.raises(DataError, match="unknown format"):
        resolve_suite(str(path))


def test_cc18_offline_without_the_mirror_names_the_alternatives(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHIRT_SHARED_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(DataError) as info:
        resolve_suite("cc18-offline")
    message = str(info.value)
    assert "BENCHIRT_SHARED_DATA" in message and "'embedded'" in message
    assert str(tmp_path / "nowhere") in message


def test_cc18_offline_env_may_point_at_the_mirror_itself(tmp_path, monkeypatch, arff_samples):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "x.arff").write_text((arff_samples / "sparse.arff").read_text())
    (mirror / "manifest.csv").write_text("openml_did,name,file\n7,sparse-one,x.arff\n")
    monkeypatch.setenv("BENCHIRT_SHARED_DATA", str(mirror))
    specs = resolve_suite("cc18-offline")
    assert [(s.name, s.openml_id) for s in specs] == [("sparse-one", 7), ("wdbc", 1510)]


# --- dict and list forms ---------------------------------------------------------------------

def test_dict_forms(folder):
    assert [s.name for s in resolve_suite({"builtin": ["iris", "wine"]})] == ["iris", "wine"]
    assert len(resolve_suite({"builtin": True})) == 4
    assert [s.name for s in resolve_suite({"suite": "builtin", "exclude": ["digits", 1510]})] == ["wine", "iris"]
    specs = resolve_suite({"directory": str(folder), "include": ["b-table"], "target": "x"})
    assert [(s.name, s.target) for s in specs] == [("b-table", "x")]
    one = resolve_suite({"file": "data/b-table.csv", "name": "tbl"}, base=folder.parent)
    assert one[0].name == "tbl"


def test_dict_form_errors(folder):
    with pytest.raises(ConfigError) as info:
        resolve_suite({"builtins": ["iris"]})
    assert str(info.value) == ("unknown suite option(s) 'builtins'; valid options: builtin, suite, directory, "
                               "suite_file, file, openml_suite, openml_datasets, openml_tasks, include, exclude, "
                               "target, name, cache")
    with pytest.raises(ConfigError, match="exactly one of"):
        resolve_suite({"builtin": True, "directory": str(folder)})
    with pytest.raises(DataError, match=r"include: \['letter'\] not in the suite"):
        resolve_suite({"suite": "builtin", "include": ["letter"]})
    with pytest.raises(DataError, match="empty"):
        resolve_suite({"suite": "builtin:iris", "exclude": ["iris"]})


def test_list_form_concatenates_and_drops_exact_repeats(folder):
    specs = resolve_suite(["builtin:iris", {"builtin": ["iris", "wine"]}, str(folder / "b-table.csv")])
    assert [s.name for s in specs] == ["iris", "wine", "b-table"]


def test_two_different_datasets_with_one_name_are_refused(folder, tmp_path):
    other = tmp_path / "b-table.csv"
    other.write_text("x,class\n5,p\n6,q\n")
    with pytest.raises(DataError, match="two different datasets are named 'b-table'"):
        resolve_suite([str(folder / "b-table.csv"), str(other)])


# --- suite files -----------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_suite_file_round_trip(folder, tmp_path, suffix):
    specs = [
        DatasetSpec(name="b-table", kind="file", location=str(folder / "b-table.csv"), openml_id=5, target="label",
                    sha256=hashlib.sha256((folder / "b-table.csv").read_bytes()).hexdigest()),
        DatasetSpec(name="wdbc", kind="builtin", location="breast_cancer", openml_id=1510),
        DatasetSpec(name="credit-g", kind="openml", location="31", openml_id=31, task_id=31, ignore=("id",)),
    ]
    path = write_suite_file(tmp_path / "out" / f"hard{suffix}", "hard-50", specs, description="IRT subset")
    text = path.read_text()
    assert str(folder.resolve() / "b-table.csv") in text  # outside the suite file's folder: absolute
    suite = read_suite_file(path)
    assert (suite.name, suite.description) == ("hard-50", "IRT subset")
    assert list(suite.specs) == [
        DatasetSpec(name="b-table", kind="file", location=str((folder / "b-table.csv").resolve()), openml_id=5,
                    target="label", sha256=specs[0].sha256),
        specs[1],
        specs[2],
    ]
    assert resolve_suite(str(path)) == list(suite.specs)


def test_suite_file_entry_without_its_file_falls_back_to_openml(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"name": "s", "datasets": [{"name": "credit-g", "openml_id": 31,
                                                          "file": "elsewhere/31.arff"}]}))
    (spec,) = read_suite_file(path).specs
    assert (spec.kind, spec.location) == ("openml", "31")


@pytest.mark.parametrize("content, message", [
    ("name: x\ndatasets: [\n", "not valid YAML"),
    ("- a\n- b\n", "expected a mapping"),
    ("name: x\nsets: []\n", r"unknown key\(s\) \['sets'\]"),
    ("name: x\ndatasets: []\n", "non-empty list"),
    ("name: x\ndatasets:\n  - {name: a, openml: 3}\n", r"unknown key\(s\) \['openml'\]"),
    ("name: x\ndatasets:\n  - {openml_id: 3}\n", "needs a 'name'"),
    ("name: x\ndatasets:\n  - {name: a}\n", "needs a 'file', 'builtin' or 'openml_id'"),
    ("name: x\ndatasets:\n  - {name: a, file: gone.csv}\n", "does not exist"),
    ("name: x\ndatasets:\n  - {name: a, openml_id: 3}\n  - {name: a, openml_id: 4}\n", "repeated"),
    ("name: x\ndatasets:\n  - {name: a, openml_id: three}\n", "must be an integer"),
    ("name: x\ndatasets:\n  - {name: a, builtin: mnist}\n", "unknown builtin"),
])
def test_malformed_suite_files(tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        read_suite_file(path)


def test_write_suite_file_checks_its_inputs(tmp_path):
    with pytest.raises(ConfigError, match="must end in"):
        write_suite_file(tmp_path / "s.txt", "s", [])
    with pytest.raises(ConfigError, match="no datasets"):
        write_suite_file(tmp_path / "s.yaml", "s", [])
    with pytest.raises(ConfigError, match="DatasetSpec"):
        write_suite_file(tmp_path / "s.yaml", "s", ["iris"])


# --- fingerprints ----------------------------------------------------------------------------

def test_file_fingerprint_is_the_sha256_of_the_bytes_and_is_hashed_once(folder, monkeypatch):
    path = folder / "b-table.csv"
    spec = DatasetSpec(name="b", kind="file", location=str(path))
    calls = []
    real = spec_module.hashlib.file_digest
    monkeypatch.setattr(spec_module.hashlib, "file_digest", lambda *a, **k: calls.append(1) or real(*a, **k))
    expected = f"sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}"
    assert spec.fingerprint() == expected
    assert spec.fingerprint() == expected
    assert len(calls) <= 1  # 0 when an earlier test already hashed this very file version
    path.write_text("x,class\n1,p\n2,q\n3,q\n")
    os.utime(path, ns=(1, 1))
    assert spec.fingerprint() == f"sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}" != expected


def test_fingerprint_of_builtins_and_options():
    import sklearn

    assert DatasetSpec(name="wdbc", kind="builtin", location="breast_cancer").fingerprint() == (
        f"builtin:wdbc:sklearn-{sklearn.__version__}")
    with_target = DatasetSpec(name="iris", kind="builtin", location="iris", target="class", ignore=("a",))
    assert with_target.fingerprint().endswith(";target=class;ignore=a")


def test_spec_rejects_unknown_kinds():
    with pytest.raises(DataError, match="unknown kind"):
        DatasetSpec(name="x", kind="url", location="http://example.org/x.csv")


def test_suite_file_stores_files_inside_its_folder_relatively(folder):
    spec = DatasetSpec(name="b", kind="file", location=str(folder / "b-table.csv"))
    path = write_suite_file(folder / "suite.yaml", "s", [spec])
    assert "file: b-table.csv" in path.read_text()
    moved = folder.parent / "moved"
    folder.rename(moved)
    assert read_suite_file(moved / "suite.yaml").specs[0].location == str((moved / "b-table.csv").resolve())


def test_embedded_suite_is_twelve_real_datasets_with_checked_provenance():
    specs = resolve_suite("embedded")
    assert [s.name for s in specs] == ["wdbc", "digits", "wine", "iris", "breast-w", "pima", "glass", "crabs",
                                       "penguins", "participation", "birthwt", "kyphosis"]
    files = [s for s in specs if s.kind == "file"]
    assert all(s.sha256 and len(s.sha256) == 64 for s in files)  # every shipped file is checksummed
    assert {s.name: s.openml_id for s in files if s.openml_id} == {"breast-w": 15, "glass": 41}
    shapes = {s.name: (d.n_instances, d.n_classes) for s in files for d in [s.load()]}
    assert shapes["breast-w"] == (699, 2) and shapes["glass"] == (214, 6) and shapes["kyphosis"] == (81, 2)
    assert sum(Path(s.location).stat().st_size for s in files) < 200_000  # small enough to ship


def test_embedded_suite_refuses_an_altered_file(tmp_path):
    import shutil

    from benchirt.data.local import EMBEDDED_DIR, read_manifest

    shutil.copytree(EMBEDDED_DIR, tmp_path / "copy")
    with open(tmp_path / "copy" / "crabs.csv", "a") as f:
        f.write("M,1,1,1,1,1,B\n")
    crabs = next(s for s in read_manifest(tmp_path / "copy") if s.name == "crabs")
    with pytest.raises(DataError, match="sha256|checksum"):
        crabs.load()

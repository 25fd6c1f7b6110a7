"""The real offline CC18 mirror (../shared/data/cc18-arff): suite resolution and smoke loads.

Expected values are the class counts and missing-value counts OpenML publishes for these datasets
(and that a line count of the files confirms); sick's 1,129 rows with a missing value are those
with '?' outside its entirely-missing TBG column.
"""
from __future__ import annotations

import csv

import pytest

from benchirt.data import resolve_suite
from benchirt.data.names import METADATA_COLUMNS
from benchirt.data.files import load_file


@pytest.fixture()
def mirror(shared_data, monkeypatch):
    monkeypatch.setenv("BENCHIRT_SHARED_DATA", str(shared_data))
    return shared_data / "cc18-arff"


def test_cc18_offline_is_the_manifest_plus_wdbc(mirror):
    specs = resolve_suite("cc18-offline")
    with open(mirror / "manifest.csv", newline="") as handle:
        manifest = list(csv.DictReader(handle))
    assert len(manifest) == 26 and len(specs) == 27
    assert [(s.name, s.openml_id) for s in specs[:26]] == [(r["name"], int(r["openml_did"])) for r in manifest]
    assert all(s.kind == "file" and s.sha256 == r["sha256"] for s, r in zip(specs, manifest))
    wdbc = specs[-1]
    assert (wdbc.name, wdbc.kind, wdbc.location, wdbc.openml_id) == ("wdbc", "builtin", "breast_cancer", 1510)
    assert len({s.name for s in specs}) == 27


def test_mirror_file_fingerprint_is_the_manifest_checksum(mirror):
    spec = resolve_suite({"suite": "cc18-offline", "include": ["breast-w"]})[0]
    with open(mirror / "manifest.csv", newline="") as handle:
        expected = next(r["sha256"] for r in csv.DictReader(handle) if r["name"] == "breast-w")
    assert spec.fingerprint() == f"sha256:{expected}"


@pytest.mark.parametrize(
    "name, n, p, k, n_missing_rows, majority, minority, categorical",
    [
        ("breast-w", 699, 9, 2, 16, 458, 241, 0),          # Weka range syntax integer [1,10]
        ("diabetes", 768, 8, 2, 0, 500, 268, 0),
        ("balance-scale", 625, 4, 3, 0, 288, 49, 0),
        ("splice", 3190, 60, 3, 0, 1655, 767, 60),        # Instance_name dropped as identifier
        ("sick", 3772, 27, 2, 1129, 3541, 231, None),      # TBG (all '?') and TBG measured (constant) dropped
        ("cylinder-bands", 540, 37, 2, 263, 312, 228, None),
    ],
)
def test_mirror_datasets_load_with_published_counts(mirror, name, n, p, k, n_missing_rows, majority, minority,
                                                     categorical):
    spec = resolve_suite({"suite": "cc18-offline", "include": [name]})[0]
    ds = spec.load()
    meta = ds.metadata()
    assert ds.name == name and ds.openml_id == spec.openml_id
    assert (meta["n_instances"], meta["n_features"], meta["n_classes"]) == (n, p, k)
    assert meta["pct_missing_instances"] == pytest.approx(100 * n_missing_rows / n)
    assert meta["pct_majority_class"] == pytest.approx(100 * majority / n)
    assert meta["pct_minority_class"] == pytest.approx(100 * minority / n)
    if categorical is not None:
        assert meta["pct_categorical_features"] == pytest.approx(100 * categorical / p)
    assert meta["pct_numeric_features"] + meta["pct_categorical_features"] == pytest.approx(100.0)
    assert 0.0 <= meta["pct_binary_features"] <= 100.0
    assert meta["dimensionality"] == pytest.approx(p / n)
    assert set(meta) == set(METADATA_COLUMNS)
    assert ds.skip_reason is None


def test_splice_row_identifier_is_dropped_with_a_note(mirror):
    ds = load_file(mirror / "46-splice.arff")
    assert "Instance_name" not in ds.X.columns
    assert ds.extra["dropped_columns"]["Instance_name"].startswith("identifier")


def test_sick_entirely_missing_column_is_recorded(mirror):
    ds = load_file(mirror / "38-sick.arff")
    assert ds.extra["dropped_columns"]["TBG"] == "entirely missing"
    assert ds.X["sex"].isna().any()  # nominal missing values kept as NaN


def test_nasa_files_map_true_false_onto_declared_values(mirror):
    ds = load_file(mirror / "1068-pc1.arff")
    assert sorted(ds.y.cat.categories) == ["false", "true"]
    assert any("ignoring case" in note for note in ds.extra["notes"])


@pytest.mark.heavy
def test_every_mirror_dataset_loads(mirror):
    for spec in resolve_suite("cc18-offline"):
        ds = spec.load()
        meta = ds.metadata()
        assert ds.skip_reason is None, spec.name
        assert meta["pct_numeric_features"] + meta["pct_categorical_features"] == pytest.approx(100.0)
        assert not ds.y.isna().any()

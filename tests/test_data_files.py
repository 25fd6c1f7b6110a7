"""Loading files as Datasets: targets, cleaning rules, CSV/parquet, bad inputs, large files, builtins."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchirt.data import Dataset, load_builtin, load_file
from benchirt.data.names import METADATA_COLUMNS
from benchirt.errors import DataError



def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- targets ---------------------------------------------------------------------------------

def test_csv_target_is_the_class_column_and_labels_become_strings(tmp_path):
    path = write(tmp_path, "toy.csv", "Class,a,b\n0,1,x\n1,2,y\n1,3,x\n0,4,y\n")  # first, any case
    ds = load_file(path)
    assert ds.name == "toy"
    assert list(ds.X.columns) == ["a", "b"]
    assert ds.X["a"].dtype == np.float64
    assert isinstance(ds.X["b"].dtype, pd.CategoricalDtype)
    assert list(ds.y.cat.categories) == ["0", "1"]
    assert ds.y.tolist() == ["0", "1", "1", "0"]
    assert ds.extra["target"] == "Class"
    assert load_file(write(tmp_path, "t.csv", "a,target,b\n1,p,2\n2,q,3\n")).extra["target"] == "target"


def test_a_table_without_a_class_or_target_column_is_refused_with_its_columns(tmp_path):
    """Issue 44: the last column is never taken as the class (a numeric one with 7 values would be 7 classes)."""
    path = write(tmp_path, "toy.csv", "label,a,b\nyes,1,5\nno,2,6\nyes,3,7\n")
    with pytest.raises(DataError) as caught:
        load_file(path)
    assert str(caught.value) == (
        f"{path}: which column is the class? no column is named class or target (columns: 'label', 'a', 'b'); name "
        "the class column 'class' or give its name as the dataset's target in a suite file (target: COLUMN)")
    both = write(tmp_path, "both.csv", "class,target,a\n1,2,3\n2,1,3\n")
    with pytest.raises(DataError, match=r"columns 'class', 'target' both name it \(columns: 'class', 'target', 'a'\)"):
        load_file(both)
    assert load_file(path, target="label").extra["target"] == "label"  # a suite file's target: read


def test_target_not_the_last_column(tmp_path):
    path = write(tmp_path, "toy.csv", "label,a,b\nyes,1,5\nno,2,6\nyes,3,7\n")
    ds = load_file(path, target="label")
    assert list(ds.X.columns) == ["a", "b"]
    assert ds.y.tolist() == ["yes", "no", "yes"]


def test_unknown_target_lists_the_columns(tmp_path):
    path = write(tmp_path, "toy.csv", "a,b,label\n1,2,x\n3,4,y\n")
    with pytest.raises(DataError, match=r"target column 'klass' not found; columns are \['a', 'b', 'label'\]"):
        load_file(path, target="klass")


def test_arff_target_override(tmp_path, arff_samples):
    ds = load_file(arff_samples / "weka_quirks.arff", target="colour")
    assert "class" in ds.X.columns and "colour" not in ds.X.columns
    assert ds.extra["dropped_rows"] == [3]  # the row whose colour is '?'
    assert sorted(ds.y.cat.categories) == ["dark red", "green", "it's blue"]


def test_continuous_target_is_refused(tmp_path):
    path = write(tmp_path, "reg.csv", "a,class\n1,0.5\n2,1.25\n")
    with pytest.raises(DataError, match="regression target"):
        load_file(path)


# --- cleaning rules --------------------------------------------------------------------------

def test_missing_target_rows_string_attributes_and_declared_categories(tmp_path, arff_samples):
    ds = load_file(arff_samples / "weka_quirks.arff")
    assert ds.n_instances == 4
    assert ds.extra["dropped_rows"] == [4]
    assert ds.extra["dropped_columns"] == {"row_id": "free-text (string) attribute"}
    assert list(ds.X.index) == [0, 1, 2, 3]
    assert list(ds.X["colour"].cat.categories) == ["dark red", "it's blue", "green"]  # declared, kept
    assert any("row" in note for note in ds.extra["notes"])


def test_identifier_entirely_missing_and_constant_columns_are_dropped_with_reasons(arff_samples):
    ds = load_file(arff_samples / "splice_like.arff")
    assert list(ds.X.columns) == ["base"]
    dropped = ds.extra["dropped_columns"]
    assert dropped["Instance_name"].startswith("identifier")
    assert dropped["empty"] == "entirely missing"
    assert dropped["constant"] == "constant"


def test_missing_values_in_numeric_and_nominal_features_are_kept_as_nan(tmp_path):
    path = write(tmp_path, "m.csv", "n,c,class\n1,a,p\n?,b,q\n3,,p\n4,a,q\n")
    ds = load_file(path)
    assert ds.X["n"].isna().tolist() == [False, True, False, False]
    assert ds.X["c"].isna().tolist() == [False, False, True, False]
    assert ds.metadata()["pct_missing_instances"] == pytest.approx(50.0)


def test_single_class_dataset_loads_but_is_flagged(tmp_path):
    path = write(tmp_path, "one.csv", "a,b,class\n1,5,only\n2,6,only\n3,7,only\n")
    ds = load_file(path)
    assert ds.n_classes == 1
    assert "single class" in ds.skip_reason
    assert ds.metadata()["pct_majority_class"] == 100.0


def test_dataset_without_usable_features_is_flagged(tmp_path):
    path = write(tmp_path, "flat.csv", "a,b,class\n1,,p\n1,,q\n1,,p\n")
    ds = load_file(path)
    assert ds.X.shape[1] == 0
    assert "no usable feature" in ds.skip_reason


def test_usable_dataset_has_no_skip_reason():
    assert load_builtin("iris").skip_reason is None


def test_unused_declared_classes_are_removed_from_the_target(tmp_path):
    path = write(tmp_path, "c.arff", "@relation r\n@attribute a numeric\n@attribute c {p,q,never}\n@data\n1,p\n2,q\n")
    assert list(load_file(path).y.cat.categories) == ["p", "q"]


# --- bad inputs ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.csv", "", "empty"),
        ("header.csv", "a,b,y\n", "no data rows"),
        ("dup.csv", "a,a,y\n1,2,p\n3,4,q\n", r"duplicate column names \['a'\]"),
        ("cut.csv", "a,b,y\n1,2,p\n3,4,q\n5,", "truncated"),
        ("wide.csv", "a,b,y\n1,2,p\n3,4,q,9,9\n", "malformed"),
        ("data.xlsx", "a,b\n", "unknown data format '.xlsx'"),
        ("noext", "a,b\n", r"unknown data format '\(no suffix\)'"),
        ("bad.parquet", "this is not parquet", "not a readable parquet file"),
    ],
)
def test_bad_files_raise_data_errors_naming_the_file(tmp_path, name, content, message):
    path = write(tmp_path, name, content)
    with pytest.raises(DataError, match=message) as info:
        load_file(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        load_file(tmp_path / "gone.csv")


def test_latin1_csv(tmp_path):
    path = tmp_path / "l.csv"
    path.write_bytes("city,class\nM\xfcnchen,a\nParis,b\nM\xfcnchen,b\n".encode("latin-1"))
    ds = load_file(path)
    assert ds.X["city"].tolist() == ["München", "Paris", "München"]
    assert any("latin-1" in n for n in ds.extra["notes"])


def test_parquet_keeps_categories_and_target_option(tmp_path):
    frame = pd.DataFrame({"y": pd.Categorical(["a", "b", "a"]), "x": [1, 2, 3],
                          "flag": [True, False, True]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    ds = load_file(path, target="y")
    assert list(ds.X.columns) == ["x", "flag"]
    assert ds.X["x"].dtype == np.float64
    assert isinstance(ds.X["flag"].dtype, pd.CategoricalDtype)
    assert ds.y.tolist() == ["a", "b", "a"]


def test_large_csv_loads_with_compact_dtypes(tmp_path):
    rng = np.random.default_rng(0)
    n = 150_000
    frame = pd.DataFrame({f"x{i}": rng.normal(size=n).round(3) for i in range(4)})
    frame["colour"] = rng.choice(["red", "green", "blue"], size=n)
    frame["class"] = rng.integers(0, 3, size=n)
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    ds = load_file(path)
    assert ds.n_instances == n
    assert isinstance(ds.X["colour"].dtype, pd.CategoricalDtype)
    # 4 float64 columns + 1 byte-coded category column; no per-row Python strings left
    assert ds.X.memory_usage(deep=True).sum() < 4 * 8 * n + 2 * n + 10_000
    assert ds.y.memory_usage(deep=True) < 2 * n + 10_000


# --- builtins and metadata -------------------------------------------------------------------

@pytest.mark.parametrize(
    "name, n, p, k, majority, minority, openml_id",
    [
        ("iris", 150, 4, 3, 100 * 50 / 150, 100 * 50 / 150, 61),
        ("wine", 178, 13, 3, 100 * 71 / 178, 100 * 48 / 178, 187),
        ("wdbc", 569, 30, 2, 100 * 357 / 569, 100 * 212 / 569, 1510),
    ],
)
def test_builtin_metadata_matches_published_class_counts(name, n, p, k, majority, minority, openml_id):
    ds = load_builtin(name)
    meta = ds.metadata()
    assert (meta["n_instances"], meta["n_features"], meta["n_classes"]) == (n, p, k)
    assert meta["pct_majority_class"] == pytest.approx(majority)
    assert meta["pct_minority_class"] == pytest.approx(minority)
    assert meta["pct_numeric_features"] == 100.0 and meta["pct_missing_instances"] == 0.0
    assert meta["dimensionality"] == pytest.approx(p / n)
    assert ds.openml_id == openml_id


def test_breast_cancer_alias_and_labels():
    ds = load_builtin("breast_cancer")
    assert ds.name == "wdbc" and ds.source == "builtin:breast_cancer"
    assert sorted(ds.y.cat.categories) == ["benign", "malignant"]
    assert (ds.y == "benign").sum() == 357


def test_digits_drops_its_always_blank_pixels():
    ds = load_builtin("digits")
    assert ds.n_instances == 1797 and ds.n_classes == 10
    blank = ds.extra["dropped_columns"]
    assert blank and all(reason == "constant" for reason in blank.values())
    assert ds.X.shape[1] == 64 - len(blank)


def test_unknown_builtin_lists_the_choices():
    with pytest.raises(DataError, match=r"\['digits', 'iris', 'wdbc', 'wine'\]"):
        load_builtin("mnist")


def test_metadata_invariants_on_a_mixed_dataset(arff_samples):
    ds = load_file(arff_samples / "weka_quirks.arff")
    meta = ds.metadata()
    assert set(meta) == set(METADATA_COLUMNS)
    assert meta["pct_numeric_features"] + meta["pct_categorical_features"] == pytest.approx(100.0)
    assert meta["pct_minority_class"] <= meta["pct_majority_class"]
    # 4 features: 3 numeric (clump, ratio, date), 1 nominal
    assert meta["pct_categorical_features"] == pytest.approx(25.0)
    assert isinstance(ds, Dataset)


def test_metadata_counts_pandas_string_columns_as_categorical():
    """pandas 3 gives text columns the ``str`` dtype by default: nominal, never a TypeError."""
    X = pd.DataFrame({"colour": pd.Series(["red", "blue", "red", "red"], dtype="string"),
                      "size": [1.0, 2.0, 3.0, 4.0]})
    meta = Dataset("strings", X, pd.Series(["a", "b", "a", "a"])).metadata()
    assert meta["pct_categorical_features"] == pytest.approx(50.0)
    assert meta["pct_binary_features"] == pytest.approx(50.0)
    assert meta["pct_majority_class"] == pytest.approx(75.0)


def test_tsv_and_gzipped_csv(tmp_path):
    import gzip

    tsv = write(tmp_path, "t.tsv", "a\tb\tclass\n1\tx\tp\n2\ty\tq\n")
    assert load_file(tsv).X.shape == (2, 2)
    gz = tmp_path / "c.csv.gz"
    gz.write_bytes(gzip.compress(b"a,class\n1,p\n2,q\n"))
    ds = load_file(gz)
    assert ds.name == "c" and ds.y.tolist() == ["p", "q"]


def test_target_missing_everywhere_leaves_an_empty_flagged_dataset(tmp_path):
    path = write(tmp_path, "none.csv", "a,b,class\n1,x,?\n2,y,?\n")
    ds = load_file(path)
    assert ds.n_instances == 0 and ds.extra["dropped_rows"] == [0, 1]
    assert "no rows" in ds.skip_reason

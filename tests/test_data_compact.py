"""Exact small integers stored compactly: same values, same rows drawn, bit-identical responses."""
from __future__ import annotations

import pytest

import sys

import numpy as np
import pandas as pd

from benchirt.data import DatasetSpec
from benchirt.data import openml_source
from benchirt.data.compact import compact_column, read_parquet_compact
from benchirt.responses import ResponseConfig, respond
from conftest import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))  # the synthetic OpenML cache writer of the scale benchmark
from openml_synthetic import write_openml_cache  # noqa: E402


def test_a_column_is_compacted_only_when_every_value_comes_back_bit_for_bit():
    def dtype_of(values, dtype="float64"):
        return compact_column(pd.Series(np.array(values, dtype=dtype))).dtype

    assert dtype_of([0, 17, 255]) == np.uint8
    assert dtype_of([-3, 0, 100]) == np.int8
    assert dtype_of([0, 256, 40000]) == np.uint16
    assert dtype_of([-300, 300]) == np.int16
    assert dtype_of([0, 70000]) == np.float64  # out of every compact range
    assert dtype_of([0, 0.5, 3]) == np.float64  # a fraction
    assert dtype_of([1.0, np.nan]) == np.float64  # a missing value
    assert dtype_of([1.0, np.inf]) == np.float64
    assert dtype_of([-0.0, 3.0]) == np.float64  # -0.0 would come back as +0.0
    assert dtype_of([1, 2, 3], "int64") == np.uint8
    column = pd.Series(np.arange(256, dtype="float64"), name="p")
    narrow = compact_column(column)
    assert narrow.name == "p" and np.array_equal(narrow.to_numpy().astype("float64"), column.to_numpy())


def _synthetic(rows: int = 420) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    classes = rng.integers(0, 3, rows)
    pixels = np.clip(rng.normal(80 + 50 * classes[:, None], 40, size=(rows, 30)).round(), 0, 255) + 0.0  # no -0.0
    frame = pd.DataFrame(pixels, columns=[f"pixel{i}" for i in range(30)])
    frame["signed"] = rng.integers(-50, 50, rows).astype("float64")
    frame["measured"] = rng.normal(classes, 1.0)  # fractions: stays float64
    frame["gappy"] = np.where(rng.random(rows) < 0.1, np.nan, rng.integers(0, 9, rows).astype(float))
    frame["colour"] = pd.Categorical(rng.choice(["red", "green", "blue"], rows))
    frame["flat"] = 7.0  # constant: dropped on loading either way
    frame["class"] = pd.Categorical(np.array(["a", "b", "c"])[classes])
    return frame


def test_reading_in_batches_gives_the_values_of_pandas_read_parquet(tmp_path):
    frame = _synthetic()
    frame.to_parquet(tmp_path / "t.pq", index=False)
    compact, count = read_parquet_compact(tmp_path / "t.pq", batch_columns=7)
    whole = pd.read_parquet(tmp_path / "t.pq")
    assert count == 32 and list(compact.columns) == list(whole.columns)  # 30 pixels, signed, flat
    assert compact["pixel0"].dtype == np.uint8 and compact["signed"].dtype == np.int8
    assert compact["measured"].dtype == np.float64 and compact["gappy"].dtype == np.float64
    pd.testing.assert_frame_equal(compact.astype(whole.dtypes.to_dict()), whole)


@pytest.mark.heavy
def test_the_openml_path_draws_the_same_rows_and_gives_bit_identical_responses(tmp_path, monkeypatch):
    """Through openml-python's real code path (a cached parquet dataset): compact vs the whole float64 table."""
    import openml

    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)
    write_openml_cache(tmp_path, 990001, "synthetic", _synthetic(), "class")
    spec = DatasetSpec("synthetic", "openml", "990001", openml_id=990001, openml_cache=str(tmp_path))
    compact = openml_source.load_openml(spec)
    with monkeypatch.context() as patch:  # what openml's get_data held: the whole table as pandas reads it
        patch.setattr(openml_source, "read_parquet_compact", lambda path: (pd.read_parquet(path), 0))
        whole = openml_source.load_openml(spec)
    assert compact.X["pixel3"].dtype == np.uint8 and whole.X["pixel3"].dtype == np.float64
    assert compact.extra["notes"][0] == "stored 32 numeric column(s) as small integers (every value exact)"
    assert compact.extra["dropped_columns"] == whole.extra["dropped_columns"] == {"flat": "constant"}
    assert compact.X.memory_usage(deep=True).sum() < 0.3 * whole.X.memory_usage(deep=True).sum()
    config = ResponseConfig(pool=("gaussian_nb", "knn_3", "svc", "decision_tree", "mlp"), ladder_epochs=3,
                            cv_folds=3, max_train=150, max_cv_train=90)
    a, b = respond(compact, config=config), respond(whole, config=config)
    assert a.sizes == b.sizes and a.sizes["train_used"] == 150
    assert np.array_equal(a.test_index, b.test_index)
    pd.testing.assert_frame_equal(a.responses, b.responses)
    pd.testing.assert_series_equal(a.cv_accuracy, b.cv_accuracy)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)

"""Junk and silently-misread inputs are refused early with one clear message (issue 13, items 4 and 6)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.data import load_file
from benchirt.errors import ConfigError, DataError
from benchirt.irt import fit_irt
from benchirt.sniff import check_text_table, max_input_bytes

AGE_ARFF = """@relation people
@attribute height numeric
@attribute smoker {yes, no}
@attribute age integer
@data
170,yes,34
182,no,51
165,no,34
"""


def test_arff_whose_last_attribute_is_numeric_needs_a_declared_target(tmp_path):
    path = tmp_path / "people.arff"
    path.write_text(AGE_ARFF)
    with pytest.raises(DataError) as info:
        load_file(path)
    assert str(info.value) == (f"{path}: the last attribute 'age' is numeric, not nominal, so it is not a class label; "
                               "name the target column (a manifest's `target`, or `target=`); nominal attributes: smoker")
    dataset = load_file(path, target="smoker")
    assert list(dataset.y.cat.categories) == ["yes", "no"] and "age" in dataset.X.columns  # declared order


def test_a_one_item_response_matrix_is_not_fitted():
    responses = pd.DataFrame({"item1": [0, 1, 1, 0, 1, 0, 1, 1]}, index=[f"r{i}" for i in range(8)])
    with pytest.raises(DataError) as info:
        fit_irt(responses)
    assert str(info.value) == ("responses: 1 item ('item1') cannot be fitted as a 3PL: an ability scale needs at least "
                               "2 items — give the full respondents x items matrix")


def test_a_binary_file_is_refused_after_reading_64_kib(tmp_path, capsys):
    path = tmp_path / "zeros.csv"
    with path.open("wb") as handle:  # 16 MiB of zero bytes, sparse on disk
        handle.truncate(16 * 2**20)
    assert main(["irt", str(path), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == (f"benchirt irt: error: {path}: binary data (NUL bytes in its first 65,536 bytes), "
                                       "not a text response matrix CSV\n")
    assert not (tmp_path / "out").exists()


def test_a_file_without_a_line_break_has_no_header(tmp_path):
    path = tmp_path / "one_line.csv"
    path.write_text("1," * 40_000)
    with pytest.raises(DataError, match="no line break in its first 64 KiB, so no header row; expected a text scores CSV"):
        check_text_table(path, "scores CSV")


def test_an_oversized_file_is_refused_before_reading_and_the_limit_is_configurable(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "0,1\n" * 300_000)  # 1.2 MB
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "1")
    assert max_input_bytes() == 2**20
    with pytest.raises(DataError) as info:
        check_text_table(path, "response matrix CSV")
    assert str(info.value) == (f"{path}: 1 MiB is over the 1 MiB limit for a response matrix CSV; "
                               "set BENCHIRT_MAX_INPUT_MB to a larger number of MiB to read it anyway")
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "2")
    check_text_table(path, "response matrix CSV")
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "lots")
    with pytest.raises(ConfigError, match="^BENCHIRT_MAX_INPUT_MB: got 'lots', expected a positive number of MiB$"):
        max_input_bytes()


def test_a_binary_dataset_file_in_a_suite_is_refused(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"x,y\n" + np.zeros(1000, dtype=np.uint8).tobytes())
    with pytest.raises(DataError, match="binary data .* not a text CSV data file"):
        load_file(path)

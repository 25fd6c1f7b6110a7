"""Junk and silently-misread inputs are refused early with one clear message (issue 13, items 4 and 6)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.data import load_file
from benchirt.errors import ConfigError, DataError
from benchirt.irt import fit_irt
from benchirt.irt.matrix_file import read_responses_csv
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


def test_a_file_without_a_line_break_has_no_data_rows(tmp_path):
    path = tmp_path / "one_line.csv"
    path.write_text("1," * 40_000)
    with pytest.raises(DataError) as info:
        check_text_table(path, what="scores CSV")
    assert str(info.value) == (f"{path}: no line break in its 80,000 bytes, so a header row and no data rows; "
                               "expected a text scores CSV")


def test_a_header_longer_than_64_kib_is_read_to_its_end(tmp_path):
    """Stored OpenML runs bring one item per dataset row: a 96,000-item header (~660 KiB) is not refused."""
    names = [f"row{j}" for j in range(96_000)]
    path = tmp_path / "wide.csv"
    rows = ["".join("1," if (i + j) % 3 else "0," for j in range(96_000))[:-1] for i in range(12)]
    path.write_text(",".join(["clf", *names]) + "\n" + "".join(f"c{i},{row}\n" for i, row in enumerate(rows)))
    assert path.read_bytes().index(b"\n") > 10 * 64 * 1024
    check_text_table(path, what="response matrix CSV")
    frame = read_responses_csv(path)
    assert frame.shape == (12, 96_000) and list(frame.columns[[0, -1]]) == ["row0", "row95999"]
    assert frame.index[0] == "c0" and int(frame.iat[1, 1]) == (0 if (1 + 1) % 3 == 0 else 1)
    nul = tmp_path / "nul_in_header.csv"
    nul.write_bytes(b"x," * 40_000 + b"\x00,y\n0,1\n")
    with pytest.raises(DataError, match=r"binary data \(NUL bytes in its first line \(80,008 bytes read\)\)"):
        check_text_table(nul, what="response matrix CSV")


def test_an_oversized_file_is_refused_before_reading_and_the_limit_is_configurable(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "0,1\n" * 300_000)  # 1.2 MB
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "1")
    assert max_input_bytes() == 2**20
    with pytest.raises(DataError) as info:
        check_text_table(path, what="response matrix CSV")
    assert str(info.value) == (f"{path}: 1 MiB is over the 1 MiB limit for a response matrix CSV; "
                               "set BENCHIRT_MAX_INPUT_MB to a larger number of MiB to read it anyway")
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "2")
    check_text_table(path, what="response matrix CSV")
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "lots")
    with pytest.raises(ConfigError, match="^BENCHIRT_MAX_INPUT_MB: got 'lots', expected a number of MiB > 0$"):
        max_input_bytes()
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "0")
    with pytest.raises(ConfigError, match="^BENCHIRT_MAX_INPUT_MB: got 0.0, expected a number of MiB > 0$"):
        max_input_bytes()


def test_a_binary_dataset_file_in_a_suite_is_refused(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"x,y\n" + np.zeros(1000, dtype=np.uint8).tobytes())
    with pytest.raises(DataError, match="binary data .* not a text CSV data file"):
        load_file(path)

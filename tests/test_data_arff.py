"""ARFF reader: real-file quirks (fixtures in tests/fixtures/data) and broken files (written to tmp)."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchirt.data.arff import read_arff, split_values
from benchirt.errors import DataError



def write(tmp_path: Path, text: str | bytes, name: str = "x.arff") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


HEADER = "@relation r\n@attribute a numeric\n@attribute b {x, y}\n@attribute class {p, q}\n@data\n"


def test_split_values_handles_both_quotes_escapes_and_missing():
    assert split_values("a, 'b c', \"d,e\", ?") == ["a", "b c", "d,e", "?"]
    assert split_values(r"""'it\'s', "say \"hi\"", x""") == ["it's", 'say "hi"', "x"]
    assert split_values("a,") == ["a", ""]


def test_weka_quirks_types_missing_values_and_declared_categories(arff_samples):
    data = read_arff(arff_samples / "weka_quirks.arff")
    frame = data.frame
    assert data.relation == "weka quirks"
    assert data.kinds == {"row_id": "string", "clump thickness": "numeric", "ratio": "numeric",
                          "when": "date", "colour": "nominal", "class": "nominal"}
    # integer [1,10] and real (0, inf) are numeric; '?' is missing in numeric columns
    assert frame["clump thickness"].dtype == np.float64
    assert frame["clump thickness"].isna().tolist() == [False, True, False, False, False]
    assert frame["ratio"].iloc[2] != frame["ratio"].iloc[2]  # NaN
    # quoted nominal values with spaces and quotes, declared order kept, '?' missing
    assert list(frame["colour"].cat.categories) == ["dark red", "it's blue", "green"]
    assert frame["colour"].tolist()[:3] == ["dark red", "it's blue", "green"]
    assert pd.isna(frame["colour"].iloc[3])
    assert pd.isna(frame["class"].iloc[4])
    # dates → seconds since the epoch (2020-01-01T00:00Z = 1577836800)
    assert frame["when"].iloc[0] == 1_577_836_800.0
    assert frame["when"].iloc[1] - frame["when"].iloc[0] == 86_400.0
    assert pd.isna(frame["when"].iloc[2])


def test_latin1_bytes_fall_back_with_a_note(arff_samples):
    data = read_arff(arff_samples / "latin1.arff")
    assert data.relation == "café"
    assert list(data.frame["city"].cat.categories) == ["München", "Zürich", "Paris"]
    assert data.frame["city"].tolist() == ["München", "Zürich", "Paris", "München"]
    assert any("latin-1" in n for n in data.notes)


def test_sparse_rows_are_densified_with_weka_defaults(arff_samples):
    frame = read_arff(arff_samples / "sparse.arff").frame
    assert frame["x1"].tolist() == [1.5, 0.0, 3.0, 0.0]
    assert frame["x2"].tolist() == [0.0, 2.0, 4.0, 0.0]
    # an omitted nominal value is the first declared one (index 0), as in Weka
    assert frame["colour"].tolist() == ["red", "blue", "blue", "red"]
    assert frame["class"].tolist() == ["pos", "neg", "pos", "neg"]


def test_mixed_quote_characters_use_the_python_tokenizer(tmp_path):
    path = write(tmp_path, "@relation r\n@attribute s {'a b', \"c'd\"}\n@attribute n real\n@data\n"
                           "'a b', 1\n\"c'd\", ?\n")
    frame = read_arff(path).frame
    assert frame["s"].tolist() == ["a b", "c'd"]
    assert frame["n"].iloc[0] == 1.0 and pd.isna(frame["n"].iloc[1])


def test_nominal_values_differing_only_in_case_are_matched_with_a_note(tmp_path):
    # the NASA MDP files (jm1, kc1, pc1) declare {false,true} and write False/True
    path = write(tmp_path, "@relation r\n@attribute a numeric\n@attribute defects {false,true}\n@data\n"
                           "1,False\n2,true\n")
    data = read_arff(path)
    assert data.frame["defects"].tolist() == ["false", "true"]
    assert any("ignoring case" in n for n in data.notes)


def test_gzip_compressed_arff(tmp_path):
    path = tmp_path / "x.arff.gz"
    path.write_bytes(gzip.compress((HEADER + "1,x,p\n2,y,q\n").encode()))
    assert read_arff(path).frame.shape == (2, 3)


def test_date_column_that_does_not_parse_is_kept_as_text_with_a_note(tmp_path):
    path = write(tmp_path, "@relation r\n@attribute d date 'yyyy-MM-dd'\n@attribute c {p,q}\n@data\n"
                           "2020-01-01,p\nyesterday,q\n")
    data = read_arff(path)
    assert data.kinds["d"] == "string"
    assert any("date" in n for n in data.notes)


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("@relation r\n@attribute a numeric\n@attribute class {p,q}\n", "no @data"),
        ("@relation r\n@attribute a numeric\n@attribute class {p,q}\n@data\n% only a comment\n", "no rows"),
        (HEADER + "1,x,p\n2,y,q\n3,x", "truncated"),
        (HEADER + "1,x,p\n2,y\n3,x,q\n", "data row 2"),
        (HEADER + "1,x,p,extra\n", "has 4 values"),
        (HEADER + "1,z,p\n", "'z'"),
        (HEADER + "abc,x,p\n", "non-numeric value 'abc'"),
        ("@relation r\n@attribute a numeric\n@attribute a numeric\n@attribute c {p,q}\n@data\n1,2,p\n",
         "duplicate attribute names ['a']"),
        ("@relation r\n@attribute a numerik\n@data\n1\n", "unknown type"),
        ("@relation r\n@attribute a {x, y\n@data\nx\n", "closing"),
        ("@relation r\n@attribute bag relational\n@data\n", "relational"),
        ("hello,world\n1,2\n@data\n", "expected @relation"),
        (HEADER + "'1,x,p\n", "unterminated quote"),
    ],
)
def test_broken_files_raise_data_errors_naming_the_file(tmp_path, content, message):
    path = write(tmp_path, content)
    with pytest.raises(DataError) as info:
        read_arff(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_truncated_file_error_gives_the_line_number(tmp_path):
    path = write(tmp_path, HEADER + "% comment\n1,x,p\n\n2,y,q\n3,x")
    with pytest.raises(DataError, match=r"line 10 \(data row 3\)"):
        read_arff(path)


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        read_arff(tmp_path / "absent.arff")


def test_range_syntax_without_spaces_and_in_upper_case(tmp_path):
    path = write(tmp_path, "@relation r\n@attribute a integer[1,10]\n@attribute b REAL [0.0, 1.0]\n"
                           "@attribute c{p,q}\n@data\n3,0.5,p\n10,?,q\n")
    data = read_arff(path)
    assert data.kinds == {"a": "numeric", "b": "numeric", "c": "nominal"}
    assert data.frame["a"].tolist() == [3.0, 10.0]

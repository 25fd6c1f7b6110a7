"""``benchirt datasets``: the suite table, per-dataset failures kept in the table."""
from __future__ import annotations

import pandas as pd

from benchirt.cli import main
from benchirt.data.command import COLUMNS, describe_suite


def test_datasets_command_writes_the_metadata_table(tmp_path, capsys):
    out = tmp_path / "suite.csv"
    assert main(["datasets", "builtin:iris,wine", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(table.columns) == list(COLUMNS)
    assert table[["dataset", "n_instances", "n_classes", "openml_id"]].values.tolist() == [
        ["iris", 150, 3, 61], ["wine", 178, 3, 187]]
    assert "iris" in capsys.readouterr().out


def test_a_broken_file_is_listed_with_its_problem_and_the_rest_still_load(tmp_path):
    (tmp_path / "good.csv").write_text("a,class\n1,p\n2,q\n3,p\n")
    (tmp_path / "broken.csv").write_text("a,b,class\n1,2,p\n2,3,q\n3,")
    (tmp_path / "single.csv").write_text("a,class\n1,p\n2,p\n")
    table = describe_suite(str(tmp_path)).set_index("dataset")
    assert "truncated" in table.loc["broken", "problem"]
    assert pd.isna(table.loc["broken", "n_instances"])
    assert "single class" in table.loc["single", "problem"]
    assert table.loc["good", "problem"] == "" and table.loc["good", "n_instances"] == 3


def test_unknown_suite_is_a_one_line_error(capsys):
    assert main(["datasets", "no-such-suite"]) == 2
    assert "unknown suite 'no-such-suite'" in capsys.readouterr().err

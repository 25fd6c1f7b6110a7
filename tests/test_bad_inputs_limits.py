"""Issue 44: every field read from a file is bounded, and a long name is shown cut in the middle everywhere a
reader sees it (console, report, conclusions) while the CSVs keep it whole (the cases of docs/bad-inputs.md)."""
from __future__ import annotations

import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.errors import DataError
from benchirt.humanize import NAME_CHARS, short_name
from benchirt.rating.agreement import glicko_check
from benchirt.rating.verdict import leaderboard_text, leaderboard_verdict
from benchirt.report.conclusions import airt_sentence
from benchirt.stored_runs.descriptions import DESCRIPTION_BYTES, FIELD_CHARS, read_run_description
from benchirt.stored_runs.folder import read_runs_folder
from runs_samples import write_run_description, write_small_task

#: A name far longer than any screen line (the issue's 5,000 characters).
LONG = "sklearn.pipeline.Pipeline(" + "x" * 4_950 + ")(1)"


def test_a_description_larger_than_any_openml_description_is_refused_before_it_is_parsed(tmp_path):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3))
    description = root / "runs" / "3" / "description.xml"
    text = description.read_text()
    description.write_text(text.replace("<oml:flow_name>flow-2", "<oml:flow_name>" + "n" * DESCRIPTION_BYTES))
    [matrix] = read_runs_folder(root)
    assert list(matrix.runs["run_id"]) == [1, 2]
    assert matrix.source_skipped == [
        f"run folder 3: unreadable description.xml: {description}: 4.0 MiB is over the 4 MiB limit of an OpenML run "
        "description (the server's are a few KiB); it is not one: download it again"]


def test_a_flow_name_over_the_field_limit_is_refused_before_it_is_copied(tmp_path):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3))
    description = write_run_description(root / "runs" / "3", 3, 7, 102, "f" * (FIELD_CHARS + 1), setup_id=3,
                                        dataset_id=40, dataset_name="diabetes")
    with pytest.raises(DataError) as error:
        read_run_description(description)
    assert str(error.value) == (f"{description}: oml:flow_name has 4,097 characters, over the 4,096 a field may have; "
                                "it is not an OpenML run description: download it again")
    [matrix] = read_runs_folder(root)
    assert list(matrix.runs["run_id"]) == [1, 2]
    assert matrix.source_skipped == [f"run folder 3: unreadable description.xml: {error.value}"]
    # at the limit it is read whole
    write_run_description(root / "runs" / "3", 3, 7, 102, "f" * FIELD_CHARS, setup_id=3, dataset_id=40,
                          dataset_name="diabetes")
    assert read_run_description(description).flow_name == "f" * FIELD_CHARS


def test_a_long_flow_name_under_the_limit_is_imported_whole(tmp_path):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3))
    name = "sklearn.pipeline.Pipeline(" + "p" * 3_000 + ")(7)"
    write_run_description(root / "runs" / "3", 3, 7, 102, name, setup_id=3, dataset_id=40, dataset_name="diabetes")
    out = tmp_path / "imported"
    assert main(["import-runs", str(root), "--out", str(out), "--per-flow", "all"]) == 0
    whole = [path.name for path in out.rglob("*.csv") if name in path.read_text(encoding="utf-8")]
    assert whole, "no CSV keeps the full flow name"


def test_benchirt_rate_prints_a_long_name_cut_and_writes_it_whole(tmp_path, capsys):
    rows = [(f"ds{d}", clf, score) for d in range(4)
            for clf, score in ((LONG, 0.9 - 0.01 * d), ("knn", 0.6), ("majority", 0.3 + 0.01 * d))]
    scores = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "classifier", "score"]).to_csv(scores, index=False)
    out = tmp_path / "rated"
    assert main(["rate", str(scores), "--out", str(out), "--permutations", "0"]) == 0
    printed = capsys.readouterr().out
    assert short_name(LONG) in printed and "x" * NAME_CHARS not in printed   # no part of it longer than a cut name
    assert LONG in set(pd.read_csv(out / "leaderboard.csv")["classifier"])


def _board(names: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    table = pd.DataFrame({"rank": range(1, len(names) + 1), "classifier": names,
                          "bt_rating": [1600.0 - 100 * i for i in range(len(names))],
                          "bt_low": 0.0, "bt_high": 0.0, "rank_low": 1, "rank_high": 1, "tier": 1, "n_datasets": 20})
    pairwise = pd.DataFrame({"a": [names[0]] * (len(names) - 1), "b": names[1:], "bt_difference": 200.0,
                             "bt_difference_low": 40.0, "bt_difference_high": 360.0, "bt_separated": True,
                             "bt_critical_value": 160.0})
    return table, pairwise


def test_the_verdict_the_agreement_checks_and_the_printed_leaderboard_cut_a_long_name_in_the_middle():
    other = LONG.replace("(1)", "(2)")
    table, pairwise = _board([LONG, other, "knn"])
    shown = short_name(LONG)
    verdict = leaderboard_verdict(table, pairwise)
    assert verdict.startswith(f"{shown} ranks first") and LONG not in verdict
    assert f"2 of 2 classifiers ({short_name(other)} and knn)" in verdict
    printed = leaderboard_text(table)
    assert shown in printed and max(map(len, printed.splitlines())) < 2 * NAME_CHARS + 60
    glicko = pd.DataFrame({"classifier": ["knn", LONG], "rating": [1700.0, 1500.0]})
    check = glicko_check(table, glicko)
    assert check == f"Glicko-2 (decodIRT's tournament, datasets in one order) puts knn first and {shown} 2nd — its " \
                    "ratings depend on the order of the datasets, the primary's do not."


def test_airt_conclusions_cut_a_long_algorithm_name():
    algorithms = pd.DataFrame({"algorithm": [LONG, "knn"], "lto_strength": [0.6, 0.4], "anomalous": [True, False],
                               "discrimination": [-1.5, 2.0]})
    sentence = airt_sentence(algorithms)
    assert LONG not in sentence
    assert sentence.startswith(f"AIRT (datasets as respondents): strongest over the range of dataset difficulty — "
                               f"{short_name(LONG)} (60 % of it), knn (40 % of it); anomalous")

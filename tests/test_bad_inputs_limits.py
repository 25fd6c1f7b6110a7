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
from benchirt.sniff import MAX_NAME_LENGTH
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
    assert str(error.value) == (f"{description}: oml:flow_name has 65,537 characters, over the 65,536 a field may "
                                "have; it is not an OpenML run description: download it again")
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


@pytest.mark.parametrize("where", ["respondent", "item", "classifier", "dataset"])
def test_a_name_over_the_limit_in_a_table_is_refused_after_the_parse_in_one_line(tmp_path, capsys, where):
    long = "n" * (MAX_NAME_LENGTH + 1)
    if where in ("respondent", "item"):
        path = tmp_path / "matrix.csv"
        header = ["respondent", "V1", long if where == "item" else "V2"]
        rows = [[long if where == "respondent" and i == 0 else f"r{i}", i % 2, 1 - i % 2] for i in range(12)]
        pd.DataFrame(rows, columns=header).to_csv(path, index=False)
        command = ["irt", str(path), "--out", str(tmp_path / "out")]
    else:
        path = tmp_path / "scores.csv"
        rows = [(long if where == "dataset" and d == 0 else f"d{d}", long if where == "classifier" and k == 0 else c,
                 0.5) for d in range(3) for k, c in enumerate(("a", "b"))]
        pd.DataFrame(rows, columns=["dataset", "classifier", "score"]).to_csv(path, index=False)
        command = ["rate", str(path), "--out", str(tmp_path / "out")]
    assert main(command) == 2
    err = capsys.readouterr().err.strip().splitlines()
    article = "an" if where == "item" else "a"
    assert err == [f"benchirt {command[0]}: error: {path}: {article} {where} name of 65,537 characters, more than the 65,536 a name may "
                   "have; shorten it (long names are shown cut in the middle and kept whole in the CSVs)"]
    assert not (tmp_path / "out").exists()


def test_names_over_the_limit_in_a_performance_table_or_a_runs_matrix_are_refused(tmp_path):
    from benchirt.airt.aslib import load_performance
    from benchirt.stored_runs.matrices import read_matrix_csv

    long = "n" * (MAX_NAME_LENGTH + 1)
    performance = tmp_path / "performance.csv"
    pd.DataFrame({"a": [0.2, 0.5], long: [0.3, 0.4]}, index=["d1", "d2"]).to_csv(performance)
    with pytest.raises(DataError, match=r"performance.csv: an algorithm name of 65,537 characters, more than the "
                                        r"65,536 a name may have"):
        load_performance(performance)
    matrix = tmp_path / "matrix.csv"
    matrix.write_text("respondent,V1,V2\n" + f"{long},1,0\nb,0,1\n", encoding="utf-8")
    read = read_matrix_csv(matrix)   # a runs matrix skips that row, says so and keeps the others
    assert len(read.responses) == 1 and "65,537 characters" in read.skipped[0]


@pytest.mark.parametrize("layout", ["plain", "quoted", "across chunks"])
def test_a_field_longer_than_any_name_is_refused_before_the_parse(tmp_path, layout):
    from benchirt.sniff import MAX_FIELD_BYTES, check_field_sizes

    def field(size: int) -> str:
        """A field of ``size`` bytes; quoted (the quotes not counted), it holds commas and line breaks (no run of
        it is long)."""
        return '"' + ("a,\n" * size)[:size] + '"' if layout == "quoted" else "n" * size

    path = tmp_path / "scores.csv"
    rows = "".join(f"d{d},c{c},0.5\n" for d in range(20_000) for c in range(3))   # about 1 MiB before the field
    head = rows if layout == "across chunks" else ""
    path.write_text("dataset,classifier,score\n" + head + f"d0,{field(MAX_FIELD_BYTES + 1)},0.5\n", encoding="utf-8")
    with pytest.raises(DataError) as error:
        check_field_sizes(path, what="scores CSV")
    assert str(error.value) == (f"{path}: a field of more than 262,144 bytes, longer than any name or value of a "
                                "scores CSV can be (65,536 characters); is it the right file?")
    assert main(["rate", str(path), "--out", str(tmp_path / "out")]) == 2
    path.write_text("dataset,classifier,score\n" + head + f"d0,{field(MAX_FIELD_BYTES)},0.5\n", encoding="utf-8")
    check_field_sizes(path, what="scores CSV")                                  # at the limit: left to the parser


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
    assert verdict.split("like these?): ", 1)[1].startswith(f"{shown} ranks first") and LONG not in verdict
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


def _falling_half(tmp_path):
    """A simulated 2PL pool of 400 x 30 with about half of its discriminations negative (the issue's 1,000 x 50 case,
    smaller): the default monotone model does not fit it."""
    from benchirt.irt.simulate import simulate_responses

    simulated = simulate_responses(400, n_items=30, model="2PL", negative_fraction=0.5, seed=1)
    path = tmp_path / "falling.csv"
    simulated.responses.to_csv(path)
    return simulated, path


@pytest.mark.heavy
def test_the_default_model_says_when_it_does_not_fit_and_names_the_mode_that_does(tmp_path, capsys):
    import json

    import numpy as np

    simulated, path = _falling_half(tmp_path)
    assert main(["irt", str(path), "--out", str(tmp_path / "monotone")]) == 0
    printed = capsys.readouterr().out
    [warning] = [line for line in printed.splitlines() if line.startswith("WARNING:")]
    check = json.loads((tmp_path / "monotone" / "fit.json").read_text())["default_model_check"]
    assert not check["fits"] and check["share_misfit"] > check["threshold"] == 0.35
    assert warning == f"WARNING: {check['warning']}"
    assert warning.startswith(f"WARNING: the default monotone model does not fit: {100 * check['share_misfit']:.0f} % "
                              f"of the {check['n_informative']} informative items fall with its ability")
    assert "--compat decodirt fits a free-sign model" in warning
    assert main(["irt", str(path), "--out", str(tmp_path / "free"), "--compat", "decodirt"]) == 0
    assert "WARNING" not in capsys.readouterr().out
    assert "default_model_check" not in json.loads((tmp_path / "free" / "fit.json").read_text())

    def correlation(folder: str) -> float:
        theta = pd.read_csv(tmp_path / folder / "abilities.csv")["theta"].to_numpy()
        return abs(float(np.corrcoef(theta, simulated.theta)[0, 1]))
    assert correlation("monotone") < 0.6 < 0.9 < correlation("free")   # the warning is about a real loss


def test_a_pool_the_default_model_fits_gets_no_warning(tmp_path, capsys):
    from benchirt.irt.simulate import simulate_responses

    path = tmp_path / "rising.csv"
    simulate_responses(400, n_items=30, model="2PL", seed=1).responses.to_csv(path)
    assert main(["irt", str(path), "--out", str(tmp_path / "out")]) == 0
    assert "WARNING" not in capsys.readouterr().out


def test_the_pipeline_summary_and_the_report_say_the_default_model_does_not_fit(tmp_path):
    from benchirt.irt.config import IRTConfig
    from benchirt.irt.estimation import fit_irt
    from benchirt.irt.stage import DatasetIRT
    from benchirt.irt.summary import default_model_check
    from benchirt.irt.report_sections import default_model_warnings

    simulated, _ = _falling_half(tmp_path)
    config = IRTConfig(model="2PL")
    fit = fit_irt(simulated.responses, config=config)
    check = default_model_check(fit.items, config)
    statistics = {"default_model_share": check["share_misfit"], "default_model_fits": check["fits"],
                  **{key: check[key] for key in ("n_falling", "n_at_zero", "n_informative")}}
    irt = DatasetIRT(dataset=LONG, fit=fit, abilities=pd.DataFrame(), statistics=statistics)
    [line] = [line for line in irt.summary().splitlines() if line.startswith("WARNING:")]
    assert "irt: {model_family: decodirt} (benchirt irt --compat decodirt) fits a free-sign model" in line
    [reported] = default_model_warnings([irt, DatasetIRT(dataset="old", fit=fit, abilities=pd.DataFrame(),
                                                         statistics={})])   # stored before the check: silent
    assert reported == f"{short_name(LONG)}: {line.removeprefix('WARNING: ')}"
    from benchirt.document.context import SectionContext
    from benchirt.document.page import Paragraph
    from benchirt.irt.report_sections import model_fit

    section = model_fit({LONG: irt}, SectionContext(None))
    assert f"• {reported}" in [block.text for block in section.blocks if isinstance(block, Paragraph)]

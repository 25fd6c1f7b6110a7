"""`benchirt irt RESPONSES.csv --out DIR`: round trip on a reference matrix and bad inputs."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.errors import DataError
from benchirt.irt.matrix_file import read_responses_csv
from benchirt.irt.simulate import simulate_responses


@pytest.mark.heavy
def test_cli_round_trip_on_a_reference_matrix(shared_data, tmp_path, capsys):
    source = shared_data / "decodirt-reference" / "pc1" / "responses_pool.csv"
    out = tmp_path / "out"
    assert main(["irt", str(source), "--out", str(out), "--plots"]) == 0
    assert "converged" in capsys.readouterr().out
    items = pd.read_csv(out / "items.csv")
    abilities = pd.read_csv(out / "abilities.csv")
    record = json.loads((out / "fit.json").read_text())
    pool = pd.read_csv(source)
    assert list(items.columns[:4]) == ["item", "discrimination", "difficulty", "guessing"]
    assert items["item"].tolist() == list(pool.columns)
    assert list(abilities.columns[:1]) == ["respondent"] and {"theta", "true_score"} <= set(abilities.columns)
    assert len(abilities) == len(pool)
    for key in ("converged", "n_iter", "log_likelihood", "seconds", "model", "n_respondents", "n_items"):
        assert key in record
    assert record["converged"] and record["n_items"] == pool.shape[1] and record["model"] == "3PL"
    assert np.isfinite(items.select_dtypes("number").to_numpy()).all()
    # True-Score written = sum of P at the written theta, recomputed from the scoring model's items (the 1PL:
    # one discrimination, no guessing; items.csv describes the items with the 3PL)
    scoring = pd.read_csv(out / "scoring_items.csv")
    assert scoring["item"].tolist() == items["item"].tolist() and scoring["discrimination"].nunique() == 1
    assert (scoring["guessing"] == 0).all() and record["scoring_model"] == "1PL" and record["scoring_converged"]
    a, b, c = (scoring[k].to_numpy() for k in ("discrimination", "difficulty", "guessing"))
    theta = abilities["theta"].to_numpy()[:3]
    p = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    np.testing.assert_allclose(abilities["true_score"].to_numpy()[:3], p.sum(axis=1), rtol=1e-9)
    for name in ("icc.png", "ccc_difficulty.png", "ccc_discrimination.png", "parameters.png"):
        assert (out / name).stat().st_size > 1000
    assert not list(out.glob(".*.tmp"))


def test_cli_options_and_respondent_names(tmp_path):
    sim = simulate_responses(40, n_items=30, model="2PL", seed=1)
    path = tmp_path / "named.csv"
    sim.responses.rename_axis("Clf").reset_index().to_csv(path, index=False)
    frame = read_responses_csv(path)
    assert frame.index[0] == "r1" and frame.shape == (40, 30)
    out = tmp_path / "out"
    assert main(["irt", str(path), "--out", str(out), "--model", "2PL", "--no-prior", "--ability", "MAP"]) == 0
    record = json.loads((out / "fit.json").read_text())
    assert record["model"] == "2PL" and record["prior"] is False and record["ability"] == "MAP"
    assert pd.read_csv(out / "abilities.csv")["respondent"].iloc[0] == "r1"
    assert (pd.read_csv(out / "items.csv")["guessing"] == 0).all()


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "the file is empty"),
        ("V1,V2\n1,0\n0,1,1,1\n", "different numbers of fields"),
        ("V1,V2\n" + "1,2\n0,1\n" * 6, "value 2 at respondent '1', item 'V2' is not 0 or 1"),
        ("V1,V2\n" + "1,\n0,1\n" * 6, "missing value \\(NaN\\) at respondent '1', item 'V2'"),
        ("V1,V2\n" + "1,0\n0,1\n" * 3, "6 respondent\\(s\\) cannot support 3PL .*at least 10"),
        ("V1,V2\n", "no respondent rows"),
        ("V1,V2,V3\n" + "1,0\n0,1,1\n" * 6, "line 2 has 2, fewer than the header row's 3"),
        ("V1,V2\n" + "1,0,1\n0,1,1\n" * 6, "line 2 has 3, more than the header row's 2; give every row one value "
                                              "per item and every item a header name"),
        # issue 25 item 4: header-less, duplicate names, another delimiter (messages pinned in full below)
        ("1,0,1\n" + "0,1,1\n1,1,0\n" * 6, "the first row holds 0/1 answers, not item names"),
        ("clf,V1,V2\n" + "a,1,0\nb,0,1\n" * 3 + "a,1,1\n", "respondent 'a' appears twice \\(data rows 1 and 3\\)"),
        ("V1;V2;V3\n" + "1;0;1\n0;1;1\n" * 15, "the first row has no comma but 2 semicolons"),
        ("V1,V2,V1\n" + "1,0,1\n0,1,1\n" * 6, "item name 'V1' appears twice in the header row \\(columns 1 and 3\\)"),
    ],
)
def test_cli_bad_inputs_exit_2_with_one_line(tmp_path, capsys, content, message):
    path = _write(tmp_path / "bad.csv", content)
    assert main(["irt", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("benchirt irt: error:") and "\n" not in err
    assert pytest.importorskip("re").search(message, err), err
    assert not (tmp_path / "out" / "items.csv").exists()


def test_a_header_less_matrix_is_refused_and_read_with_no_header(tmp_path, capsys):
    """Issue 25 item 4: the first respondent is never lost; --no-header reads it and names the items V1..Vm."""
    sim = simulate_responses(30, n_items=8, model="2PL", seed=2)
    path = tmp_path / "no_header.csv"
    sim.responses.to_csv(path, header=False)  # first column: the respondent names r1..r30
    assert main(["irt", str(path), "--out", str(tmp_path / "refused")]) == 2
    assert capsys.readouterr().err == (
        f"benchirt irt: error: {path}: the first row holds 0/1 answers, not item names: the file has no header row "
        "(reading it as one would lose the first respondent); add a header row of item names, or pass --no-header "
        "to name the items V1..Vm\n")
    frame = read_responses_csv(path, header=False)
    assert frame.shape == (30, 8) and frame.index[0] == "r1" and list(frame.columns[:2]) == ["V1", "V2"]
    np.testing.assert_array_equal(frame.to_numpy(), sim.responses.to_numpy())
    out = tmp_path / "out"
    assert main(["irt", str(path), "--no-header", "--model", "2PL", "--out", str(out)]) == 0
    assert len(pd.read_csv(out / "abilities.csv")) == 30
    named = tmp_path / "with_header.csv"
    sim.responses.to_csv(named)
    with pytest.raises(DataError, match="with --no-header the first row must be answers, but it holds names "
                                        "\\('V1', 'V2', 'V3', …\\); drop --no-header"):
        read_responses_csv(named, header=False)


def test_duplicate_respondents_and_another_delimiter_are_refused_with_the_fix(tmp_path):
    twice = tmp_path / "twice.csv"
    twice.write_text("clf,V1,V2,V3\nsvc,1,0,1\nknn,0,1,1\nsvc,1,1,0\n")
    with pytest.raises(DataError) as info:
        read_responses_csv(twice)
    assert str(info.value) == (f"{twice}: respondent 'svc' appears twice (data rows 1 and 3); give every respondent a "
                               "unique name in the first column")
    semicolons = tmp_path / "semicolons.csv"
    semicolons.write_text("V1;V2;V3\n" + "1;0;1\n0;1;1\n" * 15)
    with pytest.raises(DataError) as info:
        read_responses_csv(semicolons)
    assert str(info.value) == (
        f"{semicolons}: the first row has no comma but 2 semicolons, so the file is semicolon-separated; benchirt "
        "reads comma-separated response matrices: save it with commas (e.g. pandas.read_csv(path, sep=';')"
        ".to_csv(new_path, index=False))")
    tabs = tmp_path / "tabs.tsv"
    tabs.write_text("V1\tV2\n1\t0\n")
    with pytest.raises(DataError, match="no comma but 1 tabs, so the file is tab-separated"):
        read_responses_csv(tabs)


def test_the_integer_reader_and_the_general_parser_agree(tmp_path):
    """Quoted names go through pandas, plain 0/1 through numpy.loadtxt: the same frame, int8 on the fast path."""
    sim = simulate_responses(25, n_items=6, model="2PL", seed=3)
    plain, quoted = tmp_path / "plain.csv", tmp_path / "quoted.csv"
    sim.responses.rename_axis("clf").to_csv(plain)
    sim.responses.rename_axis("clf").to_csv(quoted, quoting=1)  # csv.QUOTE_ALL
    fast, general = read_responses_csv(plain), read_responses_csv(quoted)
    assert fast.dtypes.unique().tolist() == [np.int8]
    pd.testing.assert_frame_equal(fast, general, check_dtype=False)
    assert list(fast.index[:2]) == ["r1", "r2"] and fast.index.name == "respondent"


def test_cli_missing_file(tmp_path, capsys):
    assert main(["irt", str(tmp_path / "nope.csv"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_compare_models_item_fit_and_start_report(tmp_path, capsys):
    sim = simulate_responses(300, n_items=25, model="2PL", seed=4, discrimination="normal")
    path = tmp_path / "half_negative.csv"
    sim.responses.to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["irt", str(path), "--out", str(out), "--model", "2PL", "--compare-models", "--starts", "3"]) == 0
    printed = capsys.readouterr().out
    assert "best of 3 EM start(s)" in printed and "1PL" in printed and "3PL" in printed
    comparison = pd.read_csv(out / "model_comparison.csv")
    assert comparison["model"].tolist() == ["1PL", "2PL", "3PL"]
    assert comparison["n_parameters"].tolist() == [26, 50, 75]
    assert comparison["best_bic"].sum() == 1
    record = json.loads((out / "fit.json").read_text())
    assert record["status"] == "converged"
    # the monotone default puts the sum score, on which every item agrees, first
    assert [run["start"] for run in record["start_runs"]] == ["sum_score", "principal_component", "direction_30"]
    assert record["n_optima"] == len(record["optima"]) >= 1 and record["max_gradient"] < record["tol_gradient"]
    assert comparison.set_index("model").loc["2PL", "log_likelihood"] == pytest.approx(record["log_likelihood"])
    items = pd.read_csv(out / "items.csv")
    assert {"infit", "outfit", "misfit"} <= set(items.columns)


def test_cli_rejects_bad_starts(tmp_path, capsys):
    path = tmp_path / "r.csv"
    simulate_responses(30, n_items=10, model="2PL", seed=0).responses.to_csv(path, index=False)
    for value, message in (("0", "irt.starts: got 0, expected 'auto' or an integer >= 1"),
                           ("two", "irt.starts: got 'two', expected 'auto' or an integer >= 1"),
                           ("2.5", "irt.starts: got 2.5, expected 'auto' or an integer >= 1")):
        assert main(["irt", str(path), "--out", str(tmp_path / "o"), "--starts", value]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_items_csv_reproduces_the_fit_for_items_without_information(tmp_path, capsys):
    """Issue 23: eq. 1 on every row of items.csv gives the fit's P (1 / 0 for all-correct / all-wrong items, not
    0.5), the log-likelihood and True-Scores; `benchirt irt score` on the file gives abilities.csv back."""
    from benchirt.irt import IRTConfig
    from benchirt.irt.models import marginal_log_likelihood, quadrature

    sim = simulate_responses(120, n_items=20, model="2PL", seed=5)
    frame = sim.responses.assign(everyone=1, nobody=0, everyone_too=1).rename_axis("clf")
    path = tmp_path / "constant_items.csv"
    frame.to_csv(path)
    out = tmp_path / "out"
    assert main(["irt", str(path), "--model", "2PL", "--scoring-model", "2PL", "--out", str(out)]) == 0
    assert not (out / "scoring_items.csv").exists()  # the item model scores: no second table
    items = pd.read_csv(out / "items.csv").set_index("item")
    abilities = pd.read_csv(out / "abilities.csv").set_index("respondent")
    record = json.loads((out / "fit.json").read_text())
    assert items.loc[["everyone", "everyone_too", "nobody"], "flag"].tolist() == ["all_correct", "all_correct", "all_wrong"]
    a, b, c = (items[k].to_numpy() for k in ("discrimination", "difficulty", "guessing"))
    theta = abilities["theta"].to_numpy()
    p = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    constant = items.index.get_indexer(["everyone", "everyone_too", "nobody"])
    np.testing.assert_allclose(p[:, constant], np.tile([1.0, 1.0, 0.0], (len(theta), 1)), atol=1e-20)
    np.testing.assert_allclose(abilities["true_score"], p.sum(axis=1), rtol=1e-12)
    config = IRTConfig(model="2PL")
    nodes, log_w = quadrature(record["quadrature_nodes"], config.theta_max)  # the fit's grid
    loglik = marginal_log_likelihood(frame[items.index].to_numpy(), a, b, c, nodes, log_w)
    assert loglik == pytest.approx(record["log_likelihood"], abs=1e-6)  # the three constant items add 0, not n log 0.5
    for name, table in (("flagged", items), ("no_flag", items.drop(columns="flag"))):
        table.reset_index().to_csv(tmp_path / f"{name}.csv", index=False)
        scored = tmp_path / f"scored_{name}"
        assert main(["irt", "score", str(path), "--items", str(tmp_path / f"{name}.csv"), "--model", "2PL",
                     "--out", str(scored)]) == 0
        again = pd.read_csv(scored / "abilities.csv").set_index("respondent")
        np.testing.assert_allclose(again[["theta", "se", "true_score"]], abilities[["theta", "se", "true_score"]],
                                   rtol=1e-9, atol=1e-9)
    capsys.readouterr()


def test_a_two_item_header_less_matrix_and_a_byte_order_mark(tmp_path):
    two = tmp_path / "two.csv"
    two.write_text("1,0\n" + "0,1\n1,1\n" * 6)
    with pytest.raises(DataError, match="the first row holds 0/1 answers, not item names"):
        read_responses_csv(two)
    assert read_responses_csv(two, header=False).shape == (13, 2)
    bom = tmp_path / "excel.csv"
    bom.write_bytes("V1,V2,V3\r\n1,0,1\r\n0,1,1\r\n".encode("utf-8-sig"))
    frame = read_responses_csv(bom)
    assert list(frame.columns) == ["V1", "V2", "V3"] and frame.index.tolist() == ["1", "2"]


@pytest.mark.heavy
def test_cli_quadrature_fixes_the_grid_or_refuses_a_bad_value(tmp_path, capsys):
    path = tmp_path / "r.csv"
    simulate_responses(132, n_items=600, model="2PL", seed=2).responses.to_csv(path, index=False)
    out = tmp_path / "fixed"
    assert main(["irt", str(path), "--out", str(out), "--model", "2PL", "--starts", "1", "--quadrature", "61"]) == 0
    record = json.loads((out / "fit.json").read_text())
    assert record["quadrature_nodes"] == 61 and record["quadrature_error"] > 0
    assert record["quadrature_grids"] == [{"nodes": 61, "n_iter": record["n_iter"]}]  # EM steps per grid
    assert f"quadrature: 61 nodes; doubling them changes the log posterior at the optimum by " \
           f"{record['quadrature_error']:.3g}" in capsys.readouterr().out
    for value, message in (("3", "irt.quadrature: got 3, expected an integer >= 5"),
                           ("fine", "irt.quadrature: got 'fine', expected an integer >= 5")):
        assert main(["irt", str(path), "--out", str(tmp_path / "o"), "--quadrature", value]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argument, value, message", [
    ("--model", "4PL", "irt.model: got '4PL', expected one of 1PL, 2PL, 3PL"),
    ("--scoring-model", "rasch", "irt.scoring_model: got 'rasch', expected one of auto, 1PL, 2PL, 3PL"),
    ("--ability", "ML", "irt.ability: got 'ML', expected one of EAP, MAP"),
    ("--max-iter", "many", "irt.max_iter: got 'many', expected an integer >= 1"),
    ("--max-iter", "0", "irt.max_iter: got 0, expected an integer >= 1"),
])
def test_command_line_options_are_checked_by_the_config_s_declarations(tmp_path, capsys, argument, value, message):
    """An option given on the command line is read as its field declares it and refused in the config's words."""
    path = tmp_path / "r.csv"
    simulate_responses(30, n_items=10, model="2PL", seed=0).responses.to_csv(path, index=False)
    assert main(["irt", str(path), "--out", str(tmp_path / "o"), argument, value]) == 2
    assert capsys.readouterr().err == f"benchirt irt: error: {message}\n"
    assert not (tmp_path / "o").exists()

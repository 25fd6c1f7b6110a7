"""`benchirt irt RESPONSES.csv --out DIR`: round trip on a reference matrix and bad inputs."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.irt.command import read_responses_csv
from benchirt.irt.simulate import simulate_responses


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
    # True-Score written = sum of P at the written theta, recomputed from items.csv
    a, b, c = (items[k].to_numpy() for k in ("discrimination", "difficulty", "guessing"))
    theta = abilities["theta"].to_numpy()[:3]
    p = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    np.testing.assert_allclose(abilities["true_score"].to_numpy()[:3], p.sum(axis=1), rtol=1e-9)
    for name in ("icc.png", "ccc_difficulty.png", "ccc_discrimination.png", "parameters.png"):
        assert (out / name).stat().st_size > 1000
    assert not list(out.glob(".*.tmp"))


def test_cli_options_and_respondent_names(tmp_path):
    sim = simulate_responses(40, 30, model="2PL", seed=1)
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
        ("V1,V2,V3\n" + "1,0\n0,1,1\n" * 6, "missing value"),
        ("V1,V2\n" + "1,0,1\n0,1,1\n" * 6, "more fields than the header"),
    ],
)
def test_cli_bad_inputs_exit_2_with_one_line(tmp_path, capsys, content, message):
    path = _write(tmp_path / "bad.csv", content)
    assert main(["irt", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("benchirt irt: error:") and "\n" not in err
    assert pytest.importorskip("re").search(message, err), err
    assert not (tmp_path / "out" / "items.csv").exists()


def test_cli_missing_file(tmp_path, capsys):
    assert main(["irt", str(tmp_path / "nope.csv"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_compare_models_item_fit_and_start_report(tmp_path, capsys):
    sim = simulate_responses(300, 25, model="2PL", seed=4, discrimination="normal")
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
    assert [run["start"] for run in record["start_runs"]] == ["principal_component", "sum_score", "direction_30"]
    assert record["n_optima"] == len(record["optima"]) >= 1 and record["max_gradient"] < record["tol_gradient"]
    assert comparison.set_index("model").loc["2PL", "log_likelihood"] == pytest.approx(record["log_likelihood"])
    items = pd.read_csv(out / "items.csv")
    assert {"infit", "outfit", "misfit"} <= set(items.columns)


def test_cli_rejects_bad_starts(tmp_path, capsys):
    path = tmp_path / "r.csv"
    simulate_responses(30, 10, model="2PL", seed=0).responses.to_csv(path, index=False)
    for value, message in (("0", "irt.starts: got 0, expected"), ("two", "--starts: 'auto' or a whole number")):
        assert main(["irt", str(path), "--out", str(tmp_path / "o"), "--starts", value]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()

"""Frozen-item scoring: θ, SE and True-Score of new respondents without refitting (benchirt.irt.scoring)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.errors import DataError
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.scoring import read_items, score_frozen
from benchirt.irt.simulate import simulate_responses


@pytest.fixture(scope="module")
def simulated():
    sim = simulate_responses(120, n_items=60, model="3PL", seed=3)
    responses = sim.responses.set_axis([f"r{i}" for i in range(len(sim.responses))], axis=0)
    return responses, fit_irt(responses, config=IRTConfig())


def test_frozen_scoring_equals_the_fit_for_calibration_respondents(simulated):
    responses, fit = simulated
    for method in ("EAP", "MAP"):
        frozen = score_frozen(fit.items, responses, method=method, config=fit.config)
        fitted = fit.ability_table(responses, method=method)
        np.testing.assert_allclose(frozen.to_numpy(), fitted.to_numpy(), rtol=1e-10, atol=1e-10)


def test_a_left_out_respondent_gets_its_fitted_theta_back_within_its_se(simulated):
    """Calibrate without respondents, score them on the frozen items: θ within SE of the full fit's θ."""
    responses, full = simulated
    held = responses.index[::12]
    rest = fit_irt(responses.drop(index=held), config=IRTConfig())
    frozen = score_frozen(rest.items, responses.loc[held], method="EAP", config=rest.config)
    fitted = full.ability_table(responses.loc[held])
    gap = (frozen["theta"] - fitted["theta"]).abs()
    assert (gap <= frozen["se"]).all(), pd.concat([gap, frozen["se"]], axis=1)
    assert (frozen["se"] > 0).all()


def test_flagged_items_count_one_or_zero_in_the_true_score(simulated):
    responses, fit = simulated
    items = fit.items.copy()
    items.iloc[0, items.columns.get_loc("flag")] = "all_correct"
    items.iloc[1, items.columns.get_loc("flag")] = "all_wrong"
    base = score_frozen(fit.items.iloc[2:], responses.iloc[:3, 2:], method="EAP", config=fit.config)
    flagged = score_frozen(items, responses.iloc[:3], method="EAP", config=fit.config)
    np.testing.assert_allclose(flagged["theta"], base["theta"])
    np.testing.assert_allclose(flagged["true_score"], base["true_score"] + 1.0)


@pytest.mark.heavy
def test_cli_scores_against_items_csv_without_refitting(shared_data, tmp_path, capsys):
    source = shared_data / "decodirt-reference" / "pc1" / "responses_pool.csv"
    assert main(["irt", str(source), "--out", str(tmp_path / "fit")]) == 0
    items_file = tmp_path / "fit" / "scoring_items.csv"  # the items new respondents are scored on
    before = items_file.read_bytes()
    pool = pd.read_csv(source)
    pool.index = [f"c{i}" for i in range(len(pool))]
    pool.iloc[[5, 40, 90]].to_csv(tmp_path / "new.csv", index_label="classifier")
    assert main(["irt", str(tmp_path / "new.csv"), "--items", str(items_file), "--out", str(tmp_path / "score")]) == 0
    assert "not refitted" in capsys.readouterr().out
    scored = pd.read_csv(tmp_path / "score" / "abilities.csv").set_index("respondent")
    fitted = pd.read_csv(tmp_path / "fit" / "abilities.csv")
    assert list(scored.columns) == ["theta", "se", "true_score"] and list(scored.index) == ["c5", "c40", "c90"]
    np.testing.assert_allclose(scored["theta"], fitted["theta"].to_numpy()[[5, 40, 90]], atol=1e-6)
    assert items_file.read_bytes() == before and not (tmp_path / "score" / "items.csv").exists()


def test_reads_decodirt_ltm_item_parameters(shared_data):
    items = read_items(shared_data / "decodirt-reference" / "pc1" / "ltm_item_params.csv")
    assert items.index[:2].tolist() == ["V1", "V2"]
    assert items.loc["V1", "discrimination"] == pytest.approx(6.488) and (items["flag"] == "ok").all()


@pytest.mark.parametrize(
    "table, message",
    [
        (pd.DataFrame({"item": ["V1"], "discrimination": [1.0], "difficulty": [0.0]}), "lacks column(s) guessing"),
        (pd.DataFrame({"item": ["V1"], "discrimination": [1.0], "difficulty": ["x"], "guessing": [0.1]}), "non-numeric"),
        (pd.DataFrame({"item": ["V1"], "discrimination": [1.0], "difficulty": [0.0], "guessing": [1.2]}), "outside [0, 1)"),
    ],
)
def test_bad_item_tables(tmp_path, table, message):
    table.to_csv(tmp_path / "items.csv", index=False)
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read_items(tmp_path / "items.csv")


def test_responses_must_answer_exactly_the_frozen_items(simulated, tmp_path, capsys):
    responses, fit = simulated
    with pytest.raises(DataError, match="1 item\\(s\\) missing"):
        score_frozen(fit.items, responses.iloc[:, 1:], method="EAP", config=fit.config)
    fit.items.reset_index().to_csv(tmp_path / "items.csv", index=False)
    responses.iloc[:2, :-1].to_csv(tmp_path / "short.csv", index=False)
    assert main(["irt", str(tmp_path / "short.csv"), "--items", str(tmp_path / "items.csv"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "do not match the frozen items" in err


def test_score_word_scores_like_items_flag(simulated, tmp_path, capsys):
    responses, fit = simulated
    fit.items.reset_index().to_csv(tmp_path / "items.csv", index=False)
    responses.iloc[:4].to_csv(tmp_path / "new.csv", index=False)
    items = str(tmp_path / "items.csv")
    assert main(["irt", "score", str(tmp_path / "new.csv"), "--items", items, "--out", str(tmp_path / "a")]) == 0
    assert main(["irt", str(tmp_path / "new.csv"), "--items", items, "--out", str(tmp_path / "b")]) == 0
    assert (tmp_path / "a" / "abilities.csv").read_bytes() == (tmp_path / "b" / "abilities.csv").read_bytes()
    assert not (tmp_path / "a" / "items.csv").exists()
    capsys.readouterr()


@pytest.mark.parametrize(
    "words, message",
    [
        (["score", "NEW"], "benchirt irt score needs --items ITEMS.csv: the frozen item parameters to score against"),
        (["NEW", "NEW"], "benchirt irt takes one RESPONSES.csv (or 'score RESPONSES.csv --items ITEMS.csv'), got: NEW NEW"),
    ],
)
def test_score_word_errors(tmp_path, capsys, words, message):
    (tmp_path / "new.csv").write_text("V1,V2\n1,0\n")
    argv = ["irt", *[str(tmp_path / "new.csv") if w == "NEW" else w for w in words], "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    expected = message.replace("NEW", str(tmp_path / "new.csv"))
    assert capsys.readouterr().err.strip().endswith(expected)

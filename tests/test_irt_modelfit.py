"""Model fit you can read (issue 14, item 2): item infit/outfit and 1PL/2PL/3PL side by side;
suspect labels (item 3): strongly negative items mapped back to dataset rows."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from benchirt.irt import IRTConfig, compare_models, fit_irt, irt_for_responses, item_fit
from benchirt.irt import model_comparison_table, suspect_label_table, suspect_labels
from benchirt.irt.itemfit import mean_squares
from benchirt.irt.simulate import simulate_responses


def test_mean_squares_by_hand():
    u = np.array([[1, 0], [0, 1], [1, 1]], float)
    p = np.array([[0.8, 0.4], [0.3, 0.5], [0.6, 0.9]])
    infit, outfit = mean_squares(u, p)
    # item 1: residuals .2, -.3, .4; variances .16, .21, .24
    assert outfit[0] == pytest.approx((0.04 / 0.16 + 0.09 / 0.21 + 0.16 / 0.24) / 3)
    assert infit[0] == pytest.approx((0.04 + 0.09 + 0.16) / (0.16 + 0.21 + 0.24))
    # item 2: residuals -.4, .5, .1; variances .24, .25, .09
    assert outfit[1] == pytest.approx((0.16 / 0.24 + 0.25 / 0.25 + 0.01 / 0.09) / 3)
    assert infit[1] == pytest.approx((0.16 + 0.25 + 0.01) / (0.24 + 0.25 + 0.09))


def test_items_that_follow_the_model_fit_and_surprising_answers_misfit():
    sim = simulate_responses(400, 40, model="2PL", seed=5)
    responses = sim.responses.copy()
    # a steep item answered by ability, except that the 4 ablest respondents fail it
    steep = (sim.theta > 0).astype(np.int8)
    steep[np.argsort(sim.theta)[-4:]] = 0
    responses["surprising"] = steep
    fit = fit_irt(responses, IRTConfig(model="2PL"))
    table = item_fit(fit, responses)
    assert list(table.columns) == ["infit", "outfit", "misfit"]
    regular = table.drop(index="surprising")
    assert 0.85 < regular["infit"].mean() < 1.05 and 0.8 < regular["outfit"].mean() < 1.05
    assert regular["misfit"].mean() <= 0.05
    assert table.loc["surprising", "outfit"] > 1.5 and table.loc["surprising", "misfit"]
    # column order of the input does not matter
    shuffled = item_fit(fit, responses[responses.columns[::-1]])
    pd.testing.assert_frame_equal(shuffled, table)


def test_items_without_information_get_neutral_fit():
    sim = simulate_responses(100, 20, model="2PL", seed=2)
    responses = sim.responses.assign(everyone=1)
    fit = fit_irt(responses, IRTConfig(model="2PL"))
    table = item_fit(fit, responses)
    assert table.loc["everyone"].tolist() == [1.0, 1.0, False]
    assert np.isfinite(table[["infit", "outfit"]].to_numpy()).all()


@pytest.mark.parametrize("truth", ["1PL", "2PL"])
def test_model_comparison_counts_parameters_and_bic_picks_the_true_model(truth):
    sim = simulate_responses(800, 30, model=truth, seed=7)
    config = IRTConfig(model="3PL")
    fitted = fit_irt(sim.responses, config)
    table = compare_models(sim.responses, config, fitted=fitted).set_index("model")
    assert list(table.index) == ["1PL", "2PL", "3PL"]
    assert table["n_parameters"].tolist() == [31, 60, 90]
    assert table.loc["3PL", "log_likelihood"] == fitted.log_likelihood  # reused, not refitted
    for model, row in table.iterrows():
        assert row["aic"] == pytest.approx(-2 * row["log_likelihood"] + 2 * row["n_parameters"])
        assert row["bic"] == pytest.approx(-2 * row["log_likelihood"] + row["n_parameters"] * np.log(800))
    assert table["best_bic"].sum() == 1 and table.loc[truth, "best_bic"]
    assert table.loc["2PL", "log_likelihood"] > table.loc["1PL", "log_likelihood"]


def test_suspect_labels_rule_order_and_rows():
    items = pd.DataFrame({
        "discrimination": [1.2, -0.4, -2.5, -1.0, 0.0, -3.0],
        "difficulty": [0.0, 0.5, 1.0, -1.0, 6.0, 2.0],
        "se_discrimination": [0.3, 0.3, 0.8, 0.5, 0.0, 1.0],
        "p_correct": [0.7, 0.4, 0.2, 0.5, 0.0, 0.1],
        "flag": ["ok", "ok", "ok", "ok", "all_wrong", "at_bound"],
    }, index=pd.Index(["10", "11", "12", "13", "14", "15"], name="item"))
    predictions = pd.DataFrame({"12": ["a", "b", "b"], "15": ["c", "c", "a"], "13": ["a", "a", "a"],
                                "14": ["b", "b", "b"]}, index=["x", "y", "z"])
    correct = pd.DataFrame({"12": [1, 0, 0], "15": [0, 0, 1], "13": [1, 1, 1], "14": [0, 0, 0]}, index=["x", "y", "z"])
    table = suspect_labels(items, 1.0, predictions, correct)
    assert table["item"].tolist() == ["15", "12", "13", "14"]  # most negative first, then nobody right
    assert table["row"].tolist() == [15, 12, 13, 14]
    assert table["reason"].tolist() == ["negative_discrimination"] * 3 + ["all_wrong"]
    assert table["label"].tolist() == ["a", "a", "a", ""]
    assert table["consensus"].tolist() == ["c", "b", "a", "b"]
    assert table["consensus_share"].tolist() == pytest.approx([2 / 3, 2 / 3, 1.0, 1.0])
    assert suspect_labels(items, 2.6)["item"].tolist() == ["15", "14"]


@dataclass
class _Result:
    dataset: str
    responses: pd.DataFrame
    roles: pd.Series
    predictions: pd.DataFrame


def test_stage_stores_item_fit_comparison_and_suspects_with_dataset_rows():
    """A pool where one test instance is mislabelled: the able classifiers 'miss' it."""
    sim = simulate_responses(60, 60, model="2PL", seed=9)
    responses = sim.responses.copy()
    responses.columns = [str(100 + j) for j in range(60)]  # item ids are dataset row positions
    order = np.argsort(sim.theta)
    mislabelled = np.zeros(60, dtype=np.int8)
    mislabelled[order[:25]] = 1  # only the weakest respondents agree with the (wrong) label
    responses["7"] = mislabelled
    responses.index = [f"mlp_epoch_{i:03d}" for i in range(1, 49)] + [f"real{i}" for i in range(12)]
    roles = pd.Series(["ladder"] * 48 + ["real"] * 12, index=responses.index)
    predictions = pd.DataFrame(np.where(responses.to_numpy() == 1, "cat", "dog"), index=responses.index,
                               columns=responses.columns)
    irt = irt_for_responses(_Result("toy", responses, roles, predictions), IRTConfig(model="2PL"))
    assert irt.suspect_labels["row"].tolist()[0] == 7
    first = irt.suspect_labels.iloc[0]
    assert first["label"] == "cat" and first["discrimination"] <= -1.0
    assert list(irt.model_comparison["model"]) == ["1PL", "2PL", "3PL"]
    assert irt.summary["n_suspect_labels"] == len(irt.suspect_labels)
    assert irt.summary["n_misfit"] == int(irt.item_fit["misfit"].sum())
    wide = model_comparison_table([irt])
    assert wide.loc[0, "dataset"] == "toy" and {"aic_1PL", "bic_3PL", "loglik_2PL", "best_bic"} <= set(wide.columns)
    long = suspect_label_table([irt])
    assert long["dataset"].eq("toy").all() and len(long) == len(irt.suspect_labels)
    off = irt_for_responses(_Result("toy", responses, roles, predictions), IRTConfig(model="2PL", compare_models=False))
    assert off.model_comparison.empty

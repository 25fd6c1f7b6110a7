"""Abilities (EAP, MAP), probabilities and True-Scores of a fitted model."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import DataError
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.models import upper_asymptote
from benchirt.irt.simulate import simulate_responses


@pytest.fixture(scope="module")
def fitted():
    sim = simulate_responses(132, n_items=300, model="3PL", negative_fraction=0.05, seed=4)
    return sim, fit_irt(sim.responses)


def test_eap_and_map_agree_and_map_is_more_spread(fitted):
    sim, fit = fitted
    eap = fit.ability_table(sim.responses, method="EAP")
    map_ = fit.ability_table(sim.responses, method="MAP")
    assert np.corrcoef(eap["theta"], map_["theta"])[0, 1] > 0.995
    # EAP shrinks toward the prior mean more than the mode does
    assert map_["theta"].std() >= eap["theta"].std() * 0.98
    assert (eap["se"] > 0).all() and (map_["se"] > 0).all()
    assert np.corrcoef(map_["theta"], sim.theta)[0, 1] > 0.97


def test_all_correct_and_all_wrong_respondents_get_finite_extreme_abilities(fitted):
    _, fit = fitted
    items = fit.items.index
    extremes = pd.DataFrame([np.ones(len(items)), np.zeros(len(items))], index=["optimal", "pessimal"], columns=items)
    for method in ("EAP", "MAP"):
        table = fit.ability_table(extremes, method=method)
        assert np.isfinite(table.to_numpy()).all()
        assert table.loc["optimal", "theta"] > 2.0 > -2.0 > table.loc["pessimal", "theta"]
        assert abs(table.loc["optimal", "theta"]) <= fit.config.theta_max


def test_true_score_is_the_sum_of_probabilities_and_increases_with_ability():
    sim = simulate_responses(132, n_items=200, model="3PL", seed=6)  # positive discriminations only
    fit = fit_irt(sim.responses)
    theta = np.linspace(-4, 4, 81)
    scores = fit.true_score(theta)
    np.testing.assert_allclose(scores, fit.probability(theta).sum(axis=1))
    assert np.all(np.diff(scores) > 0)
    # an all-correct respondent scores about the number of items times their upper asymptote
    optimal = pd.DataFrame([np.ones(200)], columns=fit.items.index)
    table = fit.ability_table(optimal)
    ceiling = upper_asymptote(fit.items["discrimination"], fit.items["guessing"]).sum()
    assert ceiling > 0.99 * 200  # nearly every fitted curve rises to 1 (the optimum search may turn one flat item)
    assert table["true_score"].iloc[0] == pytest.approx(ceiling, rel=0.05)
    assert table["true_score"].iloc[0] <= ceiling


def test_probability_for_new_respondents_matches_the_item_formula(fitted):
    sim, fit = fitted
    theta = np.array([-1.0, 0.5])
    a, b, c = (fit.items[k].to_numpy() for k in ("discrimination", "difficulty", "guessing"))
    expected = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    np.testing.assert_allclose(fit.probability(theta), expected)
    # respondents not in the calibration (columns in another order) are scored on the same items
    shuffled = sim.responses.iloc[:5, ::-1].set_axis([f"new{i}" for i in range(5)])
    np.testing.assert_allclose(fit.abilities(shuffled).to_numpy(), fit.abilities(sim.responses.iloc[:5]).to_numpy())


def test_abilities_reject_responses_on_other_items(fitted):
    sim, fit = fitted
    with pytest.raises(DataError, match="do not match the fitted items"):
        fit.abilities(sim.responses.rename(columns={"V1": "W1"}))
    with pytest.raises(DataError, match="columns but the fit has 300 items"):
        fit.abilities(np.zeros((2, 10)))
    with pytest.raises(DataError, match="not one of EAP, MAP"):
        fit.abilities(sim.responses, method="WLE")


def test_flagged_items_do_not_move_abilities():
    sim = simulate_responses(132, n_items=100, model="2PL", seed=8)
    frame = sim.responses.copy()
    frame["everyone"] = 1
    fit = fit_irt(frame, config=IRTConfig(model="2PL"))
    base = fit.abilities(frame)
    missed = frame.copy()
    missed["everyone"] = 0  # a new respondent missing the item nobody missed in calibration
    np.testing.assert_allclose(fit.abilities(missed).to_numpy(), base.to_numpy())


def test_eap_grid_is_fine_enough_for_narrow_posteriors(fitted):
    sim, fit = fitted
    default = fit.ability_table(sim.responses)
    finer = replace(fit, config=replace(fit.config, ability_quadrature=961)).ability_table(sim.responses)
    coarse = replace(fit, config=replace(fit.config, ability_quadrature=41)).ability_table(sim.responses)
    assert default["se"].median() < 0.25  # posteriors much narrower than the calibration grid spacing
    assert (default["theta"] - finer["theta"]).abs().max() < 0.005
    assert (coarse["theta"] - finer["theta"]).abs().max() > 5 * (default["theta"] - finer["theta"]).abs().max()

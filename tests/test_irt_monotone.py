"""The default scoring model is monotone in the answers (issue 32): one more correct answer never
lowers θ or the True-Score, a respondent never scores below one whose answers it dominates, and an
item whose answers fall with ability is reported by its ``ability_slope`` — a diagnostic with one
answer — instead of a negative discrimination."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from benchirt.errors import ConfigError
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.scoring import score_frozen
from benchirt.irt.simulate import simulate_responses
from benchirt.irt.slope import ability_slopes


def _items(rng, m: int, adversarial: bool) -> pd.DataFrame:
    """Random monotone items; ``adversarial``: steep, flat (a = 0), extreme and guessable ones mixed."""
    if adversarial:
        a = rng.choice([0.0, 1e-3, 0.2, 3.0, 10.0], size=m)
        b = rng.choice([-6.0, -2.0, 0.0, 2.5, 6.0], size=m)
        c = rng.choice([0.0, 0.3, 0.95], size=m)
    else:
        a, b, c = rng.uniform(0, 3, m), rng.normal(0, 1.5, m), rng.uniform(0, 0.4, m)
    return pd.DataFrame({"discrimination": a, "difficulty": b, "guessing": c},
                        index=[f"q{j}" for j in range(m)])


@pytest.mark.parametrize("adversarial", [False, True])
@pytest.mark.parametrize("method", ["EAP", "MAP"])
def test_one_more_correct_answer_never_lowers_ability_or_true_score(adversarial, method):
    rng = np.random.default_rng(7 if adversarial else 3)
    items = _items(rng, 25, adversarial)
    answers = (rng.random((30, 25)) < 0.5).astype(int)
    rows, names = [], []
    for i, row in enumerate(answers):  # each pattern and, for every wrong answer, the pattern with it right
        rows.append(row)
        names.append((i, -1))
        for j in np.flatnonzero(row == 0):
            better = row.copy()
            better[j] = 1
            rows.append(better)
            names.append((i, j))
    frame = pd.DataFrame(rows, columns=items.index, index=[f"{i}:{j}" for i, j in names])
    scored = score_frozen(items, frame, method=method)
    base = {i: scored.iloc[k] for k, (i, j) in enumerate(names) if j == -1}
    slack = 1e-9 if method == "EAP" else 1e-6  # MAP is a numerical optimum
    for k, (i, j) in enumerate(names):
        if j >= 0:
            assert scored.iloc[k]["theta"] >= base[i]["theta"] - slack, (i, j)
            assert scored.iloc[k]["true_score"] >= base[i]["true_score"] - slack, (i, j)


def test_the_fitted_model_is_monotone_and_ranks_dominating_respondents_higher():
    """On a simulated pool with 10 % falling items, the default fit keeps every a >= 0, so the optimal
    respondent scores highest, the pessimal lowest, and no one below a respondent it dominates."""
    sim = simulate_responses(120, n_items=200, model="3PL", negative_fraction=0.1, seed=11)
    fit = fit_irt(sim.responses)
    assert fit.config.model_family == "monotone" and fit.converged
    assert np.all(np.diff(fit.history) > -1e-6)  # EM and every kept expanded move raise the log posterior
    assert (fit.items["discrimination"] >= 0).all()
    extremes = pd.DataFrame([np.ones(200, int), np.zeros(200, int)], columns=sim.responses.columns,
                            index=["optimal", "pessimal"])
    everyone = pd.concat([sim.responses, extremes])
    table = fit.ability_table(everyone)
    assert table["theta"].idxmax() == "optimal" and table["theta"].idxmin() == "pessimal"
    assert table["true_score"].idxmax() == "optimal" and table["true_score"].idxmin() == "pessimal"
    u = everyone.to_numpy()
    dominates = (u[:, None, :] >= u[None, :, :]).all(axis=2)
    theta, score = table["theta"].to_numpy(), table["true_score"].to_numpy()
    i, j = np.nonzero(dominates)
    assert len(i) > len(u)  # pairs beyond the diagonal exist
    assert (theta[i] >= theta[j] - 1e-9).all() and (score[i] >= score[j] - 1e-9).all()


def test_falling_items_are_reported_by_their_slope_on_ability():
    """The planted falling items (a < 0 in the generating model) get a negative ``ability_slope`` (their
    fitted discrimination is >= 0: 0, or a rise far above the respondents behind a high guessing floor);
    rising ones a positive slope."""
    sim = simulate_responses(132, n_items=300, model="3PL", negative_fraction=0.1, seed=4)
    fit = fit_irt(sim.responses)
    falling = sim.a < 0
    slope = fit.items["ability_slope"].to_numpy()
    assert (slope[falling] < 0).mean() >= 0.9
    assert (slope[~falling & (sim.a > 0.5)] > 0).mean() >= 0.95


def test_the_slope_is_the_logistic_regression_on_ability():
    """With a vanishing prior the slope is the maximum-likelihood logistic regression of the item's
    answers on the abilities (statsmodels' Logit), and weights count repeated respondents."""
    rng = np.random.default_rng(2)
    theta = rng.normal(size=80)
    answers = (rng.random((3, 80)) < 1 / (1 + np.exp(-np.array([[1.5], [-0.7], [0.0]]) * theta))).astype(int)
    slope, intercept = ability_slopes(answers, theta, prior_sd=1e6)
    for j in range(3):
        reference = sm.Logit(answers[j], sm.add_constant(theta)).fit(disp=0).params
        assert intercept[j] == pytest.approx(reference[0], abs=1e-6)
        assert slope[j] == pytest.approx(reference[1], abs=1e-6)
    doubled, _ = ability_slopes(np.hstack([answers, answers]), np.concatenate([theta, theta]), prior_sd=2.5)
    weighted, _ = ability_slopes(answers, theta, weights=np.full(80, 2.0), prior_sd=2.5)
    assert np.allclose(doubled, weighted, atol=1e-8)


def test_separated_answers_keep_a_finite_slope():
    theta = np.linspace(-2, 2, 20)
    slope, _ = ability_slopes((theta > 0).astype(int)[None, :], theta)
    assert np.isfinite(slope).all() and 1.0 < slope[0] < 20.0


@pytest.mark.heavy
def test_decodirt_mode_keeps_negative_discriminations():
    sim = simulate_responses(132, n_items=200, model="3PL", negative_fraction=0.1, seed=4)
    fit = fit_irt(sim.responses, config=IRTConfig(model_family="decodirt", starts=1))
    assert (fit.items["discrimination"].to_numpy()[sim.a < -0.5] < 0).mean() >= 0.8
    assert not fit.config.uses_expanded_em and IRTConfig().uses_expanded_em


def test_model_family_is_checked():
    with pytest.raises(ConfigError, match=r"model_family.*one of monotone, decodirt"):
        IRTConfig(model_family="free")


def test_a_perfectly_reversed_item_falls_on_the_slope_not_the_discrimination():
    """An item answered right by exactly the weaker half: the monotone fit cannot let it fall (a >= 0),
    its slope on ability is strongly negative and finite; its mirror image rises."""
    sim = simulate_responses(132, n_items=150, model="2PL", seed=3)
    score = sim.responses.sum(axis=1).to_numpy()
    frame = sim.responses.copy()
    frame["separates"] = (score > np.median(score)).astype(int)
    frame["separates_reversed"] = 1 - frame["separates"]
    items = fit_irt(frame).items
    assert items.loc["separates", "discrimination"] > 2.0 and items.loc["separates", "ability_slope"] > 2.0
    assert items.loc["separates_reversed", "discrimination"] >= 0
    assert -20.0 < items.loc["separates_reversed", "ability_slope"] < -2.0


def test_the_stage_describes_items_with_the_3pl_and_scores_with_the_1pl():
    """The default stage: the 3PL's item table, the 1PL's abilities — ranked exactly as the number
    correct (ties are ties) — and the 1PL's items for scoring new classifiers; decodIRT's family
    scores with its 3PL."""
    from types import SimpleNamespace

    from benchirt.irt.stage import irt_for_responses

    sim = simulate_responses(80, n_items=60, model="3PL", negative_fraction=0.1, seed=8)
    roles = pd.Series(["ladder"] * 68 + ["real"] * 12, index=sim.responses.index)
    result = SimpleNamespace(dataset="toy", responses=sim.responses, roles=roles)
    irt = irt_for_responses(result, config=IRTConfig(compare_models=False))
    assert irt.fit.model == "3PL" and irt.scorer.model == "1PL" and irt.statistics["scoring_model"] == "1PL"
    abilities = irt.abilities.set_index("respondent")
    correct = sim.responses.sum(axis=1)
    for column in ("theta", "true_score"):
        ranks = abilities[column].round(9).rank()
        assert (ranks == correct.rank()).all(), column
    decodirt = irt_for_responses(result, config=IRTConfig(model_family="decodirt", starts=1, compare_models=False))
    assert decodirt.scoring_fit is None and decodirt.scorer is decodirt.fit


def test_scoring_model_is_checked_against_the_family():
    assert IRTConfig().resolved_scoring_model == "1PL" and IRTConfig(model_family="decodirt").resolved_scoring_model == "3PL"
    assert IRTConfig(scoring_model="3PL").resolved_scoring_model == "3PL"
    with pytest.raises(ConfigError, match="scoring_model: got '1PL', expected 'auto' or '3PL' with model_family "
                                          "decodirt"):
        IRTConfig(model_family="decodirt", scoring_model="1PL")

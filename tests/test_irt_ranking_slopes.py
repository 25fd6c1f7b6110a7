"""Every item diagnostic reads the ability that ranks: ``ability_slope`` on the scoring model's abilities."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from benchirt.irt import fit_irt
from benchirt.irt.config import IRTConfig
from benchirt.irt.scorer import fit_scoring_model, with_ranking_slopes


def _two_dimensional(n=300, m=40, seed=0) -> pd.DataFrame:
    """Respondents with two abilities; three quarters of the items load on the first, the rest on the second (both
    rising), so the number correct is mostly the first ability and every item rises with it or is flat."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, 2))
    first = 3 * m // 4
    loading = np.zeros((m, 2))
    loading[:first, 0] = rng.uniform(0.8, 2.0, first)
    loading[first:, 1] = rng.uniform(0.8, 2.0, m - first)
    p = expit(theta @ loading.T - rng.normal(0, 1, m))
    answers = (rng.random((n, m)) < p).astype(int)
    return pd.DataFrame(answers, columns=[f"V{j + 1}" for j in range(m)])


def _item_rest(responses: pd.DataFrame) -> np.ndarray:
    """Each item's correlation with the number correct on the other items."""
    total = responses.sum(axis=1)
    return np.array([np.corrcoef(responses[c], total - responses[c])[0, 1] for c in responses.columns])


def test_ability_slope_agrees_in_sign_with_the_item_rest_correlation_on_a_two_dimensional_test():
    """On the item model's own abilities (the former slope) some rising items of these draws came out falling."""
    for seed in (1, 5):
        responses = _two_dimensional(seed=seed)
        fit = fit_irt(responses)
        scorer = fit_scoring_model(responses, fit)
        ranked = with_ranking_slopes(fit, scorer, responses)
        rest = _item_rest(responses)
        clear = np.abs(rest) > 0.1
        slope = ranked.items["ability_slope"].to_numpy()
        assert clear.sum() >= 30
        assert (np.sign(slope[clear]) == np.sign(rest[clear])).all()
        assert (np.sign(fit.items["ability_slope"].to_numpy()[clear]) != np.sign(rest[clear])).any()
        assert ranked.items["item_model_slope"].equals(fit.items["ability_slope"])   # kept for the model-fit check
        assert ranked.items.drop(columns=["ability_slope", "item_model_slope"]).equals(
            fit.items.drop(columns="ability_slope"))


def test_a_model_that_scores_itself_keeps_its_slopes():
    responses = _two_dimensional(n=120, m=12, seed=1)
    fit = fit_irt(responses, config=IRTConfig(model="2PL", scoring_model="2PL"))
    assert with_ranking_slopes(fit, fit_scoring_model(responses, fit), responses) is fit

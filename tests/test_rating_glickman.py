"""Glicko-2 as Glickman wrote it (the default) and the glicko2 package's variant (``glicko: decodirt``)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import ConfigError
from benchirt.rating import RatingConfig, glicko_tournament, permutation_analysis, read_scores
from benchirt.rating.batch import SCALE, update_period


def glickman_update(rating, rd, vol, opponents, tau=0.5, eps=1e-6):
    """One player, one rating period, written from Glickman's "Example of the Glicko-2 system", steps 2-8.

    ``opponents``: list of (rating, rd, score). An independent scalar implementation for the tests.
    """
    mu, phi = (rating - 1500) / SCALE, rd / SCALE
    if not opponents:
        return rating, SCALE * math.sqrt(phi**2 + vol**2), vol
    g = [1 / math.sqrt(1 + 3 * (r_j / SCALE) ** 2 / math.pi**2) for _, r_j, _ in opponents]
    e = [1 / (1 + math.exp(-g_j * (mu - (x_j - 1500) / SCALE))) for g_j, (x_j, _, _) in zip(g, opponents)]
    v = 1 / sum(g_j**2 * e_j * (1 - e_j) for g_j, e_j in zip(g, e))
    delta = v * sum(g_j * (s_j - e_j) for g_j, e_j, (_, _, s_j) in zip(g, e, opponents))
    a = math.log(vol**2)

    def f(x):
        return math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > eps:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    new_vol = math.exp(big_a / 2)
    phi_star = math.sqrt(phi**2 + new_vol**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * sum(g_j * (s_j - e_j) for g_j, e_j, (_, _, s_j) in zip(g, e, opponents))
    return 1500 + SCALE * new_mu, SCALE * new_phi, new_vol


def worked_example(glicko):
    """Glickman's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300 (τ = 0.5)."""
    rating = np.array([[1500.0, 1400.0, 1550.0, 1700.0]])
    rd = np.array([[200.0, 30.0, 100.0, 300.0]])
    result = np.full((1, 4, 4), np.nan)
    result[0, 0, 1:] = [1.0, 0.0, 0.0]
    result[0, 1:, 0] = [0.0, 1.0, 1.0]
    mu, phi, sigma, _ = update_period((rating - 1500) / SCALE, rd / SCALE, np.full((1, 4), 0.06), result, glicko=glicko)
    return mu[0, 0] * SCALE + 1500, phi[0, 0] * SCALE, sigma[0, 0]


def test_glickman_worked_example():
    rating, rd, vol = worked_example("glickman")
    assert rating == pytest.approx(1464.06, abs=0.01)
    assert rd == pytest.approx(151.52, abs=0.01)
    assert vol == pytest.approx(0.05999, abs=1e-5)
    # The scalar transcription gives the same numbers (to the search tolerance).
    expected = glickman_update(1500, 200, 0.06, [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)])
    np.testing.assert_allclose((rating, rd, vol), expected, rtol=0, atol=1e-8)
    # The package's variant (μ² in f) ends elsewhere in the volatility, by a few 1e-6.
    decodirt_vol = worked_example("decodirt")[2]
    assert 1e-6 < abs(decodirt_vol - vol) < 1e-5


def independent_tournament(scores: pd.DataFrame) -> pd.DataFrame:
    """decodIRT's round robin (pre-period opponents) with :func:`glickman_update`, sorted dataset order."""
    matrix = scores.pivot(index="dataset", columns="classifier", values="score").sort_index()
    state = {name: (1500.0, 350.0, 0.06) for name in matrix.columns}
    for _, row in matrix.iterrows():
        before = dict(state)
        for name in matrix.columns:
            if np.isnan(row[name]):
                state[name] = glickman_update(*before[name], [])
                continue
            games = [(before[o][0], before[o][1], 1.0 if row[name] > row[o] else 0.5 if row[name] == row[o] else 0.0)
                     for o in matrix.columns if o != name and not np.isnan(row[o])]
            state[name] = glickman_update(*before[name], games)
    return pd.DataFrame(state, index=["rating", "rd", "volatility"]).T


def test_default_equals_independent_glickman_on_reference(shared_data):
    scores = read_scores(shared_data / "decodirt-reference")
    table = glicko_tournament(scores).table.set_index("classifier")
    expected = independent_tournament(scores).loc[table.index]
    # Rating points: both stop the σ search at ε = 1e-6, so last-bit differences can end it one step apart.
    np.testing.assert_allclose(table["rating"], expected["rating"], rtol=0, atol=1e-3)
    np.testing.assert_allclose(table["rd"], expected["rd"], rtol=0, atol=1e-3)
    np.testing.assert_allclose(table["volatility"], expected["volatility"], rtol=0, atol=1e-7)
    decodirt = glicko_tournament(scores, config=RatingConfig(glicko="decodirt")).table.set_index("classifier")
    assert (decodirt.loc[table.index, "volatility"] - table["volatility"]).abs().max() > 1e-5


def test_absent_classifier_and_permutations_use_glickman():
    rows = [("d1", "x", 0.9), ("d1", "y", 0.5), ("d1", "z", 0.1), ("d2", "x", 0.8), ("d2", "y", 0.2),
            ("d3", "z", 0.7), ("d3", "y", 0.3), ("d3", "x", 0.1)]
    scores = pd.DataFrame(rows, columns=["dataset", "classifier", "score"])
    table = glicko_tournament(scores).table.set_index("classifier")
    expected = independent_tournament(scores).loc[table.index]
    np.testing.assert_allclose(table[["rating", "rd", "volatility"]], expected, rtol=0, atol=1e-6)
    analysis = permutation_analysis(scores, n_permutations=6, seed=1)
    for p in range(6):
        order = [analysis.datasets[i] for i in analysis.orders[p]]
        single = glicko_tournament(scores, order=order).table.set_index("classifier")
        np.testing.assert_allclose(analysis.ratings.iloc[p], single.loc[analysis.ratings.columns, "rating"], atol=1e-6)


def test_glicko_option_is_checked():
    with pytest.raises(ConfigError, match="glickman, decodirt"):
        RatingConfig(glicko="elo")
    assert RatingConfig.from_dict({"glicko": "decodirt"}).glicko == "decodirt"

"""A Glicko-2 period's sums on the grid (benchirt.rating.glicko_grid) against the (n, n) outcome arrays."""
from __future__ import annotations

import numpy as np
import pytest

import benchirt.rating.batch as batch
from benchirt.rating.batch import match_outcomes, play_orders
from benchirt.rating.glicko_grid import EXACT_UP_TO, fits_grid, period_sums


def exact_sums(mu, phi, scores, tie_tolerance):
    """The pull and information sums as update_period forms them, from the (n, n) outcomes."""
    g = 1.0 / np.sqrt(1.0 + 3.0 * phi**2 / np.pi**2)
    result = match_outcomes(scores, tie_tolerance=tie_tolerance)
    met = ~np.isnan(result)
    expected = 1.0 / (1.0 + np.exp(-g[:, None, :] * (mu[:, :, None] - mu[:, None, :])))
    pull = np.einsum("pij,pj->pi", np.where(met, result - expected, 0.0), g)
    information = np.einsum("pij,pj->pi", np.where(met, expected * (1 - expected), 0.0), g * g)
    return pull, information


@pytest.mark.parametrize("tie_tolerance", [0.0, 0.01])
def test_the_sums_on_the_grid_agree_with_the_outcome_arrays(tie_tolerance):
    rng = np.random.default_rng(1)
    mu = rng.normal(0.0, 1.5, (3, 700))
    phi = np.abs(rng.normal(0.5, 0.6, (3, 700))) + 0.05
    scores = np.round(rng.normal(0.8, 0.1, 700), 2)     # many ties, many differences of exactly the tolerance
    pull, information = period_sums(mu, phi, scores, tie_tolerance=tie_tolerance)
    exact_pull, exact_information = exact_sums(mu, phi, scores, tie_tolerance)
    assert np.abs(pull - exact_pull).max() < 0.01        # sums of up to 699 games
    assert np.abs(information / exact_information - 1).max() < 1e-3


def test_the_wins_are_exact_at_the_tolerance():
    """Equal ratings sit on one grid point, where the binned sums are exact: what is left is the wins, counted with
    match_outcomes' arithmetic even where two scores differ by the tolerance up to rounding."""
    scores = np.round(np.random.default_rng(2).uniform(0.7, 0.8, 500), 2)
    mu, phi = np.zeros((1, 500)), np.full((1, 500), 0.4)
    pull, _ = period_sums(mu, phi, scores, tie_tolerance=0.01)
    assert np.allclose(pull, exact_sums(mu, phi, scores, 0.01)[0], atol=1e-9)


def test_a_sparse_field_of_large_datasets_is_rated_as_the_outcome_arrays_rate_it(monkeypatch):
    rng = np.random.default_rng(2)
    ability = rng.normal(0.0, 1.0, 1000)
    scores = np.round(0.7 + 0.05 * ability + rng.normal(0.0, 0.03, (12, 1000)), 3)
    scores[rng.random(scores.shape) > 0.6] = np.nan
    assert (~np.isnan(scores)).sum(axis=1).min() > EXACT_UP_TO
    orders = np.array([rng.permutation(12) for _ in range(2)])
    grid = play_orders(scores, orders, weighted=True)
    monkeypatch.setattr(batch, "EXACT_UP_TO", 10**9)
    exact = play_orders(scores, orders, weighted=True)
    assert np.abs(grid.rating - exact.rating).max() < 0.05      # rating points, against a spread of ~200
    assert np.abs(grid.rd - exact.rd).max() < 0.05
    assert (grid.n_played == exact.n_played).all()


def test_the_grid_takes_ratings_up_to_its_most_points_and_no_wider():
    assert fits_grid(np.array([[0.0, 100.0]]))
    assert not fits_grid(np.array([[0.0, 5000.0]]))

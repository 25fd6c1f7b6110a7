"""The grid Bradley–Terry fit (benchirt.rating.bt_grid) against the exact fit through (k, k) win matrices."""
import numpy as np
import pytest

from benchirt.rating.bradley_terry import (STEP_TOLERANCE, bootstrap_counts, fit_bradley_terry, fit_weighted,
                                           pairwise_wins)
from benchirt.rating.bt_grid import DENSE_UP_TO, dataset_orders, fit_field, fit_orders
from benchirt.rating.glicko import match_outcomes

#: Largest difference (rating points) allowed between the grid fit and the exact one: far below a rating's last
#: shown digit, far above the grid's O(h²) error (hundredths of a point).
AGREEMENT = 0.05


def field(k: int, n_datasets: int, *, absent: float, seed: int, decimals: int = 2) -> np.ndarray:
    """Datasets × classifiers scores with a spread of strengths, rounded so that ties occur, NaN where absent."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=(n_datasets, k)) + np.linspace(2.5, 0.0, k), decimals)
    scores[rng.random(scores.shape) < absent] = np.nan
    return scores


@pytest.mark.parametrize("tolerance", [0.0, 0.05])
def test_dataset_orders_count_the_matches_of_match_outcomes(tolerance):
    scores = field(40, 6, absent=0.3, seed=3, decimals=1)
    outcomes = match_outcomes(scores, tie_tolerance=tolerance)
    orders = dataset_orders(scores, tie_tolerance=tolerance)
    np.testing.assert_array_equal(orders.wins, pairwise_wins(outcomes).sum(axis=2))
    np.testing.assert_array_equal(orders.won, (outcomes == 1.0).sum(axis=2))
    np.testing.assert_array_equal(orders.tied, (outcomes == 0.5).sum(axis=2))
    np.testing.assert_array_equal(orders.lost, (outcomes == 0.0).sum(axis=2))
    np.testing.assert_array_equal(orders.present, ~np.isnan(scores))


@pytest.mark.parametrize("k, n_datasets, absent", [(30, 8, 0.0), (120, 12, 0.5), (60, 5, 0.2)])
def test_grid_fit_agrees_with_the_exact_fit(k, n_datasets, absent):
    scores = field(k, n_datasets, absent=absent, seed=k)
    exact = fit_bradley_terry(pairwise_wins(match_outcomes(scores)).sum(axis=0))
    grid = fit_orders(dataset_orders(scores), np.ones(n_datasets))
    assert np.abs(grid.rating - exact.rating).max() < AGREEMENT
    assert grid.converged.all() and grid.max_step.max() <= STEP_TOLERANCE
    assert abs(grid.rating.mean() - 1500.0) < AGREEMENT   # the prior centres the ratings, as in the exact fit


def test_grid_bootstrap_agrees_with_the_exact_bootstrap():
    scores = field(80, 10, absent=0.4, seed=11)
    wins = pairwise_wins(match_outcomes(scores))
    counts = bootstrap_counts(10, 40, seed=2)
    point = fit_bradley_terry(wins.sum(axis=0)).theta[0]
    exact = fit_weighted(counts, wins, start=point)
    grid = fit_orders(dataset_orders(scores), counts, start=point, block_cells=50_000)   # several blocks
    assert np.abs(grid.rating - exact.rating).max() < AGREEMENT
    assert grid.converged.all()


def test_fit_field_is_exact_up_to_its_threshold_and_on_the_grid_above():
    small = field(20, 4, absent=0.0, seed=1)
    exact = fit_bradley_terry(pairwise_wins(match_outcomes(small)).sum(axis=0))
    np.testing.assert_array_equal(fit_field(dataset_orders(small), np.ones(4)).rating, exact.rating)
    large = field(DENSE_UP_TO + 1, 3, absent=0.0, seed=2)
    orders = dataset_orders(large)
    np.testing.assert_array_equal(fit_field(orders, np.ones(3)).rating, fit_orders(orders, np.ones(3)).rating)


def test_a_classifier_on_no_drawn_dataset_stays_at_the_prior_mean():
    scores = field(30, 4, absent=0.0, seed=5)
    scores[1:, 0] = np.nan          # classifier 0 only on dataset 0
    counts = np.array([[0.0, 2.0, 1.0, 1.0]])
    fit = fit_orders(dataset_orders(scores), counts)
    assert fit.theta[0, 0] == pytest.approx(0.0, abs=1e-9)

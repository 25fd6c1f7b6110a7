"""The monotone family's item-mode search (issue 32, item 3: "a 20-start search never higher by more than 0.1"),
its pieces, the stationarity test at the bounds, and the memory-saving paths that must not change a fit.

The default climbs once; an item of the 3PL whose M-step objective has a better mode than the one EM reached
must be moved there by the climb itself (:func:`benchirt.irt.climb.polished_gains`): the fixed grid of the
free-sign family misses modes between its points. The cost and the gap to a 20-start search are measured in
``benchmarks/irt_fit.py --part scale --scale-deep 20``, not here.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from benchirt.errors import DataError
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.climb import grid_gains, polished_gains
from benchirt.irt.em import run_em
from benchirt.irt.estep import Terms, e_step, expected_correct, log_posterior
from benchirt.irt.models import logistic, quadrature, terms_from_logit
from benchirt.irt.modes import best_per_guessing, interpolation_weights, item_grid
from benchirt.irt.mstep import climb_objectives, gradient_information, item_objective
from benchirt.irt.multistart import initial_values
from benchirt.irt.problem import log_prior
from benchirt.irt.starts import sum_score
from benchirt.irt.stationarity import marginal_gradient
from benchirt.irt.validation import as_response_matrix
from irt_helpers import problem_of


def _planted(seed: int) -> np.ndarray:
    """132 x 40 3PL answers; the first ten items rise steeply (a = 3, b = 1.2) above a floor of 0.45, the
    others (a in [0.8, 2], b ~ N(0, 1)) above 0.1."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(132)
    a, b, c = rng.uniform(0.8, 2.0, 40), rng.normal(0.0, 1.0, 40), np.full(40, 0.1)
    a[:10], b[:10], c[:10] = 3.0, 1.2, 0.45
    p = c + (1 - c) * expit(a * (theta[:, None] - b))
    return (rng.random(p.shape) < p).astype(np.int8)


@pytest.mark.parametrize("seed, trapped", [(4, 4), (5, 7)])
def test_a_planted_guessing_mode_trap_ends_at_the_better_mode_with_one_climb(seed, trapped):
    answers = _planted(seed)
    problem = problem_of(answers, IRTConfig())
    start = initial_values(answers, sum_score(answers), problem)
    em, record = run_em(start, problem)  # EM alone, from the default's start
    assert record.stopped_by == "stationary"
    # the trap: EM explains the planted item by a gentle curve without its floor, and the fixed grid of
    # the free-sign family sees no better point for it there
    assert expit(em[trapped, 2]) < 0.2 and em[trapped, 0] < 0.7
    assert grid_gains(em, problem)[0][trapped] < 0.01
    gains, values = polished_gains(em, problem)
    assert gains[trapped] > 0.3 and expit(values[trapped, 2]) > 0.35
    fit = fit_irt(answers)  # the default: one climb
    assert [run["start"] for run in fit.starts["runs"]] == ["sum_score"] and fit.quadrature_nodes == 41
    item = fit.items.iloc[trapped]
    assert item["guessing"] > 0.35 and item["discrimination"] > 1.5  # the planted mode
    assert fit.log_posterior > log_posterior(em, problem) + 0.5


def test_interpolation_weights_keep_mass_and_reproduce_lines():
    fine, _ = quadrature(161, 6.0)
    coarse, _ = quadrature(41, 6.0)
    weights = interpolation_weights(fine, coarse)
    assert weights.shape == (161, 41) and np.allclose(weights.sum(axis=1), 1.0)
    assert np.allclose(weights @ coarse, fine)  # a line is its own interpolant
    assert np.allclose(weights[::4], np.eye(41))  # every fourth fine node is a coarse node
    assert (np.count_nonzero(weights, axis=1) <= 2).all()


def test_best_per_guessing_is_the_brute_force_maximum_at_each_guessing_value():
    problem = problem_of(_planted(0), IRTConfig())
    grid = item_grid(problem.lower, problem.upper, step=1.0, guessing=(0.05, 0.3, 0.5))
    rng = np.random.default_rng(3)
    n_k = rng.uniform(1, 5, len(problem.nodes))
    r = n_k * rng.uniform(0, 1, (300, len(problem.nodes)))  # more items than one chunk
    prior = log_prior(grid, problem)
    index = best_per_guessing(grid, problem.nodes, r, n_k, prior)
    assert index.shape == (300, 3)
    terms = Terms.of_block(grid, problem)
    for j in (0, 1, 150, 299):
        brute = (r[j] * terms.log_p + (n_k - r[j]) * terms.log_q).sum(axis=1) + prior
        for level, gamma in enumerate(np.unique(grid[:, 2])):
            at = np.flatnonzero(grid[:, 2] == gamma)
            assert index[j, level] == at[brute[at].argmax()]


def test_climbing_an_objective_never_lowers_it_and_ends_where_its_gradient_vanishes():
    problem = problem_of(_planted(1), IRTConfig())
    params = initial_values(_planted(1), sum_score(_planted(1)), problem)
    scaled, n_k, _ = e_step(params, problem)
    r = expected_correct(scaled, slice(0, len(params)), problem)
    before = item_objective(params, Terms.of_block(params, problem), r, n_k, problem)
    climbed, after = climb_objectives(params, r, n_k, problem, steps=3)
    assert (after >= before).all() and (after > before + 1e-3).any()
    assert np.allclose(after, item_objective(climbed, Terms.of_block(climbed, problem), r, n_k, problem))
    final, _ = climb_objectives(climbed, r, n_k, problem, steps=60)
    gradient, _ = gradient_information(final, r, n_k, problem)
    interior = ((final > problem.lower + 1e-6) & (final < problem.upper - 1e-6)).all(axis=1)
    largest = np.abs(gradient[interior]).max(axis=1)
    assert largest.max() < problem.config.tol_gradient and np.quantile(largest, 0.9) < 1e-6


def test_a_parameter_within_tol_of_its_bound_pushed_outward_counts_as_on_it():
    answers = _planted(2)
    answers[:, 0], answers[:, 1] = 1 - answers[:, 10], 1 - answers[:, 11]  # two items that abler respondents fail
    problem = problem_of(answers, IRTConfig())
    params = initial_values(answers, sum_score(answers), problem)
    params[0, 0] = problem.lower[0] + 0.5 * problem.config.tol  # discrimination above its bound 0 by half of tol
    params[1, 0] = problem.lower[0] + 2.0 * problem.config.tol  # by twice tol
    scaled, n_k, _ = e_step(params, problem)
    grad = marginal_gradient(params, scaled, n_k, problem)
    r = expected_correct(scaled, slice(0, 2), problem)
    raw, _ = gradient_information(params[:2], r, n_k, problem)
    assert raw[0, 0] < -1.0 and raw[1, 0] < -1.0  # both pushed below the bound
    assert grad[0, 0] == 0.0 and grad[1, 0] == pytest.approx(raw[1, 0])


def test_the_recomputed_sigma_is_the_tables_to_the_last_bit():
    z = np.linspace(-40, 40, 4001).reshape(-1, 1) * np.array([[1.0, 0.3, 1e-3]])
    s, _, _, _ = terms_from_logit(z, np.full((1, 3), 0.2))
    assert np.array_equal(logistic(z), s)


def test_integer_answers_are_checked_without_a_float_copy():
    answers = _planted(3)
    values, respondents, items = as_response_matrix(answers, dtype=np.int8)
    assert values.dtype == np.int8
    assert np.array_equal(values, answers) and len(respondents) == 132 and items[0] == "V1"
    as_float, _, _ = as_response_matrix(answers)
    assert as_float.dtype == float and np.array_equal(as_float, answers)
    bad = answers.astype(np.int64)
    bad[5, 7] = 2
    with pytest.raises(DataError, match="value 2 at respondent '5', item 'V8' is not 0 or 1"):
        as_response_matrix(bad, dtype=np.int8)
    # the integer path and the float path fit the same matrix to the same bits
    assert fit_irt(answers).log_posterior == fit_irt(answers.astype(float)).log_posterior

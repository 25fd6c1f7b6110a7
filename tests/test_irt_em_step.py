"""The EM step's internals (issue 23): the 1PL's joint Newton step reaches the optimum of the marginal
log posterior, the small linear systems of the scoring step are solved exactly, and the E-step a step
hands on (built block by block, issue 32) is the one built afresh."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.estep import e_step
from benchirt.irt.models import marginal_log_likelihood, quadrature
from benchirt.irt.mstep import em_step, solve_small
from benchirt.irt.multistart import initial_values
from benchirt.irt.simulate import simulate_responses
from irt_helpers import problem_of


@pytest.mark.parametrize("size", [2, 3])
def test_small_systems_are_solved_as_lapack_solves_them(size):
    rng = np.random.default_rng(size)
    x = rng.normal(size=(200, size, size))
    matrix = x @ x.transpose(0, 2, 1) + 1e-3 * np.eye(size)  # symmetric positive definite, some ill-conditioned
    rhs = rng.normal(size=(200, size))
    expected = np.linalg.solve(matrix, rhs[..., None])[..., 0]
    assert np.allclose(solve_small(matrix, rhs), expected, rtol=1e-8, atol=1e-8 * np.abs(expected).max())


@pytest.mark.parametrize("model", ["1PL", "2PL", "3PL"])
def test_the_e_step_a_step_hands_on_is_the_one_built_afresh_at_its_new_params(model):
    """:func:`em_step` adds each item block's tables to the next E-step as soon as the block's M-step ends (no
    table of all items is kept): that E-step is, to the bit, the one built afresh at the new parameters, the
    step is the same whether it hands one on or not, and the log posterior never falls."""
    values = simulate_responses(150, n_items=300, model="3PL", negative_fraction=0.1, seed=7).responses.to_numpy()
    problem = problem_of(values, IRTConfig(model=model))
    assert len(problem.blocks()) > 1
    params = initial_values(values, values.sum(axis=1).astype(float), problem)
    for _ in range(3):
        new, log_post, handed = em_step(params, problem)
        alone, log_post_alone, nothing = em_step(params, problem, following=False)
        assert nothing is None and np.array_equal(new, alone) and log_post == log_post_alone
        fresh = e_step(new, problem)
        assert np.array_equal(handed.scaled, fresh.scaled) and np.array_equal(handed.n_k, fresh.n_k)
        assert handed.log_posterior == fresh.log_posterior >= log_post
        params = new


def test_1pl_ends_at_the_maximum_of_its_marginal_log_posterior():
    """The 1PL's EM (one joint Newton step on the shared a and every b per M-step) against a direct
    maximisation of the same marginal log posterior (L-BFGS over a and all b, same quadrature)."""
    sim = simulate_responses(300, n_items=25, model="1PL", seed=4)
    config = IRTConfig(model="1PL", starts=1)
    fit = fit_irt(sim.responses, config=config)
    u = sim.responses.to_numpy(float)
    nodes, log_w = quadrature(config.quadrature, config.theta_max)
    _, sb = config.prior_difficulty

    def negative_log_posterior(x):
        a, b = np.full(u.shape[1], x[0]), x[1:]
        return -(marginal_log_likelihood(u, a, b, np.zeros_like(b), nodes, log_w) - 0.5 * np.sum((b / sb) ** 2))

    start = np.concatenate([[1.0], np.zeros(u.shape[1])])
    direct = minimize(negative_log_posterior, start, method="L-BFGS-B")
    assert fit.stopped_by == "stationary"
    assert fit.log_posterior == pytest.approx(-direct.fun, abs=1e-3)
    assert fit.items["discrimination"].iloc[0] == pytest.approx(direct.x[0], abs=2e-3)
    assert np.allclose(fit.items["difficulty"], direct.x[1:], atol=5e-3)


def test_1pl_takes_no_more_em_steps_than_the_2pl():
    """The shared discrimination no longer crawls (issue 23: the 1PL took 1.8-2.6x the 2PL's time)."""
    sim = simulate_responses(1000, n_items=200, model="3PL", negative_fraction=0.1, seed=11)
    steps = {model: fit_irt(sim.responses, config=IRTConfig(model=model, starts=1)).n_iter for model in ("1PL", "2PL")}
    assert steps["1PL"] <= steps["2PL"]


def test_1pl_difficulty_about_to_cross_its_bound_does_not_stall_the_shared_discrimination():
    """A difficulty whose Newton step would cross its bound goes onto it, with the shared a re-solved for
    that fixed step. Clipped after the joint step instead, it could not follow a, every halving lowered
    the objective, and the sum-score start of this matrix stalled for 1000 EM steps (gradient 2.9 in a)."""
    sim = simulate_responses(1000, n_items=500, model="3PL", negative_fraction=0.1, seed=11)
    fit = fit_irt(sim.responses, config=IRTConfig(model="1PL"))
    assert {run["status"] for run in fit.starts["runs"]} <= {"converged", "better_optimum_exists"}
    assert max(run["n_iter"] for run in fit.starts["runs"]) < 100

"""The parameter-expanded EM move on the ability scale (Liu, Rubin & Wu 1998; issue 23): it never lowers
the log posterior, it stops moving at EM's optimum, and the fit ends where plain EM ends, in fewer steps."""
from __future__ import annotations

import numpy as np
import pytest

from benchirt.errors import ConfigError
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.em import expanded_move, run_em
from benchirt.irt.estep import e_step, log_posterior
from benchirt.irt.multistart import initial_values
from benchirt.irt.simulate import simulate_responses
from irt_helpers import problem_of



def _truth(sim, model: str) -> np.ndarray:
    """The simulated items as the estimator's (a, b, logit c) rows (c = 0: logit -inf)."""
    gamma = np.log(sim.c / (1 - sim.c)) if model == "3PL" else np.full(len(sim.a), -np.inf)
    return np.column_stack([sim.a, sim.b, gamma]).astype(float)


@pytest.mark.parametrize("model", ["1PL", "2PL", "3PL"])
def test_expanded_move_restores_a_stretched_scale_and_raises_the_log_posterior(model):
    """From the true items on a scale stretched by 2 and shifted by 0.5 (a / 2, 2 b + 0.5), the move
    shrinks the scale back (sigma > 1 multiplies every a) and shifts b back, and the log posterior at
    it is higher."""
    sim = simulate_responses(400, n_items=30, model="2PL" if model == "1PL" else model, seed=5)
    config = IRTConfig(model_family="decodirt", model=model)
    problem = problem_of(sim.responses.to_numpy(), config)
    truth = _truth(sim, model)
    if model == "1PL":
        truth[:, 0] = 1.0
    stretched = truth.copy()
    stretched[:, 0] /= 2
    stretched[:, 1] = 2 * stretched[:, 1] + 0.5
    expectation = e_step(stretched, problem)
    moved = expanded_move(stretched, expectation, problem)
    sigma = moved[0, 0] / stretched[0, 0]
    assert sigma > 1.2
    mu = stretched[0, 1] - sigma * moved[0, 1]
    assert np.allclose(moved[:, 1], (stretched[:, 1] - mu) / sigma) and mu > 0
    assert np.array_equal(moved[:, 2], stretched[:, 2])  # guessing unchanged
    assert log_posterior(moved, problem) > expectation[2] + 1.0


@pytest.mark.parametrize("model", ["1PL", "2PL", "3PL"])
def test_em_with_the_move_never_lowers_the_log_posterior_and_stops_moving_at_the_optimum(model):
    sim = simulate_responses(300, n_items=40, model="3PL", negative_fraction=0.1, seed=2)
    config = IRTConfig(model_family="decodirt", model=model, expanded_em=True)
    problem = problem_of(sim.responses.to_numpy(), config)
    values = sim.responses.to_numpy()
    score = values.sum(axis=1).astype(float)
    start = initial_values(values, score, problem)
    params, record = run_em(start, problem)
    history = np.asarray(record.history)
    assert record.stopped_by == "stationary"
    assert record.expanded_moves > 0  # the move was taken, and the check below covers it
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))
    assert expanded_move(params, e_step(params, problem), problem) is None


@pytest.mark.parametrize("model", ["2PL", "3PL"])
def test_fit_ends_at_the_plain_em_optimum_in_fewer_steps(model):
    """One start with and without the move (``IRTConfig.expanded_em``, off by default): the same optimum,
    fewer EM steps."""
    sim = simulate_responses(1000, n_items=60, model="3PL", negative_fraction=0.1, seed=11)
    plain = fit_irt(sim.responses, config=IRTConfig(model_family="decodirt", model=model, starts=1))
    expanded = fit_irt(sim.responses,
                       config=IRTConfig(model_family="decodirt", model=model, starts=1, expanded_em=True))
    assert expanded.log_posterior == pytest.approx(plain.log_posterior, abs=0.01)
    columns = ["discrimination", "difficulty", "guessing"]
    assert np.abs(expanded.items[columns] - plain.items[columns]).to_numpy().max() < 0.02
    assert expanded.n_iter < 0.7 * plain.n_iter


def test_expanded_em_is_on_for_the_monotone_family_only_by_default_and_checked():
    assert IRTConfig().uses_expanded_em and not IRTConfig(model_family="decodirt").uses_expanded_em
    assert not IRTConfig(expanded_em=False).uses_expanded_em
    assert IRTConfig(model_family="decodirt", expanded_em=True).uses_expanded_em
    with pytest.raises(ConfigError, match="expanded_em"):
        IRTConfig(model_family="decodirt", expanded_em="yes")

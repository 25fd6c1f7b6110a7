"""The calibration grid resolves the respondents' posteriors (``resolving_grid`` in
benchirt.irt.quadrature_grid; issue 22, item 2): it is doubled where a coarse grid's trapezoid rule is off
by more than half the tolerance that tells optima apart, and every fit says which grid it used."""
from __future__ import annotations

import numpy as np
import pytest

import benchirt.irt.compare as compare
import benchirt.irt.quadrature_grid as quadrature_grid
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.models import quadrature
from benchirt.irt.simulate import simulate_responses


def test_a_doubled_grid_keeps_the_nodes_and_adds_the_midpoints():
    nodes, _ = quadrature(41, 6.0)
    finer, log_w = quadrature(2 * 41 - 1, 6.0)
    assert np.array_equal(finer[::2], nodes) and np.allclose(np.diff(finer), 0.15)
    assert np.logaddexp.reduce(log_w) == pytest.approx(0.0, abs=1e-12)


def test_few_items_keep_the_coarsest_grid():
    """12 items: each posterior of θ is wide, and 41 nodes integrate it to better than 1e-3."""
    sim = simulate_responses(200, n_items=12, model="2PL", seed=0)
    fit = fit_irt(sim.responses, config=IRTConfig(model="2PL"))
    assert fit.quadrature_nodes == 41 and fit.quadrature_error < 1e-3
    assert fit.convergence()["quadrature_nodes"] == 41


def test_many_items_refine_the_grid_until_a_doubling_changes_less_than_half_tol_optimum():
    """600 items narrow each posterior below the spacing of 0.3: 41 nodes are off by more than 0.05 at
    the optimum, and the fit moves to the grid where a doubling changes less."""
    sim = simulate_responses(132, n_items=600, model="2PL", seed=2)
    config = IRTConfig(model="2PL", starts=1)
    coarse = fit_irt(sim.responses, config=IRTConfig(model="2PL", starts=1, refine_quadrature=False))
    fit = fit_irt(sim.responses, config=config)
    assert coarse.quadrature_nodes == 41 and coarse.quadrature_error > config.tol_optimum / 2
    assert fit.quadrature_nodes in (81, 161, 321) and fit.quadrature_error < config.tol_optimum / 2
    record = fit.convergence()
    assert (record["quadrature_nodes"], record["quadrature_error"]) == (fit.quadrature_nodes, fit.quadrature_error)
    assert f"quadrature: {fit.quadrature_nodes} nodes" in fit.summary()


@pytest.mark.heavy
def test_the_refinement_stops_at_its_limit_and_reports_the_error(monkeypatch):
    monkeypatch.setattr(quadrature_grid, "MAX_REFINEMENTS", 1)
    sim = simulate_responses(132, n_items=3000, model="2PL", seed=2)
    fit = fit_irt(sim.responses, config=IRTConfig(model="2PL", starts=1))
    assert fit.quadrature_nodes == 81 and fit.quadrature_error > fit.config.tol_optimum / 2


@pytest.mark.heavy
def test_the_model_comparison_fits_every_model_on_the_first_models_grid(monkeypatch):
    """Log-likelihoods on different grids are different integrals: AIC/BIC compare them on one."""
    seen = []
    original = compare.fit_irt

    def recording(responses, *, config, **kwargs):
        fit = original(responses, config=config, **kwargs)
        seen.append((config.model, config.refine_quadrature, fit.quadrature_nodes))
        return fit

    monkeypatch.setattr(compare, "fit_irt", recording)
    sim = simulate_responses(132, n_items=600, model="2PL", seed=2)
    compare.compare_models(sim.responses, config=IRTConfig(starts=1))
    first = seen[0]
    assert first[0] == "3PL" and first[1] and first[2] > 41
    assert {nodes for _, _, nodes in seen} == {first[2]} and not any(refine for _, refine, _ in seen[1:])



@pytest.fixture(scope="module")
def steep_fit():
    """132 respondents x 1200 simulated 3PL items (10 % falling): 41 nodes are too coarse by two doublings."""
    responses = simulate_responses(132, n_items=1200, model="3PL", negative_fraction=0.1, seed=2).responses
    return responses, fit_irt(responses)


@pytest.mark.heavy
def test_the_rough_climb_on_the_coarse_grid_ends_at_the_optimum_of_a_climb_on_the_final_grid_alone(steep_fit):
    """The monotone fit climbs roughly on 41 nodes and finishes on the grid that resolves the posteriors,
    skipping the grid between; its optimum is the one EM reaches climbing on that grid from the start."""
    responses, fit = steep_fit
    direct = fit_irt(responses, config=IRTConfig(quadrature=fit.quadrature_nodes, refine_quadrature=False))
    assert fit.quadrature_nodes == 161 and fit.converged and direct.converged
    assert abs(fit.log_posterior - direct.log_posterior) < fit.config.tol_optimum / 2
    grids = fit.grid_steps
    assert [grid["nodes"] for grid in grids] == [41, 161]  # no climb on 81 nodes
    assert sum(grid["n_iter"] for grid in grids) == fit.n_iter and all(grid["n_iter"] > 0 for grid in grids)
    assert fit.convergence()["quadrature_grids"] == grids
    assert direct.grid_steps == [{"nodes": 161, "n_iter": direct.n_iter}]


@pytest.mark.heavy
def test_the_rough_climb_saves_the_coarse_grids_last_steps_and_keeps_the_optimum(steep_fit, monkeypatch):
    """With the rough tolerances set to the stopping rule's own, the coarse grid's climb creeps to its own
    optimum first: more EM steps there, the same optimum within tol_optimum / 2 after the refinement."""
    responses, fit = steep_fit
    monkeypatch.setattr(quadrature_grid, "ROUGH_TOLERANCES", {})
    strict = fit_irt(responses)
    assert strict.quadrature_nodes == fit.quadrature_nodes
    assert fit.grid_steps[0]["n_iter"] < strict.grid_steps[0]["n_iter"] and fit.n_iter < strict.n_iter
    assert abs(fit.log_posterior - strict.log_posterior) < fit.config.tol_optimum / 2


@pytest.mark.heavy
def test_the_2pl_climbs_to_the_stopping_rule_on_each_grid_in_turn():
    """Without the 3PL's mode search a 2PL's optimum depends on the path (an item held at a = 0 keeps its
    difficulty), so it refines one doubling at a time, converging on every grid."""
    sim = simulate_responses(132, n_items=1000, model="3PL", negative_fraction=0.1, seed=2)
    fit = fit_irt(sim.responses, config=IRTConfig(model="2PL"))
    assert [grid["nodes"] for grid in fit.grid_steps] == [41, 81, 161] and fit.converged

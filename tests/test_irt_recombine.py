"""The start search's last phase: recombination of the optima found and flips of items to their other
mode (benchirt.irt.recombine; issue 22, items 1 and 2)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import benchirt.irt.recombine as recombine
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.em import Record
from benchirt.irt.estep import Terms, e_step, expected_correct
from benchirt.irt.modes import item_grid, other_mode
from benchirt.irt.mstep import item_objective
from benchirt.irt.problem import log_prior
from benchirt.irt.search import Run, release_unchosen
from benchirt.irt.simulate import simulate_responses
from irt_helpers import problem_of



def test_other_mode_is_the_other_sign_or_a_difficulty_more_than_one_and_a_half_away():
    current = np.array([[1.0, 0.0, -2.0]])
    points = np.array([[2.0, 1.4, -2.0], [0.5, 1.6, -2.0], [-0.5, 0.0, -2.0], [3.0, -1.5, 0.0], [3.0, -1.6, 0.0]])
    assert other_mode(current, points).tolist() == [[False, True, True, False, True]]


def test_a_crossover_takes_each_item_from_the_best_or_the_partner_turned_to_its_orientation():
    config = IRTConfig(model_family="decodirt")
    problem = problem_of(simulate_responses(40, n_items=30, seed=0).responses.to_numpy(), config)
    rng = np.random.default_rng(5)
    best = np.column_stack([rng.uniform(0.5, 2, 30), rng.normal(0, 1, 30), np.full(30, -2.0)])
    second = best + 1.0  # same orientation as the best
    mirror = best.copy()
    mirror[:, :2] *= -1  # the best's mirror image with other guessing: taken back to the best's sign
    mirror[:, 2] = -1.0
    optima = [{"params": best}, {"params": second}, {"params": mirror}]
    crossovers = recombine.Crossovers(problem)
    for k, partner in enumerate([second, np.column_stack([best[:, :2], np.full(30, -1.0)]), second], start=1):
        start, name = crossovers.next(optima)
        assert name == f"cross_{k}"
        from_best = (start == best).all(axis=1)
        from_partner = (start == partner).all(axis=1)
        assert (from_best | from_partner).all()
        assert 5 <= from_partner.sum() <= 25  # about half of 30 items from each (seeded)


def test_mode_flips_are_the_items_closest_to_their_other_mode_with_that_modes_best_grid_point():
    config = IRTConfig(model_family="decodirt")
    sim = simulate_responses(60, n_items=12, model="3PL", seed=2, discrimination="normal")
    problem = problem_of(sim.responses.to_numpy(), config)
    params = np.column_stack([sim.a, sim.b, np.full(12, -2.0)])
    flips = recombine.mode_flips(params, problem)
    assert len(flips) == 12  # fewer items than _FLIPS: all of them
    # brute force: each item's objective at every grid point, the best one in another mode
    grid = item_grid(problem.lower, problem.upper)
    scaled, n_k, _ = e_step(params, problem)
    r = expected_correct(scaled, slice(0, 12), problem)
    current = item_objective(params, Terms.of_block(params, problem), r, n_k, problem)
    grid_terms = Terms.of_block(grid, problem)
    prior = log_prior(grid, problem)
    gaps = []
    for item, value in flips:
        q = (r[item] * grid_terms.log_p + (n_k - r[item]) * grid_terms.log_q).sum(axis=1) + prior
        q[~other_mode(params[item:item + 1], grid)[0]] = -np.inf
        assert other_mode(params[item:item + 1], value[None, :])[0, 0]
        np.testing.assert_array_equal(value, grid[q.argmax()])
        gaps.append(q.max() - current[item])
    assert gaps == sorted(gaps, reverse=True)


@pytest.mark.heavy
def test_recombination_stays_within_its_budget_and_never_lowers_the_best(monkeypatch):
    sim = simulate_responses(132, n_items=60, model="3PL", seed=1, discrimination="normal")
    monkeypatch.setattr(recombine, "RECOMBINE_BUDGET", 0)
    searched = fit_irt(sim.responses, config=IRTConfig(model_family="decodirt"))
    assert len(searched.optima) > 1  # so the recombination phase runs
    assert not any(run["start"].startswith(("cross_", "flip_")) for run in searched.starts["runs"])
    monkeypatch.setattr(recombine, "RECOMBINE_BUDGET", 4)
    fit = fit_irt(sim.responses, config=IRTConfig(model_family="decodirt"))
    names = [run["start"] for run in fit.starts["runs"]]
    recombined = [name for name in names if name.startswith(("cross_", "flip_"))]
    assert names[:len(names) - len(recombined)] == [run["start"] for run in searched.starts["runs"]]
    assert len(recombined) == 4
    assert fit.log_posterior >= searched.log_posterior - 1e-9


@pytest.mark.heavy
def test_the_search_keeps_only_the_parameters_of_runs_it_can_report():
    """A run keeps its parameters while it is one of the best optimum's starts or the highest run;
    the others are released (a long search must not hold an item table per climb)."""
    def run(name, log_posterior):
        return Run(name, np.zeros((3, 3)), Record(history=[log_posterior]))

    runs = [run("a", -10.0), run("b", -5.0), run("c", -5.05), run("d", -4.0)]
    optima = [{"log_posterior": -5.0, "starts": ["b", "c"], "params": np.zeros((3, 3))}]
    release_unchosen(runs, optima)
    assert [r.params is not None for r in runs] == [False, True, True, True]  # d: the highest run
    sim = simulate_responses(132, n_items=60, model="3PL", seed=1, discrimination="normal")
    fit = fit_irt(sim.responses, config=IRTConfig(model_family="decodirt"))  # the chosen run's parameters are still there to report
    assert len(fit.starts["runs"]) > 7 and np.isfinite(fit.log_posterior)


@pytest.mark.slow  # about 5 CPU-s of reference numbers on kc2; recombination runs in every CI run in test_recombination_stays_within_its_budget_and_never_lowers_the_best (heavy)
def test_kc2s_best_optimum_on_the_coarsest_grid_is_reached_by_recombination(shared_data, monkeypatch):
    """decodIRT's kc2 on 41 nodes: the seven candidates, seeded mixtures and hops end 0.45 below the best
    optimum of a 20-start search (-3636.90, reached by 1 of its 20 starts); the recombination phase
    reaches it. (Those optima are the coarse grid's: see the next test.)"""
    pool = pd.read_csv(shared_data / "decodirt-reference" / "kc2" / "responses_pool.csv")
    coarse = IRTConfig(model_family="decodirt", refine_quadrature=False)
    fit = fit_irt(pool, config=coarse)
    assert fit.log_posterior == pytest.approx(-3636.90, abs=0.05)
    assert any(name.startswith(("cross_", "flip_")) for name in fit.optima[0]["starts"])
    monkeypatch.setattr(recombine, "RECOMBINE_BUDGET", 0)
    assert fit_irt(pool, config=coarse).log_posterior == pytest.approx(-3637.35, abs=0.05)


@pytest.mark.slow  # about 8 CPU-s of reference numbers on kc2; the quadrature refinement runs by default in test_irt_grid.py
def test_kc2s_optima_were_the_coarse_grids(shared_data):
    """On the grid the refinement chooses for kc2 (161 nodes) the seven candidates all end in one
    optimum, so the search stops after them, with nothing to recombine (a 20-start search ends in that
    one optimum too: ``benchmarks/irt_fit.py --part starts``). On 41 nodes, whose error at the optimum
    is 3.9 log-posterior units, the default climbs 73 starts into 6 optima and a 20-start search finds 7."""
    pool = pd.read_csv(shared_data / "decodirt-reference" / "kc2" / "responses_pool.csv")
    fit = fit_irt(pool, config=IRTConfig(model_family="decodirt"))
    assert fit.quadrature_nodes == 161 and fit.quadrature_error < fit.config.tol_optimum / 2
    assert len(fit.optima) == 1 and len(fit.starts["runs"]) == 7
    assert fit.log_posterior == pytest.approx(-3638.44, abs=0.05)

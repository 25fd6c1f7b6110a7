"""One start's climb: EM to a stationary point (:func:`benchirt.irt.em.run_em`), then the 3PL items
moved to a better mode of their M-step objective, and EM again, until no item moves.

At a converged EM point every item's M-step objective is searched on a grid
(:mod:`benchirt.irt.modes`); moving the items whose best grid point beats their values raises the
objective, hence the marginal log posterior (the generalised-EM inequality, Dempster, Laird & Rubin 1977,
Theorem 1). :func:`climb_and_file` climbs and files where the start ended
(:func:`benchirt.irt.search.file_optimum`). Hand-written: a loop around the estimator's own steps.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchirt.irt.em import Record, run_em
from benchirt.irt.estep import Terms, e_step, expected_correct
from benchirt.irt.modes import best_on_grid, item_grid
from benchirt.irt.mstep import item_objective
from benchirt.irt.problem import Problem, log_prior
from benchirt.irt.search import Run, file_optimum, release_unchosen

#: An item moves to a better grid point of its M-step objective when that gains more than this
#: (log-posterior units; :func:`escape_item_modes`), at most :data:`_MAX_ESCAPES` times per start.
_ESCAPE_GAIN = 0.01
_MAX_ESCAPES = 10


def climb(params: np.ndarray, problem: Problem, known: Sequence[dict] = (),
          max_iter: int | None = None) -> tuple[np.ndarray, Record]:
    """EM (:func:`benchirt.irt.em.run_em`) to a stationary point, then (3PL) each item's M-step objective
    searched on a grid (:func:`escape_item_modes`); EM resumes from the items that moved, until none moves or
    :data:`_MAX_ESCAPES` rounds. Every round raises the log posterior (generalised EM). ``max_iter`` (default
    ``config.max_iter``) bounds the EM steps of all rounds together."""
    max_iter = problem.config.max_iter if max_iter is None else max_iter
    params, record = run_em(params, problem, known, max_iter)
    while problem.estimates_guessing and record.stopped_by == "stationary" and record.escapes < _MAX_ESCAPES:
        moved, n_moved = escape_item_modes(params, problem)
        if not n_moved:
            break
        record.escapes += 1
        record.items_moved += n_moved
        params, later = run_em(moved, problem, known, max_iter - record.n_iter)
        record = record.extend(later)
    return params, record


def escape_item_modes(params: np.ndarray, problem: Problem) -> tuple[np.ndarray, int]:
    """``params`` with every item whose M-step objective at the E-step of ``params`` is higher by more
    than :data:`_ESCAPE_GAIN` at a point of :func:`benchirt.irt.modes.item_grid` moved there, and
    how many items moved."""
    gains, values = grid_gains(params, problem)
    jump = gains > _ESCAPE_GAIN
    moved = params.copy()
    moved[jump] = values[jump]
    return moved, int(jump.sum())


def grid_gains(params: np.ndarray, problem: Problem, other_mode: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per item, how much higher its M-step objective (at the E-step of ``params``) is at the best point
    of :func:`benchirt.irt.modes.item_grid` than at its values, and that point (m, 3); with
    ``other_mode``, the best point in another mode than the item's values
    (:func:`benchirt.irt.modes.other_mode`; -inf where the grid has none)."""
    grid = item_grid(problem.lower, problem.upper)
    grid_prior = log_prior(grid, problem)
    terms = Terms.at(params, problem)
    scaled, n_k, _ = e_step(terms, params, problem)
    gains, values = [], []
    for block in problem.blocks():
        r = expected_correct(scaled, block, problem)
        current = item_objective(params[block], terms.rows(block), r, n_k, problem)
        best, index = best_on_grid(grid, problem.nodes, r, n_k, grid_prior,
                                   away_from=params[block] if other_mode else None)
        gains.append(best - current)
        values.append(grid[index])
    return np.concatenate(gains), np.concatenate(values)


def climb_and_file(start: np.ndarray, name: str, problem: Problem, runs: list[Run], optima: list[dict],
                   climbed: tuple[np.ndarray, "Record"] | None = None) -> bool:
    """Climb from ``start`` (:func:`climb`; ``climbed``: its result, when known), add the run to
    ``runs`` and file its optimum under ``optima``; True when it raised the best optimum by more than
    ``tol_optimum``."""
    top = optima[0]["log_posterior"] if optima else -np.inf
    params, record = climbed or climb(start, problem, list(optima))
    runs.append(Run(name, params, record))
    if record.converged:
        file_optimum(optima, name, params, record.history[-1], record.joined, problem.config.tol_optimum)
    release_unchosen(runs, optima)
    return bool(optima) and optima[0]["log_posterior"] > top + problem.config.tol_optimum

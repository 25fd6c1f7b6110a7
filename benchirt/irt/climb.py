"""One start's climb: EM to a stationary point (:func:`benchirt.irt.em.run_em`), then the 3PL items moved to a better
mode of their M-step objective (:mod:`benchirt.irt.modes`), and EM again, until no item moves.

Moving an item to a better point of its M-step objective raises the marginal log posterior (Dempster, Laird & Rubin
1977, Theorem 1). The monotone family climbs from the grid's points before it compares (:func:`polished_gains`), since
its items' better modes lie between them. :func:`climb_and_file` files where the start ended
(:func:`benchirt.irt.search.file_optimum`). Hand-written: a loop around the estimator's own steps."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchirt.irt.em import Record, run_em
from benchirt.irt.estep import Terms, e_step, expected_correct
from benchirt.irt.modes import best_on_grid, best_per_guessing, interpolation_weights, item_grid
from benchirt.irt.mstep import climb_objectives, item_objective
from benchirt.irt.problem import Problem, item_blocks, log_prior
from benchirt.irt.search import Run, file_optimum, release_unchosen

#: An item moves to a better grid point of its M-step objective when that gains more than this
#: (log-posterior units; :func:`escape_item_modes`), at most :data:`_MAX_ESCAPES` times per start.
_ESCAPE_GAIN = 0.01
_MAX_ESCAPES = 10
#: The monotone family's mode search (:func:`polished_gains`): Fisher-scoring steps that climb each
#: candidate, and the nodes of the coarse grid the candidates are found on.
_POLISH_STEPS = 3
_SEARCH_NODES = 41
#: The grid the candidates come from: coarser than the free-sign family's (:func:`benchirt.irt.modes.item_grid`),
#: since each candidate is climbed; guessing of 0.001 and 0.9 started no better mode on the scale matrices.
_SEARCH_STEP = 0.5
_SEARCH_GUESSING = (0.05, 0.15, 0.3, 0.5, 0.7)
#: Candidates climbed at once (:func:`_climbed`): an item block of the search grid's problem, whose tables take
#: as much memory as the EM step's own, but at least this many (a block of 64 at 132 x 500 made the search twice
#: as costly as 256; 256 and, at 132 x 8000, four blocks at a time made its tables a fit's largest arrays).
_CLIMB_CANDIDATES = 128
#: Candidates whose grid value lies more than this below the item's own climb are not climbed.
_CANDIDATE_DEFICIT = 3.0


def climb(params: np.ndarray, problem: Problem, *, known: Sequence[dict] = (),
          max_iter: int | None = None, escape: bool = True) -> tuple[np.ndarray, Record]:
    """EM (:func:`benchirt.irt.em.run_em`) to a stationary point, then (3PL, with ``escape``) the rounds of
    :func:`escape_rounds`, each raising the log posterior. ``max_iter`` (default ``config.max_iter``) bounds the EM
    steps of all rounds together."""
    max_iter = problem.config.max_iter if max_iter is None else max_iter
    params, record = run_em(params, problem, known=known, max_iter=max_iter)
    return escape_rounds(params, record, problem, known=known, max_iter=max_iter) if escape else (params, record)


def escape_rounds(params: np.ndarray, record: Record, problem: Problem, *, known: Sequence[dict] = (),
                  max_iter: int | None = None) -> tuple[np.ndarray, Record]:
    """From EM's stationary point ``params`` (its ``record``), each item's better mode searched
    (:func:`escape_item_modes`) and EM resumed from the items that moved, until none moves or :data:`_MAX_ESCAPES`
    rounds, all EM steps together at most ``max_iter`` (default ``config.max_iter``). Nothing to do where ``params``
    is not stationary or c is not estimated."""
    max_iter = problem.config.max_iter if max_iter is None else max_iter
    while problem.estimates_guessing and record.stopped_by == "stationary" and record.escapes < _MAX_ESCAPES:
        moved, n_moved = escape_item_modes(params, problem)
        if not n_moved:
            break
        record.escapes += 1
        record.items_moved += n_moved
        params, later = run_em(moved, problem, known=known, max_iter=max_iter - record.n_iter)
        record = record.extend(later)
    return params, record


def escape_item_modes(params: np.ndarray, problem: Problem) -> tuple[np.ndarray, int]:
    """``params`` with every item whose M-step objective (at the E-step of ``params``) is higher by more than
    :data:`_ESCAPE_GAIN` at a point of :func:`benchirt.irt.modes.item_grid` moved there, and how many moved. The
    monotone family searches by :func:`polished_gains` and moves items only where their gains add up to more than
    ``tol_optimum / 2`` (less cannot tell optima apart)."""
    gains, values = polished_gains(params, problem) if problem.monotone else grid_gains(params, problem)
    jump = gains > _ESCAPE_GAIN
    if problem.monotone and gains[jump].sum() <= problem.config.tol_optimum / 2:
        jump[:] = False
    moved = params.copy()
    moved[jump] = values[jump]
    return moved, int(jump.sum())


def grid_gains(params: np.ndarray, problem: Problem, *, other_mode: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per item, how much higher its M-step objective (at the E-step of ``params``) is at the best point of
    :func:`benchirt.irt.modes.item_grid` than at its values, and that point (m, 3); with ``other_mode``, the best
    point in another mode (:func:`benchirt.irt.modes.other_mode`; -inf where the grid has none)."""
    grid = item_grid(problem.lower, problem.upper)
    grid_prior = log_prior(grid, problem)
    scaled, n_k, _ = e_step(params, problem)
    gains, values = [], []
    for block in problem.blocks():
        r = expected_correct(scaled, block, problem)
        current = item_objective(params[block], Terms.of_block(params[block], problem), r, n_k, problem)
        best, index = best_on_grid(grid, problem.nodes, r, n_k, grid_prior,
                                   away_from=params[block] if other_mode else None)
        gains.append(best - current)
        values.append(grid[index])
    return np.concatenate(gains), np.concatenate(values)


def polished_gains(params: np.ndarray, problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Per item, how much higher its M-step objective (at the E-step of ``params``) is at the best mode found by
    climbing from the grid, and that point (m, 3); -inf where no climb beats the item's own mode.

    The fixed grid misses modes between its points (a guessing floor between two grid values, a discrimination below the
    smallest step), so candidates are climbed (:func:`benchirt.irt.mstep.climb_objectives`, :data:`_POLISH_STEPS`
    steps): the best grid point per guessing value (:func:`benchirt.irt.modes.best_per_guessing`) no more than
    :data:`_CANDIDATE_DEFICIT` below the item's own climb, on the objective interpolated between :data:`_SEARCH_NODES`
    nodes (:func:`benchirt.irt.modes.interpolation_weights`), which costs the same on every grid. An item whose best
    candidate beats its own climb by more than :data:`_ESCAPE_GAIN` is climbed again on the exact objective, and its
    gain measured there."""
    m = len(params)
    scaled, n_k, _ = e_step(params, problem)
    coarse = problem.on_grid(_SEARCH_NODES) if len(problem.nodes) > _SEARCH_NODES else problem
    weights = interpolation_weights(problem.nodes, coarse.nodes) if coarse is not problem else None
    current, r_search = np.empty(m), np.empty((m, len(coarse.nodes)))
    for block in problem.blocks():
        r = expected_correct(scaled, block, problem)
        current[block] = item_objective(params[block], Terms.of_block(params[block], problem), r, n_k, problem)
        r_search[block] = r if weights is None else r @ weights
    n_search = n_k if weights is None else n_k @ weights
    own = current if weights is None else _climbed(params, np.arange(m), r_search, n_search, coarse)[1]
    grid = item_grid(problem.lower, problem.upper, step=_SEARCH_STEP, guessing=_SEARCH_GUESSING)
    index = best_per_guessing(grid, coarse.nodes, r_search, n_search, log_prior(grid, problem)).ravel()
    rows = np.repeat(np.arange(m), len(index) // m)  # the item of each candidate
    near = np.concatenate([
        item_objective(grid[index[piece]], Terms.of_block(grid[index[piece]], coarse), r_search[rows[piece]],
                       n_search, coarse) > own[rows[piece]] - _CANDIDATE_DEFICIT
        for piece in item_blocks(len(rows), max(_CLIMB_CANDIDATES, coarse.block_size))])
    rows, index = rows[near], index[near]
    found, value = _climbed(grid[index], rows, r_search, n_search, coarse)
    best = np.full(m, -np.inf)
    np.maximum.at(best, rows, value)
    winner = np.flatnonzero(value == best[rows])
    items, first = np.unique(rows[winner], return_index=True)  # one winning candidate per item
    better = best[items] > own[items] + _ESCAPE_GAIN
    items, start = items[better], found[winner[first[better]]]
    gains, values = np.full(m, -np.inf), params.copy()
    if len(items):
        exact, objective = climb_objectives(start, expected_correct(scaled, items, problem), n_k, problem,
                                            _POLISH_STEPS)
        gains[items], values[items] = objective - current[items], exact
    return gains, values


def _climbed(params: np.ndarray, rows: np.ndarray, r: np.ndarray, n_k: np.ndarray,
             problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """:func:`benchirt.irt.mstep.climb_objectives` of ``params`` (one per entry of ``rows``, the item whose ``r`` it
    climbs on), one of ``problem``'s item blocks at a time, at least :data:`_CLIMB_CANDIDATES`."""
    out = [climb_objectives(params[piece], r[rows[piece]], n_k, problem, _POLISH_STEPS)
           for piece in item_blocks(len(rows), max(_CLIMB_CANDIDATES, problem.block_size))]
    return np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out])


def climb_and_file(start: np.ndarray, name: str, problem: Problem, runs: list[Run], optima: list[dict], *,
                   climbed: tuple[np.ndarray, "Record"] | None = None) -> bool:
    """Climb from ``start`` (:func:`climb`; ``climbed``: its result, when known), add the run to ``runs`` and file its
    optimum under ``optima``; True when it raised the best optimum by more than ``tol_optimum``."""
    top = optima[0]["log_posterior"] if optima else -np.inf
    params, record = climbed or climb(start, problem, known=list(optima))
    runs.append(Run(name, params, record))
    if record.converged:
        file_optimum(optima, name, params, record.history[-1], record.joined, problem.config.tol_optimum)
    release_unchosen(runs, optima)
    return bool(optima) and optima[0]["log_posterior"] > top + problem.config.tol_optimum

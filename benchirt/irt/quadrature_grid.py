"""The quadrature grid of the fit: doubled (old nodes plus midpoints) until it resolves the respondents' posteriors,
judged by how much a doubling changes the log posterior (Trefethen & Weideman 2014).

The trapezoid rule on equally spaced nodes converges exponentially fast for a smooth integrand, but only once the
spacing is below its width; with many steep items a posterior is narrower than the default spacing, and the marginal log
posterior ripples with the grid (docs/irt.md, "The calibration grid"). :func:`resolving_grid` fixes the free-sign
search's grid at the first start's optimum; :func:`refined_climb` refines the monotone family's one climb. Hand-written:
a loop over :func:`benchirt.irt.models.quadrature` grids."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from benchirt.irt.climb import climb
from benchirt.irt.em import Record
from benchirt.irt.estep import log_posterior
from benchirt.irt.problem import Problem

#: The quadrature grid is doubled (old nodes plus midpoints) at most this many times: 41 -> 81 -> 161
#: -> 321 nodes by default (:func:`resolving_grid`).
MAX_REFINEMENTS = 3
#: The rough climb of :func:`refined_climb` stops where one EM step moves no parameter by 0.01, raises the log
#: posterior by less than ``tol_optimum / 10`` (with the default ``tol_optimum``) and leaves no gradient
#: component of 1 or more: ten times the default stopping rule in steps and gradient.
ROUGH_TOLERANCES = {"tol": 1e-2, "tol_log_posterior": 1e-2, "tol_gradient": 1.0}


def resolving_grid(params: np.ndarray, problem: Problem) -> Problem:
    """``problem`` on the coarsest grid that resolves the posteriors at ``params`` (the first start's optimum): the
    configured grid, doubled (:func:`_resolving`) while that changes the log posterior there by more than
    ``tol_optimum / 2`` (at most :data:`MAX_REFINEMENTS` times; ``config.refine_quadrature`` False: never).

    On a Gaussian of SD sigma the trapezoid rule's relative error is about ``2 exp(-2 pi^2 sigma^2 / h^2)`` (Trefethen &
    Weideman 2014); on a too coarse grid the log posterior ripples with the spacing as the items move, making optima of
    the grid, not of the model. An error below ``tol_optimum / 2`` keeps two optima apart if the grid tells them apart
    by more than ``tol_optimum``. It is judged at the first start's optimum only; the fit reports what remains at its
    optimum (``IRTFit.quadrature_error``)."""
    return _resolving(params, problem, MAX_REFINEMENTS if problem.config.refine_quadrature else 0)[0]


def refined_climb(start: np.ndarray, problem: Problem) -> tuple[Problem, tuple]:
    """The monotone family's one climb from ``start``, on the grid that resolves the posteriors at its optimum
    (:func:`_resolving`, the rule of :func:`resolving_grid`), at most :data:`MAX_REFINEMENTS` doublings in all
    (``config.refine_quadrature`` False: none).

    The 3PL, whose climbs search the items' modes (:func:`benchirt.irt.climb.escape_rounds`), climbs roughly where the
    grid is cheap and refines only to finish (:func:`_rough_then_finer`): on a coarse grid EM's last steps creep towards
    the grid's own optimum. The 1PL and 2PL climb to the stopping rule on each grid in turn, one doubling at a time
    (without the mode search, a 2PL item held at ``a = 0`` keeps whatever difficulty its path left it). Either way the
    grid is judged again at every optimum, the returned one included, and no climb starts over. The EM steps of all
    grids are added up (``Record.grid_steps`` per grid); the log-posterior history is the final grid's."""
    config = problem.config
    left = MAX_REFINEMENTS if config.refine_quadrature else 0
    if problem.estimates_guessing and left:
        problem, left, (params, record) = _rough_then_finer(start, problem, left)
    else:
        params, record = climb(start, problem)
    while record.converged and left:
        finer, doublings = _resolving(params, problem, left if problem.estimates_guessing else 1)
        if not doublings:
            break
        problem, left = finer, left - doublings
        params, later = climb(params, problem, max_iter=config.max_iter - record.n_iter)
        record = _continued(record, later)
    return problem, (params, record)


def _rough_then_finer(start: np.ndarray, problem: Problem, left: int) -> tuple[Problem, int, tuple]:
    """:func:`refined_climb`'s 3PL climb: rough (:func:`rough`) on ``problem``'s grid, rough again on the grid
    :func:`_resolving` chooses there (at most ``left`` doublings), then to the stopping rule on that grid.
    Returns that grid's problem, the doublings left and the climb's ``(params, record)``."""
    config = problem.config
    params, record = climb(start, rough(problem))
    if record.converged:
        finer, doublings = _resolving(params, problem, left)
        if doublings:
            problem, left = finer, left - doublings
            params, later = climb(params, rough(problem), max_iter=config.max_iter - record.n_iter)
            record = _continued(record, later)
    params, later = climb(params, problem, max_iter=config.max_iter - record.n_iter)
    return problem, left, (params, record.extend(later))


def rough(problem: Problem) -> Problem:
    """``problem`` with the stopping rule loosened to :data:`ROUGH_TOLERANCES` (where the configured one is
    stricter): the rough climb of :func:`refined_climb`."""
    config = problem.config
    loose = {name: max(getattr(config, name), value) for name, value in ROUGH_TOLERANCES.items()}
    return replace(problem, config=replace(config, **loose))


def _resolving(params: np.ndarray, problem: Problem, most: int) -> tuple[Problem, int]:
    """``problem`` doubled (:func:`_finer`) while doubling it changes the log posterior at ``params`` by
    more than ``tol_optimum / 2``, at most ``most`` times, and how many times it was (one E-step per grid)."""
    value = log_posterior(params, problem)
    for doublings in range(most):
        finer = problem.on_grid(_finer(problem))
        finer_value = log_posterior(params, finer)
        if abs(finer_value - value) <= problem.config.tol_optimum / 2:
            return problem, doublings
        problem, value = finer, finer_value
    return problem, most


def _continued(record: "Record", later: "Record") -> "Record":
    """``record`` continued by ``later``, which climbed on a finer grid: the EM steps added up, the log-posterior
    history ``later``'s (a coarser grid's log posteriors are of another integral)."""
    own = list(later.history)
    record = record.extend(later)
    record.history = own
    return record


def _finer(problem: Problem) -> int:
    """The number of nodes of the grid with the midpoints of ``problem``'s added."""
    return 2 * len(problem.nodes) - 1


def grid_error(params: np.ndarray, problem: Problem) -> float:
    """How much the log posterior at ``params`` changes on the grid with twice ``problem``'s nodes."""
    return abs(log_posterior(params, problem.on_grid(_finer(problem))) - log_posterior(params, problem))

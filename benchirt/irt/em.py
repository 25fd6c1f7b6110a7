"""EM from one start to a stationary point, accelerated by SQUAREM (Varadhan & Roland 2008) and by a parameter-expanded
move on the ability scale (PX-EM; Liu, Rubin & Wu 1998).

:func:`run_em` iterates the EM map of :func:`benchirt.irt.mstep.em_step` and stops by the rule of :func:`judge_stop`
(evidence from :mod:`benchirt.irt.stationarity`). Hand-written: SQUAREM needs a step length per item here, which no
library offers on this map."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from benchirt.irt.estep import Expectation, e_step
from benchirt.irt.mstep import em_step
from benchirt.irt.problem import Problem, clip, max_change
from benchirt.irt.stationarity import joins, largest_gradient, marginal_gradient

#: Largest SQUAREM step length (per item); longer ones fail the log-posterior check more often than they gain.
_MAX_ALPHA = 3.0
#: The 1PL's SQUAREM step length, one for all parameters: its shared ``a`` and the ``b``'s move along one ridge,
#: where the per-item cap leaves EM creeping; a failed longer step costs only one EM step.
_MAX_ALPHA_1PL = 100.0
#: The parameter-expanded move (:func:`expanded_move`) changes the ability scale's unit by at most
#: this factor's exponential (e^0.7 = 2.0) at once.
_EXPANSION_RANGE = 0.7


@dataclass
class Record:
    """How one start's EM went: whether and why it stopped (``stopped_by``: ``"stationary"``, ``"same_optimum"`` or
    ``"max_iter"``), its EM steps, the last step's size, log-posterior gain and marginal gradient, the log posterior
    after every step (``history``), and the items moved and moves made."""

    converged: bool = False
    stopped_by: str = "max_iter"
    n_iter: int = 0
    max_change: float = float("inf")
    log_posterior_change: float = float("inf")
    history: list[float] = field(default_factory=list)
    max_gradient: float = float("inf")
    #: items moved to a better mode of their M-step objective (:func:`benchirt.irt.climb.escape_item_modes`), and rounds
    items_moved: int = 0
    escapes: int = 0
    joined: dict | None = None  # the known optimum a "same_optimum" stop joined
    #: parameter-expanded moves (:func:`expanded_move`) kept, and those the log-posterior check refused
    expanded_moves: int = 0
    expanded_rejected: int = 0
    #: EM steps per quadrature grid, in the order climbed: ``(nodes, steps)`` pairs adding up to ``n_iter``
    #: (:func:`benchirt.irt.quadrature_grid.refined_climb` climbs on more than one grid)
    grid_steps: list[tuple[int, int]] = field(default_factory=list)

    def extend(self, later: "Record") -> "Record":
        """This record continued by ``later`` (EM resumed from this record's end)."""
        later.n_iter += self.n_iter
        later.history = self.history[:-1] + later.history
        later.items_moved += self.items_moved
        later.escapes += self.escapes
        later.expanded_moves += self.expanded_moves
        later.expanded_rejected += self.expanded_rejected
        steps = list(self.grid_steps)
        for nodes, n in later.grid_steps:
            if steps and steps[-1][0] == nodes:  # EM resumed on the same grid
                n += steps.pop()[1]
            steps.append((nodes, n))
        later.grid_steps = steps
        return later


def run_em(params: np.ndarray, problem: Problem, *, known: Sequence[dict] = (),
           max_iter: int | None = None) -> tuple[np.ndarray, Record]:
    """EM accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3, step length per item; one for all parameters in the
    1PL).

    Each cycle takes two EM steps ``x1 = F(x0)``, ``x2 = F(x1)``, extrapolates every item
    ``x' = x0 - 2 alpha r + alpha^2 v`` (``r = x1 - x0``, ``v = x2 - 2 x1 + x0``, ``alpha = -|r|/|v|`` in ``[-3, -1]``),
    clips ``x'`` to the bounds and takes one EM step from it; when ``x'`` has a lower log posterior than ``x0`` the
    cycle continues from ``x2`` instead, so the log posterior never decreases. With ``config.expanded_em``
    (docs/irt.md), each cycle first moves ``x0`` by :func:`expanded_move` when the log posterior there is at least the
    one at ``x0``; otherwise the next move is half as long (a kept move doubles it again, up to the full step).

    Convergence is judged on the plain EM step ``x0 -> x1``: it moves no parameter by ``tol`` or more, raises the log
    posterior by less than ``tol_log_posterior``, *and* the marginal gradient at ``x1`` is below ``tol_gradient`` in
    every free parameter (:func:`benchirt.irt.stationarity.marginal_gradient`; ``"stationary"``). Either of the first
    two tests alone stops early where EM is slow (docs/irt.md, "Convergence rule"). A later start stops within
    :data:`benchirt.irt.stationarity.JOIN` of ``known``, an earlier start's optimum, or its mirror image
    (``"same_optimum"``). ``max_iter`` (default ``config.max_iter``) bounds the EM steps."""
    config = problem.config
    record = Record(history=[])
    cols = [0, 1, 2] if problem.estimates_guessing else [0, 1]

    def step(x, e, following=True):
        new, log_post, following_e = em_step(x, problem, expectation=e, following=following)
        record.n_iter += 1
        record.history.append(log_post)
        return new, log_post, following_e

    # each point's E-step comes from the EM step that reached it (:func:`benchirt.irt.mstep.em_step`), or is
    # built afresh for a point no EM step reached (the start, a moved or an extrapolated point)
    x0, e0 = params, e_step(params, problem)
    lp_prev = None
    length = 1.0  # of the expanded move: halved after each refused move, doubled (up to 1) after each kept one
    max_iter = config.max_iter if max_iter is None else max_iter
    while record.n_iter < max_iter:
        moved = expanded_move(x0, e0, problem, length=length) if config.uses_expanded_em else None
        if moved is not None:  # kept only where it raises the log posterior (one more E-step)
            e_moved = e_step(moved, problem)
            if e_moved.log_posterior >= e0.log_posterior:
                x0, e0 = moved, e_moved
                record.expanded_moves += 1
                length = min(1.0, 2 * length)
            else:
                record.expanded_rejected += 1
                length /= 2
            del e_moved
        x1, lp0, e1 = step(x0, e0)
        del e0, moved  # one name per E-step, so that releasing it frees it (both are bound again below)
        record.max_change = max_change(x0, x1)
        if lp_prev is not None:
            record.log_posterior_change = lp0 - lp_prev
        judge_stop(record, x0, lp0, x1, e1, known, problem)
        if record.stopped_by != "max_iter" or record.n_iter >= max_iter:
            x0, e0 = x1, e1
            break
        x2, lp1, _ = step(x1, e1, following=False)  # x2's E-step is built in the rare case it is needed
        del e1
        record.log_posterior_change = lp1 - lp0
        r = x1[:, cols] - x0[:, cols]
        v = x2[:, cols] - 2 * x1[:, cols] + x0[:, cols]
        if problem.config.model == "1PL":
            # one step length for all parameters (Varadhan & Roland's own scheme): the shared
            # discrimination moves every difficulty with it, and EM crawls along that direction
            norm_v, norm_r = np.sqrt((v**2).sum()), np.sqrt((r**2).sum())
            longest = _MAX_ALPHA_1PL
        else:
            norm_v = np.sqrt((v**2).sum(axis=1, keepdims=True))
            norm_r = np.sqrt((r**2).sum(axis=1, keepdims=True))
            longest = _MAX_ALPHA
        alpha = np.minimum(-norm_r / np.where(norm_v > 0, norm_v, np.inf), -1.0)
        alpha = np.maximum(alpha, -longest)
        extrapolated = x0.copy()
        extrapolated[:, cols] = x0[:, cols] - 2 * alpha * r + alpha**2 * v
        extrapolated = clip(extrapolated, problem)
        x3, lp_ext, e3 = step(extrapolated, e_step(extrapolated, problem))
        if lp_ext < lp1:  # extrapolation overshot: continue from plain EM instead
            record.history.pop()
            del e3
            if record.n_iter >= max_iter:  # no EM step left: end at x2
                x3, e3 = x2, e_step(x2, problem)
            else:
                x3, lp_ext, e3 = step(x2, e_step(x2, problem))
        lp_prev = lp_ext
        x0, e0, e3 = x3, e3, None  # one name per E-step, so that releasing it frees it
    record.converged = record.stopped_by != "max_iter"
    record.grid_steps = [(len(problem.nodes), record.n_iter)]
    # log posterior at the final estimates (its E-step, no update)
    record.history.append(e0.log_posterior)
    return x0, record


def judge_stop(record: Record, x0: np.ndarray, lp0: float, x1: np.ndarray, e1: Expectation,
               known: Sequence[dict], problem: Problem) -> None:
    """Set ``record.stopped_by`` after the plain EM step ``x0 -> x1`` (``lp0``: the log posterior at ``x0``; ``e1``: the
    E-step at ``x1``) by the rule of :func:`run_em`: ``"stationary"``, else ``"same_optimum"`` when ``x0`` joins an
    optimum of ``known`` (:func:`benchirt.irt.stationarity.joins`)."""
    config = problem.config
    if record.max_change < config.tol and record.log_posterior_change < config.tol_log_posterior:
        record.max_gradient = largest_gradient(x1, e1, problem)
        if record.max_gradient < config.tol_gradient:
            record.stopped_by = "stationary"
    else:
        record.joined = next((optimum for optimum in known if joins(x0, lp0, optimum, problem)), None)
        if record.joined is not None:
            record.stopped_by = "same_optimum"


def expanded_move(params: np.ndarray, expectation: Expectation, problem: Problem,
                  *, length: float = 1.0) -> np.ndarray | None:
    """``params`` moved along the location and unit of the ability scale by a parameter-expanded EM step (PX-EM; Liu,
    Rubin & Wu 1998), or ``None`` where the move changes no parameter by ``config.tol`` or more. ``expectation``
    (:func:`benchirt.irt.estep.e_step`'s result) is the one at ``params``.

    The model is unchanged by ``theta -> mu + sigma theta`` with ``a -> a / sigma``, ``b -> mu + sigma b``; only the
    N(0, 1) ability distribution pins mu and sigma, through posteriors that follow the items slowly, so EM creeps along
    this direction. PX-EM expands the ability distribution to N(mu, sigma^2), estimates (mu, sigma) and reduces back:
    ``a -> a sigma``, ``b -> (b - mu) / sigma``, ``c`` unchanged. Its usual (mu, sigma) step, the posterior moments,
    equals the gradient along the reduction over the complete-data information only in a continuous model; on the grid
    (posteriors narrower than the node spacing) the moments do not vanish at EM's optimum. So the step is taken in its
    gradient form, ``mu = length G_mu / I_mu``, ``log sigma = length G_s / I_s`` (at most :data:`_EXPANSION_RANGE`),
    with ``G`` the exact gradient of the marginal log posterior along the reduction (Fisher's identity,
    :func:`benchirt.irt.stationarity.marginal_gradient`: ``G_mu = -sum_j w_j dL/db_j``,
    ``G_s = sum_j w_j (a_j dL/da_j - b_j dL/db_j)``) and ``I`` the complete-data information plus the priors' curvature
    along it; its fixed points are then EM's."""
    scaled, n_k, _ = expectation
    config = problem.config
    grad = marginal_gradient(params, scaled, n_k, problem)
    w = problem.multiplicity
    a, b = params[:, 0], params[:, 1]
    along_a = a[0] * grad[0, 0] if config.model == "1PL" else w @ (a * grad[:, 0])
    g_location = -float(w @ grad[:, 1])
    g_scale = float(along_a - w @ (b * grad[:, 1]))
    total = float(n_k.sum())
    info_location, info_scale = total, 2 * total
    if config.prior:
        (ma, sa), (mb, sb) = config.prior_discrimination, config.prior_difficulty
        info_location += float(w.sum()) / sb**2
        info_scale += max(float(w @ (2 * b**2 - mb * b)) / sb**2, 0.0)
        if config.model != "1PL":
            info_scale += max(float(w @ (2 * a**2 - ma * a)) / sa**2, 0.0)
    mu = length * g_location / info_location
    sigma = float(np.exp(np.clip(length * g_scale / info_scale, -_EXPANSION_RANGE, _EXPANSION_RANGE)))
    moved = params.copy()
    moved[:, 0] *= sigma
    moved[:, 1] = (moved[:, 1] - mu) / sigma
    moved = clip(moved, problem)
    return moved if max_change(params, moved) >= config.tol else None

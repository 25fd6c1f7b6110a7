"""The M-step of the EM: damped, projected Fisher scoring on each item's expected complete-data log posterior
``Q_j = sum_k r_jk log P_jk + (n_k - r_jk) log(1 - P_jk) + log prior_j`` (Bock & Aitkin 1981).

Up to :data:`M_STEPS` Fisher-scoring steps per item (2 x 2 or 3 x 3 systems solved for every item at once,
:func:`solve_small`; projected at the bounds; at most :data:`MAX_STEP` per parameter), halved so that each item's
objective never decreases: a generalised EM, whose every step raises the marginal log posterior (Dempster, Laird & Rubin
1977, Theorem 1). The 1PL takes one joint Newton step instead (:func:`_rasch_step`). Guessing is optimised as
``gamma = logit(c)``; its Beta prior keeps it off the boundaries. Hand-written: vectorised over the items, which
per-item ``scipy.optimize`` calls are not (docs/irt.md)."""
from __future__ import annotations

import numpy as np

from benchirt.irt.estep import Expectation, LogJoint, Terms, e_step, expected_correct, summed
from benchirt.irt.models import logistic
from benchirt.irt.problem import Problem, clip, free_columns, guessing, log_prior

#: Largest change of any parameter (a, b, logit c) in one Fisher-scoring update.
MAX_STEP = 1.0
#: Halvings tried before an item keeps its previous value in an M-step.
_HALVINGS = 8
#: Fisher-scoring steps per item in one M-step: one leaves EM crawling along flat ridges of weakly determined 3PL
#: items, a third costs more than it saves.
M_STEPS = 2


def em_step(params: np.ndarray, problem: Problem, *, expectation: Expectation | None = None,
            following: bool = True) -> tuple[np.ndarray, float, Expectation | None]:
    """One EM iteration ``F``: E-step at ``params`` (or ``expectation``, :func:`benchirt.irt.estep.e_step`'s result
    there), then the M-step of :func:`_block_step` (the 1PL: :func:`_rasch_step`).

    The items go block by block; with ``following`` each block's tables at its new parameters are added to the next
    E-step's sum (:class:`LogJoint`) and released, so no item x node table of all items exists. Returns the new params,
    the log posterior at the *old* params, and (with ``following``) the E-step at the new params."""
    scaled, n_k, log_post = expectation or e_step(params, problem)
    if problem.config.model == "1PL":
        new, joint = _rasch_step(params, scaled, n_k, problem, following)
    else:
        joint = LogJoint(problem) if following else None
        new = params.copy()
        for block in problem.blocks():
            new[block], terms = _block_step(params[block], expected_correct(scaled, block, problem), n_k, problem)
            if joint is not None:
                joint.add(block, terms)
            del terms  # one block's tables at a time
    return new, log_post, (joint.expectation(new) if joint is not None else None)


def _block_step(params: np.ndarray, r: np.ndarray, n_k: np.ndarray, problem: Problem) -> tuple[np.ndarray, Terms]:
    """The M-step of one item block (``params``, its expected correct answers ``r``): :func:`_scoring_pass`, repeated
    for the items it moved by ``config.tol`` or more, up to :data:`M_STEPS` in all. Returns the new params and their
    tables."""
    new, terms, moved = _scoring_pass(params, Terms.of_block(params, problem), r, n_k, problem)
    for _ in range(M_STEPS - 1):
        rows = np.flatnonzero(moved >= problem.config.tol)
        if not len(rows):
            break
        sub, sub_terms, sub_moved = _scoring_pass(new[rows], terms.rows(rows), r[rows], n_k, problem)
        new[rows] = sub
        terms.merge(rows, sub_terms)
        moved = np.zeros(len(new))
        moved[rows] = sub_moved
    return new, terms


def _scoring_pass(params, terms, r, n_k, problem) -> tuple[np.ndarray, Terms, np.ndarray]:
    """One projected, damped Fisher-scoring step per item (tables ``terms``, expected correct answers ``r``), halved
    until the item's objective does not decrease (items where no halving helps keep their parameters). Returns the
    new params, their tables and how far each item moved (largest change of a, b, logit c)."""
    step = _scoring_direction(params, r, n_k, problem, terms)
    old_obj = item_objective(params, terms, r, n_k, problem)
    new = clip(params + step, problem)
    new_terms = Terms.of_block(new, problem)
    worse = np.flatnonzero(item_objective(new, new_terms, r, n_k, problem) < old_obj - 1e-10)
    if len(worse):
        _halve_failed_steps(params, new, new_terms, worse, step[worse], r[worse], old_obj[worse], n_k, problem)
    cols = free_columns(problem)
    moved = np.abs(new[:, cols] - params[:, cols]).max(axis=1)
    return new, new_terms, moved


def climb_objectives(params: np.ndarray, r: np.ndarray, n_k: np.ndarray, problem: Problem,
                     steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's M-step objective ``Q_j`` (expected correct answers ``r`` (rows, K), the shared ``n_k``) climbed from
    ``params`` (rows, 3) by ``steps`` projected, damped Fisher-scoring steps (:func:`_scoring_direction`), each
    halved until the row's objective does not fall (else the row keeps its values). Rows are independent: several may
    hold one item's ``r`` from different points. Returns the climbed params and their objectives (rows,)."""
    params = params.copy()
    terms = Terms.of_block(params, problem)
    objective = item_objective(params, terms, r, n_k, problem)
    for _ in range(steps):
        step = _scoring_direction(params, r, n_k, problem, terms)
        rows, scale = np.arange(len(params)), 1.0
        for _ in range(_HALVINGS):
            trial = clip(params[rows] + scale * step[rows], problem)
            trial_terms = Terms.of_block(trial, problem)
            value = item_objective(trial, trial_terms, r[rows], n_k, problem)
            better = value >= objective[rows]
            params[rows[better]], objective[rows[better]] = trial[better], value[better]
            terms.merge(rows[better], trial_terms.rows(better))
            rows, scale = rows[~better], scale / 2
            if not len(rows):
                break
    return params, objective


def _halve_failed_steps(params, new, terms, items, step, r, old_obj, n_k, problem) -> None:
    """Step halving for ``items``, whose full step lowered their objective: each keeps the largest ``step / 2^h`` that
    does not; where none does, the same for the step onto the bounds (:func:`_step_onto_bounds`), or its previous
    parameters; ``new`` and ``terms`` updated in place."""
    still = _halvings(params, new, terms, items, step, r, old_obj, n_k, problem, scale=0.5)
    if not still.any():
        return
    items, r, old_obj = items[still], r[still], old_obj[still]
    onto = _step_onto_bounds(params[items], r, n_k, problem)
    crossing = np.flatnonzero((onto != 0).any(axis=1))  # only where a step crossed a bound is it a new step
    if len(crossing):
        again = _halvings(params, new, terms, items[crossing], onto[crossing], r[crossing], old_obj[crossing],
                          n_k, problem, scale=1.0)
        keep = np.ones(len(items), dtype=bool)
        keep[crossing] = again
        items = items[keep]
    new[items] = params[items]
    terms.merge(items, Terms.of_block(params[items], problem))


def _halvings(params, new, terms, items, step, r, old_obj, n_k, problem, scale: float) -> np.ndarray:
    """Try ``scale * step``, halved up to :data:`_HALVINGS` times, for ``items``: each takes (into ``new`` and
    ``terms``) the first that does not lower its objective ``old_obj``. Returns the mask of ``items`` where none did
    (their entries in ``new`` then hold the last trial)."""
    left = np.arange(len(items))
    for _ in range(_HALVINGS):
        rows = items[left]
        trial = clip(params[rows] + scale * step[left], problem)
        trial_terms = Terms.of_block(trial, problem)
        new[rows] = trial
        terms.merge(rows, trial_terms)
        left = left[item_objective(trial, trial_terms, r[left], n_k, problem) < old_obj[left] - 1e-10]
        if not len(left):
            break
        scale /= 2
    still = np.zeros(len(items), dtype=bool)
    still[left] = True
    return still


def _step_onto_bounds(params, r, n_k, problem) -> np.ndarray:
    """The Fisher-scoring step of :func:`_scoring_direction` where it crosses a bound: those parameters go onto their
    bound and the others are re-solved given that move (a projected Newton step, as in :func:`_rasch_step`); 0 for
    items whose step crosses no bound. A step merely clipped keeps the other parameters' part meant for a longer
    move, and every halving can then lower the objective, leaving an item next to its bound stuck."""
    cols = np.asarray(free_columns(problem))
    step = _scoring_direction(params, r, n_k, problem)
    grad, info = gradient_information(params, r, n_k, problem)
    lower, upper = problem.lower[cols], problem.upper[cols]
    reached = params[:, cols] + step[:, cols]
    crossing = (reached > upper) | (reached < lower)
    fixed = np.where(crossing, np.clip(reached, lower, upper) - params[:, cols], 0.0)
    sub_info = info[:, cols][:, :, cols]
    sub_info[:, range(len(cols)), range(len(cols))] += 1e-6
    keep = ~crossing
    system = sub_info * keep[:, :, None] * keep[:, None, :] + np.eye(len(cols)) * ~keep[:, None, :]
    rhs = (grad[:, cols] - np.einsum("mij,mj->mi", sub_info, fixed)) * keep
    out = np.zeros_like(params)
    out[:, cols] = np.where(crossing, fixed, solve_small(system, rhs))
    out[~crossing.any(axis=1)] = 0.0
    longest = np.abs(out).max(axis=1, keepdims=True)
    return out * (MAX_STEP / np.maximum(longest, MAX_STEP))


def _scoring_direction(params, r, n_k, problem, terms: Terms | None = None) -> np.ndarray:
    """The Fisher-scoring step (m, 3) of each item: projected at the bounds, at most :data:`MAX_STEP` per parameter."""
    cols = free_columns(problem)
    grad, info = gradient_information(params, r, n_k, problem, terms=terms)
    step = np.zeros_like(params)
    if problem.config.model == "1PL":
        step[:, 1] = grad[:, 1] / (info[:, 1, 1] + 1e-9)
    else:
        sub_grad = grad[:, cols]
        sub_info = info[:, cols][:, :, cols]
        sub_info[:, range(len(cols)), range(len(cols))] += 1e-6
        step[:, cols] = solve_small(sub_info, sub_grad)
        # parameters on a bound that the step pushes outward are held there and the
        # others re-solved (a projected Newton step), so clipping cannot spoil the step
        on_bound = pinned(params, step, problem)[:, cols]
        rows = np.flatnonzero(on_bound.any(axis=1))
        if len(rows):
            keep = ~on_bound[rows]
            fixed_info = sub_info[rows] * keep[:, :, None] * keep[:, None, :] + np.eye(len(cols)) * ~keep[:, None, :]
            step[np.ix_(rows, np.asarray(cols))] = solve_small(fixed_info, sub_grad[rows] * keep)
    # shorten long steps as a whole (clipping each component would change their direction)
    longest = np.abs(step).max(axis=1, keepdims=True)
    return step * (MAX_STEP / np.maximum(longest, MAX_STEP))


def solve_small(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``numpy.linalg.solve(matrix, rhs[..., None])[..., 0]`` for a stack of symmetric 2 x 2 or 3 x 3 systems, by the
    adjugate (Cramer's rule): a handful of array operations instead of one LAPACK call per system."""
    if matrix.shape[-1] == 2:
        p, q, r = matrix[:, 0, 0], matrix[:, 0, 1], matrix[:, 1, 1]
        x, y = rhs[:, 0], rhs[:, 1]
        det = p * r - q * q
        return np.stack([r * x - q * y, p * y - q * x], axis=1) / det[:, None]
    a, b, c, d, e, f = (matrix[:, i, j] for i, j in ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)))
    # cofactors of the symmetric matrix [[a, b, c], [b, d, e], [c, e, f]]
    A, B, C = d * f - e * e, c * e - b * f, b * e - c * d
    D, E, F = a * f - c * c, b * c - a * e, a * d - b * b
    det = a * A + b * B + c * C
    x, y, z = rhs[:, 0], rhs[:, 1], rhs[:, 2]
    return np.stack([A * x + B * y + C * z, B * x + D * y + E * z, C * x + E * y + F * z], axis=1) / det[:, None]


def pinned(params: np.ndarray, step: np.ndarray, problem: Problem, *, eps: float = 1e-9) -> np.ndarray:
    """(m, 3) mask of parameters sitting on a bound (within ``eps``) with a step pointing outward."""
    return ((params >= problem.upper - eps) & (step > 0)) | ((params <= problem.lower + eps) & (step < 0))


def _rasch_step(params, scaled, n_k, problem, following: bool) -> tuple[np.ndarray, LogJoint | None]:
    """1PL M-step: one damped Newton (Fisher-scoring) step on the shared discrimination ``a`` and every difficulty
    ``b_j`` jointly, halved as a whole until ``sum_j w_j Q_j(a, b_j)`` does not decrease (a generalised EM). Returns
    the new params and (with ``following``) the next E-step's sum at them (:class:`benchirt.irt.estep.LogJoint`),
    added up block by block.

    The information matrix is an arrow (``a`` couples with every ``b_j``, the ``b_j`` not with each other), solved
    through the Schur complement of its diagonal part in O(m):
    ``da = (G_a - sum_j w_j I_ab g_b / I_bb) / (H_aa - sum_j w_j I_ab^2 / I_bb)``, ``db_j = (g_b - I_ab da) / I_bb``
    (``G_a = sum_j w_j g_a``, ``H_aa = sum_j w_j I_aa``). Steps on ``a`` and the ``b_j`` in turn crawl: ``a`` rescales
    every ``b``."""
    w = problem.multiplicity
    grad = np.empty((len(params), 2))
    info = np.empty((len(params), 3))  # I_aa, I_ab, I_bb
    old_obj = 0.0
    for block in problem.blocks():  # pass 1: gradient and information of every item at the E-step
        r = expected_correct(scaled, block, problem)
        block_terms = Terms.of_block(params[block], problem)
        g, i = gradient_information(params[block], r, n_k, problem, terms=block_terms)
        grad[block] = g[:, :2]
        info[block] = np.stack([i[:, 0, 0], i[:, 0, 1], i[:, 1, 1]], axis=1)
        old_obj += w[block] @ item_objective(params[block], block_terms, r, n_k, problem)
    i_bb = info[:, 2] + 1e-9
    step = np.zeros((len(params), 3))
    # a difficulty on its bound whose own step points outward is held there, and so is the shared a:
    # the system is solved for the others (a projected Newton step; clipping afterwards would spoil
    # the coupled step of a)
    free = ~pinned(params, np.stack([grad[:, 0], grad[:, 1] / i_bb, np.zeros(len(params))], axis=1),
                   problem)[:, 1]
    a_free = not pinned(params[:1], np.array([[w @ grad[:, 0], 0.0, 0.0]]), problem)[0, 0]
    held = np.zeros(len(params))  # the fixed step of a difficulty that is not free
    for _ in range(2):  # a difficulty whose step would cross its bound goes onto it and the system is re-solved
        # with that step fixed: clipped afterwards, it could not follow a, and a step of a few 1e-5 in a then
        # lowered the objective at every halving (a 1PL start stalled for 1000 EM steps, issue 23)
        ratio = np.where(free, info[:, 1] / i_bb, 0.0)
        if a_free:
            schur = w @ (info[:, 0] - info[:, 1] * ratio) + 1e-9
            step[:, 0] = (w @ (grad[:, 0] - ratio * grad[:, 1] - info[:, 1] * held)) / schur
        step[:, 1] = np.where(free, (grad[:, 1] - info[:, 1] * step[:, 0]) / i_bb, held)
        reached = params[:, 1] + step[:, 1]
        crossing = free & ((reached > problem.upper[1]) | (reached < problem.lower[1]))
        if not crossing.any():
            break
        free &= ~crossing
        held[crossing] = np.clip(reached[crossing], problem.lower[1], problem.upper[1]) - params[crossing, 1]
    # each component at most MAX_STEP (a difficulty's clipped alone: the halvings below keep the whole
    # step monotone either way)
    np.clip(step[:, :2], -MAX_STEP, MAX_STEP, out=step[:, :2])
    scale = 1.0
    for _ in range(_HALVINGS + 1):
        trial = clip(params + scale * step, problem)
        new_obj = 0.0
        joint = LogJoint(problem) if following else None
        for block in problem.blocks():  # pass 2: the objective at the trial, its tables added to the next E-step's
            r = expected_correct(scaled, block, problem)
            trial_terms = Terms.of_block(trial[block], problem)
            new_obj += w[block] @ item_objective(trial[block], trial_terms, r, n_k, problem)
            if joint is not None:
                joint.add(block, trial_terms)
        if new_obj >= old_obj - 1e-10 * len(params):  # as each item's step in :func:`_scoring_pass`
            return trial, joint
        scale /= 2
    del joint
    kept = params.copy()
    return kept, (summed(kept, problem) if following else None)


def gradient_information(
    params: np.ndarray, r: np.ndarray, n_k: np.ndarray, problem: Problem, *, terms: Terms | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient (m, 3) and Fisher information (m, 3, 3) of each item's expected log posterior; ``terms``: the tables at
    ``params`` (recomputed without, to the same bits).

    With ``z = a(theta - b)``, ``s = sigma(z)``, ``P = c + (1-c)s`` and residual ``e_k = r_jk - n_k P_jk``:
    ``dQ/dz = e s/P``, ``dQ/dgamma = e c/P``; information weights ``(1-c)s^2(1-s)/P``, ``c(1-c)s(1-s)/P`` and
    ``c^2(1-c)(1-s)/P``."""
    a, b = params[:, 0], params[:, 1]
    c = guessing(params)
    if terms is not None:
        s, p = terms.s, terms.p
    else:
        s = logistic(params[:, 0:1] * (problem.nodes[None, :] - params[:, 1:2]))  # z as Terms.of_block builds it
        p = c[:, None] + (1 - c[:, None]) * s if problem.estimates_guessing else s
    powers = problem.node_powers  # (K, 3): 1, theta, theta^2
    # sums over nodes of x * (theta - b)^q come from x @ [1, theta, theta^2]; the item x node
    # temporaries are built in place (two at a time), factors constant per item applied after the sums
    grad = np.zeros(params.shape)
    info = np.zeros(params.shape + (3,))
    e_over_p = np.multiply(p, n_k[None, :])
    np.subtract(r, e_over_p, out=e_over_p)
    e_over_p /= p  # e / P
    if problem.estimates_guessing:
        grad[:, 2] = c * e_over_p.sum(axis=1)  # sum e c / P
    e_over_p *= s  # e s / P
    g1, gt = (e_over_p @ powers[:, :2]).T
    del e_over_p
    u = np.subtract(1.0, s)  # 1 - s
    if problem.estimates_guessing:
        # sum n_k (1-c) c^2 (1-s) / P
        info[:, 2, 2] = (1 - c) * c**2 * ((u / p) @ n_k)
    u *= s
    u /= p
    u *= n_k[None, :]  # n_k s (1-s) / P
    if problem.estimates_guessing:
        k1, kt = (u @ powers[:, :2]).T * ((1 - c) * c)
        info[:, 0, 2] = info[:, 2, 0] = kt - b * k1
        info[:, 1, 2] = info[:, 2, 1] = -a * k1
    u *= s  # n_k s^2 (1-s) / P
    h1, ht, htt = (u @ powers).T * (1 - c)
    grad[:, 0] = gt - b * g1
    grad[:, 1] = -a * g1
    info[:, 0, 0] = htt - 2 * b * ht + b**2 * h1
    info[:, 0, 1] = info[:, 1, 0] = -a * (ht - b * h1)
    info[:, 1, 1] = a**2 * h1
    add_prior_terms(params, grad, info, problem)
    return grad, info


def add_prior_terms(params: np.ndarray, grad: np.ndarray, info: np.ndarray, problem: Problem) -> None:
    """Add the priors' gradient and curvature (normal on a and b, Beta on c, in gamma = logit c) to each item's ``grad``
    (m, 3) and ``info`` (m, 3, 3), in place; nothing without priors."""
    config = problem.config
    if not config.prior:
        return
    (ma, sa), (mb, sb) = config.prior_discrimination, config.prior_difficulty
    if config.model != "1PL":
        grad[:, 0] -= (params[:, 0] - ma) / sa**2
        info[:, 0, 0] += 1 / sa**2
    grad[:, 1] -= (params[:, 1] - mb) / sb**2
    info[:, 1, 1] += 1 / sb**2
    if problem.estimates_guessing:
        alpha, beta = config.prior_guessing
        c = guessing(params)
        grad[:, 2] += (alpha - 1) * (1 - c) - (beta - 1) * c
        info[:, 2, 2] += (alpha + beta - 2) * c * (1 - c)


def item_objective(params: np.ndarray, terms: Terms, r: np.ndarray, n_k: np.ndarray, problem: Problem):
    """Expected complete-data log posterior of each item, shape (m,)."""
    # sum_k r log P + (n_k - r) log(1 - P) = sum_k r (log P - log(1 - P)) + sum_k n_k log(1 - P)
    odds = np.subtract(terms.log_p, terms.log_q)
    odds *= r
    return odds.sum(axis=1) + terms.log_q @ n_k + log_prior(params, problem)

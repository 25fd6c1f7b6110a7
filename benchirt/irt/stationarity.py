"""The evidence that EM has converged: the gradient of the marginal log posterior by Fisher's identity (Louis 1982, eq.
3.1), and whether a start has joined an optimum found before; :func:`benchirt.irt.em.judge_stop` asks both.

A small plain EM step is not yet evidence of an optimum: EM is slow along flat 3PL ridges (docs/irt.md, "Convergence
rule"). So the point must also be stationary: every free component of the marginal gradient below ``tol_gradient``
(:func:`marginal_gradient`). A later start that comes within :data:`JOIN` of an earlier start's optimum stops there
(``"same_optimum"``). Hand-written: the gradient reuses the M-step's own terms."""
from __future__ import annotations

import numpy as np

from benchirt.irt.estep import Expectation, expected_correct
from benchirt.irt.mstep import gradient_information, pinned
from benchirt.irt.problem import Problem, free_columns, max_change, symmetric

#: A later EM start this close (largest change of a, b or c) to an earlier start's optimum, with a
#: log posterior within ``tol_optimum`` of it, has reached that optimum (:func:`joins`).
JOIN = 0.1


def largest_gradient(params: np.ndarray, expectation: Expectation, problem: Problem) -> float:
    """Largest absolute component of :func:`marginal_gradient` at ``params`` (``expectation``: the E-step there), over
    every item and parameter."""
    scaled, n_k, _ = expectation
    return float(np.abs(marginal_gradient(params, scaled, n_k, problem)).max())


def marginal_gradient(params: np.ndarray, scaled: np.ndarray, n_k: np.ndarray, problem: Problem) -> np.ndarray:
    """Gradient of the marginal log posterior at ``params`` per distinct item, (m, 3), projected at the bounds: an
    outward component within ``config.tol`` of a bound counts 0 (it can gain at most its size times ``tol``, and step
    halving leaves parameters just inside their bounds), as do unestimated parameters.

    By Fisher's identity (Louis 1982, eq. 3.1) it is the gradient of EM's expected complete-data log-likelihood at the
    E-step of the same parameters, so one E-step (``scaled``, ``n_k`` at ``params``) and the M-step's own gradient give
    it exactly. The 1PL's shared discrimination's gradient (summed over the items) stands in row 0, column 0."""
    free = np.isin(np.arange(3), free_columns(problem))
    grad = np.zeros(params.shape)
    for block in problem.blocks():
        r = expected_correct(scaled, block, problem)
        g, _ = gradient_information(params[block], r, n_k, problem)
        grad[block] = g * free
        if problem.config.model == "1PL":
            grad[0, 0] += problem.multiplicity[block] @ g[:, 0]
    grad[pinned(params, grad, problem, eps=problem.config.tol)] = 0.0
    return grad


def joins(params: np.ndarray, log_posterior: float, optimum: dict, problem: Problem) -> bool:
    """True when ``params`` lies within :data:`JOIN` of a known ``optimum`` (``params``, ``log_posterior``) or of its
    mirror image (-a, -b, c), with a log posterior no more than ``tol_optimum`` below it: EM's fixed point attracts
    its neighbourhood, so continuing would only reproduce it."""
    if log_posterior < optimum["log_posterior"] - problem.config.tol_optimum:
        return False
    known = optimum["params"]
    if max_change(params, known) < JOIN:
        return True
    mirror = known.copy()
    mirror[:, :2] *= -1
    return symmetric(problem.config) and max_change(params, mirror) < JOIN

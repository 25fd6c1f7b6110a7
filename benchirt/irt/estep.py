"""The E-step of Bock & Aitkin's (1981) EM: each response pattern's posterior weights on the quadrature nodes, the
expected counts ``n_k = sum_i w_ik`` and ``r_jk = sum_i w_ik u_ij``, and the marginal log posterior.

The log joint of every pattern and node (:class:`LogJoint`) is summed item block by item block from two matrix products
per block over its item x node tables (:class:`Terms`), and ``r_jk`` from one more (:func:`expected_correct`); the
1-byte patterns are read as float in small pieces. No table of all items is kept: the M-step adds each block to the next
E-step's sum as soon as its new parameters are known (:func:`benchirt.irt.mstep.em_step`). Hand-written: a few numpy
products around the estimator's own collapsed patterns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from benchirt.irt.models import terms_from_logit
from benchirt.irt.problem import Problem, guessing, log_prior


@dataclass
class Terms:
    """Per item and node (m, K) of one item block at some params: ``log P`` and ``log(1-P)`` (read by the E-step and the
    M-step's objective), ``s = sigma(z)`` and ``P = c + (1 - c) s`` (read by
    :func:`benchirt.irt.mstep.gradient_information`)."""

    _NAMES = ("log_p", "log_q", "s", "p")
    log_p: np.ndarray
    log_q: np.ndarray
    s: np.ndarray
    p: np.ndarray

    @classmethod
    def of_block(cls, params: np.ndarray, problem: Problem) -> "Terms":
        """The tables at ``params`` in one piece (one item block, or a few items of one)."""
        z = params[:, 0:1] * (problem.nodes[None, :] - params[:, 1:2])
        sigma, p, log_p, log_q = terms_from_logit(z, guessing(params)[:, None])
        return cls(log_p, log_q, sigma, p)

    def rows(self, rows: np.ndarray | slice) -> "Terms":
        """The tables of items ``rows`` only (views for a slice, copies for an index array)."""
        return Terms(*(getattr(self, name)[rows] for name in self._NAMES))

    def merge(self, rows: np.ndarray | slice, other: "Terms") -> None:
        """Replace the rows (items) ``rows`` by ``other``'s (which holds only those rows)."""
        for name in self._NAMES:
            getattr(self, name)[rows] = getattr(other, name)


class Expectation(NamedTuple):
    """The E-step at some params: the posterior weights times the pattern counts (n_patterns, K), the expected counts
    ``n_k`` (K,) and the marginal log posterior."""

    scaled: np.ndarray
    n_k: np.ndarray
    log_posterior: float


class LogJoint:
    """The log joint ``log w_k + sum_j log P(u_ij | theta_k)`` of every pattern ``i`` and node ``k`` (Bock & Aitkin
    1981, eq. 5), summed block by block (:meth:`add`) so that only one block's tables exist at a time;
    :meth:`posterior` and :meth:`expectation` turn it into posterior weights in place."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.joint: np.ndarray | None = np.repeat(problem.log_weights[None, :], problem.items.shape[1], axis=0)

    def add(self, block: slice, terms: Terms) -> None:
        """Add the items ``block`` (a slice of :meth:`benchirt.irt.problem.Problem.blocks`), whose tables are ``terms``:
        their answers times ``w_j (log P - log(1 - P))`` and ``sum_j w_j log(1 - P)``."""
        joint = self._unspent()
        w = self.problem.multiplicity[block]
        odds = np.subtract(terms.log_p, terms.log_q)
        odds *= w[:, None]
        for rows, values in _float_pieces(block, self.problem):
            joint += values.T @ odds[rows]
            del values  # before the next piece is read: one float piece at a time
        joint += w @ terms.log_q

    def _unspent(self) -> np.ndarray:
        """The sum so far; a sum :meth:`posterior` has spent cannot be added to or read again."""
        if self.joint is None:
            raise RuntimeError("this log joint was spent by posterior(); build a new one")
        return self.joint

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior weights (n_patterns, K) and marginal log-likelihood per pattern (n_patterns,), built in the sum's
        own table (the sum is spent)."""
        joint, self.joint = self._unspent(), None
        peak = joint.max(axis=1, keepdims=True)
        # in place, one patterns x nodes table throughout (with many respondents these tables are the fit's
        # largest): joint - peak, then its exponential, then the weights
        weights = np.subtract(joint, peak, out=joint)
        # weights below e^-69 (1e-30) are dropped: they change no count, and their products
        # would turn into subnormal numbers, which make the matrix products ~5x slower
        kept = weights > -69.0
        np.maximum(weights, -69.0, out=weights)
        np.exp(weights, out=weights)
        weights *= kept
        del kept
        total = weights.sum(axis=1, keepdims=True)
        weights /= total
        return weights, (peak + np.log(total))[:, 0]

    def expectation(self, params: np.ndarray) -> Expectation:
        """The E-step at ``params``, whose every item block has been added (the sum is spent)."""
        problem = self.problem
        scaled, log_marginal = self.posterior()
        scaled *= problem.counts[:, None]  # the posterior weights times the counts, in place
        n_k = scaled.sum(axis=0)
        log_post = float(problem.counts @ log_marginal + problem.multiplicity @ log_prior(params, problem))
        return Expectation(scaled, n_k, log_post)


def summed(params: np.ndarray, problem: Problem) -> LogJoint:
    """The :class:`LogJoint` at ``params``, each item block's tables built, added and released in turn."""
    joint = LogJoint(problem)
    for block in problem.blocks():
        joint.add(block, Terms.of_block(params[block], problem))
    return joint


def e_step(params: np.ndarray, problem: Problem) -> Expectation:
    """The E-step at ``params`` (:class:`Expectation`); each block's ``r_jk`` comes from :func:`expected_correct`."""
    return summed(params, problem).expectation(params)


def expected_correct(scaled: np.ndarray, block, problem: Problem) -> np.ndarray:
    """``r_jk = sum_i w_ik u_ij`` of the items ``block`` (a slice or an index array): (block size, K)."""
    n_items = len(range(len(problem.multiplicity))[block]) if isinstance(block, slice) else len(block)
    if n_items <= problem.piece_size:
        return next(_float_pieces(block, problem))[1] @ scaled
    r = np.empty((n_items, scaled.shape[1]))
    for rows, values in _float_pieces(block, problem):
        r[rows] = values @ scaled
        del values  # before the next piece is read: one float piece at a time
    return r


def _float_pieces(block, problem: Problem):
    """``(rows within block, float responses (rows, n_patterns))`` for the items ``block`` in pieces of
    ``problem.piece_size`` items, so the float copies of the 1-byte patterns stay small."""
    size = problem.piece_size
    if isinstance(block, slice):
        for start in range(block.start, block.stop, size):
            stop = min(start + size, block.stop)
            yield slice(start - block.start, stop - block.start), problem.items[start:stop].astype(float)
    else:
        for i in range(0, len(block), size):
            yield slice(i, i + size), problem.items[block[i:i + size]].astype(float)


def posterior_at(params: np.ndarray, problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Posterior weights (n_patterns, K) and marginal log-likelihood per pattern (n_patterns,) at ``params``."""
    return summed(params, problem).posterior()


def log_posterior(params: np.ndarray, problem: Problem) -> float:
    """The marginal log posterior at ``params`` on ``problem``'s grid (one E-step, :func:`e_step`)."""
    return e_step(params, problem).log_posterior

"""The E-step of Bock & Aitkin's (1981) EM: each response pattern's posterior weights on the quadrature
nodes, the expected counts ``n_k = sum_i w_ik`` and ``r_jk = sum_i w_ik u_ij``, and the marginal log
posterior.

The posterior weights come from two matrix products per item block (the answers times
``log P - log(1 - P)``, plus ``sum_j log(1 - P)``) over the item x node tables :class:`Terms`, and
``r_jk`` from one more (:func:`expected_correct`); the 1-byte patterns are read as float in small pieces
(:func:`benchirt.irt.problem.block_size`). Hand-written: it is a few numpy products around the
estimator's own collapsed patterns (docs/irt.md, "Cost of an EM step").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchirt.irt.models import terms_from_logit
from benchirt.irt.problem import Problem, guessing, log_prior


@dataclass
class Terms:
    """Per item and node (m, K): ``log P`` and ``log(1-P)`` at some params.

    ``s = sigma(z)`` and ``P = c + (1 - c) s`` are not kept: the M-step's gradient recomputes them
    (:func:`benchirt.irt.models.logistic`). With few respondents and many items these tables of all items
    are the fit's largest arrays (8 bytes per node and item each: 7.4 MiB for three at 132 x 2000 on 161
    nodes, where mirt's whole fit on as many nodes grew the process by 9.8 MiB; ``benchmarks/irt_memory.py``)."""

    _NAMES = ("log_p", "log_q")
    log_p: np.ndarray
    log_q: np.ndarray

    @classmethod
    def at(cls, params: np.ndarray, problem: Problem) -> "Terms":
        """The tables at ``params``, built one item block at a time (their temporaries stay small)."""
        blocks = problem.blocks(len(params))
        if len(blocks) == 1:
            return cls.of_block(params, problem)
        shape = (len(params), len(problem.nodes))
        out = cls(np.empty(shape), np.empty(shape))
        for block in blocks:
            out.merge(block, cls.of_block(params[block], problem))
        return out

    @classmethod
    def of_block(cls, params: np.ndarray, problem: Problem) -> "Terms":
        """The tables at ``params`` in one piece (for one item block)."""
        z = params[:, 0:1] * (problem.nodes[None, :] - params[:, 1:2])
        _, _, log_p, log_q = terms_from_logit(z, guessing(params)[:, None])
        return cls(log_p, log_q)

    def rows(self, rows: np.ndarray | slice) -> "Terms":
        """The tables of items ``rows`` only (views for a slice, copies for an index array)."""
        return Terms(*(getattr(self, name)[rows] for name in self._NAMES))

    def merge(self, rows: np.ndarray | slice, other: "Terms") -> None:
        """Replace the rows (items) ``rows`` by ``other``'s (which holds only those rows)."""
        for name in self._NAMES:
            getattr(self, name)[rows] = getattr(other, name)


def e_step(terms: Terms, params: np.ndarray, problem: Problem) -> tuple[np.ndarray, np.ndarray, float]:
    """Posterior weights times pattern counts (n_patterns, K), expected counts ``n_k`` (K,) and the
    marginal log posterior at ``params``; each item block's ``r_jk`` comes from :func:`expected_correct`."""
    scaled, log_marginal = _posterior(terms, problem)
    scaled *= problem.counts[:, None]  # the posterior weights times the counts, in place
    n_k = scaled.sum(axis=0)
    log_post = float(problem.counts @ log_marginal + problem.multiplicity @ log_prior(params, problem))
    return scaled, n_k, log_post


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
    """``(rows within block, float responses (rows, n_patterns))`` for the items ``block`` (a slice or
    an index array) in pieces of ``problem.piece_size`` items: the float copies of the 1-byte
    patterns stay small."""
    size = problem.piece_size
    if isinstance(block, slice):
        for start in range(block.start, block.stop, size):
            stop = min(start + size, block.stop)
            yield slice(start - block.start, stop - block.start), problem.items[start:stop].astype(float)
    else:
        for i in range(0, len(block), size):
            yield slice(i, i + size), problem.items[block[i:i + size]].astype(float)


def _posterior(terms: Terms, problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Posterior weights (n_patterns, K) and marginal log-likelihood per pattern (n_patterns,)."""
    return posterior_of_blocks(lambda block: (terms.log_p[block], terms.log_q[block]), problem)


def posterior_at(params: np.ndarray, problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_posterior` at ``params``, building the item x node tables one item block at a time."""
    def block_terms(block):
        terms = Terms.at(params[block], problem)
        return terms.log_p, terms.log_q
    return posterior_of_blocks(block_terms, problem)


def posterior_of_blocks(block_terms, problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_posterior` from ``block_terms(block) -> (log P, log(1 - P))`` of each item block."""
    joint = np.repeat(problem.log_weights[None, :], problem.items.shape[1], axis=0)
    for block in problem.blocks():
        w = problem.multiplicity[block]
        log_p, log_q = block_terms(block)
        odds = np.subtract(log_p, log_q)
        odds *= w[:, None]
        for rows, values in _float_pieces(block, problem):
            joint += values.T @ odds[rows]
            del values  # before the next piece is read: one float piece at a time
        joint += w @ log_q
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


def log_posterior(params: np.ndarray, problem: Problem) -> float:
    """The marginal log posterior at ``params`` on ``problem``'s grid (one E-step), the item x node tables built
    one item block at a time (:func:`posterior_at`): on a doubled grid (:mod:`benchirt.irt.quadrature_grid`)
    the tables of all items were the fit's largest arrays at 1000 x 500."""
    _, log_marginal = posterior_at(params, problem)
    return float(problem.counts @ log_marginal + problem.multiplicity @ log_prior(params, problem))

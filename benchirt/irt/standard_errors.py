"""Standard errors of the item parameters from the cross-product of the respondents' scores (Berndt et al. 1974), each
score the posterior mean of the complete-data score (Fisher's identity, Louis 1982, eq. 3.1), plus the prior's
precision: mirt's "crossprod" estimator restricted to each item's own block (cross-item terms ignored, hence cheap).
``tests/test_interval_coverage.py`` checks their coverage. Hand-written: vectorised over items in blocks, so the
(patterns, items, 3) score arrays stay small."""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from benchirt.irt.mstep import add_prior_terms
from benchirt.irt.problem import Problem, free_columns, guessing

#: Fewest item blocks of the standard errors, so their score arrays stay small (1.5 instead of 24 bytes per cell);
#: no block is larger than the EM's (:func:`benchirt.irt.problem.block_size`).
_SE_BLOCKS = 16


def standard_errors(params: np.ndarray, problem: Problem, post: np.ndarray) -> np.ndarray:
    """Per-item standard errors (m, 3) from ``sum_i s_ij s_ij^T`` (+ the prior's precision), ``s_ij`` respondent ``i``'s
    posterior-mean score for item ``j``'s parameters (module docstring). SEs of ``c`` are on the ``c`` scale (delta
    method); unestimated parameters get 0. ``post``: the patterns' posterior weights at ``params``
    (:func:`benchirt.irt.estep.posterior_at`)."""
    cols = free_columns(problem)
    if problem.config.model == "1PL":
        cols = [0, 1]
    m = params.shape[0]
    size = len(cols)
    xpd = np.zeros((m, size, size))
    common = np.zeros(problem.items.shape[1])  # 1PL: the shared a's score per pattern
    block = max(8, min(-(-m // _SE_BLOCKS), problem.block_size))
    for start in range(0, m, block):  # items in blocks: the (patterns, items, 3) scores never exist whole
        rows = slice(start, start + block)
        scores = _item_scores(params[rows], problem.items[rows].T, post, problem.nodes)
        if problem.config.model == "1PL":
            common += scores[:, :, 0] @ problem.multiplicity[rows]
        for i, q in enumerate(cols):  # the count-weighted scores one parameter at a time: (patterns, items) temporaries
            weighted = scores[..., q] * problem.counts[:, None]
            for j, r in enumerate(cols):
                xpd[rows, i, j] = (weighted * scores[..., r]).sum(axis=0)
    if problem.config.model == "1PL":
        xpd_b = xpd[:, 1, 1]
        if problem.config.prior:
            xpd_b = xpd_b + 1 / problem.config.prior_difficulty[1] ** 2
        se = np.zeros(params.shape)
        se[:, 1] = 1 / np.sqrt(np.maximum(xpd_b, 1e-12))
        se[:, 0] = 1 / np.sqrt(max(float(problem.counts @ common**2), 1e-12))
        return se
    prior_info = np.zeros((params.shape[0], 3, 3))
    add_prior_terms(params, np.zeros(params.shape), prior_info, problem)
    xpd = xpd + prior_info[:, cols][:, :, cols] + 1e-8 * np.eye(len(cols))
    cov = np.linalg.inv(xpd)
    se = np.zeros(params.shape)
    se[:, cols] = np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0, None))
    if problem.estimates_guessing:
        c = guessing(params)
        se[:, 2] = se[:, 2] * (c * (1 - c))
    return se


def _item_scores(params: np.ndarray, u: np.ndarray, post: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Posterior-mean complete-data score of each pattern for each item's (a, b, gamma): (n_pat, m, 3). At a node the
    score of an answer u is ``(u - P) * [s/P (theta-b), -a s/P, c/P]``; its posterior mean is
    ``u * E[base] - E[P base]`` (``post``: (n_pat, K) posterior weights)."""
    theta = nodes[None, :]
    a, b = params[:, 0:1], params[:, 1:2]
    c = guessing(params)[:, None]
    s = expit(a * (theta - b))
    p = c + (1 - c) * s
    base = np.stack([s / p * (theta - b), -a * s / p, np.broadcast_to(c / p, s.shape)], axis=-1)  # (m, K, 3)
    m, n_nodes = s.shape
    w_base = (post @ base.transpose(1, 0, 2).reshape(n_nodes, 3 * m)).reshape(-1, m, 3)
    w_p_base = (post @ (p[..., None] * base).transpose(1, 0, 2).reshape(n_nodes, 3 * m)).reshape(-1, m, 3)
    w_base *= u[..., None]
    w_base -= w_p_base
    return w_base

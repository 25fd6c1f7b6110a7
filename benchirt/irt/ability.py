"""Respondent abilities given item parameters: EAP and MAP (Cardoso et al. 2021 §4.1 second step, §4.5).

decodIRT estimated θ with ``catsim`` as a computerised adaptive test (items in difficulty groups, administered in
order), which makes θ depend on the grouping. Here every respondent's θ uses all informative items at once, with the
standard normal ability distribution of the calibration:

* **EAP** — posterior mean (and SD) over a fine grid (``IRTConfig.ability_quadrature`` nodes): finite for all-correct /
  all-wrong patterns, no iterations; what the True-Score uses by default.
* **MAP** — posterior mode by Fisher scoring started at the EAP, bounded to ``[-theta_max, theta_max]``; SE from the
  test information plus the prior's 1.

Items flagged ``all_correct`` / ``all_wrong`` at calibration are left out of the ability likelihood and count 1 / 0 in
the True-Score. :func:`score_respondents` works a block of about :data:`BLOCK_CELLS` responses at a time, so memory
beyond the input is bounded by one block, not respondents x items."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit, logsumexp

from benchirt.errors import DataError
from benchirt.irt.models import log_probabilities, probability
from benchirt.irt.validation import as_response_matrix

#: Responses per block of :func:`score_respondents` (8 MiB as float64).
BLOCK_CELLS = 2**20


def eap(
    responses: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, nodes: np.ndarray, log_weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Expected a posteriori abilities.

    Parameters
    ----------
    responses : numpy.ndarray, shape (n, m)
        0/1 answers on the ``m`` items described by ``a, b, c`` (each shape ``(m,)``).
    nodes, log_weights : numpy.ndarray, shape (K,)
        Quadrature grid and normalised log prior weights.

    Returns
    -------
    theta, sd : numpy.ndarray, shape (n,)
        Posterior means and standard deviations.
    """
    return eap_on_grid(responses, *grid_log_odds(a, b, c, nodes, log_weights), nodes)


def grid_log_odds(a: np.ndarray, b: np.ndarray, c: np.ndarray, nodes: np.ndarray, log_weights: np.ndarray,
                  *, cells: int = BLOCK_CELLS) -> tuple[np.ndarray, np.ndarray]:
    """``log P - log(1 - P)`` of every item at every node, shape ``(m, K)``, and the log prior plus
    ``sum_j log(1 - P_j)`` per node, shape ``(K,)``: what an EAP needs of the items (computed a block of items at a
    time, within ``cells`` values)."""
    odds = np.empty((len(a), len(nodes)))
    base = np.asarray(log_weights, dtype=float).copy()
    width = block_size(len(nodes), cells=cells)
    for start in range(0, len(a), width):
        part = slice(start, start + width)
        log_p, log_q = log_probabilities(nodes, a[part], b[part], c[part])  # (K, block)
        odds[part] = (log_p - log_q).T
        base += log_q.sum(axis=1)
    return odds, base


def eap_on_grid(responses: np.ndarray, odds: np.ndarray, base: np.ndarray, nodes: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`eap` from the tables of :func:`grid_log_odds`."""
    joint = responses @ odds + base
    post = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    theta = post @ nodes
    var = np.clip(post @ nodes**2 - theta**2, 0, None)
    return theta, np.sqrt(var)


def map_(
    responses: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    start: np.ndarray,
    theta_max: float,
    *,
    max_iter: int = 50,
    tol: float = 1e-6,
) -> tuple[np.ndarray, np.ndarray]:
    """Maximum a posteriori abilities under a N(0, 1) prior, vectorised over respondents: ``(theta, se)``, each (n,).

    Fisher scoring on ``sum_j log P_j(theta)^u (1-P_j)^(1-u) - theta^2/2`` with gradient
    ``sum_j a_j (u_j - P_j) s_j / P_j - theta`` and information ``sum_j a_j^2 (1-c_j) s_j^2 (1-s_j) / P_j + 1``; steps
    are halved until the log posterior does not decrease."""
    theta = np.clip(np.asarray(start, dtype=float), -theta_max, theta_max)

    def objective(t: np.ndarray) -> np.ndarray:
        lp, lq = log_probabilities(t, a, b, c)
        return (responses * lp + (1 - responses) * lq).sum(axis=1) - 0.5 * t**2

    def grad_info(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = expit(a[None, :] * (t[:, None] - b[None, :]))
        p = c[None, :] + (1 - c[None, :]) * s
        g = (a[None, :] * (responses - p) * s / p).sum(axis=1) - t
        info = (a[None, :] ** 2 * (1 - c[None, :]) * s**2 * (1 - s) / p).sum(axis=1) + 1.0
        return g, info

    for _ in range(max_iter):
        g, info = grad_info(theta)
        step = np.clip(g / info, -1.0, 1.0)
        current = objective(theta)
        accepted = np.zeros_like(theta, dtype=bool)
        new = theta.copy()
        scale = 1.0
        for _ in range(10):
            trial = np.clip(theta + scale * step, -theta_max, theta_max)
            better = ~accepted & (objective(trial) >= current - 1e-12)
            new[better] = trial[better]
            accepted |= better
            if accepted.all():
                break
            scale /= 2
        change = np.abs(new - theta).max(initial=0.0)
        theta = new
        if change < tol:
            break
    _, info = grad_info(theta)
    return theta, 1.0 / np.sqrt(info)


class ColumnView:
    """A DataFrame's columns in another order, cut into blocks without copying the whole table."""

    def __init__(self, frame: pd.DataFrame, columns: list[str]):
        if not frame.columns.is_unique:
            duplicate = frame.columns[frame.columns.duplicated()][0]
            raise DataError(f"responses: item name {duplicate!r} appears more than once; give every column a unique name")
        self.frame, self.positions = frame, frame.columns.get_indexer(columns)
        self.shape = (frame.shape[0], len(columns))

    def __len__(self) -> int:
        return self.shape[0]

    def block(self, rows: slice, columns: slice) -> pd.DataFrame:
        return self.frame.iloc[rows, self.positions[columns]]


def _block(responses, rows: slice, columns: slice) -> pd.DataFrame:
    return responses.block(rows, columns) if isinstance(responses, ColumnView) else responses.iloc[rows, columns]


def block_size(n_other: int, *, cells: int = BLOCK_CELLS) -> int:
    """Rows (or columns) per block when the other dimension has ``n_other`` entries."""
    return max(1, cells // max(1, n_other))


def score_respondents(responses, a: np.ndarray, b: np.ndarray, c: np.ndarray, flag: np.ndarray,
                      method: str, nodes: np.ndarray, log_weights: np.ndarray, theta_max: float) -> pd.DataFrame:
    """θ, its standard error and the True-Score of every respondent, in blocks of about :data:`BLOCK_CELLS`.

    The EAP's log posterior on the grid, ``u @ log_odds + base``, is summed over blocks of items; MAP refines it a block
    of respondents at a time; the True-Score sums P over blocks of items.

    Parameters
    ----------
    responses : pandas.DataFrame or ColumnView, shape (n, m)
        0/1 answers, columns in the order of ``a, b, c, flag`` (each (m,)); validated block by block
        (:func:`benchirt.irt.validation.as_response_matrix`).
    flag : numpy.ndarray of str
        Items flagged ``all_correct`` / ``all_wrong`` are left out of the likelihood and count 1 / 0 in the True-Score.
    method : {"EAP", "MAP"}
    nodes, log_weights : numpy.ndarray
        The ability grid of the calibration (:func:`benchirt.irt.models.quadrature`).

    Returns
    -------
    pandas.DataFrame, index ``respondent``, columns ``theta, se, true_score``"""
    informative = ~np.isin(flag, ("all_correct", "all_wrong"))
    a, b, c = (np.asarray(v, dtype=float)[informative] for v in (a, b, c))
    odds, joint = grid_log_odds(a, b, c, nodes, log_weights)
    n, m = responses.shape
    joint = np.tile(joint, (n, 1))
    first_odds = np.concatenate([[0], np.cumsum(informative)])  # row of odds of each item's first informative one
    width = block_size(n)
    respondents: list[str] = []
    for start in range(0, max(m, 1), width):
        matrix, respondents, _ = as_response_matrix(_block(responses, slice(None), slice(start, start + width)))
        used = informative[start:start + width]
        joint += matrix[:, used] @ odds[first_odds[start]:first_odds[min(start + width, m)]]
    post = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    del joint
    theta = post @ nodes
    se = np.sqrt(np.clip(post @ nodes**2 - theta**2, 0, None))
    del post
    if method == "MAP":
        rows = block_size(m)
        for start in range(0, n, rows):
            part = slice(start, start + rows)
            matrix, _, _ = as_response_matrix(_block(responses, part, slice(None)))
            theta[part], se[part] = map_(matrix[:, informative], a, b, c, theta[part], theta_max)
    true_score = np.full(n, float(np.sum(flag == "all_correct")))
    for start in range(0, len(a), width):
        part = slice(start, start + width)
        true_score += probability(theta, a[part], b[part], c[part]).sum(axis=1)
    return pd.DataFrame({"theta": theta, "se": se, "true_score": true_score},
                        index=pd.Index(respondents, name="respondent"))

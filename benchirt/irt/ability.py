"""Respondent abilities given item parameters: EAP and MAP (Cardoso et al. 2021 §4.1 second step, §4.5).

decodIRT estimated θ with ``catsim``: items sorted by difficulty, cut into 10
groups and administered in ascending order as in a computerised adaptive test,
which makes θ depend on the grouping and the order of the groups. Here every
respondent's θ uses all informative items at once, with the same standard normal
ability distribution the item calibration assumed:

* **EAP** — posterior mean over a fine grid (``IRTConfig.ability_quadrature``
  nodes; and posterior SD). Finite for all-correct / all-wrong patterns (the
  optimal and pessimal classifiers), needs no iterations, and is what the
  True-Score uses by default.
* **MAP** — posterior mode by Fisher scoring started at the EAP, bounded to
  ``[-theta_max, theta_max]``; SE from the test information plus the prior's 1.

Items flagged ``all_correct`` / ``all_wrong`` at calibration carry no estimated
parameters and are left out of the ability likelihood.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit, logsumexp

from benchirt.irt.models import log_probabilities


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
    log_p, log_q = log_probabilities(nodes, a, b, c)  # (K, m)
    joint = responses @ (log_p - log_q).T + log_q.sum(axis=1) + log_weights
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
    max_iter: int = 50,
    tol: float = 1e-6,
) -> tuple[np.ndarray, np.ndarray]:
    """Maximum a posteriori abilities under a N(0, 1) prior, vectorised over respondents.

    Fisher scoring on ``sum_j log P_j(theta)^u (1-P_j)^(1-u) - theta^2/2`` with
    gradient ``sum_j a_j (u_j - P_j) s_j / P_j - theta`` and information
    ``sum_j a_j^2 (1-c_j) s_j^2 (1-s_j) / P_j + 1``; steps are halved until the
    log posterior does not decrease.

    Returns
    -------
    theta, se : numpy.ndarray, shape (n,)
    """
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

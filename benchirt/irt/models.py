"""Item response functions of the 1PL, 2PL and 3PL logistic models (Cardoso et al. 2021 eq. 1).

The three models share one formula,

.. math:: P_j(\\theta) = c_j + (1 - c_j)\\,\\sigma\\big(a_j(\\theta - b_j)\\big),
          \\qquad \\sigma(z) = 1 / (1 + e^{-z}),

with ``D = 1`` (no 1.702 factor), the scale of R's ``ltm``, so discriminations compare with decodIRT's directly. The 2PL
fixes ``c = 0``; the 1PL also shares one discrimination across the items (as ``ltm::rasch`` and ``mirt`` do; with
``a = 1`` it is the Rasch model).

The discrimination may be negative (Cardoso et al. 2021 §2.5, §5.2). ``c`` is always the *lower* asymptote: for
``a < 0`` it is the chance of success of the *strongest* respondents. All functions are vectorised: ``theta`` (n,), item
parameters (m,), results (n, m)."""
from __future__ import annotations

import numpy as np


def _logit_parts(theta: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``z = a (theta - b)``, shape ``(n, m)``."""
    theta = np.asarray(theta, dtype=float)
    return np.asarray(a, dtype=float)[None, :] * (theta[:, None] - np.asarray(b, dtype=float)[None, :])


def probability(theta, a, b, c) -> np.ndarray:
    """P(correct) of every respondent on every item (Cardoso et al. 2021 eq. 1), shape (n, m), in ``[c, 1]``.

    Parameters
    ----------
    theta : array_like, shape (n,)
        Abilities.
    a, b, c : array_like, shape (m,)
        Discrimination, difficulty and lower asymptote (guessing) of each item."""
    z = _logit_parts(theta, a, b)
    c = np.asarray(c, dtype=float)[None, :]
    return c + (1.0 - c) / (1.0 + np.exp(-z))


def response_terms(theta, a, b, c) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``sigma(z)``, ``P``, ``log P`` and ``log(1 - P)`` at once, each shape ``(n, m)``.

    Computed without cancellation from ``e = exp(-|z|)``: ``log sigma(z) = min(z, 0) - log1p(e)``,
    ``log(1 - P) = log(1 - c) + log sigma(z) - z`` and ``log P = log(c + (1 - c) sigma(z))`` (``log sigma(z)`` where
    ``c = 0``), so all four stay finite for any finite ``z`` and ``0 <= c < 1``."""
    return terms_from_logit(_logit_parts(theta, a, b), np.asarray(c, dtype=float)[None, :])


def logistic(z: np.ndarray) -> np.ndarray:
    """``sigma(z)`` as :func:`terms_from_logit` computes it (to the last bit), for the M-step, which recomputes it
    rather than keep a third item x node table."""
    e = np.abs(z)
    np.negative(e, out=e)
    np.exp(e, out=e)
    s = np.where(z >= 0, 1.0, e)
    e += 1.0
    s /= e
    return s


def terms_from_logit(z: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`response_terms` from ``z = a(theta - b)`` and a ``c`` that broadcasts against it."""
    # in place where possible: with few respondents these item x node tables dominate the EM's memory
    e = np.abs(z)
    np.negative(e, out=e)
    np.exp(e, out=e)
    log_sig = np.minimum(z, 0.0)
    log_sig -= np.log1p(e)
    s = np.where(z >= 0, 1.0, e)
    e += 1.0
    s /= e
    del e
    log_q = np.subtract(log_sig, z)
    log_q += np.log1p(-c)
    if not np.any(c):
        return s, s, log_sig, log_q
    p = (1.0 - c) * s
    p += c
    if np.all(c > 0):
        return s, p, np.log(p), log_q
    with np.errstate(divide="ignore"):
        log_p = np.where(c > 0, np.log(p), log_sig)
    return s, p, log_p, log_q


def log_probabilities(theta, a, b, c) -> tuple[np.ndarray, np.ndarray]:
    """``log P`` and ``log(1 - P)``, each shape ``(n, m)`` (see :func:`response_terms`)."""
    _, _, log_p, log_q = response_terms(theta, a, b, c)
    return log_p, log_q


def upper_asymptote(a, c) -> np.ndarray:
    """``lim P_j(theta)`` as ``theta -> +inf``: 1 for ``a > 0``, ``c`` for ``a < 0``, ``c + (1 - c)/2`` for ``a = 0``;
    shape ``(m,)``."""
    a = np.asarray(a, dtype=float)
    c = np.asarray(c, dtype=float)
    return c + (1.0 - c) * np.where(a > 0, 1.0, np.where(a < 0, 0.0, 0.5))


def quadrature(points: int, theta_max: float) -> tuple[np.ndarray, np.ndarray]:
    """Ability grid: ``points`` equally spaced nodes on ``[-theta_max, theta_max]`` (K,) and the normalised log-weights
    of the standard normal ability distribution on them (K,)."""
    nodes = np.linspace(-theta_max, theta_max, points)
    log_w = -0.5 * nodes**2
    return nodes, log_w - np.logaddexp.reduce(log_w)


def marginal_log_likelihood(responses, a, b, c, nodes: np.ndarray, log_weights: np.ndarray) -> float:
    """Marginal log-likelihood ``sum_i log sum_k w_k prod_j P_j(theta_k)^u_ij (1 - P_j(theta_k))^(1 - u_ij)`` of a 0/1
    matrix (n, m) under item parameters ``a, b, c`` (m,), on the ``nodes`` / ``log_weights`` of :func:`quadrature`
    (Bock & Aitkin 1981, eq. 5)."""
    u = np.asarray(responses, dtype=float)
    log_p, log_q = log_probabilities(nodes, a, b, c)  # (K, m)
    joint = u @ (log_p - log_q).T + log_q.sum(axis=1) + log_weights
    peak = joint.max(axis=1, keepdims=True)
    return float(np.sum(peak[:, 0] + np.log(np.exp(joint - peak).sum(axis=1))))


def shifted_log_posterior(responses, a, b, c, shifts, points: int, theta_max: float,
                          prior_difficulty: tuple[float, float]) -> np.ndarray:
    """The marginal log-likelihood on ``points`` nodes plus the normal log prior of the difficulties (``(mean, sd)``),
    with every ``b`` moved by each of ``shifts``, ``a, c`` kept: the direction in which a grid too coarse for the
    posteriors ripples (docs/irt.md, "The calibration grid"). The other priors do not change along it and are left
    out."""
    nodes, log_weights = quadrature(points, theta_max)
    mean, sd = prior_difficulty
    b = np.asarray(b, dtype=float)
    return np.array([marginal_log_likelihood(responses, a, b + shift, c, nodes, log_weights)
                     - 0.5 * np.sum(((b + shift - mean) / sd) ** 2) for shift in shifts])

"""Samejima's continuous response model (CRM) fitted by Shojima's non-iterative EM, with negative discrimination.

The model (Kandanaarachchi & Smith-Miles 2023 eqs. 2-3, with k = 1): a performance x in (0, 1) is mapped to
``z = ln(x / (1 - x))`` and, given the respondent's latent trait theta (dataset easiness in AIRT),

    f(z | theta) = |alpha gamma| / sqrt(2 pi) * exp(-alpha^2 / 2 * (theta - beta - gamma z)^2),

i.e. ``z ~ N((theta - beta) / gamma, 1 / (alpha gamma)^2)``, items (algorithms) with discrimination alpha, difficulty
beta and scale gamma. Kandanaarachchi & Smith-Miles 2023 §2.2 relaxes Shojima's alpha, gamma > 0 to
``sign(alpha) = sign(gamma)`` so that anomalous algorithms (alpha < 0: better on harder datasets) fit.

Reparametrised, the CRM is a one-factor Gaussian model, whose maximum likelihood sklearn's ``FactorAnalysis`` also
reaches (the tests check both agree). The EM is written here from the closed forms of Kandanaarachchi & Smith-Miles 2023
eqs. 4-9 because AIRT is defined by it (the R package airt patches EstCRM's Shojima routine the same way), because its
closed-form M-step takes the Heywood bound on |alpha| exactly, and because with SQUAREM it is faster than
``FactorAnalysis`` on large matrices (``benchmarks/airt_crm.py``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from benchirt.airt.observed import ObservedCells, capped_slopes
from benchirt.errors import DataError

_LOG_2PI = float(np.log(2.0 * np.pi))
#: A column whose logits span less than this is constant: it carries no information on theta.
CONSTANT_SPAN = 1e-12


def logit(x: np.ndarray, *, epsilon: float = 0.01) -> np.ndarray:
    """Guarded logit ``z = ln(x / (1 - x))`` of performances ``x`` in [0, 1] (Kandanaarachchi & Smith-Miles 2023 eq. 2
    with k = 1), same shape; values are clipped to ``[epsilon, 1 - epsilon]`` first so that 0 and 1 stay finite."""
    x = np.clip(np.asarray(x, dtype=float), epsilon, 1.0 - epsilon)
    return np.log(x) - np.log1p(-x)


def expit(z: np.ndarray) -> np.ndarray:
    """Inverse of :func:`logit` (without the clipping): ``1 / (1 + exp(-z))``."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=float)))


@dataclass(frozen=True)
class ContinuousFit:
    """A fitted continuous response model.

    Attributes
    ----------
    discrimination, difficulty, scale : np.ndarray, shape (n,)
        alpha_j (negative for anomalous items), beta_j and gamma_j (same sign as alpha_j). A constant (uninformative)
        column has alpha = gamma = 0 and beta the smallest theta when its logit is >= 0, the largest otherwise.
    informative : np.ndarray of bool, shape (n,)
        False for constant columns, which are left out of the EM.
    column_mean : np.ndarray, shape (n,)
        Mean logit of every column (the prediction for constant columns).
    theta : np.ndarray, shape (N,)
        Latent trait of every respondent by Kandanaarachchi & Smith-Miles 2023 eq. 10 (the maximum-likelihood theta
        given the items).
    posterior_mean, posterior_var : np.ndarray (N,); float or np.ndarray (N,)
        mu_i and sigma^(t)2 of the last E-step (normal prior); the variance is one value on a complete matrix, one per
        respondent when cells are missing.
    log_likelihood : float
        Marginal log-likelihood of the informative columns (their observed cells) at the returned parameters.
    n_iter, converged : int, bool
        Accelerated iterations run (three EM cycles each); whether the log-likelihood change fell below the tolerance
        before ``max_iter``.
    prior_mean, prior_sd : float
        The normal prior of theta used.
    max_discrimination : float or None
        The bound on |alpha|; items at it are Heywood cases (nearly determined by theta). None: no bound (the R package
        airt's estimator, :mod:`benchirt.airt.compat`).
    observed : np.ndarray of bool, shape (N, n), or None
        Which cells the model was fitted to (:mod:`benchirt.airt.observed`); None when every cell was."""

    discrimination: np.ndarray
    difficulty: np.ndarray
    scale: np.ndarray
    informative: np.ndarray
    column_mean: np.ndarray
    theta: np.ndarray
    posterior_mean: np.ndarray
    posterior_var: float | np.ndarray
    log_likelihood: float
    n_iter: int
    converged: bool
    prior_mean: float = 0.0
    prior_sd: float = 1.0
    max_discrimination: float | None = 10.0
    observed: np.ndarray | None = None

    @property
    def at_bound(self) -> np.ndarray:
        """Boolean (n,): items whose |alpha| sits at ``max_discrimination`` (none without a bound)."""
        if self.max_discrimination is None:
            return np.zeros(self.discrimination.shape, dtype=bool)
        return np.abs(self.discrimination) >= self.max_discrimination * (1 - 1e-9)

    def predicted_logit(self, theta: np.ndarray | None = None) -> np.ndarray:
        """Most likely logit of every (respondent, item), shape (N, n): the mode ``(theta - beta) / gamma`` of f(z |
        theta) at ``theta`` (default :attr:`theta`); constant columns get their constant logit."""
        theta = self.theta if theta is None else np.asarray(theta, dtype=float)
        out = np.broadcast_to(self.column_mean, (theta.size, self.column_mean.size)).copy()
        j = self.informative
        out[:, j] = (theta[:, None] - self.difficulty[j]) / self.scale[j]
        return out

    def density(self, z: np.ndarray, theta: np.ndarray, item: int) -> np.ndarray:
        """f(z | theta) of Kandanaarachchi & Smith-Miles 2023 eq. 3 for the item at column ``item``, broadcast over
        ``z`` and ``theta``; all zeros for a constant item."""
        a, b, g = self.discrimination[item], self.difficulty[item], self.scale[item]
        z, theta = np.asarray(z, dtype=float), np.asarray(theta, dtype=float)
        if not self.informative[item]:
            return np.zeros(np.broadcast_shapes(z.shape, theta.shape))
        return abs(a * g) / np.sqrt(2 * np.pi) * np.exp(-0.5 * a**2 * (theta - b - g * z) ** 2)


class _Setup(NamedTuple):
    """Fixed quantities of one fit: the normal prior of theta and the bound on |alpha|."""

    prior_mean: float
    prior_var: float
    max_alpha: float


def _e_step(z: np.ndarray, a: np.ndarray, b: np.ndarray, g: np.ndarray, setup: _Setup) -> tuple[np.ndarray, float]:
    """Posterior N(mu_i, sigma^2) of theta_i given z_i (Kandanaarachchi & Smith-Miles 2023 §2.2, the two formulas before eq. 4)."""
    a2 = a**2
    var = 1.0 / (a2.sum() + 1.0 / setup.prior_var)
    mu = var * ((b + g * z) @ a2 + setup.prior_mean / setup.prior_var)
    return mu, var


def _m_step(z: np.ndarray, mu: np.ndarray, var: float, max_alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Closed-form item parameters of Kandanaarachchi & Smith-Miles 2023 eqs. 5-8 with the sign-relaxed alpha update of
    §2.2.

    gamma_j = (V(mu) + sigma^2) / C_j(z, mu);  beta_j = M(mu) - gamma_j M_j(z);
    alpha_j = sign(gamma_j) (gamma_j^2 V_j(z) - V(mu) - sigma^2)^(-1/2).
    Moments are population moments (divided by N) as in eq. 8.

    Heywood case: when an item is (nearly) a linear function of theta the likelihood grows as |alpha_j| -> infinity.
    Where the update would exceed ``max_alpha``, alpha_j is held at the bound and gamma_j maximises eq. 9 given it: the
    root with the sign of C_j of alpha^2 V_j(z) gamma^2 - alpha^2 C_j gamma - 1 = 0."""
    m_mu = mu.mean()
    v_mu = mu.var()
    m_z = z.mean(axis=0)
    v_z = z.var(axis=0)
    cov = (z - m_z).T @ (mu - m_mu) / z.shape[0]
    return capped_slopes(m_z=m_z, m_mu=m_mu, v_z=v_z, v_mu=v_mu, cov=cov, spread=v_mu + var, max_alpha=max_alpha)


def _marginal_loglik(z: np.ndarray, a: np.ndarray, b: np.ndarray, g: np.ndarray, mu: np.ndarray, var: float,
                     setup: _Setup) -> float:
    """Exact marginal log-likelihood sum_i ln p(z_i) of the Gaussian model, by ln p(z) = ln f(z | theta) + ln p(theta) -
    ln p(theta | z) at theta = mu_i, with (mu_i, sigma^2) the posterior under the same parameters."""
    n_items = z.shape[1]
    resid = mu[:, None] - b - g * z
    log_f = n_items * (-0.5 * _LOG_2PI) + np.log(np.abs(a * g)).sum() - 0.5 * (resid**2 @ a**2)
    log_prior = (-0.5 * _LOG_2PI - 0.5 * np.log(setup.prior_var)
                 - 0.5 * (mu - setup.prior_mean) ** 2 / setup.prior_var)
    log_post = -0.5 * _LOG_2PI - 0.5 * np.log(var)
    return float((log_f + log_prior - log_post).sum())


def marginal_log_likelihood(z: np.ndarray, discrimination: np.ndarray, difficulty: np.ndarray, scale: np.ndarray,
                            *, prior_mean: float = 0.0, prior_sd: float = 1.0) -> tuple[float, np.ndarray, float]:
    """Exact marginal log-likelihood of item parameters, with the posterior of theta they imply:
    ``(log_likelihood, posterior_mean (N,), posterior_var)``. ``z`` (N, n): logits of informative items;
    ``discrimination, difficulty, scale`` (n,); ``prior_mean, prior_sd``: the normal prior of theta."""
    setup = _Setup(prior_mean, prior_sd**2, np.inf)
    mu, var = _e_step(z, discrimination, difficulty, scale, setup)
    return _marginal_loglik(z, discrimination, difficulty, scale, mu, var, setup), mu, var


class _CompleteCells(NamedTuple):
    """Every cell observed: the EM's pieces in their complete-matrix form (the counterpart of
    :class:`benchirt.airt.observed.ObservedCells`)."""

    z: np.ndarray

    def e_step(self, a: np.ndarray, b: np.ndarray, g: np.ndarray, setup: _Setup) -> tuple[np.ndarray, float]:
        return _e_step(self.z, a, b, g, setup)

    def m_step(self, mu: np.ndarray, var, max_alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _m_step(self.z, mu, var, max_alpha)

    def loglik(self, a: np.ndarray, b: np.ndarray, g: np.ndarray, mu: np.ndarray, var, setup: _Setup) -> float:
        return _marginal_loglik(self.z, a, b, g, mu, var, setup)

    def easiness(self, a: np.ndarray, b: np.ndarray, g: np.ndarray) -> np.ndarray:
        return easiness(self.z, a, b, g)

    def row_mean(self) -> np.ndarray:
        return self.z.mean(axis=1)

    def column_mean(self) -> np.ndarray:
        return self.z.mean(axis=0)


_Cells = _CompleteCells | ObservedCells


def _em_map(cells: _Cells, params: np.ndarray, setup: _Setup) -> np.ndarray:
    """One EM cycle on the stacked parameters (alpha, beta, gamma): E-step then closed-form M-step."""
    a, b, g = np.split(params, 3)
    mu, var = cells.e_step(a, b, g, setup)
    return np.concatenate(cells.m_step(mu, var, setup.max_alpha))


def _loglik(cells: _Cells, params: np.ndarray, setup: _Setup) -> float:
    a, b, g = np.split(params, 3)
    mu, var = cells.e_step(a, b, g, setup)
    return cells.loglik(a, b, g, mu, var, setup)


def _squarem_step(cells: _Cells, params: np.ndarray, setup: _Setup) -> tuple[np.ndarray, float]:
    """Two EM cycles extrapolated by SQUAREM (Varadhan & Roland 2008, scheme S3), never worse than plain EM.

    EM for this model converges slowly when an item is nearly deterministic (large |alpha|); the squared extrapolation p
    - 2 s r + s^2 v (r = F(p) - p, v = F(F(p)) - 2F(p) + p, s = -|r| / |v| <= -1) followed by one stabilising EM cycle
    fixes that. When the extrapolated point has a lower (or undefined) likelihood, the plain EM point F(F(p)) is kept.
    """
    p1 = _em_map(cells, params, setup)
    p2 = _em_map(cells, p1, setup)
    plain = _loglik(cells, p2, setup)
    r = p1 - params
    v = p2 - 2.0 * p1 + params
    norm_v = np.linalg.norm(v)
    if norm_v == 0.0:
        return p2, plain
    step = min(float(-np.linalg.norm(r) / norm_v), -1.0)
    with np.errstate(all="ignore"):
        candidate = _em_map(cells, params - 2.0 * step * r + step**2 * v, setup)
        accelerated = _loglik(cells, candidate, setup)
    if np.isfinite(candidate).all() and np.isfinite(accelerated) and accelerated >= plain:
        return candidate, accelerated
    return p2, plain


def easiness(z: np.ndarray, discrimination: np.ndarray, difficulty: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Latent trait theta_i = sum_j a_j^2 (b_j + g_j z_ij) / sum_j a_j^2 (Kandanaarachchi & Smith-Miles 2023 eq. 10)
    from the logits ``z`` (N, n) of the informative items: dataset easiness (N,), whose negative is the dataset
    difficulty (eq. 11)."""
    a2 = discrimination**2
    return ((difficulty + scale * z) @ a2) / a2.sum()


def fit_continuous(z: np.ndarray, *, max_iter: int = 1000, tol: float = 1e-9, prior_mean: float = 0.0,
                   prior_sd: float = 1.0, max_discrimination: float = 10.0) -> ContinuousFit:
    """Fit Samejima's CRM to a logit matrix by Shojima's non-iterative EM allowing negative discrimination.

    Kandanaarachchi & Smith-Miles 2023 §2.2 and Algorithm 1 (steps 3-5): start from alpha = gamma = 1,
    beta_j = -mean(z_j) (as EstCRM does); each EM cycle computes the normal posterior of theta_i, then the
    closed-form item parameters (:func:`_m_step`). Cycles are taken in pairs and extrapolated by SQUAREM
    (:func:`_squarem_step`) until the marginal log-likelihood changes by less than ``tol * (1 + |loglik|)``; then
    theta by eq. 10. The scale's direction is not identified; it is oriented so that theta grows with the dataset's
    mean logit, so alpha < 0 means "better on the datasets that are hard for the rest".

    Parameters
    ----------
    z : array_like, shape (N, n)
        Logit-transformed responses, rows respondents (datasets), columns items (algorithms); finite, or NaN for a
        missing cell: the likelihood is then that of the observed cells (:mod:`benchirt.airt.observed`, Mislevy & Wu
        1996).
    max_iter : int
        Maximum accelerated iterations (each runs three EM cycles).
    tol : float
        Relative convergence tolerance on the marginal log-likelihood.
    prior_mean, prior_sd : float
        Normal prior of theta.
    max_discrimination : float
        Bound on |alpha| that stops Heywood cases (:func:`_m_step`).

    Raises
    ------
    DataError
        For infinite entries, fewer than 2 respondents, when every column is constant, when an item has no observed
        cell, or when a respondent has none on a non-constant column."""
    z = np.asarray(z, dtype=float)
    if z.ndim != 2:
        raise DataError(f"the continuous response model needs a 2-D matrix, got shape {z.shape}")
    n_resp, n_items = z.shape
    if n_resp < 2:
        raise DataError(f"the continuous response model needs at least 2 respondents (datasets), got {n_resp}")
    observed = ~np.isnan(z)
    if not np.isfinite(z[observed]).all():
        raise DataError("the continuous response model needs finite logits; clip the performances first")
    if not observed.any(axis=0).all():
        raise DataError(f"item(s) at column(s) {np.flatnonzero(~observed.any(axis=0)).tolist()} have no observed "
                        "cell; leave them out")
    complete = bool(observed.all())
    column_mean = z.mean(axis=0) if complete else ObservedCells.of(z).column_mean()
    informative = np.nanmax(z, axis=0) - np.nanmin(z, axis=0) > CONSTANT_SPAN
    if not informative.any():
        raise DataError("every algorithm has the same performance on every dataset: there is no information "
                        "on dataset difficulty to fit the AIRT model")
    zi = z[:, informative]
    cells = _CompleteCells(zi) if complete else _observed_cells(zi)
    setup = _Setup(prior_mean, prior_sd**2, max_discrimination)
    params, loglik, n_iter, converged = _climb(cells, setup, max_iter=max_iter, tol=tol)
    a, b, g = np.split(params, 3)
    mu, var = cells.e_step(a, b, g, setup)
    theta = cells.easiness(a, b, g)
    # the likelihood is unchanged by theta -> 2 mu0 - theta, beta -> 2 mu0 - beta, alpha, gamma -> -alpha, -gamma;
    # orient the scale so that easiness grows with the mean logit of the dataset (easy = good results)
    if np.cov(theta, cells.row_mean())[0, 1] < 0:
        a, b, g = -a, 2 * prior_mean - b, -g
        mu, theta = 2 * prior_mean - mu, 2 * prior_mean - theta

    discrimination = np.zeros(n_items)
    difficulty = np.where(column_mean >= 0, theta.min(), theta.max())
    scale = np.zeros(n_items)
    discrimination[informative], difficulty[informative], scale[informative] = a, b, g
    return ContinuousFit(discrimination=discrimination, difficulty=difficulty, scale=scale,
                         informative=informative, column_mean=column_mean, theta=theta,
                         posterior_mean=mu, posterior_var=float(np.asarray(var)) if complete else np.asarray(var),
                         log_likelihood=loglik, n_iter=n_iter, converged=converged, prior_mean=prior_mean,
                         prior_sd=prior_sd, max_discrimination=max_discrimination,
                         observed=None if complete else observed)


def _observed_cells(z: np.ndarray) -> ObservedCells:
    """The observed cells of the informative items; refused when a respondent has none of them."""
    cells = ObservedCells.of(z)
    empty = np.flatnonzero(cells.w.sum(axis=1) == 0)
    if empty.size:
        raise DataError(f"respondent(s) at row(s) {empty.tolist()} have no observed cell on an algorithm whose "
                        "performance varies: their difficulty cannot be estimated; leave them out")
    return cells


def _climb(cells: _Cells, setup: _Setup, *, max_iter: int, tol: float) -> tuple[np.ndarray, float, int, bool]:
    """SQUAREM-accelerated EM from alpha = gamma = 1, beta_j = -mean(z_j), until the marginal log-likelihood changes by
    less than ``tol * (1 + |loglik|)``; returns the parameters, log-likelihood, iterations, converged."""
    n = cells.z.shape[1]
    params = np.concatenate([np.ones(n), -cells.column_mean(), np.ones(n)])
    loglik = _loglik(cells, params, setup)
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        params, new_loglik = _squarem_step(cells, params, setup)
        if abs(new_loglik - loglik) < tol * (1.0 + abs(new_loglik)):
            loglik = new_loglik
            converged = True
            break
        loglik = new_loglik
    return params, loglik, n_iter, converged

"""The continuous response model's EM on the observed cells of a sparse matrix (missing cells left out).

A sparse field (stored OpenML runs: each flow on some tasks) has no algorithm on every dataset. The likelihood of the
observed cells is the standard answer when a cell is missing at random given the latent trait (Mislevy & Wu 1996; what
mirt and ltm fit): each dataset's marginal likelihood is over the algorithms it has, so the closed forms of
Kandanaarachchi & Smith-Miles 2023 eqs. 4-10 keep their shape with sums restricted to the observed cells (``w_ij = 1``
observed, 0 missing):

* E-step (the two formulas before eq. 4), per dataset: ``sigma_i^2 = 1 / (sum_j w_ij alpha_j^2 + 1/s^2)``,
  ``mu_i = sigma_i^2 (sum_j w_ij alpha_j^2 (beta_j + gamma_j z_ij) + m / s^2)``;
* M-step (eqs. 5-8), per item: the moments ``M(mu)``, ``V(mu)``, ``M_j(z)``, ``V_j(z)``, ``C_j(z, mu)`` and the mean
  posterior variance are means over ``{i : w_ij = 1}``, then eqs. 5-7 as written;
* the exact marginal log-likelihood sums ``ln p(z_i^obs)`` over datasets; eq. 10's easiness sums over a dataset's
  observed items.

With every cell observed each formula is the complete-matrix one; :func:`benchirt.airt.continuous.fit_continuous` then
keeps its complete-matrix arithmetic (a complete fit is unchanged bit for bit) and uses :class:`ObservedCells` only when
a cell is missing."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass(frozen=True)
class ObservedCells:
    """Logits with their observation pattern, and the EM's pieces on the observed cells (module docstring): ``z`` (N, n)
    the logits, 0 in the missing cells, and ``w`` (N, n) 1.0 where observed, 0.0 where missing (every row and column
    has an observed cell)."""

    z: np.ndarray
    w: np.ndarray

    @classmethod
    def of(cls, z: np.ndarray) -> "ObservedCells":
        """From a logit matrix whose NaN cells are missing."""
        observed = ~np.isnan(z)
        return cls(z=np.where(observed, z, 0.0), w=observed.astype(float))

    def e_step(self, a: np.ndarray, b: np.ndarray, g: np.ndarray, setup) -> tuple[np.ndarray, np.ndarray]:
        """Posterior N(mu_i, sigma_i^2) of theta_i given dataset i's observed logits; returns (mu, sigma^2), (N,) each."""
        a2 = a**2
        var = 1.0 / (self.w @ a2 + 1.0 / setup.prior_var)
        mu = var * ((self.w * (b + g * self.z)) @ a2 + setup.prior_mean / setup.prior_var)
        return mu, var

    def m_step(self, mu: np.ndarray, var: np.ndarray | float,
               max_alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Eqs. 5-8 per item over the datasets that observed it, with the Heywood bound of the complete M-step; ``var``:
        the posterior variances sigma_i^2 (N,) (a float: the same for every dataset)."""
        w, z = self.w, self.z
        count = w.sum(axis=0)
        m_mu = mu @ w / count
        deviation = mu[:, None] - m_mu
        v_mu = (w * deviation**2).sum(axis=0) / count
        spread = v_mu + np.broadcast_to(var, mu.shape) @ w / count  # V(mu) + mean posterior variance there
        m_z = (w * z).sum(axis=0) / count
        centred = w * (z - m_z)
        v_z = (centred**2).sum(axis=0) / count
        cov = (centred * deviation).sum(axis=0) / count
        return capped_slopes(m_z=m_z, m_mu=m_mu, v_z=v_z, v_mu=v_mu, cov=cov, spread=spread, max_alpha=max_alpha)

    def loglik(self, a: np.ndarray, b: np.ndarray, g: np.ndarray, mu: np.ndarray, var: np.ndarray | float,
               setup) -> float:
        """Exact marginal log-likelihood of the observed cells, ``ln f(z_obs | mu) + ln p(mu) - ln p(mu | z_obs)``."""
        resid = mu[:, None] - b - g * self.z
        log_f = self.w @ (np.log(np.abs(a * g)) - 0.5 * _LOG_2PI) - 0.5 * ((self.w * resid**2) @ a**2)
        log_prior = (-0.5 * _LOG_2PI - 0.5 * np.log(setup.prior_var)
                     - 0.5 * (mu - setup.prior_mean) ** 2 / setup.prior_var)
        log_post = -0.5 * _LOG_2PI - 0.5 * np.log(var)
        return float((log_f + log_prior - log_post).sum())

    def easiness(self, a: np.ndarray, b: np.ndarray, g: np.ndarray) -> np.ndarray:
        """Eq. 10 over each dataset's observed items: ``sum_j w_ij a_j^2 (b_j + g_j z_ij) / sum_j w_ij a_j^2``."""
        a2 = a**2
        return ((self.w * (b + g * self.z)) @ a2) / (self.w @ a2)

    def row_mean(self) -> np.ndarray:
        """Each dataset's mean logit over its observed items (orients the latent scale)."""
        return (self.w * self.z).sum(axis=1) / self.w.sum(axis=1)

    def column_mean(self) -> np.ndarray:
        """Each item's mean logit over the datasets that observed it."""
        return (self.w * self.z).sum(axis=0) / self.w.sum(axis=0)


def capped_slopes(*, m_z: np.ndarray, m_mu, v_z: np.ndarray, v_mu, cov: np.ndarray, spread,
                  max_alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kandanaarachchi & Smith-Miles 2023 eqs. 5-8 from the moments: gamma_j = spread / C_j (spread = V(mu) + sigma^2),
    beta_j = M(mu) - gamma_j M_j(z), alpha_j = sign(gamma_j) (gamma_j^2 V_j(z) - spread)^(-1/2), alpha held at
    ``max_alpha`` where it would exceed it (the Heywood bound)."""
    # a covariance of exactly 0 would make gamma infinite: keep its sign, bound its size away from 0
    floor = 1e-12 * np.sqrt(v_z * np.maximum(v_mu, 1e-300))
    cov = np.where(cov >= 0, np.maximum(cov, floor), np.minimum(cov, -floor))
    g = spread / cov
    # gamma^2 V_z - V_mu - sigma^2 = gamma^2 (V_z - C^2 / (V_mu + sigma^2)) > 0 by Cauchy-Schwarz
    inv_a2 = g**2 * (v_z - cov**2 / spread)
    bound = inv_a2 < 1.0 / max_alpha**2
    if bound.any():
        a2 = max_alpha**2
        c, v = cov[bound], v_z[bound]
        g[bound] = (a2 * c + np.sign(c) * np.sqrt(a2**2 * c**2 + 4.0 * a2 * v)) / (2.0 * a2 * v)
        inv_a2[bound] = 1.0 / a2
    b = m_mu - g * m_z
    a = np.sign(g) / np.sqrt(inv_a2)
    return a, b, g

"""The R package airt's continuous estimator, reproduced for ``airt.compat: airt-r`` (published AIRT numbers).

benchirt's default AIRT fit (:func:`benchirt.airt.continuous.fit_continuous`) runs Shojima's EM to the maximum of the
marginal likelihood. The numbers published with AIRT (Kandanaarachchi & Smith-Miles 2023, Table 4; the airt vignette)
come from the R package airt (``cirtmodel`` with its patched copy of Zopluoglu's EstCRM), which differs in four ways,
applied here from the facts of that code (written here, not translated):

1. **Range and extremes.** Performances are shifted by ``min_item`` onto ``[0, M]``, ``M = max_item - min_item``; values
   exactly at ``M`` become ``M - .01``, exactly at 0 become ``.01`` (only the exact extremes; benchirt's default clips
   everything to ``[e, 1 - e]``). Then ``z = ln(x / (M - x))``.
2. **EM and stopping rule.** Start alpha = gamma = 1, beta_j = -mean(z_j), mu = 0, sigma^2 = 1. Each cycle: sigma^2 = 1
   / (sum alpha^2 + 1); mu_i = sigma^2 sum_j alpha_j^2 (beta_j + gamma_j z_ij); then the closed forms of Kandanaarachchi
   & Smith-Miles 2023 eqs. 5-7 with *sample* (N - 1) variances and covariances, alpha_j = sign(gamma_j) / sqrt(gamma_j^2
   V_j(z) - gamma_j C_j(z, mu)). The loop stops when the expected complete-data log-likelihood (new items, old
   posterior) changes by less than .01, or after 199 cycles (``cirtmodel``'s ``max.EMCycle = 200`` counts the start).
   This is not a convergence test: it can stop far from the maximum (``docs/airt.md``).
3. **Dataset easiness** theta_i = sum_j alpha_j^2 (beta_j + gamma_j z_ij) / sum_j alpha_j^2 (eq. 10), standardised to
   mean 0 and sample SD 1 (EstCRM's ``EstCRMperson``); difficulty is -theta.
4. **Prediction** (airt's ``model_goodness_crm``): the replaced data are re-read with per-algorithm range
   ``[min_j, max_j + .001]``, theta' is computed as in 3 from them, and
   ``x_hat_ij = (max_j + .001) expit(min((theta'_i - beta_j) gamma_j, 10))``. The model's own mode (benchirt's default)
   is ``expit((theta_i - beta_j) / gamma_j)``: airt divides by the scaling parameter EstCRM reports, which is 1 / gamma.

The metrics (anomalous, consistency = 1/|alpha|, difficulty limit = -beta) are computed from the fit as in the default
mode."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchirt.airt.continuous import CONSTANT_SPAN, ContinuousFit, expit, marginal_log_likelihood
from benchirt.errors import DataError

#: Replacement of the exact extremes (airt / EstCRM).
EXTREME_OFFSET = 0.01
#: Change of the expected complete-data log-likelihood that ends airt's EM.
R_CONVERGE = 0.01
#: ``cirtmodel``'s maximum number of EM cycles.
R_MAX_CYCLES = 200
#: Upper margin airt's prediction adds to every algorithm's observed maximum.
PREDICTION_MARGIN = 0.001
#: Cap on the predicted logit in airt's prediction formula.
PREDICTION_LOGIT_CAP = 10.0


def replace_extremes(x: np.ndarray, min_item, max_item) -> tuple[np.ndarray, np.ndarray]:
    """Shift onto ``[0, M]`` and replace the exact extremes as airt does (point 1 of the module docstring). ``x`` (N, n)
    lies within ``[min_item, max_item]`` (per algorithm or common). Returns ``shifted`` (N, n), ``x - min_item`` with
    ``M`` replaced by ``M - .01`` and 0 by ``.01``, and ``span`` (n,), ``M`` per column."""
    x = np.asarray(x, dtype=float)
    low = np.broadcast_to(np.asarray(min_item, dtype=float), (x.shape[1],))
    span = np.broadcast_to(np.asarray(max_item, dtype=float), (x.shape[1],)) - low
    if (span <= 0).any():
        raise DataError("airt-r mode: the maximum of the performance scale must exceed its minimum")
    shifted = x - low
    shifted = np.where(shifted == span, span - EXTREME_OFFSET, shifted)
    shifted = np.where(shifted == 0.0, EXTREME_OFFSET, shifted)
    return shifted, np.array(span)


def r_logit(x: np.ndarray, min_item, max_item) -> np.ndarray:
    """``z = ln(x' / (M - x'))`` of the replaced, shifted performances (airt / EstCRM)."""
    shifted, span = replace_extremes(x, min_item, max_item)
    if (shifted <= 0).any() or (shifted >= span).any():
        raise DataError("airt-r mode: performances must lie within the scale [min_item, max_item]")
    return np.log(shifted) - np.log(span - shifted)


def standardized_easiness(z: np.ndarray, alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """theta_i of Kandanaarachchi & Smith-Miles 2023 eq. 10, standardised to mean 0 and sample SD 1 (point 3 of the module docstring)."""
    a2 = alpha**2
    theta = ((beta + gamma * z) @ a2) / a2.sum()
    return (theta - theta.mean()) / theta.std(ddof=1)


def _expected_loglik(z: np.ndarray, alpha, beta, gamma, mu, var) -> float:
    """Expected complete-data log-likelihood airt monitors (posterior N(mu_i, var) of theta_i)."""
    n_resp, n_items = z.shape
    resid = beta + gamma * z - mu[:, None]
    return float(n_resp * np.sum(np.log(np.abs(alpha)) + np.log(np.abs(gamma)))
                 - np.sum(alpha**2 * (resid**2 + var)) / 2 - n_resp * n_items / 2 * np.log(2 * np.pi))


@dataclass(frozen=True)
class RFit:
    """airt's continuous fit: the parameters and the trace of its stopping rule.

    Attributes
    ----------
    fit : ContinuousFit
        alpha, beta, gamma, standardised theta; ``converged`` is False (airt's rule is not a convergence test) and
        ``log_likelihood`` the exact marginal log-likelihood at the returned parameters.
    q_trace : tuple of float
        The expected complete-data log-likelihood after every cycle (the first entry: at the start).
    stopped_by_rule : bool
        True when the last change was below .01, False when the cycle limit ended the loop."""

    fit: ContinuousFit
    q_trace: tuple[float, ...]
    stopped_by_rule: bool

    @property
    def n_cycles(self) -> int:
        """Number of EM cycles run."""
        return len(self.q_trace) - 1


def fit_continuous_r(z: np.ndarray, *, max_cycles: int = R_MAX_CYCLES, converge: float = R_CONVERGE) -> RFit:
    """airt's EM for the continuous response model (point 2 of the module docstring) on logits ``z`` (N, n) from
    :func:`r_logit`.

    ``max_cycles``: airt's ``max.EMCycle`` (``cirtmodel`` passes 200); as in R, at most ``max_cycles - 1`` cycles run.
    ``converge``: stop when the monitored log-likelihood changes by less than this (airt: .01).

    Raises :class:`DataError` for non-finite logits, fewer than 3 datasets, or a constant algorithm (its covariance with
    theta is 0, which the R code divides by; leave it out or use the default mode)."""
    z = np.asarray(z, dtype=float)
    n_resp, n_items = z.shape
    if n_resp < 3 or not np.isfinite(z).all():
        raise DataError("airt-r mode needs finite logits and at least 3 datasets")
    constant = np.ptp(z, axis=0) <= CONSTANT_SPAN
    if constant.any():
        raise DataError(f"airt-r mode cannot fit constant algorithm column(s) {np.flatnonzero(constant).tolist()}: "
                        "the R package divides by their zero covariance; drop them or use the default mode")
    z_mean = z.mean(axis=0)
    z_var = z.var(axis=0, ddof=1)
    alpha, beta, gamma = np.ones(n_items), -z_mean, np.ones(n_items)
    trace = [_expected_loglik(z, alpha, beta, gamma, np.zeros(n_resp), 1.0)]
    change = np.inf
    while abs(change) > converge and len(trace) < max_cycles:
        var = 1.0 / (np.sum(alpha**2) + 1.0)
        mu = var * ((gamma * z + beta) @ alpha**2)
        cov = (z - z_mean).T @ (mu - mu.mean()) / (n_resp - 1)
        gamma = (mu.var(ddof=1) + var) / cov
        beta = mu.mean() - gamma * z_mean
        with np.errstate(invalid="ignore"):
            alpha = np.sign(gamma) / np.sqrt(gamma**2 * z_var - gamma * cov)
        if not np.isfinite(alpha).all():
            raise DataError("airt-r mode: the R estimator broke down (negative residual variance); "
                            "use the default mode")
        trace.append(_expected_loglik(z, alpha, beta, gamma, mu, var))
        change = trace[-1] - trace[-2]
    log_likelihood, mu, posterior_var = marginal_log_likelihood(z, alpha, beta, gamma)
    fit = ContinuousFit(discrimination=alpha, difficulty=beta, scale=gamma, informative=np.ones(n_items, bool),
                        column_mean=z_mean, theta=standardized_easiness(z, alpha, beta, gamma),
                        posterior_mean=mu, posterior_var=float(posterior_var),
                        log_likelihood=log_likelihood,
                        n_iter=len(trace) - 1, converged=False, max_discrimination=None)
    return RFit(fit=fit, q_trace=tuple(trace), stopped_by_rule=abs(change) <= converge)


def r_predicted(shifted: np.ndarray, fit: ContinuousFit) -> np.ndarray:
    """airt's predicted performance for every dataset and algorithm (point 4 of the module docstring), (N, n) on the
    shifted scale ``[0, M]``, from ``shifted`` (first output of :func:`replace_extremes`) and the ``fit`` of
    :func:`fit_continuous_r`."""
    low = shifted.min(axis=0)
    high = shifted.max(axis=0) + PREDICTION_MARGIN
    theta = standardized_easiness(r_logit(shifted, low, high), fit.discrimination, fit.difficulty, fit.scale)
    logit = np.minimum((theta[:, None] - fit.difficulty) * fit.scale, PREDICTION_LOGIT_CAP)
    return high * expit(logit)

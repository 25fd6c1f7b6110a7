"""How sure AIRT's algorithm attributes are: an interval for the discrimination, and implausible fits.

**Discrimination interval.** In the continuous response model (Kandanaarachchi & Smith-Miles 2023 eqs. 3-8) the M-step
gives ``alpha_j^2 = rho_j^2 / ((1 - rho_j^2) V)``, ``rho_j`` the correlation between the algorithm's logits and the
datasets' easiness and ``V`` the easiness' variance (posterior means plus posterior variance):
``alpha_j = sinh(zeta_j) / sqrt(V)`` with ``zeta_j = atanh(rho_j)``, Fisher's (1921) z-transform, of standard error
``1 / sqrt(N - 3)`` for N datasets. The interval is ``sinh(asinh(alpha_j sqrt(V)) +/- q / sqrt(N - 3)) / sqrt(V)``. An
algorithm is called anomalous (§3.3) only when the whole interval is below 0: a slightly negative discrimination on few
datasets is a flat curve, not an anomaly (``benchmarks/airt_anomaly.py``, ``docs/airt.md``).

**Implausible parameters.** When alpha_j is near 0 the fitted line is flat and beta_j, gamma_j and the consistency
1/|alpha_j| run off to values no dataset supports. An algorithm is flagged when its difficulty limit -beta_j lies more
than one span of the datasets' difficulties outside their range, when |gamma_j| times the span of its logits exceeds
``SCALE_FACTOR`` spans of easiness, or when its consistency exceeds ``CONSISTENCY_FACTOR`` times the portfolio's median.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import norm

from benchirt.airt.continuous import ContinuousFit

#: Two-sided level of the discrimination interval; anomalous = its upper bound below 0.
INTERVAL_LEVEL = 0.95
#: Flag when |gamma_j| x (span of the algorithm's logits) exceeds this many spans of dataset easiness.
SCALE_FACTOR = 10.0
#: Flag when consistency exceeds this multiple of the portfolio's median consistency.
CONSISTENCY_FACTOR = 10.0

FLAG_DIFFICULTY = "difficulty limit far outside the datasets' range"
FLAG_SCALE = "scale far beyond the data's range (flat curve)"
FLAG_CONSISTENCY = "consistency far above the rest"


def easiness_variance(fit: ContinuousFit) -> float | np.ndarray:
    """``V``: the variance of the easiness the M-step sees (posterior means' variance plus the posterior variance); with
    missing cells (``fit.observed``), one ``V_j`` per algorithm over the datasets it ran on, shape (n,)."""
    if fit.observed is None:
        return float(np.var(fit.posterior_mean) + fit.posterior_var)
    w = fit.observed.astype(float)
    count = np.maximum(w.sum(axis=0), 1.0)
    mean = fit.posterior_mean @ w / count
    spread = (w * (fit.posterior_mean[:, None] - mean) ** 2).sum(axis=0) / count
    return spread + np.broadcast_to(fit.posterior_var, fit.theta.shape) @ w / count


def discrimination_interval(fit: ContinuousFit, *, level: float = INTERVAL_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bound of the discrimination's interval (module docstring), per algorithm; (0, 0) for constant
    algorithms. Needs at least 4 datasets (N - 3 > 0); with missing cells N is, per algorithm, the number of datasets
    it ran on."""
    n_datasets = fit.theta.size if fit.observed is None else fit.observed.sum(axis=0)
    root_v = np.sqrt(easiness_variance(fit))
    half = norm.ppf(0.5 + level / 2) / np.sqrt(np.maximum(n_datasets - 3, 1))
    zeta = np.arcsinh(fit.discrimination * root_v)
    low, high = np.sinh(zeta - half) / root_v, np.sinh(zeta + half) / root_v
    return np.where(fit.informative, low, 0.0), np.where(fit.informative, high, 0.0)


def implausible_flags(fit: ContinuousFit, z: np.ndarray, consistency: np.ndarray) -> list[str]:
    """Per algorithm, the implausible-parameter flags of the module docstring joined by "; " ("" when none), from ``z``
    (N, n), the logits fitted (NaN where missing), and ``consistency`` (n,), 1/|alpha_j| as reported."""
    difficulty = -fit.theta          # the datasets' difficulty, the scale of the difficulty limit
    span = float(np.ptp(difficulty)) or 1.0
    limit = -fit.difficulty
    outside = (limit < difficulty.min() - span) | (limit > difficulty.max() + span)
    z = np.asarray(z, dtype=float)
    flat = np.abs(fit.scale) * (np.nanmax(z, axis=0) - np.nanmin(z, axis=0)) > SCALE_FACTOR * span
    informative = fit.informative
    median = float(np.median(consistency[informative])) if informative.any() else np.nan
    lonely = consistency > CONSISTENCY_FACTOR * median
    flags = []
    for j in range(limit.size):
        parts = [text for hit, text in ((outside[j], FLAG_DIFFICULTY), (flat[j], FLAG_SCALE),
                                        (lonely[j], FLAG_CONSISTENCY)) if hit and informative[j]]
        flags.append("; ".join(parts))
    return flags

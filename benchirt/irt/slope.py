"""Each item's slope on the respondents' abilities: the negative-discrimination diagnostic of a monotone fit.

decodIRT reads a negative 3PL discrimination as "abler classifiers do worse here", a sign of a noisy or mislabelled
instance (Cardoso et al. 2021 §5.2). In the free-sign 3PL that sign belongs to one optimum among many (docs/irt.md,
"Which model scores, and why"). The monotone family bounds every discrimination at 0 and asks the question afterwards,
against the ability it measured: per item ``j``, the logistic regression of its answers on the respondents' EAP
abilities ``theta_i``,

    logit P(u_ij = 1) = beta_j + alpha_j theta_i,

with a Normal(0, ``prior_sd``) prior on ``alpha_j`` and ``beta_j`` (finite even when the abilities separate an item's
answers). The log posterior is strictly concave, so Newton's method finds its one maximum from any start (Agresti 2013
§5.4). ``alpha_j < 0``: the abler a respondent, the less likely it answers item ``j`` correctly. It is the 2PL's
discrimination of Birnbaum's second step with the abilities held fixed (Lord 1980) — a diagnostic, not a parameter of
the scoring model.

Written by hand: a few vectorised 2x2 Newton steps for all items at once, weighted by answer-pattern counts; statsmodels
or scikit-learn would fit the items one at a time."""
from __future__ import annotations

import numpy as np
from scipy.special import expit

#: Newton steps stop when no slope or intercept moves by more than this.
_TOLERANCE = 1e-8
_MAX_STEPS = 100
_MAX_STEP = 2.0


def ability_slopes(answers: np.ndarray, theta: np.ndarray, *, weights: np.ndarray | None = None,
                   prior_sd: float = 2.5) -> tuple[np.ndarray, np.ndarray]:
    """The slope ``alpha_j`` and intercept ``beta_j`` of every item's answers on the abilities: the unique maximum a
    posteriori estimates, each shape (m,).

    Parameters
    ----------
    answers : numpy.ndarray, shape (m, n)
        0/1 answers, one row per item, one column per respondent (or answer pattern).
    theta : numpy.ndarray, shape (n,)
    weights : numpy.ndarray, shape (n,), optional
        How many respondents each column stands for (default 1 each).
    prior_sd : float
        Standard deviation of the Normal(0, sd) prior on slope and intercept.

    Examples
    --------
    >>> import numpy as np
    >>> theta = np.array([-1.0, 0.0, 1.0, 2.0])
    >>> slope, _ = ability_slopes(np.array([[0, 0, 1, 1], [1, 1, 0, 0]]), theta)
    >>> bool(slope[0] > 0 > slope[1])
    True
    """
    u = np.asarray(answers)  # 0/1 of any numeric type: read as float by the subtraction below, never copied
    theta = np.asarray(theta, dtype=float)
    w = np.ones(len(theta)) if weights is None else np.asarray(weights, dtype=float)
    precision = 1.0 / prior_sd**2
    slope = np.zeros(len(u))
    intercept = np.zeros(len(u))
    wt, wt2 = w * theta, w * theta**2
    p = np.empty(u.shape)  # two items x respondents tables, reused by every step
    residual = np.empty(u.shape)
    for _ in range(_MAX_STEPS):
        np.multiply(slope[:, None], theta[None, :], out=p)
        p += intercept[:, None]
        expit(p, out=p)
        np.subtract(u, p, out=residual)
        g_intercept = residual @ w - precision * intercept
        g_slope = residual @ wt - precision * slope
        variance = np.subtract(1.0, p, out=residual)
        variance *= p
        h_ii = variance @ w + precision
        h_is = variance @ wt
        h_ss = variance @ wt2 + precision
        det = h_ii * h_ss - h_is**2
        # Newton's step, shortened to _MAX_STEP per parameter (a damped Newton method on a concave
        # function still converges to its maximum)
        step_intercept = np.clip((h_ss * g_intercept - h_is * g_slope) / det, -_MAX_STEP, _MAX_STEP)
        step_slope = np.clip((h_ii * g_slope - h_is * g_intercept) / det, -_MAX_STEP, _MAX_STEP)
        intercept += step_intercept
        slope += step_slope
        if max(np.abs(step_intercept).max(initial=0.0), np.abs(step_slope).max(initial=0.0)) < _TOLERANCE:
            break
    return slope, intercept

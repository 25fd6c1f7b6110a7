"""Bradley–Terry strengths from all pairwise outcomes of all datasets, and their bootstrap over datasets.

Model (Bradley & Terry 1952; the Chatbot Arena leaderboard, Chiang et al. 2024): classifier i beats j
with probability σ(θ_i − θ_j), σ the logistic function. On every dataset every pair of classifiers
present there meets once; the higher score wins, equal scores (within ``tie_tolerance``) count half
a win for each side (ties as half wins, not Davidson's tie model: a tie carries the same information
as one win and one loss split evenly, and no tie parameter needs estimating). All datasets are pooled
at once, so the fit does not depend on the order of the datasets; datasets and classifiers are also
sorted by name before anything is summed, so the result is the same to the last bit in any order.

Prior: θ_i ~ N(0, PRIOR_SD²) independently, and the fit is the maximum a posteriori estimate. The
prior is weak (PRIOR_SD = 2 natural-log units ≈ 347 rating points) but keeps the strength of a
classifier that wins every comparison (the optimal classifier) finite. At the optimum Σθ_i = 0
(the likelihood's gradient sums to zero), so the mean rating is 1500 exactly. Ratings are on the
Elo scale: R = 1500 + 400·log10(e^θ) = 1500 + θ · 400 / ln 10.

The fit uses ``scipy.optimize.minimize`` (L-BFGS-B with the exact gradient). Why not ``choix``: the
bootstrap needs a thousand fits; choix fits one problem per call through a Python loop over the
comparisons, while the B bootstrap problems are independent and can be stacked into one objective
(a sum of B separate ones), which scipy minimises in one call with numpy doing the arithmetic. The
tests check the single fit against ``choix.opt_pairwise``. Convergence is not assumed: each problem's
largest remaining Newton step is measured at the end (:attr:`BradleyTerryFit.max_step`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

#: Standard deviation of the Gaussian prior on each log-strength θ (natural-log units).
PRIOR_SD = 2.0
#: Rating points per unit of θ: 400 / ln 10 (the Elo scale, 400 points = a factor 10 in odds).
RATING_PER_THETA = 400.0 / math.log(10.0)
#: Largest remaining Newton step (rating points) accepted as a converged fit.
STEP_TOLERANCE = 1e-3


@dataclass
class BradleyTerryFit:
    """MAP Bradley–Terry strengths of B independent problems over the same k classifiers.

    Attributes
    ----------
    theta : numpy.ndarray, shape (B, k)
        Log-strengths (mean 0 per problem).
    max_step : numpy.ndarray, shape (B,)
        Evidence of convergence: the largest remaining Newton step of each problem, in rating points
        (|gradient_i| / diagonal Hessian_i × 400 / ln 10, at the returned θ).
    n_iterations : int
        L-BFGS-B iterations of the stacked problem.
    """

    theta: np.ndarray
    max_step: np.ndarray
    n_iterations: int

    @property
    def rating(self) -> np.ndarray:
        """Elo-scale ratings, shape (B, k): 1500 + θ · 400 / ln 10."""
        return 1500.0 + RATING_PER_THETA * self.theta

    @property
    def converged(self) -> np.ndarray:
        """Per problem: no rating would move by more than :data:`STEP_TOLERANCE` points in a Newton step."""
        return self.max_step <= STEP_TOLERANCE


def pairwise_wins(outcomes: np.ndarray) -> np.ndarray:
    """Per dataset, the (fractional) wins of every classifier over every other.

    Parameters
    ----------
    outcomes : numpy.ndarray, shape (D, k, k)
        ``outcomes[d, i, j]`` = 1 / 0.5 / 0 when i beat / tied / lost to j on dataset d; NaN where
        they did not meet (:func:`benchirt.rating.glicko.match_outcomes`).

    Returns
    -------
    numpy.ndarray, shape (D, k, k)
        Same, with 0 where the pair did not meet. ``wins + wins.T`` is 1 where they met.
    """
    return np.nan_to_num(np.asarray(outcomes, dtype=float), nan=0.0)


def fit_bradley_terry(wins: np.ndarray, prior_sd: float = PRIOR_SD) -> BradleyTerryFit:
    """MAP Bradley–Terry fit of B independent win matrices at once.

    Parameters
    ----------
    wins : numpy.ndarray, shape (B, k, k) or (k, k)
        ``wins[b, i, j]`` = (fractional) wins of i over j in problem b.
    prior_sd : float
        Standard deviation of the N(0, prior_sd²) prior on every θ.

    Returns
    -------
    BradleyTerryFit
        With B = 1 for a (k, k) input.
    """
    wins = np.asarray(wins, dtype=float)
    if wins.ndim == 2:
        wins = wins[None]
    n_problems, k = wins.shape[0], wins.shape[1]
    meetings = wins + wins.transpose(0, 2, 1)
    won = wins.sum(axis=2)
    precision = 1.0 / prior_sd**2

    def unpack(x):
        theta = x.reshape(n_problems, k)
        return theta, theta[:, :, None] - theta[:, None, :]

    def objective(x):
        theta, diff = unpack(x)
        return float(-(wins * log_expit(diff)).sum() + 0.5 * precision * (theta**2).sum())

    def gradient_matrix(theta, diff):
        return (meetings * expit(diff)).sum(axis=2) - won + precision * theta

    def gradient(x):
        return gradient_matrix(*unpack(x)).ravel()

    result = minimize(objective, np.zeros(n_problems * k), jac=gradient, method="L-BFGS-B",
                      options={"gtol": 1e-10, "ftol": 0.0, "maxiter": 1000})
    theta = result.x.reshape(n_problems, k)
    diff = theta[:, :, None] - theta[:, None, :]
    p = expit(diff)
    curvature = (meetings * p * (1.0 - p)).sum(axis=2) + precision
    step = np.abs(gradient_matrix(theta, diff)) / curvature * RATING_PER_THETA
    return BradleyTerryFit(theta=theta, max_step=step.max(axis=1), n_iterations=int(result.nit))


def bootstrap_counts(n_datasets: int, n_replicates: int, seed: int = 0) -> np.ndarray:
    """How often each dataset is drawn in each bootstrap replicate (resampling datasets with replacement).

    Returns
    -------
    numpy.ndarray of int, shape (n_replicates, n_datasets)
        Rows sum to ``n_datasets``.
    """
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_datasets, size=(n_replicates, n_datasets))
    offsets = np.arange(n_replicates)[:, None] * n_datasets
    return np.bincount((draws + offsets).ravel(), minlength=n_replicates * n_datasets).reshape(
        n_replicates, n_datasets
    )

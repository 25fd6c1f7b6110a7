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
from threadpoolctl import threadpool_limits

#: Standard deviation of the Gaussian prior on each log-strength θ (natural-log units).
PRIOR_SD = 2.0
#: Rating points per unit of θ: 400 / ln 10 (the Elo scale, 400 points = a factor 10 in odds).
RATING_PER_THETA = 400.0 / math.log(10.0)
#: Largest remaining Newton step (rating points) accepted as a converged fit.
STEP_TOLERANCE = 1e-3
#: Rounds of refitting the problems not yet converged.
MAX_ROUNDS = 5
#: Most elements of a stacked (problems, k, k) array fitted at once (about 40 MB of float64 each): with
#: hundreds of classifiers the bootstrap's problems are fitted in blocks of this size.
BLOCK_ELEMENTS = 5_000_000


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
        L-BFGS-B iterations, summed over the rounds (problems not converged are refitted).
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
    theta = np.zeros(wins.shape[:2])
    todo = np.arange(wins.shape[0])
    n_iterations = 0
    # The stacked objective is a sum of B terms, so its last digits stop L-BFGS-B before every problem
    # is converged; the problems are independent, so the unconverged ones are simply refitted from there.
    for _ in range(MAX_ROUNDS):
        theta[todo], iterations = _minimise(wins[todo], theta[todo], prior_sd)
        n_iterations += iterations
        max_step = _remaining_step(wins, theta, prior_sd)
        todo = np.flatnonzero(max_step > STEP_TOLERANCE)
        if todo.size == 0:
            break
    return BradleyTerryFit(theta=theta, max_step=max_step, n_iterations=n_iterations)


def fit_weighted(counts: np.ndarray, wins: np.ndarray, block_elements: int = BLOCK_ELEMENTS) -> BradleyTerryFit:
    """The fits of B weighted sums of D win matrices (bootstrap replicates: ``counts[b, d]`` = how often
    dataset d is drawn in replicate b), a block of problems at a time.

    The stacked objective holds several (problems, k, k) arrays; with 609 classifiers and 200 replicates each
    is 74 million numbers (about 3.5 GB in all), so the problems are fitted in blocks of at most
    ``block_elements`` elements. The problems are independent: a block changes nothing but the memory (and
    one block is exactly :func:`fit_bradley_terry` of them all).

    Parameters
    ----------
    counts : numpy.ndarray, shape (B, D)
    wins : numpy.ndarray, shape (D, k, k)
    """
    counts, wins = np.asarray(counts, dtype=float), np.asarray(wins, dtype=float)
    k = wins.shape[1]
    block = max(1, block_elements // max(k * k, 1))
    theta, max_step, n_iterations = np.empty((len(counts), k)), np.empty(len(counts)), 0
    for start in range(0, len(counts), block):
        fit = fit_bradley_terry(np.einsum("bd,dij->bij", counts[start:start + block], wins))
        theta[start:start + block], max_step[start:start + block] = fit.theta, fit.max_step
        n_iterations += fit.n_iterations
    return BradleyTerryFit(theta=theta, max_step=max_step, n_iterations=n_iterations)


def _minimise(wins: np.ndarray, start: np.ndarray, prior_sd: float) -> tuple[np.ndarray, int]:
    """One L-BFGS-B run on the stacked negative log-posterior of (B, k, k) win matrices, from ``start``."""
    n_problems, k = start.shape
    meetings = wins + wins.transpose(0, 2, 1)
    won = wins.sum(axis=2)
    precision = 1.0 / prior_sd**2

    def objective_and_gradient(x):
        theta = x.reshape(n_problems, k)
        diff = theta[:, :, None] - theta[:, None, :]
        value = -(wins * log_expit(diff)).sum() + 0.5 * precision * (theta**2).sum()
        gradient = (meetings * expit(diff)).sum(axis=2) - won + precision * theta
        return float(value), gradient.ravel()

    # L-BFGS-B's BLAS calls work on single vectors: threads only contend (10x slower on a busy machine).
    with threadpool_limits(limits=1, user_api="blas"):
        result = minimize(objective_and_gradient, start.ravel(), jac=True, method="L-BFGS-B",
                          options={"gtol": 1e-10, "ftol": 0.0, "maxiter": 1000})
    return result.x.reshape(n_problems, k), int(result.nit)


def _remaining_step(wins: np.ndarray, theta: np.ndarray, prior_sd: float) -> np.ndarray:
    """Per problem, the largest Newton step left, in rating points: |gradient_i| / Hessian_ii × 400 / ln 10."""
    meetings = wins + wins.transpose(0, 2, 1)
    p = expit(theta[:, :, None] - theta[:, None, :])
    gradient = (meetings * p).sum(axis=2) - wins.sum(axis=2) + theta / prior_sd**2
    curvature = (meetings * p * (1.0 - p)).sum(axis=2) + 1.0 / prior_sd**2
    return (np.abs(gradient) / curvature * RATING_PER_THETA).max(axis=1)


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

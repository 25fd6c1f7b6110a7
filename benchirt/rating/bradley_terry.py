"""Bradley–Terry strengths from all pairwise outcomes of all datasets, and their bootstrap over datasets.

Model (Bradley & Terry 1952; the Chatbot Arena leaderboard, Chiang et al. 2024): i beats j with probability σ(θ_i −
θ_j). On every dataset every pair present meets once; the higher score wins, scores within ``tie_tolerance`` count half
a win each (not Davidson's tie model: no tie parameter to estimate). All datasets are pooled, so the fit does not depend
on their order; datasets and classifiers are sorted by name before summing, so the result is bit-identical in any order.

Prior: θ_i ~ N(0, PRIOR_SD²) independently, fit by maximum a posteriori. The weak prior (2 natural-log units ≈ 347
rating points) keeps the strength of a classifier that wins every comparison finite. At the optimum Σθ_i = 0, so the
mean rating is 1500 exactly. Elo scale: R = 1500 + θ · 400 / ln 10.

The fit is Newton's method on the log-posterior (the Hessian, the weighted Laplacian of the comparison graph plus the
prior's precision, is positive definite; a step larger than :data:`MAX_THETA_STEP` is shortened). Hand-written because
the bootstrap and the separation test need hundreds of fits of the same k strengths: Newton needs a few steps with the
problems of a block stacked in numpy, while ``choix`` fits one problem per call through a Python loop. Tests check the
fit against ``choix.opt_pairwise`` and ``scipy.optimize.minimize``. Convergence is not assumed: each problem's last
Newton step is recorded (:attr:`BradleyTerryFit.max_step`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit, logit

from benchirt.threads import blas_one_thread

#: Standard deviation of the Gaussian prior on each log-strength θ (natural-log units).
PRIOR_SD = 2.0
#: Rating points per unit of θ: 400 / ln 10 (the Elo scale, 400 points = a factor 10 in odds).
RATING_PER_THETA = 400.0 / math.log(10.0)
#: Largest last Newton step (rating points) accepted as a converged fit; Newton converges quadratically, so
#: the returned ratings are then much closer than this to the optimum.
STEP_TOLERANCE = 1e-3
#: Newton steps at most per problem.
MAX_ITERATIONS = 100
#: Longest step (in θ, natural-log units ≈ 174 rating points) any strength takes in one Newton iteration.
MAX_THETA_STEP = 1.0
#: From this many classifiers on, each Newton system is solved by its own Cholesky factorisation (half the
#: arithmetic of numpy's batched LU solve); below it the batched solve is faster (one call for all problems
#: instead of a Python loop).
CHOLESKY_FROM = 64
#: Most elements of a stacked (problems, k, k) array fitted at once (about 40 MB of float64 each): with
#: hundreds of classifiers the bootstrap's problems are fitted in blocks of this size.
BLOCK_ELEMENTS = 5_000_000


@dataclass
class BradleyTerryFit:
    """MAP Bradley–Terry strengths of B independent problems over the same k classifiers: ``theta`` (B, k),
    log-strengths with mean 0 per problem; ``max_step`` (B,), evidence of convergence, the largest rating change
    (points) in each problem's last, applied Newton step (the distance left is of the order of its square);
    ``n_iterations``, Newton iterations of the problem that needed the most."""

    theta: np.ndarray
    max_step: np.ndarray
    n_iterations: int

    @property
    def rating(self) -> np.ndarray:
        """Elo-scale ratings, shape (B, k): 1500 + θ · 400 / ln 10."""
        return 1500.0 + RATING_PER_THETA * self.theta

    @property
    def converged(self) -> np.ndarray:
        """Per problem: no rating moved by more than :data:`STEP_TOLERANCE` points in the last Newton step."""
        return self.max_step <= STEP_TOLERANCE


def pairwise_wins(outcomes: np.ndarray) -> np.ndarray:
    """Per dataset, the (fractional) wins of every classifier over every other.

    ``outcomes[d, i, j]`` (D, k, k) is 1 / 0.5 / 0 when i beat / tied / lost to j on dataset d, NaN where they did not
    meet (:func:`benchirt.rating.batch.match_outcomes`). Returns the same with 0 where the pair did not meet: ``wins +
    wins.T`` is 1 where they met.
    """
    return np.nan_to_num(np.asarray(outcomes, dtype=float), nan=0.0)


def fit_bradley_terry(wins: np.ndarray, *, prior_sd: float = PRIOR_SD,
                      start: np.ndarray | None = None) -> BradleyTerryFit:
    """MAP Bradley–Terry fit of B independent win matrices at once (Newton's method, module docstring).

    ``wins[b, i, j]`` (B, k, k) or (k, k): (fractional) wins of i over j in problem b (B = 1 for a (k, k) input).
    ``prior_sd``: standard deviation of the N(0, prior_sd²) prior on every θ. ``start`` (k,) or (B, k): starting
    log-strengths (e.g. the point estimate for bootstrap replicates); default the logit of each classifier's smoothed
    share of wins, (wins + ½) / (comparisons + 1). The optimum does not depend on it (the posterior is strictly
    concave). Returns :class:`BradleyTerryFit`.
    """
    wins = np.asarray(wins, dtype=float)
    if wins.ndim == 2:
        wins = wins[None]
    meetings = wins + wins.transpose(0, 2, 1)
    won = wins.sum(axis=2)
    if start is None:
        theta = logit((won + 0.5) / (meetings.sum(axis=2) + 1.0))
    else:
        theta = np.array(np.broadcast_to(start, wins.shape[:2]), dtype=float)
    max_step = np.full(len(wins), np.inf)
    todo = np.arange(len(wins))
    n_iterations = 0
    # The k × k solves of one problem are small: BLAS threads only contend on a shared machine (measured: a
    # 609-classifier solve 100 times slower with 2 threads on a loaded 2-core machine).
    with blas_one_thread():
        while todo.size and n_iterations < MAX_ITERATIONS:
            step = _newton_step(meetings[todo], won[todo], theta[todo], 1.0 / prior_sd**2)
            longest = np.abs(step).max(axis=1)
            theta[todo] -= step * np.minimum(1.0, MAX_THETA_STEP / np.maximum(longest, 1e-300))[:, None]
            max_step[todo] = longest * RATING_PER_THETA
            n_iterations += 1
            todo = todo[max_step[todo] > STEP_TOLERANCE]
    return BradleyTerryFit(theta=theta, max_step=max_step, n_iterations=n_iterations)


def fit_weighted(counts: np.ndarray, wins: np.ndarray, *, block_elements: int = BLOCK_ELEMENTS,
                 start: np.ndarray | None = None) -> BradleyTerryFit:
    """The fits of B weighted sums of D win matrices (``counts`` (B, D): how often dataset d is drawn in replicate b),
    in blocks of at most ``block_elements`` elements of the stacked (problems, k, k) arrays. The problems are
    independent, so blocking changes only memory. ``wins`` (D, k, k); ``start`` (k,) warm-starts every problem
    (:func:`fit_bradley_terry`)."""
    counts, wins = np.asarray(counts, dtype=float), np.asarray(wins, dtype=float)
    k = wins.shape[1]
    block = max(1, block_elements // max(k * k, 1))
    theta, max_step, n_iterations = np.empty((len(counts), k)), np.empty(len(counts)), 0
    for first in range(0, len(counts), block):
        fit = fit_bradley_terry(np.einsum("bd,dij->bij", counts[first:first + block], wins), start=start)
        theta[first:first + block], max_step[first:first + block] = fit.theta, fit.max_step
        n_iterations = max(n_iterations, fit.n_iterations)
    return BradleyTerryFit(theta=theta, max_step=max_step, n_iterations=n_iterations)


def _newton_step(meetings: np.ndarray, won: np.ndarray, theta: np.ndarray, precision: float) -> np.ndarray:
    """Newton steps H⁻¹g of the negative log-posteriors at ``theta`` (B, k): gradient g_i = Σ_j m_ij p_ij − w_i
    + θ_i / σ², Hessian H = diag(Σ_j m_ij p_ij (1 − p_ij)) − [m_ij p_ij (1 − p_ij)] + I / σ², p_ij = σ(θ_i − θ_j)."""
    p = expit(theta[:, :, None] - theta[:, None, :])
    hessian = meetings * p
    gradient = hessian.sum(axis=2) - won + precision * theta
    p -= 1.0
    hessian *= p                                        # −m p (1 − p) off the diagonal (0 on it: m_ii = 0)
    diagonal = np.arange(theta.shape[1])
    hessian[:, diagonal, diagonal] = precision - hessian.sum(axis=2)
    if theta.shape[1] < CHOLESKY_FROM:
        return np.linalg.solve(hessian, gradient[:, :, None])[:, :, 0]
    return np.stack([cho_solve(cho_factor(h, overwrite_a=True, check_finite=False), g, check_finite=False)
                     for h, g in zip(hessian, gradient)])


def bootstrap_counts(n_datasets: int, n_replicates: int, *, seed: int = 0) -> np.ndarray:
    """How often each dataset is drawn in each bootstrap replicate (datasets resampled with replacement), shape
    (n_replicates, n_datasets); rows sum to ``n_datasets``."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_datasets, size=(n_replicates, n_datasets))
    offsets = np.arange(n_replicates)[:, None] * n_datasets
    return np.bincount((draws + offsets).ravel(), minlength=n_replicates * n_datasets).reshape(
        n_replicates, n_datasets
    )

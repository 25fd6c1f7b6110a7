"""Bradley–Terry fits of large fields without a (k, k) array: the likelihood's sums as kernel sums on a grid.

Model and prior as in :mod:`benchirt.rating.bradley_terry` (θ_i ~ N(0, PRIOR_SD²), MAP), whose (k, k) matrices and dense
Hessian grow like k³. Here nothing of size k² is formed:

- **Wins from each dataset's order.** On dataset d classifier i wins w_di = #{j: s_dj < s_di − tol} + ½ #{j ≠ i: |s_dj −
  s_di| ≤ tol} (a sort per dataset, :func:`benchirt.rating.glicko_grid.score_boundaries`).
- **Gradient and Hessian products as kernel sums.** For replicate weights c_d the negative log-posterior's gradient is
  g_i = Σ_d c_d [Σ_{j∈d, j≠i} σ(θ_i − θ_j) − w_di] + θ_i / σ_0², and (Hv)_i = Σ_d c_d Σ_{j∈d, j≠i} σ'(θ_i − θ_j)(v_i −
  v_j) + v_i / σ_0². Each inner sum Σ_j a_j κ(t − θ_j) at t = θ_i is computed by the binned approximation of Wand (1994,
  J. Comput. Graph. Stat. 3(4)): linear binning onto a uniform grid (Jones & Lotwick 1984), one FFT convolution per
  dataset presence pattern, linear interpolation at each θ_i. Both steps err by O(h²) in the grid step h;
  :data:`GRID_STEP` keeps the ratings within hundredths of a point of the exact fit (tested).
- **Truncated Newton.** Each step solves H s = g by conjugate gradients preconditioned with H's diagonal (Nocedal &
  Wright 2006, Algorithm 7.1, with Eisenstat & Walker's forcing terms), batched over a block's problems; a step longer
  than :data:`~benchirt.rating.bradley_terry.MAX_THETA_STEP` is shortened, and a problem stops when its last step moved
  no rating by more than :data:`~benchirt.rating.bradley_terry.STEP_TOLERANCE` points.

Hand-written: choix and scipy fit pairwise models from explicit comparisons (k² per dataset here); no library sums a
logistic kernel on a grid.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.fft import irfft, next_fast_len, rfft
from scipy.special import expit, logit

from benchirt.rating.bradley_terry import (MAX_ITERATIONS, MAX_THETA_STEP, PRIOR_SD, RATING_PER_THETA,
                                           STEP_TOLERANCE, BradleyTerryFit, fit_bradley_terry, fit_weighted,
                                           pairwise_wins)
from benchirt.rating.batch import match_outcomes
from benchirt.rating.glicko_grid import score_boundaries

#: Spacing of the grid the strengths are binned on (natural-log units): the binning and interpolation errors are
#: of the order of GRID_STEP² times the kernel's curvature (at most 0.1 for σ and σ′).
GRID_STEP = 0.02
#: The grid step of bootstrap replicates (:func:`fit_field`'s ``grid_step``): half the grid points of
#: :data:`GRID_STEP` and four times its O(h²) error — a fraction of a rating point, against percentile intervals
#: hundreds of points wide.
BOOTSTRAP_GRID_STEP = 0.04
#: Largest relative residual at which the conjugate-gradient solve of a Newton step stops; near the optimum the
#: solve is tightened to √‖g‖ relative (the forcing terms of Eisenstat & Walker 1996, which keep Newton's
#: convergence superlinear while the far-off steps are solved loosely).
CG_TOLERANCE = 0.1
#: Conjugate-gradient iterations at most per Newton step.
CG_ITERATIONS = 200
#: Most (problem, presence pattern, grid point) cells binned at once: problems are fitted in blocks of this size.
BLOCK_CELLS = 20_000_000
#: Fields of up to this many classifiers are fitted exactly through their (k, k) win matrices
#: (:mod:`benchirt.rating.bradley_terry`); larger ones on the grid, whose cost does not grow with k².
DENSE_UP_TO = 400


@dataclass(frozen=True)
class DatasetOrders:
    """Per dataset, who is present (``present``, bool) and how many matches each classifier wins there: ``wins``,
    fractional w_di (a tie counts ½, 0 where absent), and ``won, tied, lost`` outright (int); each (D, k), from
    ``scores`` (D, k, NaN where absent) with ``tie_tolerance``."""

    scores: np.ndarray
    tie_tolerance: float
    present: np.ndarray
    wins: np.ndarray
    won: np.ndarray
    tied: np.ndarray
    lost: np.ndarray


def dataset_orders(scores: np.ndarray, *, tie_tolerance: float = 0.0) -> DatasetOrders:
    """Wins, ties and losses of every classifier on every dataset from one sort per dataset.

    ``scores`` (D, k): higher is better, NaN where absent; scores at most ``tie_tolerance`` apart draw.

    Examples
    --------
    >>> import numpy as np
    >>> orders = dataset_orders(np.array([[0.9, 0.8, 0.8, np.nan]]))
    >>> orders.wins.tolist(), orders.lost.tolist()
    ([[2.0, 0.5, 0.5, 0.0]], [[0, 1, 1, 0]])
    """
    scores = np.asarray(scores, dtype=float)
    present = ~np.isnan(scores)
    won, tied, lost = (np.zeros(scores.shape, dtype=int) for _ in range(3))
    for d, row in enumerate(scores):
        values = row[present[d]]
        below, up_to = score_boundaries(np.sort(values), values, tie_tolerance)
        level = up_to - below - 1
        won[d, present[d]], tied[d, present[d]] = below, level
        lost[d, present[d]] = values.size - 1 - below - level
    return DatasetOrders(scores=scores, tie_tolerance=float(tie_tolerance), present=present, wins=won + 0.5 * tied,
                         won=won, tied=tied, lost=lost)


def fit_field(orders: DatasetOrders, counts: np.ndarray, *, start: np.ndarray | None = None,
              grid_step: float = GRID_STEP) -> BradleyTerryFit:
    """The Bradley–Terry fits of B weightings of the datasets (``counts`` (B, D); ones for the plain fit): exact
    through the (k, k) win matrices up to :data:`DENSE_UP_TO` classifiers, on the grid (:func:`fit_orders`, of step
    ``grid_step``) above."""
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    if orders.present.shape[1] > DENSE_UP_TO:
        return fit_orders(orders, counts, start=start, grid_step=grid_step)
    wins = pairwise_wins(match_outcomes(orders.scores, tie_tolerance=orders.tie_tolerance))
    if len(counts) == 1 and np.all(counts == 1):
        return fit_bradley_terry(wins.sum(axis=0), start=start)
    return fit_weighted(counts, wins, start=start)


def fit_orders(orders: DatasetOrders, counts: np.ndarray, *, start: np.ndarray | None = None,
               prior_sd: float = PRIOR_SD, block_cells: int = BLOCK_CELLS, grid_step: float = GRID_STEP
               ) -> BradleyTerryFit:
    """MAP Bradley–Terry strengths (:class:`~benchirt.rating.bradley_terry.BradleyTerryFit`) of B weighted sums of the
    datasets' matches, without (k, k) arrays (module docstring).

    ``counts`` (B, D) or (D,): the weight of each dataset in each problem (e.g. bootstrap replicates; ones for the plain
    fit). ``start`` (k,) or (B, k): warm start, default as :func:`benchirt.rating.bradley_terry.fit_bradley_terry`
    starts. ``block_cells``: memory bound, problems × presence patterns × grid points binned at once. ``grid_step``:
    grid spacing (:data:`GRID_STEP`; :data:`BOOTSTRAP_GRID_STEP` for bootstrap replicates).
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    patterns, pattern_of = np.unique(orders.present, axis=0, return_inverse=True)
    pattern_counts = np.stack([counts[:, pattern_of.ravel() == q].sum(axis=1) for q in range(len(patterns))],
                              axis=1)
    won = counts @ orders.wins
    meetings = counts @ (orders.present * (orders.present.sum(axis=1, keepdims=True) - 1))
    if start is None:
        theta = logit((won + 0.5) / (meetings + 1.0))
    else:
        theta = np.array(np.broadcast_to(start, won.shape), dtype=float)
    sums = _KernelSums(patterns.astype(float), 1.0 / prior_sd**2, grid_step)
    block = max(1, block_cells // max(len(patterns) * sums.grid_points(theta), 1))
    max_step = np.full(len(counts), np.inf)
    n_iterations = 0
    for first in range(0, len(counts), block):
        part = slice(first, first + block)
        theta[part], max_step[part], steps = _newton(sums, pattern_counts[part], won[part], theta[part])
        n_iterations = max(n_iterations, steps)
    return BradleyTerryFit(theta=theta, max_step=max_step, n_iterations=n_iterations)


def _newton(sums: "_KernelSums", weights: np.ndarray, won: np.ndarray, theta: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, int]:
    """Truncated Newton on a block of problems; returns θ, each problem's last step (rating points), iterations."""
    theta = theta.copy()
    max_step = np.full(len(theta), np.inf)
    todo = np.arange(len(theta))
    n_iterations = 0
    while todo.size and n_iterations < MAX_ITERATIONS:
        opponents = weights[todo] @ sums.patterns          # Σ_d c_d P_di: the self terms to take out
        gradient, diagonal = sums.gradient(theta[todo], weights[todo], won[todo], opponents)
        step = _conjugate_gradients(
            lambda v: sums.hessian_product(theta[todo], weights[todo], diagonal, opponents, v), gradient, diagonal)
        longest = np.abs(step).max(axis=1)
        theta[todo] -= step * np.minimum(1.0, MAX_THETA_STEP / np.maximum(longest, 1e-300))[:, None]
        max_step[todo] = longest * RATING_PER_THETA
        n_iterations += 1
        todo = todo[max_step[todo] > STEP_TOLERANCE]
    return theta, max_step, n_iterations


def _conjugate_gradients(product, rhs: np.ndarray, diagonal: np.ndarray) -> np.ndarray:
    """Solve H x = rhs for a block of problems (rows) by Jacobi-preconditioned conjugate gradients."""
    x = np.zeros_like(rhs)
    residual = rhs.copy()
    z = residual / diagonal
    direction = z.copy()
    rz = (residual * z).sum(axis=1)
    size = np.linalg.norm(rhs, axis=1)
    target = np.minimum(CG_TOLERANCE, np.sqrt(size)) * size
    active = np.linalg.norm(residual, axis=1) > target
    for _ in range(CG_ITERATIONS):
        if not active.any():
            break
        hd = product(direction)
        curvature = (direction * hd).sum(axis=1)
        step = np.where(active, rz / np.where(active, curvature, 1.0), 0.0)
        x += step[:, None] * direction
        residual -= step[:, None] * hd
        active &= np.linalg.norm(residual, axis=1) > target
        z = residual / diagonal
        rz_next = (residual * z).sum(axis=1)
        direction = z + np.where(active, rz_next / np.where(rz > 0, rz, 1.0), 0.0)[:, None] * direction
        rz = rz_next
    return x


class _KernelSums:
    """The likelihood's sums over opponents for every problem of a block, by linear binning on a grid: ``patterns`` (Q,
    k) are the datasets' distinct presence rows, ``weights`` (B, Q) each problem's total weight of the datasets with
    each pattern; everything sums per pattern, then over patterns with the weights."""

    def __init__(self, patterns: np.ndarray, precision: float, step: float = GRID_STEP) -> None:
        self.patterns = patterns
        self.present = [pattern > 0 for pattern in patterns]
        self.precision = precision
        self.step = step

    def grid_points(self, theta: np.ndarray) -> int:
        """Grid points that cover ``theta`` (plus one step each side) at the grid's step."""
        return int(np.ceil((np.ptp(theta) if theta.size else 0.0) / self.step)) + 3

    def _sum(self, theta: np.ndarray, weights: np.ndarray, kernel, values: np.ndarray | None = None) -> np.ndarray:
        """Σ_q weights[b, q] P_qi Σ_{j∈q} values_j κ(θ_i − θ_j) (self term included), shape (B, k): per pattern,
        linear binning of the present strengths (each weighted by ``values`` when given), one FFT convolution
        with κ sampled on the grid, linear interpolation at the present θ_i."""
        n_problems, n_points = theta.shape[0], self.grid_points(theta)
        position = (theta - theta.min(axis=1, keepdims=True)) / self.step + 1.0
        cell = np.clip(np.floor(position).astype(int), 0, n_points - 2)
        fraction = position - cell
        mass = np.ones_like(theta) if values is None else values
        offsets = np.arange(n_problems)[:, None] * n_points
        grid = np.empty((n_problems, len(self.patterns), n_points))
        for q, taken in enumerate(self.present):
            index, share = (offsets + cell[:, taken]).ravel(), (mass[:, taken] * fraction[:, taken]).ravel()
            grid[:, q] = (np.bincount(index, mass[:, taken].ravel() - share, minlength=n_problems * n_points)
                          + np.bincount(index + 1, share, minlength=n_problems * n_points)).reshape(n_problems, n_points)
        smoothed = _convolved(grid, kernel, self.step)
        total = np.zeros_like(theta)
        for q, taken in enumerate(self.present):
            flat = smoothed[:, q].ravel()
            index = (offsets + cell[:, taken]).ravel()
            interpolated = ((1.0 - fraction[:, taken]).ravel() * flat[index] + fraction[:, taken].ravel() * flat[index + 1])
            total[:, taken] += weights[:, q, None] * interpolated.reshape(n_problems, -1)
        return total

    def gradient(self, theta: np.ndarray, weights: np.ndarray, won: np.ndarray,
                 opponents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The negative log-posterior's gradient and Hessian diagonal at ``theta`` (B, k) each; ``opponents`` is
        Σ_d c_d P_di, the weight of each classifier's own (self) term in the sums."""
        expected = self._sum(theta, weights, expit) - 0.5 * opponents
        diagonal = self._sum(theta, weights, _logistic_density) - 0.25 * opponents
        return expected - won + self.precision * theta, np.maximum(diagonal, 0.0) + self.precision

    def hessian_product(self, theta: np.ndarray, weights: np.ndarray, diagonal: np.ndarray, opponents: np.ndarray,
                        vector: np.ndarray) -> np.ndarray:
        """H v: the diagonal (with the prior) times v minus the weighted sums Σ_{j≠i} σ'(θ_i − θ_j) v_j."""
        off = self._sum(theta, weights, _logistic_density, vector) - 0.25 * vector * opponents
        return diagonal * vector - off


def _convolved(grid: np.ndarray, kernel, step: float) -> np.ndarray:
    """Σ_j grid[..., j] κ((m − j)·h), h = ``step``, for every grid point m (last axis): a circular convolution of length
    at least 2n − 1, equal to the linear one at the n points needed, with the kernel sampled at the offsets −(n −
    1)…n − 1."""
    n_points = grid.shape[-1]
    size = next_fast_len(2 * n_points - 1, real=True)
    sampled = kernel(step * np.arange(-(n_points - 1), n_points))
    spectrum = rfft(sampled, n=size)
    return irfft(rfft(grid, n=size, axis=-1) * spectrum, n=size, axis=-1)[..., n_points - 1:2 * n_points - 1]


def _logistic_density(x: np.ndarray) -> np.ndarray:
    """σ'(x) = σ(x)(1 − σ(x))."""
    p = expit(x)
    return p * (1.0 - p)

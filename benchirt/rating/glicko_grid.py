"""A Glicko-2 rating period's sums for a dataset of thousands of classifiers, without an (n, n) outcome array.

In one rating period (Glickman 2013, "Example of the Glicko-2 system", steps 3-4) classifier i, present with n − 1
opponents, needs two sums:

    pull_i = Σ_{j≠i} g(φ_j) (s_ij − E_ij),   information_i = Σ_{j≠i} g(φ_j)² E_ij (1 − E_ij),
    E_ij = σ(g(φ_j)(μ_i − μ_j)),   g(φ) = 1 / √(1 + 3φ²/π²),

which :func:`benchirt.rating.batch.update_period` forms from (n, n) arrays. Here nothing of size n² is formed:

- **The wins, exactly.** s_ij is 1 when s_i − s_j > tol, ½ when |s_i − s_j| ≤ tol, else 0 (Cardoso et al. 2021 §4.7), so
  Σ_j g_j s_ij is a cumulative sum of g in score order read at the two positions :func:`score_boundaries` finds.
- **The expected scores, on a grid.** Σ_j g_j σ(g_j x_ij) and Σ_j g_j² σ'(g_j x_ij), x_ij = μ_i − μ_j, are kernel sums
  whose kernel depends on the opponent through g_j. The points (μ_j, g_j) are spread on a 2-D grid by bilinear binning
  (Wand 1994, J. Comput. Graph. Stat. 3(4); linear binning: Jones & Lotwick 1984); each grid row (one g_b) is convolved
  along μ with its own kernel by FFT, the rows summed in the frequency domain, and the sum read at μ_i by linear
  interpolation. Both err by O(h²) in the steps (:data:`MU_STEP`, :data:`G_STEP`); i's own share of the binned sum is
  removed, so the sums stay non-negative.

Cost per period: n log n for the wins and the grid's FFTs, whatever n. :data:`EXACT_UP_TO` decides which datasets are
played this way. Hand-written: no library sums a logistic kernel whose scale varies per point;
:mod:`benchirt.rating.bt_grid` does the one-dimensional case for the Bradley–Terry fit.
"""
from __future__ import annotations

import numpy as np
from scipy.fft import irfft, next_fast_len, rfft
from scipy.special import expit

#: Datasets with up to this many classifiers present play their periods exactly through (n, n) outcome arrays;
#: larger ones through the sums here.
EXACT_UP_TO = 400
#: Grid step along μ (the Glicko-2 scale: 0.02 is 3.5 rating points). The O(h²) error is a few 10⁻⁵ of a game per
#: opponent (σ''s curvature is at most 0.1).
MU_STEP = 0.02
#: Grid step along g(φ) ∈ (0, 1]; the kernels' curvature in g is below 1 for |x| ≤ 2.
G_STEP = 0.02
#: Most grid points along μ (a spread of 2,000 on the Glicko-2 scale, 347,000 rating points): wider only in a
#: tournament that diverged (:func:`benchirt.rating.batch.diverges`), whose periods are played exactly.
MOST_POINTS = 100_000


def fits_grid(mu: np.ndarray) -> bool:
    """Whether the ratings ``mu`` (P, n) spread over at most :data:`MOST_POINTS` grid points."""
    return bool(np.ptp(mu, axis=1).max() / MU_STEP + 3 <= MOST_POINTS)


def period_sums(mu: np.ndarray, phi: np.ndarray, scores: np.ndarray, *,
                tie_tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The period's pull and information sums of every classifier present (module docstring), each (P, n).

    ``mu, phi`` (P, n) are the pre-period ratings and deviations (Glicko-2 scale) of the n classifiers present in P
    tournaments, the ratings within :func:`fits_grid`; ``scores`` (n,) their scores on the period's dataset; scores
    within ``tie_tolerance`` draw.
    """
    g = 1.0 / np.sqrt(1.0 + 3.0 * phi**2 / np.pi**2)
    expected, information = _expected_sums(mu, g)
    return _weighted_wins(scores, g, tie_tolerance) - expected, information


def _weighted_wins(scores: np.ndarray, g: np.ndarray, tie_tolerance: float) -> np.ndarray:
    """Σ_{j≠i} g_j s_ij, (P, n): g summed over the opponents scoring below s_i − tol, half over those within tol."""
    order = np.argsort(scores, kind="stable")
    below, up_to = score_boundaries(scores[order], scores, tie_tolerance)
    cumulative = np.zeros((g.shape[0], g.shape[1] + 1))
    np.cumsum(g[:, order], axis=1, out=cumulative[:, 1:])
    return cumulative[:, below] + 0.5 * (cumulative[:, up_to] - cumulative[:, below] - g)


def score_boundaries(ranked: np.ndarray, scores: np.ndarray, tie_tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``scores`` among the sorted ``ranked`` (the same scores): how many it beats (s_i − s_j > tol) and
    how many it does not lose to (s_j − s_i ≤ tol, itself included) — :func:`~benchirt.rating.batch.match_outcomes`'
    outcomes counted by binary search. Rounding of s ± tol can put a search one group of equal scores off; the
    groups either side of each boundary are tested with match_outcomes' own arithmetic."""
    below = _settled(ranked, np.searchsorted(ranked, scores - tie_tolerance, side="left"),
                     lambda opponent: scores - opponent > tie_tolerance)
    up_to = _settled(ranked, np.searchsorted(ranked, scores + tie_tolerance, side="right"),
                     lambda opponent: opponent - scores <= tie_tolerance)
    return below, up_to


def _settled(ranked: np.ndarray, count: np.ndarray, counted) -> np.ndarray:
    """How many of the ``ranked`` scores satisfy ``counted`` (true for a prefix of them), from a binary search's
    ``count``, the groups of equal scores either side of it tested with ``counted``."""
    n = len(ranked)
    after = ranked[np.minimum(count, n - 1)]
    count = np.where((count < n) & counted(after), np.searchsorted(ranked, after, side="right"), count)
    before = ranked[np.maximum(count - 1, 0)]
    return np.where((count > 0) & ~counted(before), np.searchsorted(ranked, before, side="left"), count)


def _expected_sums(mu: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Σ_{j≠i} g_j σ(g_j(μ_i − μ_j)) and Σ_{j≠i} g_j² σ'(g_j(μ_i − μ_j)), (P, n) each, on the (g, μ) grid."""
    n_problems = mu.shape[0]
    n_points = int(np.ceil(np.ptp(mu, axis=1).max() / MU_STEP)) + 3
    position = (mu - mu.min(axis=1, keepdims=True)) / MU_STEP + 1.0
    cell = np.clip(np.floor(position).astype(int), 0, n_points - 2)
    share = position - cell
    g_low = g.min()
    levels = g_low + G_STEP * np.arange(int(np.ceil((g.max() - g_low) / G_STEP)) + 2)
    g_position = (g - g_low) / G_STEP
    row = np.clip(np.floor(g_position).astype(int), 0, len(levels) - 2)
    g_share = g_position - row

    cells = len(levels) * n_points
    index = (np.arange(n_problems)[:, None] * cells + row * n_points + cell).ravel()
    corners = ((0, (1 - g_share) * (1 - share)), (1, (1 - g_share) * share),
               (n_points, g_share * (1 - share)), (n_points + 1, g_share * share))
    grid = np.zeros(n_problems * cells)
    for offset, weight in corners:
        grid += np.bincount(index + offset, weight.ravel(), minlength=n_problems * cells)
    size = next_fast_len(2 * n_points - 1, real=True)
    spectrum = rfft(grid.reshape(n_problems, len(levels), n_points), n=size, axis=-1)
    offsets = MU_STEP * np.arange(-(n_points - 1), n_points)
    kernels = _kernels(levels[:, None], offsets[None, :])
    sums = []
    for kernel in kernels:
        smoothed = irfft((spectrum * rfft(kernel, n=size, axis=-1)).sum(axis=1), n=size, axis=-1)
        flat = smoothed[:, n_points - 1:2 * n_points - 1].ravel()
        at = (np.arange(n_problems)[:, None] * n_points + cell).ravel()
        total = ((1 - share).ravel() * flat[at] + share.ravel() * flat[at + 1]).reshape(mu.shape)
        sums.append(total - _own_share(kernel, levels, row, g_share, share, n_points))
    return sums[0], np.maximum(sums[1], 0.0)


def _kernels(level: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """g σ(g x) and g² σ'(g x) at every level g and offset x."""
    p = expit(level * x)
    return level * p, level**2 * p * (1.0 - p)


def _own_share(kernel: np.ndarray, levels: np.ndarray, row: np.ndarray, g_share: np.ndarray, share: np.ndarray,
               n_points: int) -> np.ndarray:
    """Classifier i's own contribution to the binned sum read at μ_i: its mass on the two μ points of each of its
    two g rows, convolved and interpolated back — κ_b(0)((1 − f)² + f²) + (κ_b(h) + κ_b(−h)) f(1 − f) per row b."""
    centre, beside = kernel[:, n_points - 1], kernel[:, n_points - 2] + kernel[:, n_points]

    def on_row(b: np.ndarray) -> np.ndarray:
        return centre[b] * ((1 - share) ** 2 + share**2) + beside[b] * share * (1 - share)

    return (1 - g_share) * on_row(row) + g_share * on_row(row + 1)

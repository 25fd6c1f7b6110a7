"""Which classifiers the leaderboard separates, and its tiers: a permutation range test on the ratings.

One of the verdicts of ``rate.verdict`` (docs/rating.md says why). The critical distance c is the 95 % quantile of the
*range* of the ratings (the largest pair difference) when the classifiers' scores are shuffled within every dataset —
the permutation max-T method of Westfall & Young 1993 with the rating difference as statistic (the permutation
counterpart of Tukey's range test). When all classifiers are equal their scores are exchangeable within a dataset, so
the chance that *any* pair is called different is at most 5 % whatever the numbers of classifiers or datasets. A
classifier absent from a dataset stays absent.

When the classifiers are not all equal, a pair far from the others has a noisier rating difference than the shuffled
tables show, and the range test alone separates such equal pairs too often. So each pair's distance is scaled: A is
better than B when R_A − R_B > c · max(1, s_AB / s₀), with s_AB the bootstrap standard error of the pair's difference
(over datasets) and s₀ the one every pair has in the shuffled tables. The factor is never below 1, so the error when all
classifiers are equal stays at most 5 %.

Tiers: taking the classifiers in leaderboard order, a boundary falls between positions g and g + 1 only when every
classifier above is better than every one below. Tiers are numbered 1, 2, 3, … without gaps, never decrease down the
table, and two classifiers land in different tiers only when the test separates them; ties are never separated.

Hand-written: the shuffling and the range are a few lines of numpy on the per-dataset win matrices, and all shuffled
tables are fitted in one stacked Bradley–Terry call; max-T libraries (R's multcomp, statsmodels' ``multipletests``) take
p-values or a parametric model, not a Bradley–Terry fit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchirt.rating.bradley_terry import fit_bradley_terry

#: Simultaneous level of the separation decisions (family-wise over all pairs).
FAMILY_LEVEL = 0.95
#: Elements of the (block, D, k, k) gathered win arrays per fitted block (about 40 MB of float64).
BLOCK_ELEMENTS = 5_000_000


@dataclass
class Separation:
    """Result of :func:`separate`, classifiers in leaderboard order (best first): ``better[i, j]`` (k, k), i is
    significantly better than j (simultaneous over all pairs); ``critical_value``, c in rating points (NaN without
    shuffled tables: nobody is separated); ``distance`` (k, k), the rating distance each pair must exceed, c · max(1,
    s_ij / s₀); ``tier`` (k,), 1, 2, … down the table, consecutive."""

    better: np.ndarray
    critical_value: float
    distance: np.ndarray
    tier: np.ndarray


def shuffled_ratings(wins: np.ndarray, present: np.ndarray, n_tables: int, *, seed: int = 0) -> np.ndarray:
    """Bradley–Terry ratings (rating points, shape (n_tables, k)) of ``n_tables`` leaderboards whose scores are shuffled
    within each dataset.

    ``wins`` (D, k, k) are per-dataset fractional wins (:func:`benchirt.rating.bradley_terry.pairwise_wins`);
    ``present`` (D, k) says which classifiers have a score on each dataset: only those are shuffled.
    """
    n_datasets, k = present.shape
    permutation = within_dataset_permutations(present, n_tables, seed=seed)
    ratings = np.empty((n_tables, k))
    dataset = np.arange(n_datasets)[None, :, None, None]
    block = max(1, BLOCK_ELEMENTS // (n_datasets * k * k))
    for start in range(0, n_tables, block):
        p = permutation[start:start + block]
        ratings[start:start + block] = fit_bradley_terry(wins[dataset, p[:, :, :, None], p[:, :, None, :]].sum(axis=1)).rating
    return ratings


def within_dataset_permutations(present: np.ndarray, n_tables: int, *, seed: int = 0) -> np.ndarray:
    """Per table and dataset, a uniform random permutation of the classifiers present there (absent ones map to
    themselves), shape (n_tables, D, k): ``permutation[t, d, i]`` is the classifier whose results classifier i takes."""
    n_datasets, k = present.shape
    rng = np.random.default_rng([seed, 1])   # a stream of its own: the bootstrap uses default_rng(seed)
    permutation = np.broadcast_to(np.arange(k), (n_tables, n_datasets, k)).copy()
    for d in range(n_datasets):
        here = np.flatnonzero(present[d])
        permutation[:, d, here] = rng.permuted(np.broadcast_to(here, (n_tables, here.size)), axis=1)
    return permutation


def separate(rating: np.ndarray, shuffled: np.ndarray | None, *, bootstrap: np.ndarray | None = None,
             level: float = FAMILY_LEVEL) -> Separation:
    """Simultaneous separation decisions and tiers (:class:`Separation`).

    ``rating`` (k,): point ratings in leaderboard order (non-increasing). ``shuffled`` (n, k): :func:`shuffled_ratings`
    (any column order); None or empty: nobody is separated. ``bootstrap`` (B, k), optional: bootstrap ratings in
    leaderboard order (NaN where not drawn); without them every pair uses the plain distance c. ``level``: 1 − the
    family-wise error rate.
    """
    rating = np.asarray(rating, dtype=float)
    k = rating.size
    if shuffled is None or len(shuffled) == 0:
        return Separation(np.zeros((k, k), dtype=bool), float("nan"), np.full((k, k), np.nan), np.ones(k, dtype=int))
    shuffled = np.asarray(shuffled, dtype=float)
    critical_value = float(np.quantile(shuffled.max(axis=1) - shuffled.min(axis=1), level))
    distance = np.full((k, k), critical_value)
    if bootstrap is not None and len(bootstrap) > 1:
        # Mean of (s_i − s_j)² over tables and pairs i < j: per table Σ_{i<j} (s_i − s_j)² = k Σ s² − (Σ s)².
        centred = shuffled - shuffled.mean(axis=1, keepdims=True)
        null_se = math.sqrt(float(np.sum(k * (centred**2).sum(axis=1) - centred.sum(axis=1) ** 2))
                            / (len(shuffled) * k * (k - 1) / 2))
        pair_se = pair_difference_sd(np.asarray(bootstrap, dtype=float))
        if null_se > 0:
            distance = critical_value * np.maximum(1.0, np.nan_to_num(pair_se / null_se, nan=1.0))
    better = (rating[:, None] - rating[None, :]) > distance
    return Separation(better, critical_value, distance, tiers_from(better))


def pair_difference_sd(replicates: np.ndarray) -> np.ndarray:
    """Per pair (i, j), the standard deviation (ddof 1) of R_i − R_j over the replicates that rate both; shape (k, k),
    NaN where fewer than two do.

    ``replicates`` (B, k) has NaN where a replicate does not rate the classifier. Equal to ``numpy.nanstd`` of the (B,
    k, k) differences, computed from masked first and second moments (three k × k matrix products) to avoid B·k²
    numbers.
    """
    rated = ~np.isnan(replicates)
    both = rated.astype(float)
    # Each classifier centred on its own mean: the variance of a difference does not change, and the moments
    # stay small (less cancellation).
    values = np.where(rated, replicates, 0.0)
    mean = np.divide(values.sum(axis=0), rated.sum(axis=0), out=np.zeros(values.shape[1]), where=rated.any(axis=0))
    centred = np.where(rated, values - mean, 0.0)
    count = both.T @ both
    total = centred.T @ both - both.T @ centred                            # Σ_b (x_bi − x_bj)
    squares = (centred**2).T @ both + both.T @ centred**2 - 2.0 * centred.T @ centred
    enough = count > 1
    variance = np.divide(squares - np.divide(total**2, count, out=np.zeros_like(total), where=enough),
                         count - 1.0, out=np.full_like(total, np.nan), where=enough)
    np.fill_diagonal(variance, np.where(np.diag(enough), 0.0, np.nan))   # R_i − R_i = 0 exactly
    return np.sqrt(np.maximum(variance, 0.0))


def tiers_from(better: np.ndarray) -> np.ndarray:
    """Consecutive tiers down the table: a boundary below position g only when every classifier at
    positions ≤ g is better than every classifier at positions > g."""
    k = better.shape[0]
    boundary = np.array([better[: g + 1, g + 1:].all() for g in range(k - 1)], dtype=bool)
    return 1 + np.concatenate([[0], np.cumsum(boundary)]).astype(int)

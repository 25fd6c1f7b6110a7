"""The primary verdict: step-down max-T on within-dataset permutations, and the joint rank intervals it gives.

Which classifiers are separated is asked of all k(k−1)/2 pairs at once. Each pair (i, j) gets the
studentised Wilcoxon signed-rank statistic of its per-dataset differences d = x_i − x_j over the datasets
where both have a score (:func:`signed_rank`): it uses the size of the differences through their ranks (not
only who won, as the Bradley–Terry matches do), so a large gap on a dataset counts for more than a small one,
while one dataset's outlying gap cannot outweigh many consistent ones (the t statistic of the mean
difference, :func:`studentised_mean`, can: it separated 77 pairs on decodIRT's 50 reference pools against
the signed-rank statistic's 93 and Wilcoxon–Holm's 90, benchmarks/rating_leaderboard.py).

Its null distribution comes from shuffling the classifiers' scores within every dataset (a classifier
absent from a dataset stays absent), as the range test of :mod:`benchirt.rating.separation` does. The decisions are Westfall & Young's (1993, Algorithm 2.8) **step-down max-T**: order the pairs by
|z|, largest first; the r-th pair's adjusted p-value is the share of shuffled tables in which the largest
|z| among the pairs from r on reaches its |z| (with Phipson & Smyth's 2010 +1 in numerator and
denominator), made non-decreasing down the order; a pair is separated when its adjusted p-value is at
most α. The single-step max-T (every pair against the largest |z| of all pairs) is the first step of it,
so the step-down never separates fewer pairs on the same shuffled tables. When all classifiers are equal
and exchangeable within each dataset the chance of any false separation is at most α; with equal
classifiers of unequal spreads (not exchangeable) it is an approximation that the studentisation keeps near α —
benchmarks/rating_leaderboard.py measures both, also against Wilcoxon–Holm, Nemenyi and Arena's rule.

**Joint rank intervals** follow from the same decisions (the simultaneous-test construction of Klein,
Wright & Wieczorek 2020, §3): classifier i ranks no better than 1 + #{classifiers separated as better
than i} and no worse than k − #{classifiers i is separated as better than}. Whenever no separation is
false — with probability at least 1 − α — every classifier's true rank (for tied true strengths, every
rank the tie spans) lies inside its interval, jointly for all classifiers.

Hand-written: max-T libraries (R's multcomp, statsmodels' ``multipletests``) take p-values or a parametric
model, not a joint permutation distribution; the statistics of every pair of a block of shuffled tables are
one vectorised ranking (``scipy.stats.rankdata`` along the datasets).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from benchirt.rating.separation import within_dataset_permutations

#: Elements of the (block, k, k) arrays of shuffled statistics computed at once (about 40 MB of float64).
BLOCK_ELEMENTS = 5_000_000
#: Relative tolerance under which a shuffled statistic counts as equal to the observed one (float noise).
EQUAL_STATISTIC = 1e-9


@dataclass
class StepDown:
    """Result of :func:`step_down`, classifiers in the input order.

    Attributes
    ----------
    statistic : numpy.ndarray, shape (k, k)
        The pair statistic z_ij (antisymmetric; positive when i scores above j); 0 where a pair shares no
        dataset on which they differ.
    p_adjusted : numpy.ndarray, shape (k, k)
        Step-down adjusted p-values (symmetric; 1 on the diagonal).
    p_single_step : numpy.ndarray, shape (k, k)
        Single-step max-T adjusted p-values on the same shuffled tables (never below ``p_adjusted``).
    better : numpy.ndarray of bool, shape (k, k)
        ``better[i, j]``: i is separated from j and scores above it (p_adjusted ≤ α and z_ij > 0).
    rank_low, rank_high : numpy.ndarray of int, shape (k,)
        Joint rank intervals (1 = best) at level 1 − α.
    alpha : float
    n_tables : int
        Shuffled tables used.
    statistic_name : str
        Key of :data:`STATISTICS`.
    """

    statistic: np.ndarray
    p_adjusted: np.ndarray
    p_single_step: np.ndarray
    better: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    alpha: float
    n_tables: int
    statistic_name: str = "signed_rank"


def signed_rank(differences: np.ndarray) -> np.ndarray:
    """Studentised Wilcoxon signed-rank statistic of each pair's per-dataset differences (Wilcoxon 1945).

    Over the datasets where the difference is not 0 (zeros and absences dropped, Wilcoxon's convention),
    the |differences| are ranked (ties share the average rank) and z = Σ sign(d)·rank / sqrt(Σ rank²): the
    signed-rank sum over its standard deviation under random signs, ties included.

    Parameters
    ----------
    differences : numpy.ndarray, shape (P, D, m)
        NaN where a dataset lacks one of the pair.

    Returns
    -------
    numpy.ndarray, shape (P, m)
    """
    size = np.nan_to_num(np.abs(differences), nan=0.0)
    zeros = (size == 0).sum(axis=1, keepdims=True)
    ranks = np.where(size > 0, rankdata(size, axis=1) - zeros, 0.0)   # the zeros take the lowest ranks
    signed = (np.sign(np.nan_to_num(differences)) * ranks).sum(axis=1)
    spread = np.sqrt((ranks * ranks).sum(axis=1))
    return np.divide(signed, spread, out=np.zeros_like(signed), where=spread > 0)


def studentised_mean(differences: np.ndarray) -> np.ndarray:
    """t = mean(d) / sqrt(var(d) / n) of each pair's per-dataset differences (var with ddof 1, over the n
    datasets where both are present); 0 where n < 2 or every difference is 0, ±inf where all are equal.
    :func:`step_down` applies it to scores standardised within each dataset (:func:`standardised`)."""
    present = ~np.isnan(differences)
    n = present.sum(axis=1)
    d = np.where(present, differences, 0.0)
    safe_n = np.maximum(n, 2)
    mean = d.sum(axis=1) / safe_n
    variance = np.where(present, (d - mean[:, None, :]) ** 2, 0.0).sum(axis=1) / (safe_n - 1)
    flat = variance <= EQUAL_STATISTIC * np.maximum(mean * mean, np.finfo(float).tiny)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(flat, np.where(mean != 0, np.sign(mean) * np.inf, 0.0), mean / np.sqrt(variance / safe_n))
    return np.where(n >= 2, t, 0.0)


def standardised(scores: np.ndarray) -> np.ndarray:
    """Each row (dataset) minus its mean over its present entries, over their standard deviation (ddof 0);
    a dataset where all present classifiers score the same becomes all 0. NaN (absent) stays NaN."""
    scores = np.asarray(scores, dtype=float)
    spread = np.nanstd(scores, axis=1, keepdims=True)
    centred = scores - np.nanmean(scores, axis=1, keepdims=True)
    return np.divide(centred, spread, out=np.where(np.isnan(scores), np.nan, 0.0), where=spread > 0)


#: Pair statistics :func:`step_down` can use: name → (transform of the datasets × classifiers scores, statistic
#: of the per-dataset differences). A transform acts on each dataset's set of scores, so it is the same in every
#: shuffled table (a dataset's mean and spread do not depend on who scored what).
STATISTICS = {
    "signed_rank": (lambda scores: np.asarray(scores, dtype=float), signed_rank),
    "studentised_mean": (standardised, studentised_mean),
    "standardised_signed_rank": (standardised, signed_rank),
}
#: The statistic of the primary verdict, chosen by benchmarks/rating_leaderboard.py (docs/rating.md).
DEFAULT_STATISTIC = "signed_rank"


def step_down(scores: np.ndarray, n_tables: int, alpha: float = 0.05, seed: int = 0,
              statistic: str = DEFAULT_STATISTIC) -> StepDown:
    """Step-down max-T decisions and joint rank intervals of the classifiers in a datasets × classifiers table.

    Parameters
    ----------
    scores : numpy.ndarray, shape (D, k)
        Scores, higher is better, NaN where a classifier is absent.
    n_tables : int
        Tables shuffled within datasets (:func:`benchirt.rating.separation.within_dataset_permutations`,
        the same shuffles as the range test's for the same seed).
    alpha : float
        Family-wise error rate over all pairs.
    seed : int
    statistic : str
        A key of :data:`STATISTICS`.

    Returns
    -------
    StepDown
    """
    transform, pair_statistic = STATISTICS[statistic]
    values = transform(scores)
    present = ~np.isnan(values)
    n_datasets, k = values.shape
    first, second = np.triu_indices(k, 1)
    observed = pair_statistic((values[:, first] - values[:, second])[None])[0]
    size = np.abs(observed)
    order = np.argsort(-size, kind="stable")
    threshold = size[order] * (1.0 - EQUAL_STATISTIC)
    exceed_step, exceed_single = np.zeros(size.size), np.zeros(size.size)
    permutation = within_dataset_permutations(present, n_tables, seed)
    block = max(1, BLOCK_ELEMENTS // max(n_datasets * first.size, 1))
    for start in range(0, n_tables, block):
        taken = permutation[start:start + block]
        shuffled = np.take_along_axis(np.broadcast_to(values, taken.shape), taken, axis=2)
        ordered = np.abs(pair_statistic(shuffled[:, :, first] - shuffled[:, :, second]))[:, order]
        successive = np.maximum.accumulate(ordered[:, ::-1], axis=1)[:, ::-1]   # max over pairs r, r+1, … of the order
        exceed_step += (successive >= threshold).sum(axis=0)
        exceed_single += (successive[:, :1] >= threshold).sum(axis=0)
    p_step = np.maximum.accumulate((exceed_step + 1.0) / (n_tables + 1.0))
    p_single = (exceed_single + 1.0) / (n_tables + 1.0)
    z = np.zeros((k, k))
    z[first, second] = observed
    z -= z.T
    p_adjusted, p_single_step = np.ones((k, k)), np.ones((k, k))
    for matrix, p in ((p_adjusted, p_step), (p_single_step, p_single)):
        matrix[first[order], second[order]] = p
        matrix.T[first, second] = matrix[first, second]
    better = (p_adjusted <= alpha) & (z > 0)
    low, high = rank_intervals(better)
    return StepDown(z, p_adjusted, p_single_step, better, low, high, float(alpha), int(n_tables), statistic)


def rank_intervals(better: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joint rank intervals from simultaneous decisions (Klein, Wright & Wieczorek 2020): rank_low_i =
    1 + #{j better than i}, rank_high_i = k − #{j that i is better than}."""
    better = np.asarray(better, dtype=bool)
    k = better.shape[0]
    return 1 + better.sum(axis=0), k - better.sum(axis=1)

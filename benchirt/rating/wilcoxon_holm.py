"""The primary verdict with ``rate.verdict: holm``: each pair's Wilcoxon signed-rank test, Holm's correction.

Each of the k(k−1)/2 pairs is compared on the datasets both have by the two-sided Wilcoxon signed-rank test (Wilcoxon
1945; zero differences dropped; exact where scipy is, :func:`benchirt.rating.pairwise.wilcoxon_p`), the p-values
adjusted by Holm's (1979) step-down method (:func:`benchirt.rating.pairwise.holm_adjusted`); a pair is separated when
its adjusted p-value is below α, in the direction of its signed-rank statistic. Holm holds the family-wise error at α
under any dependence, and each test needs only that a pair's differences are symmetric under its null — the symmetry the
step-down's reflected tables (:mod:`benchirt.rating.stepdown`) rest on, without their use of how the pairs move
together. Demšar (2006) and Benavoli, Corani & Mangili (2016) recommend this test. Its price: Holm's first step
multiplies the smallest p-value by the number of pairs, and an exact signed-rank test over n datasets cannot go below 2
/ 2ⁿ, so with many classifiers and few datasets it cannot separate any pair.

The joint rank intervals follow from the decisions (Klein, Wright & Wieczorek 2020;
:func:`benchirt.rating.stepdown.rank_intervals`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchirt.rating.pairwise import holm_adjusted, wilcoxon_p
from benchirt.rating.stepdown import rank_intervals, signed_rank


@dataclass(kw_only=True)
class WilcoxonHolm:
    """Result of :func:`wilcoxon_holm`, classifiers in the input order.

    Attributes
    ----------
    statistic : numpy.ndarray, shape (k, k)
        The studentised signed-rank statistic z_ij (antisymmetric; positive when i scores above j).
    p_adjusted : numpy.ndarray, shape (k, k)
        Holm-adjusted p-values (symmetric; 1 on the diagonal).
    better : numpy.ndarray of bool, shape (k, k)
        ``better[i, j]``: i is separated from j and scores above it (p_adjusted < α and z_ij > 0).
    rank_low, rank_high : numpy.ndarray of int, shape (k,)
        Joint rank intervals (1 = best) at level 1 − α.
    alpha : float
    """

    statistic: np.ndarray
    p_adjusted: np.ndarray
    better: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    alpha: float


def wilcoxon_holm(scores: np.ndarray, *, alpha: float = 0.05) -> WilcoxonHolm:
    """Wilcoxon–Holm decisions and joint rank intervals of the classifiers in a datasets × classifiers table.

    ``scores`` (D, k): higher is better, NaN where absent (each pair uses the datasets both have); ``alpha``:
    family-wise error rate over all pairs. Returns :class:`WilcoxonHolm`.
    """
    scores = np.asarray(scores, dtype=float)
    k = scores.shape[1]
    first, second = np.triu_indices(k, 1)
    differences = scores[:, first] - scores[:, second]
    p = np.array([wilcoxon_p(column[~np.isnan(column)]) for column in differences.T])
    adjusted = holm_adjusted(p)
    z = np.zeros((k, k))
    z[first, second] = signed_rank(differences[None])[0]
    z -= z.T
    p_adjusted = np.ones((k, k))
    p_adjusted[first, second] = adjusted
    p_adjusted.T[first, second] = adjusted
    better = (p_adjusted < alpha) & (z > 0)
    low, high = rank_intervals(better)
    return WilcoxonHolm(statistic=z, p_adjusted=p_adjusted, better=better, rank_low=low, rank_high=high,
                        alpha=float(alpha))

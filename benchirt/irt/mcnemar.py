"""McNemar's exact test (McNemar 1947) on every pair of respondents at once, from their 0/1 answers to the same items,
at one per-pair level (:data:`PAIR_ALPHA`) for :mod:`benchirt.irt.usefulness` and :mod:`benchirt.subsets.value`."""
from __future__ import annotations

import numpy as np
from scipy.stats import binom

#: Per-pair level of McNemar's test.
PAIR_ALPHA = 0.05


def mcnemar_separated(answers: np.ndarray, *, alpha: float = PAIR_ALPHA, block: int = 512) -> np.ndarray:
    """Which pairs of rows (respondents) answer differently by McNemar's exact test at ``alpha``: (n, n) bool. The
    discordant counts of all pairs are two matrix products (``block`` rows at a time), and the exact two-sided
    binomial p-value at p = 1/2 is ``min(1, 2 · BinomCDF(min(b, c); b + c, 1/2))`` — what
    :func:`scipy.stats.binomtest` returns pair by pair (tested against it). Hand-written: a pair-by-pair
    :func:`scipy.stats.binomtest` loop is far too slow for large fields."""
    answers = np.asarray(answers, dtype=np.float64)
    n = len(answers)
    separated = np.zeros((n, n), dtype=bool)
    wrong = 1.0 - answers
    for start in range(0, n, block):
        stop = min(start + block, n)
        only_a = answers[start:stop] @ wrong.T          # items row a got right and row b wrong
        only_b = wrong[start:stop] @ answers.T
        low, total = np.minimum(only_a, only_b), only_a + only_b
        p_value = np.minimum(1.0, 2.0 * binom.cdf(low, total, 0.5))
        separated[start:stop] = (total > 0) & (p_value < alpha)
    np.fill_diagonal(separated, False)
    return separated

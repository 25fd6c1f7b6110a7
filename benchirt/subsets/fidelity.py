"""Does a subset rank the classifiers like the full suite, and better than chance?

Cardoso et al. 2021 §5.4 judged its subsets by reading rating tables; the two statistics here measure what it read:

* **Kendall τ** (τ-b, :func:`scipy.stats.kendalltau`) between the *real* classifiers' ratings on the subset and on the
  full suite: 1 = same order, 0 = no relation.
* **Separation**: the lowest real classifier's rating minus the highest *baseline* artificial classifier's (§5.4's
  "rating difference between the last real classifier and the first artificial one"); positive = every real classifier
  above every baseline. An artificial classifier whose mean score over the full suite exceeds every real one's (the
  optimal classifier) is an upper reference, not a baseline; no name is assumed, nor that it wins on every dataset (it
  does not, with decodIRT's ltm estimates).

Chance is the same statistics over ``n_random`` subsets of the same size drawn uniformly without replacement. The
subset's place is a mid-rank percentile (100 = above every random subset) and a one-sided Monte-Carlo p-value ``(1 +
#{random ≥ subset}) / (n_random + 1)`` (Davison & Hinkley 1997, eq. 4.11).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import kendalltau


def kendall_tau(reference: pd.Series, ratings: pd.Series) -> float:
    """Kendall τ-b in [-1, 1] between two ratings (Series indexed by classifier: full suite and subset) on their common
    classifiers; 0.0 where undefined (fewer than two shared, or a constant rating)."""
    common = reference.index.intersection(ratings.index)
    return paired_tau(reference.loc[common].to_numpy(float), ratings.loc[common].to_numpy(float))


def paired_tau(reference: np.ndarray, ratings: np.ndarray) -> float:
    """:func:`kendall_tau` of two arrays of ratings of the same classifiers, in the same order (0.0 where τ is
    undefined: fewer than two classifiers, a constant rating or a NaN)."""
    if len(reference) < 2:
        return 0.0
    tau = kendalltau(reference, ratings).statistic
    return float(tau) if np.isfinite(tau) else 0.0


def separation(ratings: pd.Series, real: pd.Index, baselines: pd.Index) -> float:
    """Lowest real rating minus highest baseline rating, in rating points (Cardoso et al. 2021 §5.4); ``real`` and
    ``baselines`` name the classifiers of ``ratings``, a NaN rating is skipped."""
    return rating_gap(ratings.loc[real].dropna().to_numpy(float), ratings.loc[baselines].dropna().to_numpy(float))


def rating_gap(real: np.ndarray, baselines: np.ndarray) -> float:
    """:func:`separation` of two arrays of ratings: the lowest of ``real`` minus the highest of ``baselines``
    (NaN when either is empty)."""
    if not (len(real) and len(baselines)):
        return float("nan")
    return float(real.min() - baselines.max())


def upper_references(matrix: pd.DataFrame, real: pd.Index, artificial: pd.Index) -> pd.Index:
    """Artificial classifiers whose mean score over the suite exceeds every real classifier's; ``matrix`` is datasets ×
    classifiers (True-Score, NaN where absent), ``real, artificial`` the names by role."""
    if len(real) == 0 or len(artificial) == 0:
        return pd.Index([], dtype=object)
    means = matrix.mean(axis=0)
    best_real = means.loc[real].max()
    return pd.Index([name for name in artificial if means[name] > best_real], dtype=object)


def place_in_distribution(value: float, draws: np.ndarray) -> tuple[float, float]:
    """Mid-rank percentile of ``value`` (the IRT subset's statistic) among ``draws`` (random subsets of the same size)
    and the one-sided Monte-Carlo p-value: ``100 · (#{draws < value} + ½·#{draws == value}) / n_random`` in [0, 100]
    and ``(1 + #{draws ≥ value}) / (n_random + 1)`` in (0, 1]."""
    draws = np.asarray(draws, dtype=float)
    below = np.count_nonzero(draws < value)
    equal = np.count_nonzero(draws == value)
    percentile = 100.0 * (below + 0.5 * equal) / len(draws)
    p_value = (1 + len(draws) - below) / (len(draws) + 1)
    return float(percentile), float(p_value)


def random_subsets(n_datasets: int, size: int, n_random: int, *, seed: int = 0) -> np.ndarray:
    """``n_random`` subsets of ``size`` out of ``n_datasets`` datasets, uniform without replacement: (n_random, size)
    indices, each row ascending (= sorted name order). Seeded with ``(seed, size)``, so one size's draws do not
    depend on the other sizes evaluated."""
    rng = np.random.default_rng([seed, size])
    rows = rng.permuted(np.tile(np.arange(n_datasets), (n_random, 1)), axis=1)[:, :size]
    return np.sort(rows, axis=1)

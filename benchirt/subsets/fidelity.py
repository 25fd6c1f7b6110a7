"""Does a subset rank the classifiers like the full suite, and better than chance?

Cardoso et al. 2021 §5.4 judged its subsets by reading rating tables; the two statistics here measure what it
read there:

* **Kendall τ** (τ-b, :func:`scipy.stats.kendalltau`) between the ratings of the *real* classifiers
  on the subset and on the full suite: 1 = the subset keeps the full suite's order of the real
  classifiers, 0 = no relation.
* **Separation**: the lowest rating of a real classifier minus the highest rating of a *baseline*
  artificial classifier (Cardoso et al. 2021 §5.4 reads it as "the rating difference between the last real
  classifier and the first artificial one", 34.77 on the full suite and 155.3 on the 70 % subset).
  Positive = every real classifier is rated above every baseline. An artificial classifier whose
  mean score over the full suite exceeds every real classifier's (the optimal classifier) is an
  upper reference, not a baseline, and is left out; no name is assumed. (Requiring it to win on
  *every* dataset would fail on real data: with decodIRT's ltm estimates the optimal classifier's
  True-Score falls below a real classifier's on 20 of the 50 reference datasets.)

Chance is the distribution of the same statistics over ``n_random`` subsets of the same size drawn
uniformly without replacement from the full suite. The subset's place in it is reported as a
mid-rank percentile (100 = above every random subset) and a one-sided Monte-Carlo p-value
``(1 + #{random ≥ subset}) / (n_random + 1)`` (Davison & Hinkley 1997, eq. 4.11): small = the
IRT subset beats chance.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import kendalltau


def kendall_tau(reference: pd.Series, ratings: pd.Series) -> float:
    """Kendall τ-b between two ratings of the same classifiers; 0.0 where it is undefined.

    Parameters
    ----------
    reference, ratings : Series, index = classifier
        Ratings on the full suite and on a subset; compared on their common classifiers.

    Returns
    -------
    float in [-1, 1]
        0.0 when fewer than two classifiers are shared or one of the ratings is constant
        (τ is undefined there: no order to agree with).
    """
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
    """Lowest real rating minus highest baseline rating, in rating points (Cardoso et al. 2021 §5.4).

    Parameters
    ----------
    ratings : Series, index = classifier
    real, baselines : Index
        Names of the real classifiers and of the baseline artificial classifiers; a NaN rating is skipped.
    """
    return rating_gap(ratings.loc[real].dropna().to_numpy(float), ratings.loc[baselines].dropna().to_numpy(float))


def rating_gap(real: np.ndarray, baselines: np.ndarray) -> float:
    """:func:`separation` of two arrays of ratings: the lowest of ``real`` minus the highest of ``baselines``
    (NaN when either is empty)."""
    if not (len(real) and len(baselines)):
        return float("nan")
    return float(real.min() - baselines.max())


def upper_references(matrix: pd.DataFrame, real: pd.Index, artificial: pd.Index) -> pd.Index:
    """Artificial classifiers whose mean score over the suite exceeds every real classifier's.

    Parameters
    ----------
    matrix : DataFrame, index = dataset, columns = classifier
        Scores (True-Score) of the full suite; NaN where a classifier is absent.
    real, artificial : Index
        Classifier names by role.
    """
    if len(real) == 0 or len(artificial) == 0:
        return pd.Index([], dtype=object)
    means = matrix.mean(axis=0)
    best_real = means.loc[real].max()
    return pd.Index([name for name in artificial if means[name] > best_real], dtype=object)


def place_in_distribution(value: float, draws: np.ndarray) -> tuple[float, float]:
    """Mid-rank percentile of ``value`` among ``draws`` and the one-sided Monte-Carlo p-value.

    Parameters
    ----------
    value : float
        The statistic of the IRT subset.
    draws : ndarray, shape (n_random,)
        The statistic of random subsets of the same size.

    Returns
    -------
    percentile : float in [0, 100]
        ``100 · (#{draws < value} + ½·#{draws == value}) / n_random``.
    p_value : float in (0, 1]
        ``(1 + #{draws ≥ value}) / (n_random + 1)``.
    """
    draws = np.asarray(draws, dtype=float)
    below = np.count_nonzero(draws < value)
    equal = np.count_nonzero(draws == value)
    percentile = 100.0 * (below + 0.5 * equal) / len(draws)
    p_value = (1 + len(draws) - below) / (len(draws) + 1)
    return float(percentile), float(p_value)


def random_subsets(n_datasets: int, size: int, n_random: int, *, seed: int = 0) -> np.ndarray:
    """``n_random`` subsets of ``size`` out of ``n_datasets`` datasets, uniform without replacement.

    The generator is seeded with ``(seed, size)`` so that the draws for one size do not depend on
    which other sizes are evaluated.

    Returns
    -------
    ndarray of int, shape (n_random, size)
        Dataset indices, each row sorted ascending (= sorted dataset-name order).
    """
    rng = np.random.default_rng([seed, size])
    rows = rng.permuted(np.tile(np.arange(n_datasets), (n_random, 1)), axis=1)[:, :size]
    return np.sort(rows, axis=1)

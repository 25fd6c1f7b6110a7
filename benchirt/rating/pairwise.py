"""Every pair of classifiers compared on its own: frequentist and Bayesian tests over datasets.

The Nemenyi test's verdict on a pair depends on which other classifiers are in the pool (Benavoli, Corani & Mangili,
JMLR 2016). Here each pair is compared on the datasets both have, using only their two scores:

- Wilcoxon signed-rank test over datasets (``scipy.stats.wilcoxon``; zero differences dropped), p-values corrected for
  all k(k−1)/2 pairs by Holm's step-down method (:func:`holm_adjusted`), as Demšar (2006) and Benavoli et al. recommend.
- The Bayesian sign test with a region of practical equivalence (ROPE) of Benavoli et al. (JMLR 2017), from ``baycomp``:
  the posterior probabilities that a is better by more than the ROPE, that they are equivalent within it, or that b is
  better (docs/rating.md says why not the signed-rank test).

Holm's adjustment is written here (the same numbers as ``statsmodels.stats.multitest.multipletests(p, method="holm")``,
pinned by a test) because that call runs ``gc.collect()`` every time, which costs more than the tests when verdicts are
computed on many tables.
"""
from __future__ import annotations

import warnings

import baycomp
import numpy as np
import pandas as pd
from scipy.stats import permutation_test, rankdata, wilcoxon

#: Columns of the pairwise table (``pairwise.csv``).
PAIRWISE_COLUMNS = (
    "a", "b", "n_datasets", "wins", "losses", "ties", "mean_difference",
    "wilcoxon_p", "wilcoxon_p_holm", "p_a_better", "p_equivalent", "p_b_better",
)
#: Elements of the (datasets, pairs) blocks :func:`pair_counts` computes at once.
PAIR_BLOCK_ELEMENTS = 2_000_000
#: Posterior samples of each Bayesian sign test (Monte Carlo sd of a probability ≤ 0.0036).
N_POSTERIOR_SAMPLES = 20_000


def pairwise_comparisons(
    matrix: pd.DataFrame,
    *,
    order: list[str] | None = None,
    rope: float = 0.01,
    tie_tolerance: float = 0.0,
    seed: int = 0,
    checked: int | None = None,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Compare every pair of classifiers over the datasets where both have a score.

    Parameters
    ----------
    matrix : pandas.DataFrame, shape (n_datasets, k)
        Scores, datasets × classifiers, NaN where a classifier is absent (higher is better).
    order : list of str, optional
        Classifier order (default the columns of ``matrix``); each pair (a, b) has a before b.
    rope : float
        Half-width of the region of practical equivalence, in score units (0 = none: ``p_equivalent`` is then 0).
    tie_tolerance, seed
        Scores closer than this tie in ``wins/losses/ties``; pair number p's posterior sampling uses ``seed + p``.
    checked : int, optional
        Run the per-pair tests (Wilcoxon, Holm over their family, Bayesian sign test) only on the pairs among the first
        ``checked`` of ``order``; the others get NaN tests. Default: every pair.
    pairs : tuple of two numpy.ndarray, optional
        The pairs compared, as positions in ``order`` (first before second); default every pair.

    Returns
    -------
    pandas.DataFrame
        One row per pair, columns :data:`PAIRWISE_COLUMNS`; ``wins`` = datasets where a scores higher. A pair with no
        common dataset, or all differences zero, gets ``wilcoxon_p`` = 1.
    """
    order = list(matrix.columns) if order is None else list(order)
    values = matrix[order].to_numpy(dtype=float)
    first, second = np.triu_indices(len(order), 1) if pairs is None else pairs
    table = pair_counts(values, first, second, tie_tolerance=tie_tolerance)
    table.insert(0, "b", np.asarray(order, dtype=object)[second])
    table.insert(0, "a", np.asarray(order, dtype=object)[first])
    limit = len(order) if checked is None else min(checked, len(order))
    tested = np.flatnonzero(second < limit)
    tests = pd.DataFrame([{"wilcoxon_p": wilcoxon_p(difference), **_bayesian_sign_test(x, y, rope, seed + n)}
                          for n, (x, y, difference) in enumerate(_common_scores(values, first[tested], second[tested]))],
                         index=tested, columns=["wilcoxon_p", "p_a_better", "p_equivalent", "p_b_better"])
    tests.insert(1, "wilcoxon_p_holm", holm_adjusted(tests["wilcoxon_p"]))
    return table.join(tests)[list(PAIRWISE_COLUMNS)]


def pair_counts(values: np.ndarray, first: np.ndarray, second: np.ndarray, *,
                tie_tolerance: float = 0.0) -> pd.DataFrame:
    """``n_datasets, wins, losses, ties, mean_difference`` of the pairs ``first``–``second`` (columns of the
    datasets × classifiers ``values``, NaN where absent), over the datasets both are on; computed for a block
    of pairs at a time."""
    columns = {name: np.zeros(first.size) for name in ("n_datasets", "wins", "losses", "ties", "mean_difference")}
    block = max(1, PAIR_BLOCK_ELEMENTS // max(values.shape[0], 1))
    for start in range(0, first.size, block):
        taken = slice(start, start + block)
        difference = values[:, first[taken]] - values[:, second[taken]]
        both = ~np.isnan(difference)
        tied = both & (np.abs(np.nan_to_num(difference)) <= tie_tolerance)
        n = both.sum(axis=0)
        columns["n_datasets"][taken] = n
        columns["wins"][taken] = (both & ~tied & (np.nan_to_num(difference) > 0)).sum(axis=0)
        columns["losses"][taken] = (both & ~tied & (np.nan_to_num(difference) < 0)).sum(axis=0)
        columns["ties"][taken] = tied.sum(axis=0)
        columns["mean_difference"][taken] = np.nansum(difference, axis=0) / np.maximum(n, 1)
    counts = pd.DataFrame(columns)
    integers = ["n_datasets", "wins", "losses", "ties"]
    counts[integers] = counts[integers].astype(int)
    return counts


def _common_scores(values: np.ndarray, first: np.ndarray, second: np.ndarray):
    """Each pair's two score vectors over the datasets both are on, and their difference."""
    for i, j in zip(first, second):
        both = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
        x, y = values[both, i], values[both, j]
        yield x, y, x - y


def holm_adjusted(p: np.typing.ArrayLike) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values, in the input order: the i-th smallest of m multiplied by m − i + 1,
    made non-decreasing in that order and capped at 1. Tied p-values get the same adjusted value."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1)), 1.0)
    return adjusted


def wilcoxon_p(difference: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value; 1 when no difference is non-zero.

    With ties or zeros among at most 13 differences scipy's ``wilcoxon`` runs an exact permutation test calling its
    statistic once per sign flip; here the same test runs through ``scipy.stats.permutation_test`` with a vectorised
    statistic (the sum of the ranks of |d|, zeros dropped, over the positive differences): identical p-values. Every
    other case goes to ``wilcoxon`` itself.
    """
    difference = np.asarray(difference, dtype=float)
    nonzero = difference != 0
    if not np.any(nonzero):
        return 1.0
    magnitudes = np.abs(difference[nonzero])
    if difference.size <= 13 and (not nonzero.all() or np.unique(magnitudes).size < magnitudes.size):
        ranks = np.zeros_like(difference)
        ranks[nonzero] = rankdata(magnitudes)
        return float(permutation_test(
            (difference,), lambda d, axis=-1: (ranks * (d > 0)).sum(axis=axis), permutation_type="samples",
            vectorized=True, n_resamples=9999, alternative="two-sided", axis=-1).pvalue)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # scipy's note on small samples / normal approximation
        return float(wilcoxon(difference, zero_method="wilcox").pvalue)


def _bayesian_sign_test(x: np.ndarray, y: np.ndarray, rope: float, seed: int) -> dict[str, float]:
    """P(a better), P(equivalent), P(b better) by baycomp's Bayesian sign test (prior on the ROPE)."""
    if len(x) == 0:
        return {"p_a_better": np.nan, "p_equivalent": np.nan, "p_b_better": np.nan}
    probabilities = baycomp.SignTest.probs(x, y, rope, nsamples=N_POSTERIOR_SAMPLES, random_state=seed)
    if rope > 0:
        p_a, p_equivalent, p_b = probabilities
    else:
        (p_a, p_b), p_equivalent = probabilities, 0.0
    return {"p_a_better": float(p_a), "p_equivalent": float(p_equivalent), "p_b_better": float(p_b)}

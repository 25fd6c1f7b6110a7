"""The primary verdict: step-down max-T on within-dataset permutations, and the joint rank intervals it gives.

All k(k−1)/2 pairs are tested at once. Each pair (i, j) gets the studentised Wilcoxon signed-rank statistic of its
per-dataset differences d = x_i − x_j over the datasets both have (:func:`signed_rank`): a large gap counts for more
than a small one, while one dataset's outlying gap cannot outweigh many consistent ones (as it can for the t statistic,
:func:`studentised_mean`).

Its null distribution comes by default from **reflecting datasets** (``resampling="reflection"``): each resampled table
multiplies every dataset's row of differences by an independent random sign (all 2^D patterns, enumerated, when there
are no more than tables asked for). This leaves the table's distribution unchanged whenever the classifiers' noise
within a dataset is centrally symmetric and their expected scores are equal, whatever their spreads or correlations (the
randomisation hypothesis of Pesarin 2001 §1.9 and Westfall & Young 1993 §2.3 for paired data). ``resampling="shuffle"``
shuffles the classifiers' scores within every dataset (an absent classifier stays absent), as
:mod:`benchirt.rating.separation` does; it assumes the classifiers exchangeable within a dataset, which classifiers of
unequal spreads are not.

The decisions are Westfall & Young's (1993, Algorithm 2.8) **step-down max-T**: order the pairs by |z|, largest first;
the r-th pair's adjusted p-value is the share of resampled tables in which the largest |z| among the pairs from r on
reaches its |z| (Phipson & Smyth 2010's +1 in numerator and denominator when the tables are drawn at random; the plain
share when all patterns are enumerated), made non-decreasing down the order; a pair is separated when it is at most α.
The single-step max-T is its first step, so the step-down never separates fewer pairs. The chance of any false
separation is at most α (subset pivotality holds: the signs act on the true-null pairs' differences alone).

**Joint rank intervals** follow from the same decisions (Klein, Wright & Wieczorek 2020, §3): classifier i ranks no
better than 1 + #{classifiers separated as better than i} and no worse than k − #{classifiers i is separated as better
than}. With probability at least 1 − α every classifier's true rank (for tied strengths, every rank the tie spans) lies
in its interval, jointly.

Hand-written: max-T libraries (R's multcomp, statsmodels' ``multipletests``) take p-values or a parametric model, not a
joint permutation distribution; here the statistics of a block of shuffled tables are one vectorised ranking, and on
reflected tables, whose ranks do not change, one matrix product (:func:`signed_rank_weights`).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from benchirt.rating.config import RESAMPLING_MODES
from benchirt.rating.separation import within_dataset_permutations

#: Elements of the (block, D, pairs) arrays of resampled differences computed at once (about 40 MB of float64).
BLOCK_ELEMENTS = 5_000_000
#: Relative tolerance under which a shuffled statistic counts as equal to the observed one (float noise).
EQUAL_STATISTIC = 1e-9


@dataclass(kw_only=True)
class StepDown:
    """Result of :func:`step_down`, classifiers in the input order.

    Attributes
    ----------
    statistic : numpy.ndarray, shape (k, k)
        The pair statistic z_ij (antisymmetric; positive when i scores above j); 0 where a pair shares no dataset on
        which they differ.
    p_adjusted, p_single_step : numpy.ndarray, shape (k, k)
        Step-down and single-step max-T adjusted p-values on the same tables (symmetric; 1 on the diagonal; the
        single-step never below).
    better : numpy.ndarray of bool, shape (k, k)
        ``better[i, j]``: i is separated from j and scores above it (p_adjusted ≤ α and z_ij > 0).
    rank_low, rank_high : numpy.ndarray of int, shape (k,)
        Joint rank intervals (1 = best) at level 1 − α.
    alpha : float
    n_tables : int
        Resampled tables used (2^D when every sign pattern was enumerated).
    statistic_name, resampling : str
        Key of :data:`STATISTICS`; entry of :data:`benchirt.rating.config.RESAMPLING_MODES`.
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
    resampling: str = "reflection"


def signed_rank(differences: np.ndarray) -> np.ndarray:
    """Studentised Wilcoxon signed-rank statistic (P, m) of each pair's per-dataset differences (Wilcoxon 1945).

    ``differences`` (P, D, m) is NaN where a dataset lacks one of the pair. Zeros and absences dropped (Wilcoxon's
    convention), the |differences| ranked (ties share the average rank), z = Σ sign(d)·rank / sqrt(Σ rank²): the
    signed-rank sum over its standard deviation under random signs.
    """
    return signed_rank_weights(differences, axis=1).sum(axis=1)


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
    centred, spread = _centred(scores)
    return np.divide(centred, spread[:, None], out=np.where(np.isnan(scores), np.nan, 0.0), where=spread[:, None] > 0)


def row_spread(scores: np.ndarray) -> np.ndarray:
    """Each row's standard deviation (ddof 0) over its present entries; 0 for a row with none."""
    return _centred(np.asarray(scores, dtype=float))[1]


def _centred(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows minus their mean over the present entries, and each row's spread (ddof 0): computed without numpy's
    empty-slice warnings, a row with no present entry staying NaN with spread 0."""
    present = np.maximum((~np.isnan(scores)).sum(axis=1, keepdims=True), 1)
    centred = scores - np.nansum(scores, axis=1, keepdims=True) / present
    return centred, np.sqrt(np.nansum(centred**2, axis=1) / present[:, 0])


#: Pair statistics :func:`step_down` can use: name → (transform of the datasets × classifiers scores, statistic of the
#: per-dataset differences). A transform acts on each dataset's scores as a set, so it commutes with the resampling.
STATISTICS = {
    "signed_rank": (lambda scores: np.asarray(scores, dtype=float), signed_rank),
    "studentised_mean": (standardised, studentised_mean),
    "standardised_signed_rank": (standardised, signed_rank),
}
#: The statistic of the primary verdict, chosen by benchmarks/rating_leaderboard.py (docs/rating.md).
DEFAULT_STATISTIC = "signed_rank"


def dataset_reflections(n_datasets: int, n_tables: int, *, seed: int = 0) -> tuple[np.ndarray, bool]:
    """Signs (±1) per resampled table and dataset, shape (T, D): all 2^D patterns when there are at most ``n_tables``
    (then the returned ``exact`` is True), else ``n_tables`` drawn uniformly at random."""
    if n_datasets < 31 and 2 ** n_datasets <= n_tables:
        patterns = np.arange(2 ** n_datasets)[:, None] >> np.arange(n_datasets)
        return 1.0 - 2.0 * (patterns & 1), True
    rng = np.random.default_rng([seed, 2])   # a stream of its own (the shuffles use [seed, 1])
    return rng.choice([-1.0, 1.0], size=(n_tables, n_datasets)), False


def resampled_differences(values: np.ndarray, first: np.ndarray, second: np.ndarray, n_tables: int, seed: int,
                          resampling: str, block: int) -> tuple[Iterator[np.ndarray], int, bool]:
    """The pairs' differences in the resampled tables, in blocks of ``block`` tables (each of shape
    (b, D, P) for the P pairs ``first``–``second``), the number of tables and whether they enumerate every
    sign pattern."""
    if resampling == "reflection":
        signs, exact = dataset_reflections(values.shape[0], n_tables, seed=seed)
        differences = values[:, first] - values[:, second]
        reflected = (signs[start:start + block, :, None] * differences[None] for start in range(0, len(signs), block))
        return reflected, len(signs), exact
    permutation = within_dataset_permutations(~np.isnan(values), n_tables, seed=seed)

    def shuffled(start: int) -> np.ndarray:
        taken = permutation[start:start + block]
        table = np.take_along_axis(np.broadcast_to(values, taken.shape), taken, axis=2)
        return table[:, :, first] - table[:, :, second]
    return (shuffled(start) for start in range(0, n_tables, block)), n_tables, False


def step_down(scores: np.ndarray, n_tables: int, *, alpha: float = 0.05, seed: int = 0,
              statistic: str = DEFAULT_STATISTIC, resampling: str = "reflection") -> StepDown:
    """Step-down max-T decisions and joint rank intervals (:class:`StepDown`) of a datasets × classifiers table.

    ``scores`` (D, k): higher is better, NaN where absent. ``n_tables`` resampled tables: random sign patterns
    (:func:`dataset_reflections`; all 2^D when there are no more), or shuffles within datasets
    (:func:`benchirt.rating.separation.within_dataset_permutations`, the range test's shuffles for the same seed).
    ``alpha``: family-wise error rate over all pairs. ``statistic``: a key of :data:`STATISTICS`; ``resampling``: one of
    :data:`benchirt.rating.config.RESAMPLING_MODES`.
    """
    if resampling not in RESAMPLING_MODES:
        raise ValueError(f"resampling must be one of {', '.join(RESAMPLING_MODES)}, got {resampling!r}")
    transform, pair_statistic = STATISTICS[statistic]
    values = transform(scores)
    n_datasets, k = values.shape
    first, second = np.triu_indices(k, 1)
    if resampling == "reflection" and pair_statistic is signed_rank:
        observed, order, counts = _reflected_signed_rank(values, first, second, n_tables, seed)
    else:
        observed, order, counts = _resampled_by_blocks(values, first, second, n_tables, seed, pair_statistic,
                                                      resampling)
    z, p_adjusted, p_single_step = adjusted_matrices(k, first, second, observed, order, counts)
    n_used = counts[2]
    better = (p_adjusted <= alpha) & (z > 0)
    low, high = rank_intervals(better)
    return StepDown(statistic=z, p_adjusted=p_adjusted, p_single_step=p_single_step, better=better, rank_low=low, rank_high=high, alpha=float(alpha), n_tables=int(n_used), statistic_name=statistic,
                    resampling=resampling)


#: What a resampling pass counts: exceedances of each ordered pair's |statistic| by the step-down's successive
#: maxima and by the single-step maximum, the number of tables, and whether they enumerate every sign pattern.
Exceedances = tuple[np.ndarray, np.ndarray, int, bool]


def adjusted_matrices(k: int, first: np.ndarray, second: np.ndarray, observed: np.ndarray, order: np.ndarray,
                      counts: Exceedances) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The antisymmetric (k, k) statistic and the step-down and single-step adjusted p-values (symmetric, 1 on
    the diagonal) of the pairs ``first``–``second`` from their exceedance counts (Westfall & Young 1993,
    Algorithm 2.8; Phipson & Smyth 2010's +1 when the tables are drawn at random)."""
    exceed_step, exceed_single, n_used, exact = counts
    extra = 0.0 if exact else 1.0   # the observed table is one of the enumerated patterns
    p_step = np.maximum.accumulate((exceed_step + extra) / (n_used + extra))
    p_single = (exceed_single + extra) / (n_used + extra)
    z = np.zeros((k, k))
    z[first, second] = observed
    z -= z.T
    p_adjusted, p_single_step = np.ones((k, k)), np.ones((k, k))
    for matrix, p in ((p_adjusted, p_step), (p_single_step, p_single)):
        matrix[first[order], second[order]] = p
        matrix.T[first, second] = matrix[first, second]
    return z, p_adjusted, p_single_step


def exceedances(observed: np.ndarray, resampled: Iterator[np.ndarray], n_used: int, exact: bool
                ) -> tuple[np.ndarray, Exceedances]:
    """The step-down's order of the pairs and its exceedance counts, from blocks of resampled statistics.

    ``observed`` has shape (P,); ``resampled`` yields blocks (b, P) of the pairs' statistics in resampled tables, pairs
    in the order of ``observed``; ``n_used`` is the number of tables in all; ``exact`` whether they enumerate every
    pattern (the observed one among them).
    """
    order, threshold = ordered_thresholds(observed)
    exceed_step, exceed_single = np.zeros(observed.size), np.zeros(observed.size)
    for block in resampled:
        ordered = np.abs(block)[:, order]
        successive = np.maximum.accumulate(ordered[:, ::-1], axis=1)[:, ::-1]   # max over pairs r, r+1, … of the order
        exceed_step += (successive >= threshold).sum(axis=0)
        exceed_single += (successive[:, :1] >= threshold).sum(axis=0)
    return order, (exceed_step, exceed_single, n_used, exact)


def ordered_thresholds(observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs in the step-down's order (largest |statistic| first) and their thresholds (float noise allowed)."""
    size = np.abs(observed)
    order = np.argsort(-size, kind="stable")
    return order, size[order] * (1.0 - EQUAL_STATISTIC)


def _resampled_by_blocks(values: np.ndarray, first: np.ndarray, second: np.ndarray, n_tables: int, seed: int,
                         pair_statistic, resampling: str) -> tuple[np.ndarray, np.ndarray, Exceedances]:
    """Every resampled table's statistics recomputed from its differences, a block of tables at a time."""
    observed = pair_statistic((values[:, first] - values[:, second])[None])[0]
    block = max(1, BLOCK_ELEMENTS // max(values.shape[0] * first.size, 1))
    blocks, n_used, exact = resampled_differences(values, first, second, n_tables, seed, resampling, block)
    order, counts = exceedances(observed, (pair_statistic(differences) for differences in blocks), n_used, exact)
    return observed, order, counts


def signed_rank_weights(differences: np.ndarray, *, axis: int = 0) -> np.ndarray:
    """Each dataset's share of each pair's signed-rank statistic: sign(d)·rank(|d|) / sqrt(Σ rank²) along ``axis`` (the
    datasets), zeros and absences (NaN) ranked lowest and weighted 0 — so :func:`signed_rank` is its sum over the
    datasets and a reflected table's statistic is Σ_d s_d · share_d. Returns the shape of ``differences``."""
    size = np.nan_to_num(np.abs(differences), nan=0.0)
    zeros = (size == 0).sum(axis=axis, keepdims=True)
    ranks = np.where(size > 0, rankdata(size, axis=axis) - zeros, 0.0)   # the zeros take the lowest ranks
    spread = np.sqrt((ranks * ranks).sum(axis=axis, keepdims=True))
    signed = np.sign(np.nan_to_num(differences)) * ranks
    return np.divide(signed, spread, out=np.zeros_like(signed), where=spread > 0)


def _reflected_signed_rank(values: np.ndarray, first: np.ndarray, second: np.ndarray, n_tables: int,
                           seed: int) -> tuple[np.ndarray, np.ndarray, Exceedances]:
    """The signed-rank step-down on reflected tables without recomputing a rank.

    Reflection leaves the |differences|, so ranks and denominator are the same in every table: the statistics are the
    sign patterns times each dataset's share (:func:`signed_rank_weights`), one matrix product. Pairs are taken in
    chunks from the end of the step-down's order, carrying each table's running maximum, so memory grows with the chunk,
    not the number of pairs.
    """
    signs, exact = dataset_reflections(values.shape[0], n_tables, seed=seed)
    n_pairs = first.size
    chunk = max(1, BLOCK_ELEMENTS // max(len(signs), values.shape[0], 1))
    observed = np.concatenate([signed_rank_weights(values[:, first[start:start + chunk]]
                                                   - values[:, second[start:start + chunk]]).sum(axis=0)
                               for start in range(0, n_pairs, chunk)]) if n_pairs else np.zeros(0)
    order, threshold = ordered_thresholds(observed)
    exceed_step = np.zeros(n_pairs)
    running = np.zeros(len(signs))
    for end in range(n_pairs, 0, -chunk):
        start = max(0, end - chunk)
        taken = order[start:end]
        shares = signed_rank_weights(values[:, first[taken]] - values[:, second[taken]])
        successive = np.maximum.accumulate(np.abs(signs @ shares)[:, ::-1], axis=1)[:, ::-1]
        successive = np.maximum(successive, running[:, None])
        exceed_step[start:end] = (successive >= threshold[start:end]).sum(axis=0)
        running = successive[:, 0]
    exceed_single = (running[:, None] >= threshold).sum(axis=0)
    return observed, order, (exceed_step, exceed_single, len(signs), exact)


def rank_intervals(better: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joint rank intervals from simultaneous decisions (Klein, Wright & Wieczorek 2020): rank_low_i =
    1 + #{j better than i}, rank_high_i = k − #{j that i is better than}."""
    better = np.asarray(better, dtype=bool)
    k = better.shape[0]
    return 1 + better.sum(axis=0), k - better.sum(axis=1)

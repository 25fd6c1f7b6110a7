"""The verdict *on this suite*: is A better than B on these datasets' test rows?

The primary verdict (:mod:`benchirt.rating.stepdown`) asks whether A would beat B on other datasets like these; its unit
is the dataset, so a suite of 8 datasets cannot give a p-value below 2/2^8. The narrower question — on *these* datasets,
is A's accuracy higher? — is answered by the thousands of paired test rows, for every pair at once.

**Estimand.** For i and j present together on datasets B_ij, Δ_ij = |B_ij|⁻¹ Σ_{d∈B_ij} n_d⁻¹ Σ_{r∈d} (x_ri − x_rj),
each dataset weighted equally (x = 1 where the row is answered correctly).

**Statistic.** The self-normalised sum (Efron 1969) of the per-row differences weighted by w_d = 1/n_d: z_ij = Σ_d w_d
Σ_r (x_ri − x_rj) / sqrt(Σ_d w_d² Σ_r (x_ri − x_rj)²).

**Null tables.** Each row's pair of answers is swapped with probability ½ — one random sign s_r per row for every pair,
so the tables keep the dependence between pairs that max-T needs. The denominator is invariant, so a table's numerators
are Σ_d m_di m_dj w_d (U_di − U_dj) with U_d = Σ_r s_r x_r: one product of the sign pattern with each dataset's answers.
Under exchangeable answers on every row (McNemar 1947's null, row by row) the sign-flip distribution is exact; for the
weaker null Δ_ij = 0 the studentised statistic makes it asymptotically valid (Janssen 1999; Chung & Romano 2013). Rows
every present classifier answers alike are left out of the computation (not of n_d).

**Decisions.** Westfall & Young's (1993) step-down max-T over all pairs (:func:`benchirt.rating.stepdown.exceedances`),
family-wise error α; joint rank intervals as for the primary verdict (Klein, Wright & Wieczorek 2020).

Hand-written: no library runs a max-T step-down on row-level sign flips of many paired comparisons at once.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.rating.stepdown import BLOCK_ELEMENTS, adjusted_matrices, dataset_reflections, exceedances, rank_intervals


@dataclass(kw_only=True)
class OnSuite:
    """Result of :func:`on_suite_step_down`, classifiers in the given order.

    Attributes
    ----------
    statistic : numpy.ndarray, shape (k, k)
        z_ij (antisymmetric; positive when i answers more rows correctly); 0 where the pair shares no dataset or never
        answers differently.
    difference : numpy.ndarray, shape (k, k)
        Δ_ij, the mean over the shared datasets of the accuracy difference (NaN where none is shared).
    p_adjusted, better : numpy.ndarray, shape (k, k)
        Step-down adjusted p-values (symmetric; 1 on the diagonal); ``better[i, j]``: i is separated from j and above
        it.
    rank_low, rank_high : numpy.ndarray of int, shape (k,)
        Joint rank intervals at level 1 − α.
    alpha : float
    n_tables, n_rows, n_informative, n_datasets : int
        Sign patterns used (2^R when all were enumerated); test rows over all datasets, those answered differently by
        someone; datasets.
    """

    statistic: np.ndarray
    difference: np.ndarray
    p_adjusted: np.ndarray
    better: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    alpha: float
    n_tables: int
    n_rows: int
    n_informative: int
    n_datasets: int


@dataclass
class _Answers:
    """One dataset's informative rows: the present classifiers' answers (rows × present, float32: sums of 0/1 and
    ±1 are exact integers in it up to 2^24), which classifiers those are (``columns``, and ``present`` (k,) as a
    mask), weight 1/n_d."""

    answers: np.ndarray
    columns: np.ndarray
    present: np.ndarray
    weight: float

    def spread(self, values: np.ndarray, k: int) -> np.ndarray:
        """``values`` (..., present) placed in the present classifiers' columns of (..., k), 0 elsewhere."""
        out = np.zeros((*values.shape[:-1], k))
        out[..., self.columns] = values
        return out


def on_suite_step_down(rows: Mapping[str, pd.DataFrame], classifiers: Sequence[str], *, n_tables: int = 1000,
                       alpha: float = 0.05, seed: int = 0) -> OnSuite:
    """Which pairs of ``classifiers`` (the result's order) differ in accuracy on these datasets' test rows, all pairs at
    once.

    ``rows`` maps each dataset to its answers, respondents × test rows, 1 correct and 0 wrong (a classifier missing from
    a dataset's index is absent from it); ``n_tables`` random sign patterns are drawn (all 2^R of the R informative rows
    when there are no more); ``alpha`` is the family-wise error rate over all pairs. Returns :class:`OnSuite`.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = {"d1": pd.DataFrame([[1, 1, 1, 1, 1, 1], [1, 0, 1, 0, 1, 0]], index=["good", "bad"]),
    ...         "d2": pd.DataFrame([[1, 1, 1, 1], [0, 0, 1, 1]], index=["good", "bad"])}
    >>> result = on_suite_step_down(rows, ["good", "bad"], n_tables=1000)
    >>> result.n_informative, result.n_tables, round(float(result.p_adjusted[0, 1]), 3)
    (5, 32, 0.062)
    """
    classifiers = [str(name) for name in classifiers]
    datasets = [_informative(frame, classifiers) for frame in rows.values()]
    k = len(classifiers)
    present = np.array([d.present for d in datasets], dtype=float).reshape(len(datasets), k)
    shares = np.array([d.spread(d.weight * d.answers.sum(axis=0, dtype=float), k) for d in datasets]
                      ).reshape(len(datasets), k)
    numerator = _pair_sums(shares, present)
    variance = _pair_variance(datasets, present)
    first, second = np.triu_indices(k, 1)
    scale = np.sqrt(variance[first, second])
    observed = np.divide(numerator[first, second], scale, out=np.zeros(first.size), where=scale > 0)
    n_informative = sum(len(d.answers) for d in datasets)
    blocks, n_used, exact = _sign_flipped_sums(datasets, present, n_tables, seed)
    resampled = (np.divide(block[:, first, second], scale, out=np.zeros((len(block), first.size)), where=scale > 0)
                 for block in blocks)
    order, counts = exceedances(observed, resampled, n_used, exact)
    z, p_adjusted, _ = adjusted_matrices(k, first, second, observed, order, counts)
    better = (p_adjusted <= alpha) & (z > 0)
    low, high = rank_intervals(better)
    shared = present.T @ present
    difference = np.divide(numerator, shared, out=np.full((k, k), np.nan), where=shared > 0)
    n_rows = sum(frame.shape[1] for frame in rows.values())
    return OnSuite(statistic=z, difference=difference, p_adjusted=p_adjusted, better=better, rank_low=low, rank_high=high, alpha=float(alpha), n_tables=int(n_used), n_rows=int(n_rows),
                   n_informative=int(n_informative), n_datasets=len(datasets))


def present_answers(frame: pd.DataFrame, classifiers: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """One dataset's answers (respondents × test rows, 1 correct) of the ``classifiers`` it has: their positions in
    ``classifiers`` (ascending) and their answers, rows × those classifiers; refused without test rows or with a
    missing cell (both verdicts on this suite need every present classifier's answer on every row)."""
    if frame.shape[1] == 0:
        raise DataError("the on-this-suite verdict needs test rows: a dataset has none")
    index = frame.index.astype(str)
    present = np.isin(np.asarray(classifiers), index)
    answers = frame.set_axis(index).reindex(np.asarray(classifiers)[present]).to_numpy(dtype=float).T
    if np.isnan(answers).any():
        raise DataError("the on-this-suite verdict needs every present classifier's answer on every test row; "
                        "a response matrix has missing cells")
    return np.flatnonzero(present), answers


def _informative(frame: pd.DataFrame, classifiers: Sequence[str]) -> _Answers:
    """The rows of one dataset (as rows × classifiers) on which the classifiers present do not all agree."""
    columns, taken = present_answers(frame, classifiers)
    present = np.zeros(len(classifiers), dtype=bool)
    present[columns] = True
    varies = (taken != taken[:, :1]).any(axis=1) if taken.shape[1] else np.zeros(len(taken), dtype=bool)
    return _Answers(taken[varies].astype(np.float32), columns, present, 1.0 / frame.shape[1])


def _pair_sums(shares: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Σ_d m_di m_dj (A_di − A_dj) for every pair, where A = ``shares`` (zero where absent): (..., k, k)."""
    cross = np.einsum("...di,dj->...ij", shares, present)
    return cross - np.swapaxes(cross, -1, -2)


def _pair_variance(datasets: Sequence[_Answers], present: np.ndarray) -> np.ndarray:
    """Σ_d m_di m_dj w_d² Σ_r (x_ri − x_rj)² for every pair, through each dataset's Gram matrix."""
    k = present.shape[1]
    squares = np.array([d.spread(d.weight ** 2 * (d.answers ** 2).sum(axis=0, dtype=float), k) for d in datasets]
                       ).reshape(len(datasets), k)
    cross = np.zeros((k, k))
    for d in datasets:   # each dataset's Gram matrix among the classifiers present there (exact in float32)
        cross[np.ix_(d.columns, d.columns)] += d.weight ** 2 * (d.answers.T @ d.answers).astype(float)
    return squares.T @ present + present.T @ squares - 2.0 * cross


def _sign_flipped_sums(datasets: Sequence[_Answers], present: np.ndarray, n_tables: int, seed: int
                       ) -> tuple[Iterator[np.ndarray], int, bool]:
    """The numerators of the pairs in tables whose rows carry random signs, in blocks of tables (b, k, k); every
    sign pattern of the informative rows when there are at most ``n_tables`` of them."""
    sizes = [len(d.answers) for d in datasets]
    n_rows = sum(sizes)
    k = present.shape[1]
    block = max(1, BLOCK_ELEMENTS // max(n_rows, k * k, 1))
    if n_rows < 31 and 2 ** n_rows <= n_tables:
        signs, _ = dataset_reflections(n_rows, n_tables, seed=seed)
        return (_flipped(datasets, present, signs[start:start + block], sizes)
                for start in range(0, len(signs), block)), len(signs), True
    rng = np.random.default_rng([seed, 3])   # a stream of its own (the reflections use [seed, 2])

    def drawn(count: int) -> np.ndarray:
        return _flipped(datasets, present, rng.choice([-1.0, 1.0], size=(count, n_rows)), sizes)
    return (drawn(min(block, n_tables - start)) for start in range(0, n_tables, block)), n_tables, False


def _flipped(datasets: Sequence[_Answers], present: np.ndarray, signs: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """The pairs' numerators for each row of ``signs`` (b, R): per dataset its rows' signs times its answers."""
    edges = np.cumsum([0, *sizes])
    k = present.shape[1]
    signs = signs.astype(np.float32)
    shares = np.stack([d.spread(d.weight * (signs[:, edges[n]:edges[n + 1]] @ d.answers).astype(float), k)
                       for n, d in enumerate(datasets)], axis=1) if datasets else np.zeros((len(signs), 0, k))
    return _pair_sums(shares, present)

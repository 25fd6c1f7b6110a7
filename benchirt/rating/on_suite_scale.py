"""The verdict *on this suite* for fields too large to test pair by pair: each entrant's accuracy on the suite.

Above ``rate.pairwise_up_to`` entrants :mod:`benchirt.rating.on_suite` gives way to one interval per entrant
(:mod:`benchirt.rating.simultaneous`) of this estimate:

**Estimand.** Each entrant's accuracy on the suite, adjusted for which datasets it ran: the least-squares fit of the
two-way additive model acc_di = μ_d + α_i over the cells present (acc_di: i's share of d's test rows answered correctly,
every dataset weighted equally), α centred to mean 0. In a dense field α_i − α_j is exactly Δ_ij of
:mod:`benchirt.rating.on_suite`; in a sparse one it compares entrants on different datasets through the effects μ_d
(Scheffé 1959, *The Analysis of Variance*, §4.1, two-way layout without interaction). The fit is alternating means
(block coordinate descent on a convex quadratic), needing only each dataset's and entrant's sums.

**Replicates.** The test rows are resampled with replacement within each dataset (stratified bootstrap; Efron &
Tibshirani 1993, §8): replicate b's accuracies are (counts_b · X_d) / n_d, and its effects follow from the same fit
started at the point estimate. The datasets are fixed: their test rows are the sample.

Entrants outside the largest group connected by shared datasets cannot be compared with it: their intervals are
unbounded (a note says how many).

Hand-written: the fit is two sums per step over (replicates × entrants) arrays, which no ANOVA routine vectorises over
bootstrap replicates.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from benchirt.rating.on_suite import present_answers
from benchirt.rating.simultaneous import EntrantIntervals, simultaneous_intervals

#: Largest change of any effect (accuracy units) at which the alternating fit stops.
FIT_TOLERANCE = 1e-10
#: Alternating steps at most.
FIT_STEPS = 5000


@dataclass(kw_only=True)
class SuiteIntervals:
    """Result of :func:`on_suite_intervals`: the intervals, and the sizes and notes the sentences need.

    Attributes
    ----------
    intervals : EntrantIntervals
        Of α_i, entrants in the order given.
    n_rows, n_datasets : int
    notes : list of str
    """

    intervals: EntrantIntervals
    n_rows: int
    n_datasets: int
    notes: list[str]


def on_suite_intervals(rows: Mapping[str, pd.DataFrame], classifiers: Sequence[str], *, n_tables: int = 1000,
                       alpha: float = 0.05, seed: int = 0) -> SuiteIntervals:
    """Simultaneous intervals (:class:`SuiteIntervals`) of every entrant's accuracy on this suite (module docstring).

    ``rows`` maps each dataset to its answers, respondents × test rows, 1 correct and 0 wrong (a classifier missing from
    a dataset's index did not run it); ``classifiers`` are the entrants, in the order of the result; ``n_tables``
    bootstrap replicates of the test rows; ``alpha`` is 1 − the simultaneous coverage.

    Examples
    --------
    >>> rows = {"d1": pd.DataFrame([[1] * 40, [1, 0] * 20], index=["good", "bad"]),
    ...         "d2": pd.DataFrame([[1] * 30, [0, 1, 1] * 10], index=["good", "bad"])}
    >>> result = on_suite_intervals(rows, ["good", "bad"], n_tables=200)
    >>> [round(float(v), 3) for v in result.intervals.estimate], result.intervals.rank_low.tolist()
    ([0.208, -0.208], [1, 2])
    """
    names = [str(name) for name in classifiers]
    k = len(names)
    datasets = [present_answers(frame, names) for frame in rows.values()]
    present = np.zeros((len(datasets), k))
    for d, (columns, _) in enumerate(datasets):
        present[d, columns] = 1.0
    point_sums = _sums([(columns, answers.mean(axis=0, dtype=float)[None]) for columns, answers in datasets], k)
    estimate = additive_effects(*point_sums, present)[0]
    rng = np.random.default_rng([seed, 4])   # a stream of its own (the sign flips use [seed, 3])
    replicate_sums = _sums([(columns, _resampled_accuracy(answers, n_tables, rng)) for columns, answers in datasets], k)
    replicates = additive_effects(*replicate_sums, present, start=estimate)
    notes = []
    outside = _outside_largest_group(present)
    if outside.any():
        replicates[:, outside] = np.nan
        notes.append(f"on this suite, {int(outside.sum())} of {k} entrants share no chain of datasets with the "
                     "largest connected group and cannot be compared with it (unbounded intervals)")
    intervals = simultaneous_intervals(estimate, replicates, alpha=alpha)
    return SuiteIntervals(intervals=intervals, n_rows=sum(frame.shape[1] for frame in rows.values()),
                          n_datasets=len(datasets), notes=notes)


def additive_effects(dataset_sums: np.ndarray, entrant_sums: np.ndarray, present: np.ndarray, *,
                     start: np.ndarray | None = None) -> np.ndarray:
    """Least-squares entrant effects α (centred) of acc_di = μ_d + α_i, for each replicate at once, shape (B, k).

    ``dataset_sums`` (B, D): Σ_i acc_bdi over the entrants on each dataset; ``entrant_sums`` (B, k): Σ_d acc_bdi over
    each entrant's datasets; ``present`` (D, k): 1 where the entrant ran the dataset; ``start`` (k,) or (B, k),
    optional.
    """
    per_dataset = np.maximum(present.sum(axis=1), 1.0)
    per_entrant = np.maximum(present.sum(axis=0), 1.0)
    effects = np.zeros(entrant_sums.shape) if start is None else np.broadcast_to(start, entrant_sums.shape).copy()
    for _ in range(FIT_STEPS):
        dataset_effects = (dataset_sums - effects @ present.T) / per_dataset
        updated = (entrant_sums - dataset_effects @ present) / per_entrant
        updated -= updated.mean(axis=1, keepdims=True)
        step = float(np.abs(updated - effects).max()) if updated.size else 0.0
        effects = updated
        if step < FIT_TOLERANCE:
            break
    return effects


def _resampled_accuracy(answers: np.ndarray, n_tables: int, rng: np.random.Generator) -> np.ndarray:
    """Accuracies (n_tables, entrants) on the dataset's rows drawn with replacement (multinomial counts)."""
    n_rows = answers.shape[0]
    counts = rng.multinomial(n_rows, np.full(n_rows, 1.0 / n_rows), size=n_tables).astype(np.float32)
    return (counts @ answers.astype(np.float32)).astype(float) / n_rows   # 0/1 sums exact in float32


def _sums(accuracies: Sequence[tuple[np.ndarray, np.ndarray]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per replicate, each dataset's sum of accuracies (B, D) and each entrant's sum over its datasets (B, k)."""
    n_replicates = accuracies[0][1].shape[0] if accuracies else 1
    entrant_sums = np.zeros((n_replicates, k))
    dataset_sums = np.zeros((n_replicates, len(accuracies)))
    for d, (columns, accuracy) in enumerate(accuracies):
        dataset_sums[:, d] = accuracy.sum(axis=1)
        entrant_sums[:, columns] += accuracy
    return dataset_sums, entrant_sums


def _outside_largest_group(present: np.ndarray) -> np.ndarray:
    """Entrants not in the largest group linked by shared datasets (the bipartite graph's largest component)."""
    n_datasets, k = present.shape
    _, label = connected_components(_bipartite(present), directed=False)
    entrant_label = label[n_datasets:]
    largest = np.bincount(entrant_label).argmax() if k else 0
    return entrant_label != largest


def _bipartite(present: np.ndarray) -> csr_matrix:
    """The datasets–entrants graph as a sparse adjacency matrix (datasets first)."""
    n_datasets, k = present.shape
    d, i = np.nonzero(present)
    n = n_datasets + k
    return csr_matrix((np.ones(2 * d.size), (np.concatenate([d, n_datasets + i]), np.concatenate([n_datasets + i, d]))),
                      shape=(n, n))

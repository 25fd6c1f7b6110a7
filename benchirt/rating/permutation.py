"""How much Glicko-2 results depend on the order of the datasets (rating periods).

Glicko-2 is dynamic: one benchmark played in two dataset orders gives two different final tables, and since CC18's order
carries no meaning, a single order's table (Cardoso et al. 2021 Table 1) shows one draw of that variation, which its RD
does not include. This module replays the tournament under many seeded random orders
(:func:`benchirt.rating.batch.play_orders`, the single tournament's ``config.glicko``) and summarises each classifier's
rating and rank.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from benchirt.options import Integer
from benchirt.rating.batch import play_orders
from benchirt.rating.config import RatingConfig
from benchirt.rating.glicko import games_weighting
from benchirt.rating.scores import CheckedScores, checked_scores, score_matrix
from benchirt.rating.verdict import probability_is

#: The orders an analysis plays: at least two (``rate.n_permutations: 0``, no analysis, is the caller's to honour).
ORDERS = Integer(minimum=2, meaning="random dataset orders")


@dataclass(repr=False)
class PermutationAnalysis:
    """Ratings and ranks of every classifier under P random dataset orders.

    Attributes
    ----------
    summary : pandas.DataFrame, shape (k, 19)
        One row per classifier, sorted by mean rating (descending): ``rating_mean, rating_sd, rating_min, rating_p05,
        rating_median, rating_p95, rating_max`` (over orders), ``rd_mean`` (the single-order RD, averaged),
        ``sd_over_rd`` (rating_sd / rd_mean: above 1 the order moves the rating more than its RD admits), ``rank_mean,
        rank_sd, rank_min, rank_median, rank_max``, ``p_first`` (share of orders ranking it first, ties included),
        ``p_first_alone`` (first and no other classifier is) and ``p_top3``.
    ratings, rds, ranks : pandas.DataFrame, shape (P, k)
        Final rating, RD and rank (1 = best, ties share the smaller rank) per order and classifier.
    orders, datasets, seed
        (P, D) indices into ``datasets`` (the sorted dataset names) in the order played; the seed.
    """

    summary: pd.DataFrame
    ratings: pd.DataFrame
    rds: pd.DataFrame
    ranks: pd.DataFrame
    orders: np.ndarray
    datasets: list[str]
    seed: int

    @property
    def n_permutations(self) -> int:
        return int(self.orders.shape[0])

    def __repr__(self) -> str:
        top = self.summary.iloc[0]
        return (f"PermutationAnalysis(orders={self.n_permutations}, datasets={len(self.datasets)}, seed={self.seed}, "
                f"top={top['classifier']!r} (P(first) {probability_is(top['p_first'])}))")


def random_orders(n_datasets: int, n_permutations: int, *, seed: int = 0) -> np.ndarray:
    """``n_permutations`` independent uniform random permutations of ``range(n_datasets)``, shape (n_permutations,
    n_datasets)."""
    rng = np.random.default_rng(seed)
    return rng.permuted(np.tile(np.arange(n_datasets), (n_permutations, 1)), axis=1)


def permutation_analysis(
    scores: pd.DataFrame | CheckedScores,
    *,
    n_permutations: int | None = None,
    seed: int | None = None,
    config: RatingConfig | None = None,
    weighted: bool | None = None,
) -> PermutationAnalysis:
    """Play the Glicko-2 tournament under many seeded random dataset orders; returns :class:`PermutationAnalysis`.

    ``scores`` is the long ``dataset, classifier, score`` table; ``n_permutations`` (≥ 2, :data:`ORDERS`) and ``seed``
    default to ``config``'s, which also gives the initial values, tie tolerance and score column as in the single
    tournament. ``weighted``: games weighted per dataset (:mod:`benchirt.rating.batch`); default decided as the
    tournament decides (:func:`benchirt.rating.glicko.games_weighting`, sorted order).
    """
    config = config or RatingConfig()
    n_permutations = config.n_permutations if n_permutations is None else n_permutations
    seed = config.seed if seed is None else seed
    n_permutations = ORDERS.check("rate", "n_permutations",
                                  int(n_permutations) if isinstance(n_permutations, np.integer) else n_permutations)
    matrix = score_matrix(checked_scores(scores, score=config.score).table)
    datasets, classifiers = list(matrix.index), list(matrix.columns)
    orders = random_orders(len(datasets), int(n_permutations), seed=seed)
    values = matrix.to_numpy()
    if weighted is None:   # decided as the tournament decides it (sorted order)
        weighted = games_weighting(values, config) is not None
    result = play_orders(values, orders, tie_tolerance=config.tie_tolerance, initial=config.initial,
                         glicko=config.glicko, weighted=weighted)
    ranks = rankdata(-result.rating, method="min", axis=1).astype(int)
    summary = summarise(result.rating, result.rd, ranks, classifiers)
    return PermutationAnalysis(
        summary=summary,
        ratings=pd.DataFrame(result.rating, columns=classifiers),
        rds=pd.DataFrame(result.rd, columns=classifiers),
        ranks=pd.DataFrame(ranks, columns=classifiers),
        orders=orders,
        datasets=datasets,
        seed=int(seed),
    )


def summarise(ratings: np.ndarray, rds: np.ndarray, ranks: np.ndarray, classifiers: list[str]) -> pd.DataFrame:
    """Per-classifier statistics over orders; arrays have shape (P, k). See :class:`PermutationAnalysis`."""
    rating_p05, rating_median, rating_p95 = np.percentile(ratings, [5, 50, 95], axis=0)
    rating_sd = ratings.std(axis=0, ddof=1)
    rd_mean = rds.mean(axis=0)
    summary = pd.DataFrame(
        {
            "classifier": classifiers,
            "rating_mean": ratings.mean(axis=0),
            "rating_sd": rating_sd,
            "rating_min": ratings.min(axis=0),
            "rating_p05": rating_p05,
            "rating_median": rating_median,
            "rating_p95": rating_p95,
            "rating_max": ratings.max(axis=0),
            "rd_mean": rd_mean,
            "sd_over_rd": rating_sd / rd_mean,
            "rank_mean": ranks.mean(axis=0),
            "rank_sd": ranks.std(axis=0, ddof=1),
            "rank_min": ranks.min(axis=0),
            "rank_median": np.median(ranks, axis=0),
            "rank_max": ranks.max(axis=0),
            "p_first": (ranks == 1).mean(axis=0),
            "p_first_alone": ((ranks == 1) & ((ranks == 1).sum(axis=1, keepdims=True) == 1)).mean(axis=0),
            "p_top3": (ranks <= 3).mean(axis=0),
        }
    )
    return summary.sort_values(["rating_mean", "classifier"], ascending=[False, True]).reset_index(drop=True)

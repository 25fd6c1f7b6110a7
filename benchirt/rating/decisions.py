"""The primary decisions on the leaderboard's pairs, its joint rank intervals and tiers, by the configured method.

``rating.verdict`` picks the method (:data:`benchirt.rating.config.VERDICT_METHODS`):

* ``"stepdown"`` (default): step-down max-T on each pair's studentised Wilcoxon signed-rank statistic, on tables whose
  datasets are reflected (default) or shuffled (:mod:`benchirt.rating.stepdown`; Westfall & Young 1993);
* ``"holm"``: each pair's Wilcoxon signed-rank test with Holm's correction (:mod:`benchirt.rating.wilcoxon_holm`; Demšar
  2006);
* ``"range"``: the single-step permutation range test on the Bradley–Terry ratings (:mod:`benchirt.rating.separation`);
* ``"intervals"``, whatever ``rate.verdict`` says (but ``holm``), above :data:`benchirt.rating.config.PAIRWISE_UP_TO`
  tested entrants: simultaneous intervals of the Bradley–Terry ratings from their bootstrap over datasets
  (:mod:`benchirt.rating.simultaneous`), no (k, k) array.

Either way the decisions are one boolean matrix ("i is separated from j and above it"), from which the joint rank
intervals (Klein, Wright & Wieczorek 2020) and the tiers follow, so the table, figure, verdict sentence and
``pairwise.csv`` never disagree. Wilcoxon–Holm tests only the pairs among the best-rated ``rate.max_pairwise``; the
others' rank intervals are then the untested 1..k, and the verdict says so (:attr:`Decisions.n_tested`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchirt.rating.bradley_terry import pairwise_wins
from benchirt.rating.config import RatingConfig
from benchirt.rating.batch import match_outcomes
from benchirt.rating.separation import Separation, separate, shuffled_ratings, tiers_from
from benchirt.rating.simultaneous import EntrantIntervals, interval_tiers, simultaneous_intervals
from benchirt.rating.stepdown import DEFAULT_STATISTIC, StepDown, rank_intervals, step_down
from benchirt.rating.wilcoxon_holm import WilcoxonHolm, wilcoxon_holm


@dataclass(kw_only=True)
class Decisions:
    """The primary decisions, classifiers in leaderboard order (best first).

    Attributes
    ----------
    method : str
        ``"holm"``, ``"stepdown"``, ``"range"``, ``"intervals"``, or ``"none"`` (no test: one dataset or no resampled
        tables).
    better : numpy.ndarray of bool, shape (k, k), or None
        ``better[i, j]``: i is separated from j and above it (None with ``intervals``: :meth:`on_pairs`).
    statistic, p_adjusted : numpy.ndarray, shape (k, k), or None
        The signed-rank statistic z_ij (range test: the rating difference) and the Holm- or step-down-adjusted p-values
        (NaN for the range test); NaN outside the tested family.
    rank_low, rank_high, tier : numpy.ndarray, shape (k,)
        Joint rank intervals at level 1 − alpha (NaN without a test) and tiers.
    alpha : float
    n_tested, n_tables : int
        Classifiers in the tested family (the first ``n_tested`` of the table); resampled tables used (0 for
        Wilcoxon–Holm).
    resampling : str or None
        ``"reflection"`` or ``"shuffle"`` (the range test always shuffles); None for Wilcoxon–Holm and without a test.
    range_test, intervals : Separation or EntrantIntervals, or None
        What decided with ``method == "range"`` (critical value and distances) or ``"intervals"``.
    notes : list of str
    """

    method: str
    better: np.ndarray | None
    statistic: np.ndarray | None
    p_adjusted: np.ndarray | None
    rank_low: np.ndarray
    rank_high: np.ndarray
    tier: np.ndarray
    alpha: float
    n_tested: int
    n_tables: int
    range_test: Separation | None = None
    notes: list[str] = field(default_factory=list)
    resampling: str | None = None
    intervals: EntrantIntervals | None = None

    def on_pairs(self, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per pair of positions: whether it is separated, its statistic (positive when ``first`` is above) and
        adjusted p-value (NaN for the range test and the intervals, which have none)."""
        if self.intervals is not None:
            separated = self.intervals.better(first, second) | self.intervals.better(second, first)
            return separated, self.intervals.estimate[first] - self.intervals.estimate[second], np.full(first.size, np.nan)
        assert self.better is not None and self.statistic is not None and self.p_adjusted is not None
        return (self.better[first, second] | self.better[second, first], self.statistic[first, second],
                self.p_adjusted[first, second])


def no_decisions(k: int, alpha: float) -> Decisions:
    """Nobody separated, intervals undefined (no test could run)."""
    return Decisions(method="none", better=np.zeros((k, k), dtype=bool), statistic=np.full((k, k), np.nan),
                     p_adjusted=np.full((k, k), np.nan), rank_low=np.full(k, np.nan), rank_high=np.full(k, np.nan),
                     tier=np.ones(k, dtype=int), alpha=alpha, n_tested=0, n_tables=0)


def interval_decisions(rating: np.ndarray, replicates: np.ndarray | None, alpha: float, *,
                       datasets: np.ndarray) -> Decisions:
    """The decisions of a field above :data:`benchirt.rating.config.PAIRWISE_UP_TO` tested entrants: simultaneous
    intervals of the ratings ``rating`` (leaderboard order) from their bootstrap ``replicates`` (B, k), each with
    Student's t for the ``datasets`` it ran (k,); no decisions without replicates."""
    k = len(rating)
    if replicates is None:
        return no_decisions(k, alpha)
    intervals = simultaneous_intervals(rating, replicates, alpha=alpha, units=datasets)
    return Decisions(method="intervals", better=None, statistic=None, p_adjusted=None,
                     rank_low=intervals.rank_low.astype(float), rank_high=intervals.rank_high.astype(float),
                     tier=interval_tiers(intervals.low, intervals.high), alpha=alpha, n_tested=k,
                     n_tables=len(replicates), resampling="bootstrap", intervals=intervals)


def primary_decisions(scores: np.ndarray, position: np.ndarray, rating: np.ndarray, replicates: np.ndarray | None,
                      config: RatingConfig) -> Decisions:
    """The decisions of ``config.verdict`` (``verdict``, ``resampling``, ``n_bootstrap`` tables, ``alpha``, ``seed``,
    ``max_pairwise``).

    ``scores`` (D, k): datasets × classifiers (sorted names), NaN where absent; ``position`` (k,): the column of
    ``scores`` of each leaderboard row (best first); ``rating`` (k,): the Bradley–Terry ratings in leaderboard order;
    ``replicates`` (B, k): bootstrap ratings in leaderboard order, None when no bootstrap ran (then no test runs
    either).
    """
    k = len(position)
    alpha = config.alpha
    if replicates is None:
        return no_decisions(k, alpha)
    present = ~np.isnan(scores)
    if config.verdict == "range":
        wins = pairwise_wins(match_outcomes(scores, tie_tolerance=config.tie_tolerance))
        shuffled = shuffled_ratings(wins, present, config.n_bootstrap, seed=config.seed)
        separation = separate(rating, shuffled, bootstrap=replicates, level=1.0 - alpha)
        low, high = rank_intervals(separation.better)
        return Decisions(method="range", better=separation.better, statistic=rating[:, None] - rating[None, :],
                         p_adjusted=np.full((k, k), np.nan), rank_low=low.astype(float), rank_high=high.astype(float),
                         tier=separation.tier, alpha=alpha, n_tested=k, n_tables=config.n_bootstrap,
                         range_test=separation, resampling="shuffle")
    capped = config.verdict == "holm" and config.max_pairwise is not None
    n_tested = min(k, config.max_pairwise) if capped and config.max_pairwise is not None else k
    # The tested classifiers in column (name) order, as a direct call on the score table orders them.
    tested = np.sort(position[:n_tested])
    result: WilcoxonHolm | StepDown
    resampling = None
    if config.verdict == "holm":
        result = wilcoxon_holm(scores[:, tested], alpha=alpha)
        n_tables = 0
    else:
        resampling = config.resampling
        result = step_down(scores[:, tested], config.n_bootstrap, alpha=alpha, seed=config.seed, statistic=DEFAULT_STATISTIC, resampling=resampling)
        n_tables = result.n_tables
    rows = np.ix_(np.searchsorted(tested, position[:n_tested]), np.searchsorted(tested, position[:n_tested]))
    better = np.zeros((k, k), dtype=bool)
    better[:n_tested, :n_tested] = result.better[rows]
    statistic = np.full((k, k), np.nan)
    p_adjusted = np.full((k, k), np.nan)
    statistic[:n_tested, :n_tested] = result.statistic[rows]
    p_adjusted[:n_tested, :n_tested] = result.p_adjusted[rows]
    low, high = rank_intervals(better)
    notes = []
    if n_tested < k:
        notes.append(f"Wilcoxon–Holm tests the pairs among the {n_tested} best-rated of {k} classifiers only "
                     f"(rate.max_pairwise; verdict: stepdown tests every pair); their rank intervals count only "
                     f"separations among them, and the other {k - n_tested} classifiers' rank intervals are the "
                     f"untested 1-{k}")
    return Decisions(method=config.verdict, better=better, statistic=statistic, p_adjusted=p_adjusted,
                     rank_low=low.astype(float), rank_high=high.astype(float), tier=tiers_from(better), alpha=alpha,
                     n_tested=n_tested, n_tables=n_tables, range_test=None, notes=notes, resampling=resampling)

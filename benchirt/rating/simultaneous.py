"""Both verdicts for fields too large to test pair by pair: one simultaneous interval per entrant.

Up to ``rate.pairwise_up_to`` (:data:`benchirt.rating.config.PAIRWISE_UP_TO`) tested entrants every pair is tested
(:mod:`benchirt.rating.stepdown`, :mod:`benchirt.rating.on_suite`), at a cost of pairs × tables; larger fields are
decided from one interval per entrant, at a cost of entrants × replicates.

**Simultaneous intervals** (the studentised maximum-modulus bootstrap; Romano & Wolf 2005, JASA 100, §4, single-step
form): for estimates θ̂_i and bootstrap replicates θ*_bi, s_i is the replicates' standard deviation and c the 1 − α
quantile over replicates of max_i |θ*_bi − θ̂_i| / s_i; θ̂_i ± c·s_i then cover every θ_i at once with probability about
1 − α.

**Few resampled units.** A bootstrap over n datasets cannot reach the tails of a studentised estimate: (θ̂_i − θ_i)/s_i
has Student's t tails with n − 1 degrees of freedom (times √(n/(n − 1)), the bootstrap's divisor), while the bootstrap's
own deviations are bounded, and n units cannot reveal how k ≫ n entrants depend on each other, so the plain intervals
separate equal entrants. When the units each entrant was estimated from are given, entrant i's half-width is max(c,
b_i)·s_i with b_i = √(n_i/(n_i − 1)) · t_{n_i − 1}(1 − α/(2k)) — Bonferroni's bound under Student's t, which covers
every entrant at once with probability at least 1 − α for normal estimates whatever their dependence.

**Decisions and ranks.** i is separated above j when low_i > high_j; when every interval covers no such decision is
false, so the joint rank intervals of Klein, Wright & Wieczorek (2020) follow: rank_low_i = 1 + #{j: low_j > high_i},
rank_high_i = k − #{j: high_j < low_i} — the "marginal" construction of Mogstad, Romano, Shaikh & Wilhelm (2023, Rev.
Econ. Stud., §3.1), more conservative than intervals for every difference, computed by sorting (no (k, k) array). The
could-be-best set (rank_low = 1) and could-be-top-t set (rank_low ≤ t) contain the true best and top t with the same
probability.

Estimates and replicates: across datasets the Bradley–Terry ratings and their bootstrap
(:mod:`benchirt.rating.leaderboard`); on this suite each entrant's accuracy on the test rows
(:mod:`benchirt.rating.on_suite_scale`).

Hand-written: numpy's quantile and sort do the work; no library builds rank intervals from such a bootstrap (csranks,
the package of Mogstad et al., forms the k² differences).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Entrants whose every pair ``pairwise.csv`` lists in a field decided by simultaneous intervals (the contenders for
#: the top places, best rated first; beyond them only the best real classifier's pairs).
LISTED_UP_TO = 300


@dataclass(kw_only=True)
class EntrantIntervals:
    """Simultaneous intervals of k entrants' estimates, in the order given, and the ranks they imply: ``estimate, low,
    high`` (k,; −inf, inf where fewer than two replicates rate the entrant), ``critical`` (c, the studentised
    maximum's 1 − α quantile; NaN without replicates), ``rank_low, rank_high`` (k,, joint rank intervals, 1 = best),
    ``alpha`` and ``n_replicates``."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    critical: float
    rank_low: np.ndarray
    rank_high: np.ndarray
    alpha: float
    n_replicates: int

    def better(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Per pair, whether entrant ``first`` is separated above entrant ``second``."""
        return self.low[first] > self.high[second]

    def n_separated(self) -> int:
        """Pairs separated, counted by sorting: Σ_i #{j: high_j < low_i}."""
        return int(np.searchsorted(np.sort(self.high), self.low, side="left").sum())


def simultaneous_intervals(estimate: np.ndarray, replicates: np.ndarray, *, alpha: float = 0.05,
                           units: np.ndarray | None = None) -> EntrantIntervals:
    """Studentised maximum-modulus bootstrap intervals of every entrant at once (module docstring).

    ``estimate`` (k,); ``replicates`` (B, k), NaN where a replicate does not rate the entrant (left out of its spread
    and that replicate's maximum); ``alpha``: 1 − the simultaneous coverage. ``units`` (k,), optional: the resampled
    units (datasets) each estimate comes from; the half-widths are then at least Bonferroni's bound under Student's t,
    and an entrant on fewer than two is unbounded. None: the bootstrap's c for every entrant (units in the thousands, as
    test rows are). Returns :class:`EntrantIntervals`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> result = simultaneous_intervals(np.array([2.0, 1.0, 0.0]), rng.normal(size=(500, 3)) * 0.1 + [2, 1, 0])
    >>> result.rank_low.tolist(), result.rank_high.tolist()
    ([1, 2, 3], [1, 2, 3])
    """
    estimate = np.asarray(estimate, dtype=float)
    replicates = np.asarray(replicates, dtype=float)
    rated = (~np.isnan(replicates)).sum(axis=0)
    enough = rated >= 2
    spread = np.zeros(estimate.size)
    if enough.any():
        spread[enough] = np.nanstd(replicates[:, enough], axis=0, ddof=1)
    varies = enough & (spread > 0)
    critical = float("nan")
    half = np.where(enough, 0.0, np.inf)
    if varies.any():
        deviation = np.abs(replicates[:, varies] - estimate[varies]) / spread[varies]
        largest = np.nanmax(np.where(np.isnan(deviation), -np.inf, deviation), axis=1)
        critical = float(np.quantile(largest[np.isfinite(largest)], 1.0 - alpha, method="higher"))
        half[varies] = critical * spread[varies]
        if units is not None:
            bound = student_bound(np.asarray(units)[varies], alpha / estimate.size)
            half[varies] = np.maximum(critical, bound) * spread[varies]
    low, high = estimate - half, estimate + half
    rank_low, rank_high = interval_ranks(low, high)
    return EntrantIntervals(estimate=estimate, low=low, high=high, critical=critical, rank_low=rank_low,
                            rank_high=rank_high, alpha=float(alpha), n_replicates=len(replicates))


def student_bound(units: np.ndarray, level: float) -> np.ndarray:
    """√(n/(n − 1)) · t_{n − 1}(1 − level/2) per entrant of n = ``units`` (module docstring); inf below two units."""
    from scipy.stats import t as student_t   # here: the report reads LISTED_UP_TO on a warm rerun without scipy.stats
    n = np.asarray(units, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.sqrt(n / (n - 1.0)) * student_t.isf(level / 2.0, n - 1.0)
    return np.where(n >= 2, bound, np.inf)


def interval_ranks(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joint rank intervals from simultaneous intervals: 1 + #{j: low_j > high_i} and k − #{j: high_j < low_i}."""
    k = low.size
    above = k - np.searchsorted(np.sort(low), high, side="right")
    below = np.searchsorted(np.sort(high), low, side="left")
    return (1 + above).astype(int), (k - below).astype(int)


def interval_tiers(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Consecutive tiers down the given order: a boundary below position g only when every entrant at positions ≤ g
    is separated above every entrant after it (the lowest lower bound above beats the highest upper bound below)."""
    if low.size < 2:
        return np.ones(low.size, dtype=int)
    lowest_above = np.minimum.accumulate(low)[:-1]
    highest_below = np.maximum.accumulate(high[::-1])[::-1][1:]
    return 1 + np.concatenate([[0], np.cumsum(lowest_above > highest_below)]).astype(int)


def listed_pairs(listed: np.ndarray, leader: int, *, most: int = LISTED_UP_TO) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of positions (first before second) a large field's pairwise table keeps: every pair among the first
    ``most`` positions where ``listed`` (bool, board order) is True, and ``leader``'s pair with every other
    position; in board order."""
    kept = np.flatnonzero(listed)[:most]
    first, second = np.triu_indices(kept.size, 1)
    others = np.setdiff1d(np.arange(listed.size), np.append(kept, leader))
    pairs = np.concatenate([np.stack([kept[first], kept[second]], axis=1),
                            np.sort(np.stack([np.full(others.size, leader), others], axis=1), axis=1)])
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    return pairs[:, 0], pairs[:, 1]

"""The primary separation test and its tiers: hand-checked decisions, invariants, and error rates on
a few hundred simulated leaderboards (benchmarks/rating_leaderboard.py --tiers measures them at 19 × 60)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from benchirt.rating.bradley_terry import bootstrap_counts, fit_bradley_terry, pairwise_wins
from benchirt.rating.glicko import match_outcomes
from benchirt.rating.separation import separate, shuffled_ratings, tiers_from, within_dataset_permutations


def test_tiers_need_every_classifier_above_to_beat_every_one_below():
    better = np.zeros((5, 5), dtype=bool)
    better[0, 2:] = better[1, 2:] = True      # {0, 1} beat {2, 3, 4}
    better[2, 4] = True                       # 2 beats 4, but 3 does not: no boundary between 3 and 4
    assert tiers_from(better).tolist() == [1, 1, 2, 2, 2]
    better[3, 4] = True
    assert tiers_from(better).tolist() == [1, 1, 2, 2, 3]
    assert tiers_from(np.zeros((3, 3), dtype=bool)).tolist() == [1, 1, 1]


def _shuffled_with_ranges(ranges: np.ndarray, k: int) -> np.ndarray:
    """Shuffled ratings whose range is ``ranges`` (one classifier carries it, the others sit at 0)."""
    shuffled = np.zeros((ranges.size, k))
    shuffled[:, 0] = ranges
    return shuffled


def test_separate_uses_the_95_percent_quantile_of_the_ranges():
    ranges = np.arange(1.0, 101.0)            # quantile 0.95 (linear) = 95.05
    separation = separate(np.array([300.0, 250.0, 220.0, 220.0, 100.0]), _shuffled_with_ranges(ranges, 5))
    assert separation.critical_value == pytest.approx(95.05)
    assert separation.better[0, 4] and separation.better[1, 4] and not separation.better[0, 2]
    assert not separation.better[2, 3] and not separation.better[3, 2]   # a tie is never separated
    assert separation.tier.tolist() == [1, 1, 1, 1, 2]    # 220 − 100 > 95.05, and 300/250 beat 100 too
    nobody = separate(np.array([3.0, 2.0, 1.0]), None)
    assert not nobody.better.any() and np.isnan(nobody.critical_value) and nobody.tier.tolist() == [1, 1, 1]


def test_a_pair_noisier_than_the_shuffled_tables_needs_a_proportionally_larger_distance():
    # shuffled tables of 3 classifiers: ratings (+10, −10, 0) and (−10, +10, 0) alternate, so the range is
    # always 20 (c = 20) and the pairwise differences are ±20, ±10, ±10: s₀ = sqrt((400 + 100 + 100) / 3)
    shuffled = np.array([[10.0, -10.0, 0.0], [-10.0, 10.0, 0.0]] * 50)
    null_se = np.sqrt(600 / 3)
    # bootstrap: classifier 0 swings ±30 around its rating, 1 and 2 stay put -> sd of (0 − 1) = sd of (0 − 2)
    bootstrap = np.zeros((100, 3))
    bootstrap[:, 0] = np.tile([30.0, -30.0], 50)
    pair_se = np.std(bootstrap[:, 0], ddof=1)
    separation = separate(np.array([60.0, 21.0, 0.0]), shuffled, bootstrap=bootstrap)
    assert separation.critical_value == pytest.approx(20.0)
    assert separation.distance[0, 1] == pytest.approx(20.0 * pair_se / null_se)       # 20 · 30.15 / 14.14 = 42.6
    assert separation.distance[1, 2] == pytest.approx(20.0)                           # never below c
    assert not separation.better[0, 1] and separation.better[0, 2] and separation.better[1, 2]
    assert separation.tier.tolist() == [1, 1, 2]


def test_one_dataset_shuffled_keeps_its_range_and_absent_classifiers_stay_absent():
    # On one dataset every shuffle is a relabelling: the set of ratings, hence the range, is unchanged.
    scores = np.array([[0.9, 0.3, 0.6, 0.1]])
    wins = pairwise_wins(match_outcomes(scores))
    observed = fit_bradley_terry(wins.sum(axis=0)).rating[0]
    shuffled = shuffled_ratings(wins, np.ones((1, 4), dtype=bool), 20, seed=3)
    np.testing.assert_allclose(np.sort(shuffled, axis=1), np.tile(np.sort(observed), (20, 1)), atol=1e-6)
    # Absent classifiers stay absent: only the present ones are permuted, uniformly.
    present = np.array([[True, True, True, False], [True, False, True, True]])
    permutation = within_dataset_permutations(present, 3000, seed=4)
    assert (permutation[:, 0, 3] == 3).all() and (permutation[:, 1, 1] == 1).all()
    assert all((np.sort(permutation[:, d][:, present[d]], axis=1) == np.flatnonzero(present[d])).all() for d in (0, 1))
    counts = np.bincount(permutation[:, 0, 0], minlength=4)[:3]
    assert binomtest(int(counts[0]), 3000, 1 / 3).pvalue > 0.001 and counts.sum() == 3000


def _error_rates(strength: np.ndarray, n_datasets: int, n_tables: int, n_shuffles: int, seed: int):
    """Per simulated table: any false separation, equal classifiers in different tiers, a better one below."""
    rng = np.random.default_rng(seed)
    equal = np.triu(strength[:, None] == strength[None, :], k=1)
    better = strength[:, None] > strength[None, :]
    false_claim = split = below = 0
    for table in range(n_tables):
        scores = strength[None, :] + rng.gumbel(size=(n_datasets, strength.size))
        wins = pairwise_wins(match_outcomes(scores))
        rating = fit_bradley_terry(wins.sum(axis=0)).rating[0]
        order = np.argsort(-rating, kind="stable")
        shuffled = shuffled_ratings(wins, np.ones(scores.shape, dtype=bool), n_shuffles, seed=table)
        counts = bootstrap_counts(n_datasets, n_shuffles, seed=table)
        bootstrap = fit_bradley_terry(np.einsum("bd,dij->bij", counts, wins)).rating
        separation = separate(rating[order], shuffled, bootstrap=bootstrap[:, order])
        tier = np.empty(strength.size, dtype=int)
        tier[order] = separation.tier
        claims = np.zeros_like(better)
        claims[np.ix_(order, order)] = separation.better
        false_claim += bool((claims & ~better).any())
        split += bool((equal & (tier[:, None] != tier[None, :])).any())
        below += bool((better & (tier[:, None] > tier[None, :])).any())
    return false_claim, split, below


#: (classifiers, datasets, tables, shuffles per table): a small default and the larger slow size.
SIZES = [pytest.param(5, 12, 120, 40, id="default"),
         pytest.param(8, 30, 300, 200, id="large", marks=pytest.mark.slow)]


@pytest.mark.parametrize("k, n_datasets, n_tables, n_shuffles", SIZES)
def test_equal_classifiers_are_separated_at_most_5_percent_of_the_time(k, n_datasets, n_tables, n_shuffles):
    """Leaderboards of equal classifiers: the family-wise error of the separation (any pair called
    different) is at most 5 % up to sampling error, and a split into tiers is rarer still."""
    false_claim, split, _ = _error_rates(np.zeros(k), n_datasets, n_tables, n_shuffles, seed=0)
    assert binomtest(false_claim, n_tables, 0.05, alternative="greater").pvalue > 0.01, false_claim
    assert split <= false_claim


@pytest.mark.parametrize("k, n_datasets, n_tables, n_shuffles", SIZES)
def test_groups_are_never_put_in_the_wrong_order(k, n_datasets, n_tables, n_shuffles):
    """Leaderboards with two groups of equal classifiers (θ = ±1.5): equal ones are split in at most 5 %
    of the tables up to sampling error, and a better one is never placed below a worse one."""
    strength = np.repeat([1.5, -1.5], [k // 2, k - k // 2])
    _, split, below = _error_rates(strength, n_datasets, n_tables, n_shuffles, seed=1)
    assert below == 0
    assert binomtest(split, n_tables, 0.05, alternative="greater").pvalue > 0.01, split


def test_two_clear_groups_make_two_tiers():
    strength = np.repeat([1.5, -1.5], 3)
    rng = np.random.default_rng(2)
    scores = strength[None, :] + rng.gumbel(size=(15, 6))
    wins = pairwise_wins(match_outcomes(scores))
    rating = fit_bradley_terry(wins.sum(axis=0)).rating[0]
    order = np.argsort(-rating, kind="stable")
    separation = separate(rating[order], shuffled_ratings(wins, np.ones((15, 6), dtype=bool), 100))
    assert separation.tier.tolist() == [1, 1, 1, 2, 2, 2] and set(order[:3]) == {0, 1, 2}


def test_pair_difference_sd_equals_nanstd_of_the_differences():
    from benchirt.rating.separation import pair_difference_sd

    rng = np.random.default_rng(2)
    replicates = 1500 + rng.normal(0, 150, (60, 9)) + np.arange(9) * 40
    replicates[rng.random(replicates.shape) < 0.15] = np.nan
    replicates[1:, 8] = np.nan                                     # rated once: no standard deviation
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        expected = np.nanstd(replicates[:, :, None] - replicates[:, None, :], axis=0, ddof=1)
    np.testing.assert_allclose(pair_difference_sd(replicates), expected, rtol=1e-9, atol=1e-9)
    assert np.isnan(pair_difference_sd(replicates)[8, :8]).all()

"""The primary verdict's step-down max-T and its joint rank intervals: hand-computed statistics, the
step-down against a brute-force re-test loop on the same shuffled tables, never fewer separations than the
single step, family-wise error on null tables with unequal spreads and ties, and joint rank-interval coverage
(benchmarks/rating_leaderboard.py measures both at 19 × 60)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import binomtest, ttest_1samp

from benchirt.rating.separation import within_dataset_permutations
from benchirt.rating.stepdown import (
    dataset_reflections, rank_intervals, signed_rank, standardised, step_down, studentised_mean,
)


def test_signed_rank_statistic_by_hand():
    # zeros dropped; |d| = 3, 1, 2, 2 -> ranks 4, 1, 2.5, 2.5; W = 4 − 1 + 2.5 + 2.5 = 8; Σ rank² = 29.5
    d = np.array([3.0, -1.0, 2.0, 0.0, 2.0, np.nan])
    assert signed_rank(d[None, :, None])[0, 0] == pytest.approx(8 / np.sqrt(29.5))
    assert signed_rank(np.zeros((1, 4, 1)))[0, 0] == 0.0           # all ties: no evidence either way


def test_studentised_mean_is_the_one_sample_t_and_standardising_is_per_dataset():
    d = np.array([0.3, -0.1, 0.5, 0.2, np.nan, 0.4])
    assert studentised_mean(d[None, :, None])[0, 0] == pytest.approx(ttest_1samp(d[~np.isnan(d)], 0).statistic)
    assert studentised_mean(np.full((1, 3, 1), 0.2))[0, 0] == np.inf
    z = standardised(np.array([[1.0, 3.0, np.nan], [5.0, 5.0, 5.0]]))
    np.testing.assert_allclose(z[0, :2], [-1.0, 1.0])
    assert np.isnan(z[0, 2]) and (z[1] == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # a dataset none of the compared classifiers ran: NaN, and no warning
        assert np.isnan(standardised(np.array([[np.nan, np.nan], [1.0, 2.0]]))[0]).all()


def test_rank_intervals_from_decisions():
    better = np.zeros((4, 4), dtype=bool)
    better[0, 2:] = True                   # 0 beats 2 and 3
    better[1, 3] = True                    # 1 beats 3
    low, high = rank_intervals(better)
    assert low.tolist() == [1, 1, 2, 3] and high.tolist() == [2, 3, 4, 4]


def _brute_force_step_down(scores, n_tables, seed, resampling):
    """Westfall & Young's loop written out: test the pair with the largest |z| left against the largest |z|
    among the pairs left, in each resampled table (each dataset's scores negated with a random sign, or the
    classifiers shuffled within datasets); adjusted p non-decreasing."""
    k = scores.shape[1]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    observed = {p: abs(signed_rank((scores[:, [p[0]]] - scores[:, [p[1]]])[None])[0, 0]) for p in pairs}
    if resampling == "reflection":
        signs, _ = dataset_reflections(scores.shape[0], n_tables, seed=seed)
        tables = [sign[:, None] * scores for sign in signs]
    else:
        permutation = within_dataset_permutations(~np.isnan(scores), n_tables, seed=seed)
        tables = [np.take_along_axis(scores, permutation[t], axis=1) for t in range(n_tables)]
    shuffled = [{p: abs(signed_rank((table[:, [p[0]]] - table[:, [p[1]]])[None])[0, 0]) for p in pairs}
                for table in tables]
    left, p_values, previous = sorted(pairs, key=lambda p: -observed[p]), {}, 0.0
    while left:
        pair = left[0]
        hits = sum(max(table[q] for q in left) >= observed[pair] * (1 - 1e-9) for table in shuffled)
        previous = p_values[pair] = max(previous, (hits + 1) / (n_tables + 1))
        left = left[1:]
    return p_values


@pytest.mark.heavy
def test_step_down_equals_the_brute_force_loop_and_never_separates_fewer_than_single_step():
    rng = np.random.default_rng(3)
    for trial, resampling in enumerate(("reflection", "shuffle", "reflection", "shuffle")):
        scores = np.round(rng.normal(size=(10, 5)) + np.array([1.5, 1.0, 0.0, 0.0, -1.0]), 1)
        scores[rng.random(scores.shape) < 0.1] = np.nan
        result = step_down(scores, 150, alpha=0.05, seed=trial, resampling=resampling)
        assert result.resampling == resampling
        for (i, j), p in _brute_force_step_down(scores, 150, trial, resampling).items():
            assert result.p_adjusted[i, j] == pytest.approx(p) and result.p_adjusted[j, i] == pytest.approx(p)
        assert (result.p_adjusted <= result.p_single_step + 1e-12).all()
    # the count: step-down separates at least as many pairs as the single step, on the same shuffled tables
    for seed in range(20):
        scores = rng.normal(size=(20, 6)) + np.linspace(0, 1.5, 6)
        result = step_down(scores, 200, alpha=0.05, seed=seed)
        assert (result.p_adjusted <= 0.05).sum() >= (result.p_single_step <= 0.05).sum()


def test_reflections_enumerate_every_sign_pattern_when_there_are_few():
    signs, exact = dataset_reflections(3, 8)
    assert exact and sorted(map(tuple, signs)) == sorted({(a, b, c) for a in (-1.0, 1.0) for b in (-1.0, 1.0)
                                                          for c in (-1.0, 1.0)})
    signs, exact = dataset_reflections(4, 8, seed=1)
    assert not exact and signs.shape == (8, 4) and set(np.unique(signs)) == {-1.0, 1.0}
    # two classifiers, one ahead on all 3 datasets: |z| is reached by the all-+ and all-− patterns only: p = 2/8
    result = step_down(np.array([[2.0, 1.0], [3.0, 1.0], [5.0, 1.0]]), 8, alpha=0.25)
    assert result.n_tables == 8 and result.p_adjusted[0, 1] == pytest.approx(0.25) and result.better[0, 1]
    with pytest.raises(ValueError, match="resampling must be one of reflection, shuffle, got 'flip'"):
        step_down(np.zeros((3, 2)), 8, resampling="flip")


def test_reflections_hold_the_level_with_very_unequal_spreads():
    """Six tight equal classifiers beside two wide ones (spreads 0.05 and 3): every pair's differences are
    symmetric, so reflecting datasets keeps the family-wise error at α."""
    rng = np.random.default_rng(21)
    spread = np.array([0.05] * 6 + [3.0, 3.0])
    errors = sum(bool(step_down(rng.normal(size=(12, 1)) + spread * rng.normal(size=(12, 8)), 100, alpha=0.05,
                                seed=t).better.any()) for t in range(100))
    assert binomtest(errors, 100, 0.05, alternative="greater").pvalue > 0.01, errors


def null_tables(n_tables: int, k: int, n_datasets: int, seed: int):
    """Equal classifiers of unequal spreads (sd 0.5 … 3), a shared dataset effect, scores rounded to 1
    decimal (ties), 5 % of them absent."""
    rng = np.random.default_rng(seed)
    spread = np.linspace(0.5, 3.0, k)
    for _ in range(n_tables):
        scores = np.round(rng.normal(0, 2, size=(n_datasets, 1)) + spread * rng.standard_t(5, size=(n_datasets, k)), 1)
        scores[rng.random(scores.shape) < 0.05] = np.nan
        yield scores


def family_wise_error(n_tables, k, n_datasets, n_shuffles, seed):
    return sum(bool(step_down(scores, n_shuffles, alpha=0.05, seed=i).better.any())
               for i, scores in enumerate(null_tables(n_tables, k, n_datasets, seed)))


def test_family_wise_error_on_null_tables_with_unequal_spreads_and_ties():
    hits = family_wise_error(150, 6, 15, 200, seed=11)
    assert binomtest(hits, 150, 0.05, alternative="greater").pvalue > 0.01, hits


@pytest.mark.slow
def test_family_wise_error_on_null_tables_full_size():
    hits = family_wise_error(200, 19, 50, 300, seed=12)      # about 2 minutes
    assert binomtest(hits, 200, 0.05, alternative="greater").pvalue > 0.01, hits


def rank_coverage(n_tables, n_datasets, n_shuffles, seed):
    """Share of simulated tables in which every classifier's interval holds every rank its true strength
    spans (tied strengths span several ranks)."""
    strength = np.array([1.2, 1.2, 0.6, 0.0, 0.0, 0.0, -0.8])
    k = strength.size
    true_low = 1 + (strength[None, :] > strength[:, None]).sum(axis=1)
    true_high = k - (strength[None, :] < strength[:, None]).sum(axis=1)
    rng = np.random.default_rng(seed)
    covered = 0
    for i in range(n_tables):
        scores = np.round(strength + np.linspace(0.6, 1.6, k) * rng.normal(size=(n_datasets, k)), 1)
        result = step_down(scores, n_shuffles, alpha=0.05, seed=i)
        covered += bool(((result.rank_low <= true_low) & (true_high <= result.rank_high)).all())
    return covered


def test_joint_rank_intervals_cover_at_the_stated_level():
    covered = rank_coverage(150, 20, 200, seed=5)
    assert binomtest(covered, 150, 0.95, alternative="less").pvalue > 0.01, covered


@pytest.mark.slow
def test_joint_rank_intervals_cover_full_size():
    covered = rank_coverage(400, 40, 500, seed=6)
    assert binomtest(covered, 400, 0.95, alternative="less").pvalue > 0.01, covered

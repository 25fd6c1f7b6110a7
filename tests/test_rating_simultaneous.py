"""The verdicts of fields too large to test pair by pair: simultaneous intervals per entrant and their ranks."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.rating import RatingConfig, rate
from benchirt.rating.on_suite_scale import additive_effects, on_suite_intervals
from benchirt.rating.separation import tiers_from
from benchirt.rating.simultaneous import interval_ranks, interval_tiers, listed_pairs, simultaneous_intervals


def _random_intervals(seed: int, k: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centre = np.sort(rng.normal(size=k))[::-1]
    half = rng.uniform(0.05, 0.6, size=k)
    return centre - half, centre + half


@pytest.mark.parametrize("seed", range(5))
def test_interval_ranks_and_tiers_equal_the_brute_force_over_every_pair(seed):
    low, high = _random_intervals(seed)
    better = low[:, None] > high[None, :]          # i separated above j
    rank_low, rank_high = interval_ranks(low, high)
    k = low.size
    assert rank_low.tolist() == (1 + better.sum(axis=0)).tolist()
    assert rank_high.tolist() == (k - better.sum(axis=1)).tolist()
    assert interval_tiers(low, high).tolist() == tiers_from(better).tolist()


def test_the_critical_value_is_the_quantile_of_the_largest_studentised_deviation():
    estimate = np.array([0.0, 1.0])
    replicates = np.array([[0.1, 1.0], [-0.1, 1.2], [0.0, 0.8], [0.2, 1.0]])
    result = simultaneous_intervals(estimate, replicates, alpha=0.5)
    spread = replicates.std(axis=0, ddof=1)
    largest = np.sort((np.abs(replicates - estimate) / spread).max(axis=1))
    assert result.critical == pytest.approx(largest[1])          # the 'higher' 50 % quantile of 4 maxima
    assert result.high - result.estimate == pytest.approx(result.critical * spread)


def test_an_entrant_rated_by_fewer_than_two_replicates_cannot_be_separated():
    replicates = np.array([[0.0, 5.0, np.nan], [0.1, 5.1, 9.0], [-0.1, 4.9, np.nan]])
    result = simultaneous_intervals(np.array([0.0, 5.0, 9.0]), replicates)
    assert (result.low[2], result.high[2]) == (-np.inf, np.inf)
    assert result.rank_low.tolist() == [2, 1, 1] and result.rank_high.tolist() == [3, 2, 3]   # 5 above 0


def test_simultaneous_intervals_cover_every_entrant_at_once_at_their_level():
    # Estimates of 200 entrants with known spreads, and a bootstrap whose replicates spread as the estimates do:
    # every interval must cover its truth at once in about 95 % of the fields (binomial SE 0.011 over 400).
    rng = np.random.default_rng(0)
    truth = rng.normal(size=200)
    spread = rng.uniform(0.1, 1.0, size=200)
    covered = 0
    for _ in range(400):
        estimate = truth + spread * rng.normal(size=200)
        replicates = estimate + spread * rng.normal(size=(300, 200))
        result = simultaneous_intervals(estimate, replicates, alpha=0.05)
        covered += bool(((result.low <= truth) & (truth <= result.high)).all())
    assert 0.92 <= covered / 400 <= 0.98


def test_with_few_datasets_student_t_keeps_the_coverage_the_plain_bootstrap_loses():
    # 300 entrants each estimated as the mean of its values on the same 8 datasets (normal, spreads differing),
    # bootstrapped over the datasets: the plain max-modulus intervals miss some truth in most fields; bounded below
    # by Bonferroni under Student's t for 8 units they cover every truth at once in about 95 % (SE 0.015 over 200).
    rng = np.random.default_rng(3)
    truth, spread = rng.normal(size=300), rng.uniform(0.5, 2.0, size=300)
    covered = {"plain": 0, "student": 0}
    for _ in range(200):
        values = truth + spread * rng.normal(size=(8, 300))
        estimate = values.mean(axis=0)
        replicates = values[rng.integers(0, 8, size=(300, 8))].mean(axis=1)
        for name, units in (("plain", None), ("student", np.full(300, 8))):
            result = simultaneous_intervals(estimate, replicates, alpha=0.05, units=units)
            covered[name] += bool(((result.low <= truth) & (truth <= result.high)).all())
    assert covered["plain"] / 200 < 0.5
    assert covered["student"] / 200 >= 0.92


def test_listed_pairs_keep_the_contenders_pairs_and_the_leaders_pair_with_every_other():
    listed = np.array([True, True, False, True, False, False])
    first, second = listed_pairs(listed, leader=1, most=2)   # contenders 0 and 1 only (most), leader 1
    assert list(zip(first.tolist(), second.tolist())) == [(0, 1), (1, 2), (1, 3), (1, 4), (1, 5)]


def _rows(answers: dict[str, dict[str, list[int]]]) -> dict[str, pd.DataFrame]:
    return {dataset: pd.DataFrame(table).T for dataset, table in answers.items()}


def test_in_a_dense_field_the_suite_effects_differ_by_the_mean_accuracy_difference():
    rows = _rows({"d1": {"a": [1, 1, 1, 0], "b": [1, 0, 0, 0], "c": [0, 1, 1, 1]},
                  "d2": {"a": [1, 1], "b": [0, 1], "c": [0, 0]}})
    result = on_suite_intervals(rows, ["a", "b", "c"], n_tables=100)
    estimate = result.intervals.estimate
    # a − b: (0.75 − 0.25 + 1 − 0.5) / 2 = 0.5; a − c: (0 + 1) / 2 = 0.5; effects centred.
    assert estimate[0] - estimate[1] == pytest.approx(0.5)
    assert estimate[0] - estimate[2] == pytest.approx(0.5)
    assert estimate.sum() == pytest.approx(0.0)


def test_the_alternating_fit_is_the_least_squares_fit_of_the_additive_model():
    rng = np.random.default_rng(3)
    present = rng.random((6, 9)) < 0.5
    present[:, 0] = present[0] = True                        # connected through dataset 0 and entrant 0
    accuracy = np.where(present, rng.uniform(size=present.shape), 0.0)
    effects = additive_effects(accuracy.sum(axis=1)[None], accuracy.sum(axis=0)[None], present.astype(float))[0]
    cells = np.argwhere(present)
    design = np.zeros((len(cells), 6 + 9))
    design[np.arange(len(cells)), cells[:, 0]] = 1.0
    design[np.arange(len(cells)), 6 + cells[:, 1]] = 1.0
    solution = np.linalg.lstsq(design, accuracy[present], rcond=None)[0][6:]
    assert effects - effects[0] == pytest.approx(solution - solution[0], abs=1e-8)


def test_an_entrant_sharing_no_dataset_with_the_rest_is_said_and_not_compared():
    rows = _rows({"d1": {"a": [1, 1, 0], "b": [0, 0, 1]}, "d2": {"a": [1, 0], "b": [0, 0]}, "d3": {"c": [1, 1]}})
    result = on_suite_intervals(rows, ["a", "b", "c"], n_tables=50)
    assert result.notes == ["on this suite, 1 of 3 entrants share no chain of datasets with the largest connected "
                            "group and cannot be compared with it (unbounded intervals)"]
    assert (result.intervals.low[2], result.intervals.high[2]) == (-np.inf, np.inf)


def _field(k: int = 8, n_datasets: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    names = [f"c{i}" for i in range(k)]
    rows, records = {}, []
    for d in range(n_datasets):
        answers = (rng.random((k, 300)) < np.linspace(0.9, 0.5, k)[:, None]).astype(int)
        rows[f"d{d}"] = pd.DataFrame(answers, index=names)
        records += [(f"d{d}", name, float(answers[i].mean())) for i, name in enumerate(names)]
    return pd.DataFrame(records, columns=["dataset", "classifier", "score"]), rows


def test_a_field_above_pairwise_up_to_is_decided_by_intervals_and_its_sentences_count_the_tables():
    scores, rows = _field()
    result = rate(scores, config=RatingConfig(score="score", n_permutations=0, n_bootstrap=200, pairwise_up_to=5),
                  rows=rows)
    board, pairs = result.leaderboard, result.pairwise
    assert set(pairs["method"]) == {"intervals"} and pairs["p_adjusted"].isna().all()
    assert pairs["p_adjusted_on_suite"].isna().all() and pairs["separated_on_suite"].notna().all()
    assert len(pairs) == 28                                   # 8 entrants, all contenders for the top 10
    # The rank intervals are what the listed decisions give, pair by pair.
    for name, low, high in board[["classifier", "rank_low", "rank_high"]].itertuples(index=False):
        above = ((pairs["b"] == name) & pairs["separated"] & (pairs["statistic"] > 0)).sum() + \
            ((pairs["a"] == name) & pairs["separated"] & (pairs["statistic"] < 0)).sum()
        below = ((pairs["a"] == name) & pairs["separated"] & (pairs["statistic"] > 0)).sum() + \
            ((pairs["b"] == name) & pairs["separated"] & (pairs["statistic"] < 0)).sum()
        assert (low, high) == (1 + above, 8 - below)
    verdict = result.verdict
    assert "Method at this field's size (8 tested entrants, 28 pairs;" in verdict
    assert "pairwise.csv lists 28 of the 28 pairs" in verdict
    assert "Method on this suite at this field's size" in verdict
    leader = board.iloc[0]
    assert f"its rank lies {'at 1' if leader['rank_high'] == 1 else f'between 1 and {leader.rank_high}'}" in verdict


def test_a_large_field_lists_only_the_contenders_pairs_and_the_leaders():
    scores, rows = _field(k=30, n_datasets=12, seed=1)
    config = RatingConfig(score="score", n_permutations=0, n_bootstrap=100, pairwise_up_to=5, max_pairwise=4)
    result = rate(scores, config=config, rows=rows)
    board, pairs = result.leaderboard, result.pairwise
    contenders = (board["rank_low"] <= 10) | (board["rank_low_on_suite"] <= 10)
    contenders.iloc[:4] = True
    m = int(contenders.sum())
    assert m < 30                                             # planted spread: not everyone could be top 10
    assert len(pairs) == m * (m - 1) // 2 + (30 - m)
    assert f"pairwise.csv lists {len(pairs)} of the 435 pairs" in result.verdict

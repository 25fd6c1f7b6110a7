"""The default primary verdict: Wilcoxon signed-rank tests with Holm's correction (benchirt.rating.wilcoxon_holm)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import wilcoxon
from statsmodels.stats.multitest import multipletests

from benchirt.rating.pairwise import holm_adjusted
from benchirt.rating.wilcoxon_holm import wilcoxon_holm


def test_decisions_are_scipys_wilcoxon_with_statsmodels_holm():
    rng = np.random.default_rng(0)
    scores = rng.normal(0, 1, (40, 4)) + np.array([1.5, 0.5, 0.0, 0.0])
    result = wilcoxon_holm(scores, alpha=0.05)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    p = [wilcoxon(scores[:, i] - scores[:, j]).pvalue for i, j in pairs]
    adjusted = multipletests(p, method="holm")[1]
    for (i, j), expected in zip(pairs, adjusted):
        assert result.p_adjusted[i, j] == result.p_adjusted[j, i] == pytest.approx(expected)
        assert result.better[i, j] == (expected < 0.05 and result.statistic[i, j] > 0)
        assert result.better[j, i] == (expected < 0.05 and result.statistic[i, j] < 0)
    assert result.better[0, 2] and result.better[0, 3]        # the strongest gap is found
    low, high = result.rank_low, result.rank_high
    assert low[0] == 1 and (low <= high).all()


@pytest.mark.heavy
def test_holm_adjusted_is_statsmodels_holm_with_ties_and_in_the_input_order():
    rng = np.random.default_rng(3)
    for size in (1, 2, 6, 45):
        p = np.round(rng.uniform(0, 0.2, size) ** 2, 3)        # rounded: tied p-values
        p[rng.integers(size)] = 0.9
        assert holm_adjusted(p) == pytest.approx(multipletests(p, method="holm")[1], abs=0, rel=1e-15)
    assert holm_adjusted([0.01, 0.04, 0.03, 0.01]).tolist() == pytest.approx([0.04, 0.06, 0.06, 0.04])
    assert holm_adjusted([0.6, 0.7]).tolist() == [1.0, 1.0] and holm_adjusted([]).size == 0   # capped at 1; none


def test_a_pair_is_compared_on_the_datasets_both_have():
    scores = np.array([[1.0, 0.0, np.nan], [2.0, 1.0, np.nan], [3.0, 2.5, 0.0], [np.nan, 1.0, 5.0]])
    result = wilcoxon_holm(scores)
    raw = [wilcoxon(np.array([1.0, 1.0, 0.5])).pvalue, wilcoxon(np.array([3.0])).pvalue,
           wilcoxon(np.array([2.5, -4.0])).pvalue]
    adjusted = multipletests(raw, method="holm")[1]
    assert [result.p_adjusted[0, 1], result.p_adjusted[0, 2], result.p_adjusted[1, 2]] == pytest.approx(adjusted)
    assert not result.better.any()                             # three datasets cannot reach 0.05


@pytest.mark.heavy
def test_equal_classifiers_of_unequal_spreads_are_separated_at_most_at_the_level():
    """Null tables: 8 equal classifiers with spreads 0.5-3 (t5 noise, scores rounded: ties), 30 datasets.
    Holm's bound holds whatever the dependence; the share of tables with any false separation stays within
    a binomial band around 5 % (150 tables: at most 14 expected above 95 % of the time if the rate were 5 %)."""
    rng = np.random.default_rng(7)
    spread = np.linspace(0.5, 3.0, 8)
    false = 0
    for _ in range(150):
        noise = rng.standard_t(5, size=(30, 8)) / np.sqrt(5 / 3)
        table = np.round(rng.normal(0, 2, (30, 1)) + spread * noise, 1)
        false += bool(wilcoxon_holm(table).better.any())
    assert false <= 14, false


def test_the_leaderboard_with_verdict_holm_states_it_and_stores_it():
    import dataclasses

    import pandas as pd

    from benchirt.rating import RatingConfig, leaderboard
    from benchirt.rating.agreement import wilcoxon_check

    rng = np.random.default_rng(2)
    names = ["A", "B", "C", "D"]
    matrix = rng.normal(0, 1, (20, 4)) + np.array([1.0, 0.95, 0.9, -2.0])
    long = pd.DataFrame([{"dataset": f"d{i}", "classifier": c, "score": matrix[i, j]}
                         for i in range(20) for j, c in enumerate(names)])
    config = dataclasses.replace(RatingConfig(score="score", n_bootstrap=50, n_permutations=0), verdict="holm")
    board = leaderboard(long, config=config)
    pairwise = board.pairwise
    assert set(pairwise["method"]) == {"holm"}
    expected = multipletests([wilcoxon(matrix[:, names.index(a)] - matrix[:, names.index(b)]).pvalue
                              for a, b in zip(pairwise["a"], pairwise["b"])], method="holm")[1]
    assert pairwise["p_adjusted"].to_numpy() == pytest.approx(expected)
    assert (pairwise["separated"] == (pairwise["p_adjusted"] < 0.05)).all()
    assert set(pairwise.loc[pairwise["separated"], "b"]) == {"D"}
    verdict = board.verdict()
    assert "Method: Wilcoxon signed-rank test of each of the 6 pairs over the datasets both have (20 in all), " \
           "Holm's correction over the pairs (Demšar 2006)" in verdict
    assert wilcoxon_check(pairwise) == ""          # not an agreement check of itself

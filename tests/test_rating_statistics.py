"""Friedman/Nemenyi: hand-computed examples, Demšar's critical values, bad inputs, decodIRT mode."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import friedmanchisquare

from benchirt.errors import ConfigError, DataError
from benchirt.rating import critical_difference, friedman_nemenyi, glicko_tournament, read_scores


def block_scores(table: dict[str, tuple[float, ...]], classifiers="ABC") -> pd.DataFrame:
    return pd.DataFrame(
        [(d, c, v) for d, values in table.items() for c, v in zip(classifiers, values)],
        columns=["dataset", "classifier", "score"],
    )


# Ranks (1 = best) by hand:   A  B  C
#   d1  0.90 0.80 0.70       1  2  3
#   d2  0.90 0.70 0.80       1  3  2
#   d3  0.80 0.90 0.60       2  1  3
#   d4  0.95 0.60 0.50       1  2  3
# average ranks R = 1.25, 2.00, 2.75
# chi2_F = 12N/(k(k+1)) [sum R^2 - k(k+1)^2/4] = 4 * (1.5625 + 4 + 7.5625 - 12) = 4.5, df 2,
# p = exp(-4.5 / 2) (chi-square survival function with 2 df).
NO_TIES = {"d1": (0.9, 0.8, 0.7), "d2": (0.9, 0.7, 0.8), "d3": (0.8, 0.9, 0.6), "d4": (0.95, 0.6, 0.5)}

# With ties (average ranks):  A    B    C
#   d1  1.0 1.0 0.0          1.5  1.5  3
#   d2  0.9 0.5 0.1          1    2    3
#   d3  0.8 0.2 0.5          1    3    2
#   d4  0.7 0.7 0.7          2    2    2
# rank sums 5.5, 8.5, 10; uncorrected 12/(Nk(k+1)) sum Rj^2 - 3N(k+1) = 202.5/4 - 48 = 21/8;
# tie correction 1 - sum(t^3 - t)/(N k (k^2 - 1)) = 1 - (6 + 24)/96 = 11/16; chi2_F = 42/11.
WITH_TIES = {"d1": (1.0, 1.0, 0.0), "d2": (0.9, 0.5, 0.1), "d3": (0.8, 0.2, 0.5), "d4": (0.7, 0.7, 0.7)}

#: Demšar (2006), Table 5: q_0.05 and q_0.10 of the two-tailed Nemenyi test.
DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 10: 3.164}
DEMSAR_Q10 = {3: 2.052, 5: 2.459, 10: 2.920}


def test_hand_computed_friedman_and_nemenyi_without_ties():
    result = friedman_nemenyi(block_scores(NO_TIES))
    assert result.statistic == pytest.approx(4.5, abs=1e-12)
    assert result.p_value == pytest.approx(math.exp(-2.25), abs=1e-12)
    assert result.average_ranks.to_dict() == pytest.approx({"A": 1.25, "B": 2.0, "C": 2.75})
    assert list(result.average_ranks.index) == ["A", "B", "C"] and result.n_blocks == 4
    # A-C differ by 1.5 average ranks: more than CD_0.10 = 2.052 sqrt(1/2) = 1.451, less than
    # CD_0.05 = 2.343 sqrt(1/2) = 1.657 (Demšar's table), so 0.05 < p < 0.10; A-B (0.75) is far from both.
    p = result.p_values
    assert 0.05 < p.loc["A", "C"] < 0.10
    assert p.loc["A", "B"] > 0.10 and p.loc["B", "C"] > 0.10
    assert (np.diag(p) == 1).all() and np.allclose(p, p.T)
    assert result.critical_difference == pytest.approx(2.343 * math.sqrt(0.5), abs=1e-3)
    assert not result.significant().to_numpy().any()


def test_hand_computed_friedman_with_ties():
    result = friedman_nemenyi(block_scores(WITH_TIES))
    assert result.statistic == pytest.approx(42 / 11, abs=1e-12)
    assert result.p_value == pytest.approx(math.exp(-21 / 11), abs=1e-12)
    assert result.average_ranks.to_dict() == pytest.approx({"A": 1.375, "B": 2.125, "C": 2.5})


@pytest.mark.parametrize("k", sorted(DEMSAR_Q05))
def test_critical_difference_matches_demsar_table(k):
    n = 14
    scale = math.sqrt(k * (k + 1) / (6 * n))
    assert critical_difference(k, n, alpha=0.05) == pytest.approx(DEMSAR_Q05[k] * scale, abs=2e-3 * scale)
    if k in DEMSAR_Q10:
        assert critical_difference(k, n, alpha=0.10) == pytest.approx(DEMSAR_Q10[k] * scale, abs=2e-3 * scale)


def test_too_few_classifiers_or_datasets_are_clear_errors():
    two = block_scores({"d1": (1.0, 0.0), "d2": (0.0, 1.0)}, classifiers="AB")
    with pytest.raises(DataError, match="at least 3 classifiers, found 2"):
        friedman_nemenyi(two)
    with pytest.raises(DataError, match="at least 3 classifiers"):
        friedman_nemenyi(two, mode="decodirt")
    one = block_scores({"d1": (0.3, 0.2, 0.1)})
    with pytest.raises(DataError, match="at least 2 datasets .* found 1"):
        friedman_nemenyi(one)
    with pytest.raises(DataError, match="at least 2 rating periods"):
        friedman_nemenyi(one, mode="decodirt")
    tied = block_scores({"d1": (0.5, 0.5, 0.5), "d2": (0.1, 0.1, 0.1)})
    with pytest.raises(DataError, match="tie on every dataset"):
        friedman_nemenyi(tied)
    with pytest.raises(ConfigError, match="classifier\\(s\\) Z have no scores; known: A, B, C"):
        friedman_nemenyi(block_scores(NO_TIES), classifiers=["A", "B", "Z"])
    with pytest.raises(ConfigError) as info:
        friedman_nemenyi(block_scores(NO_TIES), mode="ttest")
    assert str(info.value) == "rate.stats: got 'ttest', expected one of blocks, decodirt"
    for alpha in (0, 1.0, float("nan")):
        with pytest.raises(ConfigError) as info:
            friedman_nemenyi(block_scores(NO_TIES), alpha=alpha)
        assert str(info.value) == f"rate.alpha: got {alpha!r}, expected a number in (0, 1)"


def test_datasets_missing_a_classifier_are_dropped_and_recorded():
    scores = block_scores(NO_TIES)
    partial = scores[~((scores["dataset"] == "d3") & (scores["classifier"] == "B"))]
    result = friedman_nemenyi(partial)
    assert result.dropped_datasets == ["d3"] and result.n_blocks == 3
    full = friedman_nemenyi(scores[scores["dataset"] != "d3"])
    assert result.statistic == pytest.approx(full.statistic)
    sparse = partial[~((partial["dataset"].isin(["d1", "d2"])) & (partial["classifier"] == "C"))]
    with pytest.raises(DataError, match="found 1; 3 dataset\\(s\\) were left out .*d1, d2, d3.*classifiers="):
        friedman_nemenyi(sparse)


def test_decodirt_mode_is_friedman_on_rating_trajectories():
    rng = np.random.default_rng(0)
    scores = block_scores({f"d{i:02d}": tuple(rng.uniform(size=4)) for i in range(12)}, classifiers="ABCD")
    result = friedman_nemenyi(scores, mode="decodirt")
    trajectories = glicko_tournament(scores).rating_matrix("rating")
    statistic, p_value = friedmanchisquare(*trajectories.to_numpy().T)
    assert result.statistic == pytest.approx(statistic) and result.p_value == pytest.approx(p_value)
    assert result.mode == "decodirt" and "decodIRT compatibility" in result.description
    assert result.critical_difference is None and result.n_blocks == 12
    assert result.to_dict()["mode"] == "decodirt"


@pytest.mark.heavy
def test_decodirt_mode_finds_differences_where_there_are_none():
    """Scores drawn i.i.d. for every classifier: the blocks test holds its level, decodIRT's does not."""
    rng = np.random.default_rng(1)
    rejections = {"blocks": 0, "decodirt": 0}
    for _ in range(20):
        values = rng.uniform(size=(30, 5))
        scores = block_scores({f"d{i:02d}": tuple(values[i]) for i in range(30)}, classifiers="ABCDE")
        for mode in rejections:
            rejections[mode] += friedman_nemenyi(scores, mode=mode).p_value < 0.05
    assert rejections["blocks"] <= 4
    assert rejections["decodirt"] >= 14


def test_reference_true_scores_and_accuracies(shared_data):
    root = shared_data / "decodirt-reference"
    by_true_score = friedman_nemenyi(read_scores(root))
    by_accuracy = friedman_nemenyi(read_scores(root, score="test_accuracy"))
    for result in (by_true_score, by_accuracy):
        assert result.n_blocks == 50 and result.n_classifiers == 19 and result.p_value < 1e-10
        assert np.isfinite(result.p_values.to_numpy()).all()
    # optimal is right on every test instance: best accuracy on every dataset, pessimal the worst.
    assert by_accuracy.average_ranks.index[0] == "otimo" and by_accuracy.average_ranks.index[-1] == "pessimo"
    assert by_accuracy.average_ranks["pessimo"] == 19


def test_decodirt_mode_tests_a_subset_of_the_full_tournament():
    rng = np.random.default_rng(4)
    scores = block_scores({f"d{i:02d}": tuple(rng.uniform(size=5)) for i in range(10)}, classifiers="ABCDE")
    result = friedman_nemenyi(scores, mode="decodirt", classifiers=["A", "B", "C"])
    trajectories = glicko_tournament(scores).rating_matrix("rating")[["A", "B", "C"]]
    assert result.statistic == pytest.approx(friedmanchisquare(*trajectories.to_numpy().T)[0])
    assert sorted(result.p_values.index) == ["A", "B", "C"]


def test_nemenyi_p_values_equal_scikit_posthocs_with_ties():
    """Each distinct rank difference is integrated once; the p-values are scikit-posthocs' own, pair by pair."""
    import scikit_posthocs as sp

    from benchirt.rating.statistics import nemenyi_friedman_p_values

    rng = np.random.default_rng(4)
    values = rng.integers(0, 6, size=(7, 40)).astype(float)      # coarse scores: many ties within a dataset
    names = [f"c{j:02d}" for j in range(40)]
    expected = sp.posthoc_nemenyi_friedman(pd.DataFrame(values, columns=names))
    pd.testing.assert_frame_equal(nemenyi_friedman_p_values(values, names), expected.loc[names, names],
                                  check_exact=False, rtol=1e-12, atol=0)

"""Portfolio comparison: airt vs Shapley vs topset by cross-validated mean performance gap."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from benchirt.airt.portfolio import (
    airt_ranking,
    compare_portfolios,
    performance_gap,
    shapley_ranking,
    shapley_values,
    topset_ranking,
)
from benchirt.errors import DataError


def _brute_force_shapley(values: np.ndarray) -> np.ndarray:
    """Shapley values by the subset formula, v(S) = mean_i max_{j in S} x_ij, v({}) = 0."""
    n_inst, k = values.shape

    def worth(members):
        return values[:, list(members)].max(axis=1).mean() if members else 0.0

    phi = np.zeros(k)
    for j in range(k):
        others = [p for p in range(k) if p != j]
        for size in range(k):
            weight = math.factorial(size) * math.factorial(k - size - 1) / math.factorial(k)
            for subset in itertools.combinations(others, size):
                phi[j] += weight * (worth(subset + (j,)) - worth(subset))
    return phi


def test_shapley_closed_form_equals_subset_formula():
    rng = np.random.default_rng(0)
    values = rng.random((30, 5))
    values[:, 3] = values[:, 1]           # ties
    values[5] = 0.4                       # an instance where all algorithms tie
    perf = pd.DataFrame(values, columns=list("abcde"))
    phi = shapley_values(perf)
    np.testing.assert_allclose(phi.to_numpy(), _brute_force_shapley(values), atol=1e-12)
    assert phi.sum() == pytest.approx(values.max(axis=1).mean())        # efficiency
    assert phi["b"] == pytest.approx(phi["d"])                          # symmetry


def test_shapley_ranks_a_unique_contributor_above_a_duplicate():
    # b and c are identical and best on half of the instances; a alone is best on the other half
    perf = pd.DataFrame({"a": [1.0, 1.0, 0.0, 0.0], "b": [0.0, 0.0, 1.0, 1.0], "c": [0.0, 0.0, 1.0, 1.0]})
    phi = shapley_values(perf)
    assert phi["a"] == pytest.approx(0.5) and phi["b"] == pytest.approx(0.25)
    assert shapley_ranking(perf)[0] == "a"
    with pytest.raises(DataError, match="non-negative"):
        shapley_values(perf - 1)


def test_topset_counts_wins_and_shares_ties():
    perf = pd.DataFrame({
        "a": [0.9, 0.9, 0.1, 0.5, 0.2],
        "b": [0.1, 0.2, 0.9, 0.5, 0.3],
        "c": [0.8, 0.3, 0.8, 0.5, 0.9],
        "d": [0.0, 0.0, 0.0, 0.0, 0.0],
    })
    # wins: a = 2 + 1/3, b = 1 + 1/3, c = 1 + 1/3 (c has the larger mean), d = 0
    assert topset_ranking(perf) == ["a", "c", "b", "d"]


def test_performance_gap_both_directions():
    perf = pd.DataFrame({"a": [0.9, 0.2], "b": [0.5, 0.7], "c": [0.1, 0.8]})
    np.testing.assert_allclose(performance_gap(perf, ["a"]), [0.0, 0.6])
    np.testing.assert_allclose(performance_gap(perf, ["a", "b"]), [0.0, 0.1])
    runtimes = pd.DataFrame({"a": [10.0, 300.0], "b": [50.0, 20.0]})
    np.testing.assert_allclose(performance_gap(runtimes, ["a"], maximize=False), [0.0, 280.0])
    with pytest.raises(DataError, match="unknown"):
        performance_gap(perf, ["z"])


def _toy(n=40, seed=0):
    rng = np.random.default_rng(seed)
    perf = pd.DataFrame(rng.random((n, 4)) * 0.5, columns=["w", "x", "y", "z"],
                        index=[f"i{i}" for i in range(n)])
    perf.loc[perf.index[: n // 2], "x"] += 0.5         # x best on the first half
    perf.loc[perf.index[n // 2:], "y"] += 0.5          # y best on the second half
    return perf


def test_compare_with_stub_selectors_matches_hand_computation():
    perf = _toy()
    folds = pd.Series([1 + i % 4 for i in range(len(perf))], index=perf.index)
    selectors = {"fixed": lambda train: ["w", "x", "y", "z"], "oracle": lambda train: ["x", "y", "w", "z"]}
    result = compare_portfolios(perf, selectors=selectors, folds=folds)
    # fold by fold by hand
    for fold in range(1, 5):
        test = perf[folds == fold]
        best = test.max(axis=1)
        for n in range(1, 5):
            expected = (best - test[["w", "x", "y", "z"][:n]].max(axis=1)).mean()
            got = result.per_fold.query("fold == @fold and method == 'fixed' and n == @n")["gap"].item()
            assert got == pytest.approx(expected)
    oracle = result.summary[result.summary["method"] == "oracle"].set_index("n")
    assert oracle.loc[2, "mpg"] == pytest.approx(0.0) and oracle.loc[2, "se"] == pytest.approx(0.0)
    fixed = result.per_fold[(result.per_fold["method"] == "fixed") & (result.per_fold["n"] == 1)]["gap"]
    row = result.summary.query("method == 'fixed' and n == 1").iloc[0]
    assert row["mpg"] == pytest.approx(fixed.mean())
    assert row["se"] == pytest.approx(fixed.std(ddof=1) / 2.0)
    assert row["n_folds"] == 4
    assert list(result.table(2, raw=False).index) == ["fixed", "oracle"]
    assert set(result.rankings["method"]) == {"fixed", "oracle"}
    assert not result.summary.isna().any().any()


def test_raw_gaps_are_rescaled_gaps_under_the_linear_transform():
    raw = _toy() * 1000.0                                   # "runtimes": lower is better
    perf = (raw.to_numpy().max() - raw) / (raw.to_numpy().max() - raw.to_numpy().min())
    result = compare_portfolios(perf, raw=raw, maximize=False, n_folds=5,
                                selectors={"shapley": shapley_ranking, "topset": topset_ranking})
    span = raw.to_numpy().max() - raw.to_numpy().min()
    np.testing.assert_allclose(result.summary["raw_mpg"], result.summary["mpg"] * span)
    assert (result.table(1) == result.summary.query("n == 1").set_index("method")["raw_mpg"]).all()


def test_random_folds_are_seeded_and_short_rankings_limit_n():
    perf = _toy()
    selectors = {"two": lambda train: ["x", "y"], "topset": topset_ranking}
    first = compare_portfolios(perf, selectors=selectors, n_folds=5, seed=3)
    again = compare_portfolios(perf, selectors=selectors, n_folds=5, seed=3)
    pd.testing.assert_frame_equal(first.summary, again.summary)
    assert first.summary.query("method == 'two'")["n"].max() == 2
    assert first.summary.query("method == 'topset'")["n"].max() == 4


def test_failing_selector_is_recorded_and_bad_selector_is_an_error():
    from benchirt.errors import BenchirtError

    def fails(train):
        raise BenchirtError("cannot rank this fold")

    result = compare_portfolios(_toy(), selectors={"fails": fails, "topset": topset_ranking}, n_folds=4)
    assert len(result.failures) == 4 and "cannot rank" in result.failures["error"].iloc[0]
    assert set(result.summary["method"]) == {"topset"}
    with pytest.raises(DataError, match="unknown or repeated"):
        compare_portfolios(_toy(), selectors={"bad": lambda train: ["x", "x"]}, n_folds=4)


@pytest.mark.parametrize("kwargs, message", [
    ({"n_folds": 50}, "cannot be split into 50 folds"),
    ({"max_size": 9}, "max_size"),
    ({"folds": pd.Series({"i0": 1})}, "no fold for instance"),
])
def test_bad_comparison_arguments(kwargs, message):
    with pytest.raises(DataError, match=message):
        compare_portfolios(_toy(), selectors={"topset": topset_ranking}, **kwargs)


def test_comparison_refuses_runtimes_and_one_dataset():
    runtimes = _toy() * 100
    with pytest.raises(DataError, match="to_unit_interval"):
        compare_portfolios(runtimes, selectors={"topset": topset_ranking})
    with pytest.raises(DataError, match="at least 2 datasets"):
        compare_portfolios(_toy().iloc[:1], selectors={"topset": topset_ranking})


def test_airt_ranking_puts_the_niche_algorithms_first():
    rng = np.random.default_rng(1)
    easiness = rng.normal(size=150)
    base = 1 / (1 + np.exp(-easiness))
    perf = pd.DataFrame({
        "easy_expert": np.clip(base + 0.25 * (easiness > 0) + rng.normal(0, 0.02, 150), 0.01, 0.99),
        "hard_expert": np.clip(0.55 + 0.1 * (easiness <= 0) + rng.normal(0, 0.02, 150) - 0.1 * easiness, 0.01, 0.99),
        "weak": np.clip(base - 0.3 + rng.normal(0, 0.02, 150), 0.01, 0.99),
        "middling": np.clip(base - 0.1 + rng.normal(0, 0.02, 150), 0.01, 0.99),
    })
    strict = airt_ranking(perf, epsilon=0.0, extend=False)
    assert set(strict) == {"easy_expert", "hard_expert"}
    full = airt_ranking(perf, epsilon=0.0)
    assert sorted(full) == sorted(perf.columns) and full[: len(strict)] == strict
    assert full[-1] == "weak"


def test_gap_curves_feed_the_portfolio_plot():
    from benchirt.airt.plots import plot_portfolio_gap

    result = compare_portfolios(_toy(), selectors={"shapley": shapley_ranking, "topset": topset_ranking},
                                n_folds=4)
    curves = result.gap_curves()
    assert list(curves.columns) == ["method", "n_algorithms", "mean_gap", "se"]
    np.testing.assert_allclose(curves["mean_gap"], result.summary["mpg"])
    figure = plot_portfolio_gap(curves)
    assert len(figure.axes[0].lines) >= 2


def _check_invariants(result, k):
    for (method, fold), rows in result.per_fold.groupby(["method", "fold"]):
        gaps = rows.sort_values("n")["gap"].to_numpy()
        assert (np.diff(gaps) <= 1e-12).all(), (method, fold)          # nested portfolios never lose
        assert (gaps >= -1e-12).all()
        if rows["n"].max() == k:
            assert gaps[-1] == pytest.approx(0.0, abs=1e-12)             # all algorithms: no gap


@pytest.mark.heavy
def test_real_scenario_shapley_and_topset_on_official_folds(shared_data):
    from benchirt.airt.aslib import load_aslib

    scenario = load_aslib(shared_data / "aslib" / "ASP-POTASSCO")
    result = compare_portfolios(scenario.performance, folds=scenario.folds, raw=scenario.raw_performance,
                                maximize=False, selectors={"shapley": shapley_ranking, "topset": topset_ranking})
    k = scenario.performance.shape[1]
    _check_invariants(result, k)
    assert set(result.per_fold["n_test"]) == set(scenario.folds.value_counts())
    span = scenario.raw_performance.to_numpy().max() - scenario.raw_performance.to_numpy().min()
    np.testing.assert_allclose(result.summary["raw_mpg"], result.summary["mpg"] * span, rtol=1e-9)
    assert (result.summary["n_folds"] == 10).all()


@pytest.mark.slow
def test_real_scenario_full_comparison_with_airt(shared_data):
    from benchirt.airt.aslib import load_aslib

    scenario = load_aslib(shared_data / "aslib" / "SAT11-INDU")
    result = compare_portfolios(scenario.performance, folds=scenario.folds, raw=scenario.raw_performance,
                                maximize=False)
    _check_invariants(result, scenario.performance.shape[1])
    assert result.failures.empty
    assert set(result.table(5).index) == {"airt", "shapley", "topset"}
    assert not result.summary.isna().any().any()

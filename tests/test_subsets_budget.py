"""The budget rule, its baselines and their judgement on held-out classifiers (issue 41 item 2)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from benchirt.errors import ConfigError
from benchirt.rating.stepdown import step_down
from benchirt.subsets import build_subsets
from benchirt.subsets.baselines import baseline_orders, farthest_first_order, fill_in_order, random_fills
from benchirt.subsets.budget import budget_subset, budget_subsets, critical_value
from benchirt.subsets.held_out import compare_rules, contender_halves, judge, recommendation


def planted(n_datasets: int, k: int, seed: int, gap: float = 0.04, noise: float = 0.03) -> np.ndarray:
    """Scores (datasets × classifiers): classifier j is better by ``gap`` per rank, with per-dataset noise."""
    rng = np.random.default_rng(seed)
    return 0.8 - gap * np.arange(k)[None, :] + rng.normal(0, noise, (n_datasets, k))


def test_the_critical_value_is_bonferronis_bound_on_the_first_threshold():
    # 4 classifiers: 6 pairs, two-sided 5 %: the 1 - 0.05/12 normal quantile
    assert critical_value(4, 0.05) == pytest.approx(2.6383, abs=1e-4)


def test_the_budget_is_never_exceeded_and_the_whole_budget_keeps_everything():
    scores = planted(16, 5, seed=1)
    costs = np.random.default_rng(2).uniform(1, 50, 16)
    for share in (0.2, 0.5, 0.8):
        choice = budget_subset(scores, costs, share * costs.sum(), n_tables=200)
        assert choice.cost <= share * costs.sum() + 1e-9
        assert choice.cost == pytest.approx(costs[choice.chosen].sum())
    whole = budget_subset(scores, costs, costs.sum(), n_tables=200)
    assert list(whole.chosen) == list(range(16)) and whole.kept == pytest.approx(1.0)


def test_a_dataset_whose_removal_loses_a_separation_is_kept_over_a_free_one_of_equal_cost():
    # two classifiers; 9 datasets agree that 0 beats 1, dataset 9 and 10 differ only in whether they agree
    scores = np.array([[0.9, 0.5]] * 9 + [[0.9, 0.5], [0.5, 0.9]], dtype=float)
    scores[:9, 1] += np.linspace(0, 0.1, 9)          # distinct |differences| for the signed ranks
    costs = np.ones(11)
    costs[9] = costs[10] = 10.0
    choice = budget_subset(scores, costs, costs.sum() - 10.0, n_tables=500)
    assert 9 in choice.chosen and 10 not in choice.chosen


def test_with_nothing_separated_the_rule_is_cheapest_first_and_says_so():
    scores = np.full((6, 3), 0.7)                   # every classifier ties everywhere
    costs = np.array([5.0, 1.0, 4.0, 2.0, 3.0, 6.0])
    choice = budget_subset(scores, costs, 6.0, n_tables=64)
    assert sorted(choice.chosen) == [1, 3, 4]        # costs 1 + 2 + 3 = the cheapest that fit 6
    assert "cheapest-first" in choice.note


def test_unknown_costs_count_each_dataset_and_the_note_says_so():
    scores = pd.DataFrame(planted(8, 4, seed=3), index=[f"d{i}" for i in range(8)])
    subsets, notes = budget_subsets(scores, pd.Series(dtype=float), [50], n_tables=100)
    assert len(subsets["budget-50"]) == 4
    assert any("costs are unknown" in note and "shares of the datasets" in note for note in notes)


def test_fill_in_order_keeps_what_fits_and_random_fills_are_of_equal_cost():
    costs = np.array([3.0, 5.0, 1.0, 2.0])
    assert list(fill_in_order(np.array([1, 0, 2, 3]), costs, 7.0)) == [1, 2]   # 5, then 3 does not fit, then 1
    assert list(fill_in_order(np.array([1]), costs, 2.0)) == [1]                # at least the first
    for members in random_fills(costs, 6.0, 20, seed=0):
        assert costs[members].sum() <= 6.0


def test_farthest_first_starts_at_the_medoid_and_takes_the_odd_profile_next():
    base = np.array([1.0, 2.0, 3.0])
    scores = np.vstack([base, base + 0.01 * np.array([0, 1, 0]), base * 1.001, base[::-1]])
    order = farthest_first_order(scores)
    assert order[1] == 3 and order[0] != 3


def test_contender_halves_alternate_by_mean_score():
    scores = planted(10, 6, seed=4, noise=0.001)
    first, second = contender_halves(scores, n_contenders=6)
    assert list(first) == [0, 2, 4] and list(second) == [1, 3, 5]


def test_on_planted_fields_the_budget_rule_keeps_more_than_random_subsets_of_equal_cost():
    differences = []
    for seed in (6, 7, 8):
        rng = np.random.default_rng(seed)
        scores = pd.DataFrame(planted(30, 12, seed=seed, gap=0.004), index=[f"d{i:02d}" for i in range(30)])
        costs = pd.Series(np.exp(rng.normal(0, 1.5, 30)), index=scores.index)
        table = compare_rules(scores, costs, pd.Series(300, index=scores.index), [0.5], n_random=40, n_tables=300)
        rows = table.set_index("rule")
        assert set(rows.index) == {"budget", "cheapest_first", "top_spread", "farthest_first", "most_items",
                                   "random_equal_cost"}
        assert rows.loc["budget", "cpu_share"] <= 0.5 + 1e-9
        assert 0 < rows.loc["budget", "p_vs_random"] <= 1
        differences.append(rows.loc["budget", "kept"] - rows.loc["random_equal_cost", "kept"])
    assert min(differences) > 0 and np.mean(differences) > 0.2


def _comparison(kept: float, p: float) -> pd.DataFrame:
    return pd.DataFrame([
        {"budget_share": 0.25, "rule": "budget", "cpu_share": 0.24, "n_datasets": 9.0, "kept": 0.5, "p_vs_random": 0.3},
        {"budget_share": 0.25, "rule": "random_equal_cost", "cpu_share": 0.25, "n_datasets": 6.0, "kept": 0.4},
        {"budget_share": 0.5, "rule": "budget", "cpu_share": 0.48, "n_datasets": 14.0, "kept": kept, "p_vs_random": p},
        {"budget_share": 0.5, "rule": "cheapest_first", "cpu_share": 0.49, "n_datasets": 15.0, "kept": 0.97,
         "p_vs_random": 0.02},
        {"budget_share": 0.5, "rule": "random_equal_cost", "cpu_share": 0.5, "n_datasets": 10.0, "kept": 0.6}])


def test_the_recommendation_is_the_cheapest_subset_that_keeps_the_goal_and_beats_random():
    assert recommendation(_comparison(0.95, 0.01)) == (
        "Recommended: budget-50 (14 datasets, 48% of the suite's CPU) keeps 95% of the full suite's separations of "
        "classifiers held out of the choice (p = 0.01 against random subsets of equal cost; random equal cost 60%, "
        "cheapest first 97%).")
    for kept, p in ((0.95, 0.2), (0.8, 0.01)):
        sentence = recommendation(_comparison(kept, p))
        assert sentence.startswith("No budget subset both keeps 90%") and sentence.endswith(
            "benchirt recommends none of its own subsets, but a simpler rule keeps 97%: cheapest-first at 49% of the "
            "CPU (p = 0.02 against random).")
    without = _comparison(0.8, 0.01)
    without = without[without["rule"] != "cheapest_first"]
    assert recommendation(without).endswith("benchirt recommends none; run the full suite.")


def test_no_recommendation_when_the_held_out_suite_separates_nothing():
    scores = pd.DataFrame(np.full((6, 8), 0.5), index=[f"d{i}" for i in range(6)])
    table = compare_rules(scores, pd.Series(1.0, index=scores.index), None, [0.5], n_random=10, n_tables=64)
    assert table["kept"].isna().all()
    assert "separates no pair" in recommendation(table) and "recommends none" in recommendation(table)


def test_the_decodirt_rule_is_decodirts_combined_rule_and_build_subsets_refuses_the_budget_rule():
    summaries = pd.DataFrame({"pct_discrimination_gt": [90, 10, 50, 30], "pct_difficulty_gt": [5, 80, 40, 60]},
                             index=["d1", "d2", "d3", "d4"])
    assert build_subsets(summaries, cuts=[50, 100], rule="decodirt") == {
        "decodirt-50": ["d1", "d2"], "decodirt-100": ["d1", "d3", "d2", "d4"]}
    with pytest.raises(ConfigError, match="budget rule reads scores and costs"):
        build_subsets(summaries, cuts=[50], rule="budget")


def test_without_costs_the_budgets_count_datasets_and_cheapest_first_is_no_baseline():
    scores = pd.DataFrame(planted(12, 8, seed=9), index=[f"d{i:02d}" for i in range(12)])
    table = compare_rules(scores, pd.Series(dtype=float), None, [0.5], n_random=10, n_tables=100)
    assert set(table["rule"]) == {"budget", "top_spread", "farthest_first", "random_equal_cost"}
    assert (table.loc[table["rule"] != "random_equal_cost", "n_datasets"] == 6).all()   # half of 12 datasets


def test_a_held_out_classifier_on_none_of_the_chosen_datasets_has_no_rank_and_raises_no_warning():
    rng = np.random.default_rng(4)
    scores = rng.uniform(0.6, 0.9, (6, 4))
    scores[:3, 3] = np.nan                  # the fourth classifier ran only the datasets not chosen
    full = step_down(scores, 200, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        measures = judge(scores, np.arange(3), full, 200, 0.05, 0)
    every = pd.DataFrame(scores).rank(axis=1, ascending=False).mean(axis=0)[:3]     # the three ranked on both
    three = pd.DataFrame(scores[:3]).rank(axis=1, ascending=False).mean(axis=0)[:3]
    assert measures["tau"] == pytest.approx(kendalltau(every, three).statistic)


def test_top_spread_ranks_a_dataset_none_of_the_leaders_ran_last_without_a_warning():
    scores = np.array([[0.8, 0.7, np.nan], [np.nan, np.nan, np.nan], [0.5, 0.9, 0.6]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        orders = baseline_orders(scores, np.array([1.0, 2.0, 3.0]), None, top_k=2)
    # the two leaders by mean (columns 1 and 2) spread 0.15 on dataset 2, 0 on dataset 0 (one of them), 0 on dataset 1
    assert orders["top_spread"].tolist() == [2, 0, 1]

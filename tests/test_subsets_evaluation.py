"""Evaluation of subsets: fidelity statistics, chance comparison, the paper's tables, bad inputs."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import DataError
from benchirt.rating import glicko_tournament
from benchirt.subsets import FULL, SubsetConfig, build_subsets, evaluate_subsets
from benchirt.subsets import fidelity

REAL = ["r1", "r2", "r3", "r4", "r5"]
ROLES = {**{name: "real" for name in REAL}, "opt": "artificial", "base1": "artificial", "base2": "artificial"}


NOISY = (0, 3, 6, 9, 12, 15)


def synthetic_suite(seed: int = 0):
    """20 datasets d00..d19. Informative ones: real classifiers in their true order r1 > ... > r5,
    far above the two baselines. Noisy ones (:data:`NOISY`): real classifiers in random order with
    the baselines above them. The IRT summaries mark the informative ones as the most discriminating."""
    rng = np.random.default_rng(seed)
    rows, summaries = [], []
    for i in range(20):
        informative = i not in NOISY
        name = f"d{i:02d}"
        if informative:
            real = 100 - 5 * np.arange(5) + rng.uniform(0, 1, 5)
            base = rng.uniform(40, 50, 2)
        else:
            real = rng.permutation(5) * 5.0 + 60 + rng.uniform(0, 1, 5)
            base = rng.uniform(85, 95, 2)
        scores = dict(zip(REAL, real)) | {"opt": 120.0, "base1": base[0], "base2": base[1]}
        rows += [{"dataset": name, "classifier": c, "score": s} for c, s in scores.items()]
        summaries.append({"dataset": name, "pct_discrimination_gt": 90.0 - i if informative else 20.0 - i / 2,
                          "pct_difficulty_gt": 5.0 + i, "pct_guessing_gt": 10.0,
                          "pct_negative_discrimination": float(i % 3)})
    return pd.DataFrame(rows), pd.DataFrame(summaries)


@pytest.fixture(scope="module")
def evaluation():
    scores, summaries = synthetic_suite()
    subsets = build_subsets(summaries, cuts=(50,), rule="discrimination")
    config = SubsetConfig(cuts=(50,), rule="discrimination", n_random=100, n_permutations=20, seed=1)
    return evaluate_subsets(subsets, scores, summaries, roles=ROLES, config=config), scores, summaries


def test_kendall_tau_hand_computed():
    ref = pd.Series([4.0, 3.0, 2.0, 1.0], index=list("abcd"))
    assert fidelity.kendall_tau(ref, ref * 2) == 1.0
    assert fidelity.kendall_tau(ref, -ref) == -1.0
    # one swapped pair out of six: (5 - 1) / 6
    assert fidelity.kendall_tau(ref, pd.Series([4.0, 3.0, 1.0, 2.0], index=list("abcd"))) == pytest.approx(4 / 6)
    assert fidelity.kendall_tau(ref, pd.Series([1.0] * 4, index=list("abcd"))) == 0.0


def test_separation_and_upper_reference():
    ratings = pd.Series({"r1": 1700.0, "r2": 1600.0, "opt": 1800.0, "maj": 1550.0, "rnd": 1400.0})
    assert fidelity.separation(ratings, pd.Index(["r1", "r2"]), pd.Index(["maj", "rnd"])) == 50.0
    matrix = pd.DataFrame({"r1": [10, 20], "r2": [5, 30], "opt": [12, 25], "maj": [1, 2]})
    # opt's mean (18.5) exceeds the best real mean (17.5) though r2 beats it on dataset 2.
    assert list(fidelity.upper_references(matrix, pd.Index(["r1", "r2"]), pd.Index(["opt", "maj"]))) == ["opt"]


def test_place_in_distribution_hand_computed():
    draws = np.array([1.0, 2.0, 3.0, 4.0])
    assert fidelity.place_in_distribution(3.0, draws) == (62.5, 3 / 5)
    assert fidelity.place_in_distribution(10.0, draws) == (100.0, 1 / 5)
    assert fidelity.place_in_distribution(0.0, draws) == (0.0, 1.0)


def test_random_subsets_seeded_sorted_without_replacement():
    rows = fidelity.random_subsets(20, 7, 50, seed=3)
    assert rows.shape == (50, 7)
    assert all(len(set(r)) == 7 and list(r) == sorted(r) for r in rows)
    np.testing.assert_array_equal(rows, fidelity.random_subsets(20, 7, 50, seed=3))
    assert not np.array_equal(rows, fidelity.random_subsets(20, 7, 50, seed=4))
    # every dataset is drawn about equally often (uniform): 50 * 7 / 20 = 17.5 each
    counts = np.bincount(rows.ravel(), minlength=20)
    assert counts.min() > 5 and counts.max() < 35


def test_informative_subset_beats_chance(evaluation):
    ev, _, _ = evaluation
    row = ev.fidelity.set_index("subset").loc["discrimination-50"]
    assert not set(ev.subsets["discrimination-50"]) & {f"d{i:02d}" for i in NOISY}
    # the informative subset keeps the full suite's order; random ones often do too (the order is
    # clear), so for tau it is only at least as faithful as the typical random subset ...
    assert row["kendall_tau"] == pytest.approx(1.0) and row["kendall_tau_percentile"] >= 50
    # ... while the baselines beat the real classifiers on the noisy datasets, so random subsets,
    # which almost always contain some, separate real from baseline classifiers worse.
    assert row["separation"] > row["separation_random_mean"]
    assert row["separation_percentile"] > 90 and row["separation_p_value"] < 0.05
    assert ev.notes == ["upper reference(s) left out of the separation: opt"]


def test_fidelity_engine_agrees_with_glicko_tournament(evaluation):
    ev, scores, _ = evaluation
    for name in ev.subsets:
        table = glicko_tournament(scores[scores["dataset"].isin(ev.subsets[name])]).table.set_index("classifier")
        full = glicko_tournament(scores).table.set_index("classifier")
        row = ev.fidelity.set_index("subset").loc[name]
        assert row["kendall_tau"] == pytest.approx(fidelity.kendall_tau(full["rating"].loc[REAL], table["rating"].loc[REAL]))
        expected = table["rating"].loc[REAL].min() - table["rating"].loc[["base1", "base2"]].max()
        assert row["separation"] == pytest.approx(expected, abs=1e-6)


def test_random_draw_statistics_recomputed(evaluation):
    ev, scores, _ = evaluation
    datasets = sorted(scores["dataset"].unique())
    draws = fidelity.random_subsets(len(datasets), 10, 100, seed=1)
    full = glicko_tournament(scores).table.set_index("classifier")["rating"].loc[REAL]
    for i in (0, 17):
        chosen = [datasets[j] for j in draws[i]]
        ratings = glicko_tournament(scores[scores["dataset"].isin(chosen)]).table.set_index("classifier")["rating"]
        recorded = ev.random_draws.query("draw == @i").iloc[0]
        assert recorded["kendall_tau"] == pytest.approx(fidelity.kendall_tau(full, ratings.loc[REAL]))


def test_tables_match_hand_computation(evaluation):
    ev, _, summaries = evaluation
    members = ev.subsets["discrimination-50"]
    part = summaries.set_index("dataset").loc[members]
    row = ev.parameters.set_index("subset").loc["discrimination-50"]
    assert row["discrimination_mean"] == pytest.approx(part["pct_discrimination_gt"].mean())
    assert row["difficulty_sd"] == pytest.approx(part["pct_difficulty_gt"].std(ddof=1))
    assert row["negative_discrimination_mean"] == pytest.approx(part["pct_negative_discrimination"].mean())
    assert ev.parameters.set_index("subset").loc[FULL, "n_datasets"] == 20
    ratings = ev.ratings[ev.ratings["subset"] == "discrimination-50"]
    rel = ev.reliability.set_index("subset").loc["discrimination-50"]
    assert rel["rd_variance"] == pytest.approx(ratings["rd"].var(ddof=1))
    assert rel["volatility_sd"] == pytest.approx(ratings["volatility"].std(ddof=1))
    assert list(ev.membership.query("subset == 'discrimination-50'")["dataset"]) == members


def test_every_table_is_finite(evaluation):
    ev, _, _ = evaluation
    for stem, frame in ev.to_frames().items():
        numeric = frame.select_dtypes("number")
        assert np.isfinite(numeric.to_numpy(float)).all(), stem
        assert not frame.isna().any().any(), stem
    assert "Kendall" in str(ev) or "Fidelity" in str(ev)


def test_order_robust_columns_present(evaluation):
    ev, _, _ = evaluation
    assert {"rating_mean", "rating_sd", "rank_min", "rank_max"} <= set(ev.ratings.columns)
    leader = ev.leaders.set_index("subset").loc["discrimination-50"]
    assert leader["leader"] == "r1" and leader["p_lead"] == 1.0


def test_identical_orders_everywhere_give_tau_one_and_no_evidence():
    # every dataset ranks r1 > ... > r5: every subset, random or not, has tau = 1
    rows = [{"dataset": f"d{d}", "classifier": c, "score": 10.0 - i}
            for d in range(8) for i, c in enumerate(REAL + ["base1"])]
    summaries = pd.DataFrame({"dataset": [f"d{d}" for d in range(8)], "pct_discrimination_gt": range(8),
                              "pct_difficulty_gt": 0.0})
    roles = {**{c: "real" for c in REAL}, "base1": "artificial"}
    ev = evaluate_subsets(build_subsets(summaries, cuts=(50,)), pd.DataFrame(rows), summaries, roles=roles,
                          config=SubsetConfig(cuts=(50,), n_random=20, n_permutations=0))
    row = ev.fidelity.iloc[0]
    assert row["kendall_tau"] == pytest.approx(1.0) and np.allclose(ev.random_draws["kendall_tau"], 1.0)
    assert row["kendall_tau_percentile"] == 50.0 and row["kendall_tau_p_value"] == 1.0
    assert "p_lead" not in ev.leaders.columns


def test_no_baseline_means_no_separation_and_a_note():
    scores, summaries = synthetic_suite()
    scores = scores[scores["classifier"].isin(REAL)]
    ev = evaluate_subsets(build_subsets(summaries, cuts=(30,)), scores, summaries, roles={c: "real" for c in REAL},
                          config=SubsetConfig(cuts=(30,), n_random=5, n_permutations=0))
    assert "separation" not in ev.fidelity.columns
    assert any("separation not measured" in note for note in ev.notes)


def test_bad_inputs_are_data_errors():
    scores, summaries = synthetic_suite()
    subsets = {"mine": ["d01", "d02"]}
    config = SubsetConfig(n_random=0, n_permutations=0)
    with pytest.raises(DataError, match="no classifier roles"):
        evaluate_subsets(subsets, scores, summaries, config=config)
    with pytest.raises(DataError, match="no role given for classifier.*base2"):
        evaluate_subsets(subsets, scores, summaries, roles={k: v for k, v in ROLES.items() if k != "base2"},
                         config=config)
    with pytest.raises(DataError, match="fewer than two real"):
        evaluate_subsets(subsets, scores, summaries, roles={c: "artificial" for c in ROLES} | {"r1": "real"},
                         config=config)
    with pytest.raises(DataError, match="'mine' names dataset.*nowhere"):
        evaluate_subsets({"mine": ["nowhere"]}, scores, summaries, roles=ROLES, config=config)
    with pytest.raises(DataError, match="lack dataset.*d19"):
        evaluate_subsets(subsets, scores, summaries.iloc[:-1], roles=ROLES, config=config)
    with pytest.raises(DataError, match="'mine' lists dataset.*d01 more than once"):
        evaluate_subsets({"mine": ["d01", "d01"]}, scores, summaries, roles=ROLES, config=config)
    with pytest.raises(DataError, match="empty"):
        evaluate_subsets({"mine": []}, scores, summaries, roles=ROLES, config=config)
    broken = scores.copy()
    broken.loc[3, "score"] = np.nan
    with pytest.raises(DataError, match="not finite"):
        evaluate_subsets(subsets, broken, summaries, roles=ROLES, config=config)


def test_classifier_missing_on_some_datasets_is_rated():
    scores, summaries = synthetic_suite()
    scores = scores.drop(scores.index[(scores["classifier"] == "r5") & (scores["dataset"] == "d01")])
    ev = evaluate_subsets(build_subsets(summaries, cuts=(50,)), scores, summaries, roles=ROLES,
                          config=SubsetConfig(cuts=(50,), n_random=10, n_permutations=0))
    assert np.isfinite(ev.fidelity.select_dtypes("number").to_numpy(float)).all()


def test_single_dataset_and_two_real_classifiers():
    scores = pd.DataFrame({"dataset": "only", "classifier": ["a", "b", "maj"], "score": [3.0, 3.0, 1.0]})
    summaries = pd.DataFrame({"dataset": ["only"], "pct_discrimination_gt": [50.0], "pct_difficulty_gt": [10.0]})
    roles = {"a": "real", "b": "real", "maj": "artificial"}
    ev = evaluate_subsets(build_subsets(summaries, cuts=(50,)), scores, summaries, roles=roles,
                          config=SubsetConfig(cuts=(50,), n_random=5, n_permutations=2))
    assert ev.subsets == {"decodirt-50": ["only"]}
    assert ev.parameters["discrimination_sd"].tolist() == [0.0, 0.0]
    # a tie between the two real classifiers: tau undefined -> 0, never NaN
    assert ev.fidelity["kendall_tau"].iloc[0] == 0.0
    for stem, frame in ev.to_frames().items():
        assert not frame.isna().any().any(), stem

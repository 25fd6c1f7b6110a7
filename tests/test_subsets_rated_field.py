"""Who the subset evaluation rates: a field within the bound exactly as before, a larger one among its contenders."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_subsets_evaluation import ROLES, synthetic_suite

from benchirt.errors import ConfigError
from benchirt.rating.scores import validate_scores
from benchirt.subsets import SubsetConfig, build_subsets, evaluate_subsets, fidelity
from benchirt.subsets.budget import contenders
from benchirt.subsets.evaluation import rated_field

#: The options of ``test_subsets_evaluation``'s fixture, whose outputs before the bound existed are pinned below.
CONFIG = SubsetConfig(cuts=(50,), rule="discrimination", n_random=100, n_permutations=20, seed=1)
#: A small, quick evaluation of the large field.
QUICK = SubsetConfig(cuts=(30, 60), rule="discrimination", n_random=20, n_permutations=10, seed=0)


def test_a_field_within_the_bound_is_passed_through_unchanged():
    scores, _ = synthetic_suite()
    roles = pd.Series(ROLES)
    for bound in (5, 50):   # exactly as many real classifiers as the bound, and the default
        same_scores, same_roles, note = rated_field(scores, roles, n_contenders=bound)
        assert same_scores is scores and same_roles is roles and note == ""


def test_a_small_field_gives_the_outputs_of_the_code_before_the_bound():
    """Values of ``test_subsets_evaluation``'s fixture computed at 7fc45bd (before the bound); the whole of
    every table and note was compared there bit for bit on this field and on sparse fields of 12 and 50 real
    classifiers. Counts and ranks are pinned exactly, ratings to 1e-12 (a change in who is rated moves them by far
    more)."""
    scores, summaries = synthetic_suite()
    subsets = build_subsets(summaries, cuts=(50,), rule="discrimination")
    evaluation = evaluate_subsets(subsets, scores, summaries, roles=ROLES, config=CONFIG)
    row = evaluation.fidelity.iloc[0]
    assert (row["kendall_tau_percentile"], row["kendall_tau_p_value"]) == (68.5, 0.6336633663366337)
    assert (row["separation_percentile"], row["separation_p_value"]) == (100.0, 0.009900990099009901)
    assert row["separation"] == pytest.approx(264.2056689177732, rel=1e-12)
    assert row["separation_full"] == pytest.approx(31.564174417339018, rel=1e-12)
    full = evaluation.ratings[evaluation.ratings["subset"] == "full"].set_index("classifier")
    assert list(full.index) == ["opt", "r1", "r2", "r3", "r4", "r5", "base2", "base1"]
    assert full.loc["r1", "rating"] == pytest.approx(1641.5982817238996, rel=1e-12)
    assert full.loc["base1", "rating_mean"] == pytest.approx(1291.1182285597956, rel=1e-12)
    assert evaluation.reliability["rd_variance"].tolist() == pytest.approx([231.84838523601906, 57.150974535416445],
                                                                            rel=1e-12)
    assert evaluation.leaders[["leader", "runner_up", "p_lead"]].to_dict("list") == {
        "leader": ["r1", "r1"], "runner_up": ["r2", "r2"], "p_lead": [1.0, 1.0]}
    assert evaluation.notes == ["upper reference(s) left out of the separation: opt"]


def large_field(n_real: int = 80, n_datasets: int = 12, *, seed: int = 0):
    """``n_real`` real classifiers (each on 60 % of the datasets), an optimal and a majority-like artificial one
    on every dataset, and one dataset (``d00``) where only the five weakest real classifiers ran."""
    rng = np.random.default_rng(seed)
    ability = np.sort(rng.normal(0.7, 0.1, n_real))
    rows = []
    for d in range(n_datasets):
        ran = np.arange(5) if d == 0 else np.flatnonzero(rng.random(n_real) < 0.6)
        rows += [(f"d{d:02d}", f"c{c:03d}", float(np.clip(ability[c] + rng.normal(0, 0.03), 0, 1))) for c in ran]
        rows += [(f"d{d:02d}", "optimal", 1.0), (f"d{d:02d}", "majority", float(rng.uniform(0.3, 0.4)))]
    scores = pd.DataFrame(rows, columns=["dataset", "classifier", "score"])
    summaries = pd.DataFrame({"dataset": [f"d{d:02d}" for d in range(n_datasets)],
                              "pct_discrimination_gt": rng.uniform(0, 100, n_datasets),
                              "pct_difficulty_gt": rng.uniform(0, 100, n_datasets)})
    roles = {name: "artificial" if name in ("optimal", "majority") else "real" for name in scores["classifier"]}
    return scores, summaries, roles


def test_a_large_field_is_rated_among_its_contenders_and_the_artificial_classifiers():
    scores, summaries, roles = large_field()
    checked = validate_scores(scores)
    kept_scores, kept_roles, note = rated_field(checked, pd.Series(roles), n_contenders=10)
    matrix = checked[checked["classifier"].str.startswith("c")].pivot(index="dataset", columns="classifier",
                                                                      values="score")
    strongest = set(matrix.columns[contenders(matrix.to_numpy(), n_contenders=10)])
    # d00 has none of the strongest: its two best real classifiers keep it played
    best_on_d00 = set(matrix.loc["d00"].dropna().nlargest(2).index)
    assert not best_on_d00 & strongest
    assert set(kept_roles.index) == strongest | best_on_d00 | {"optimal", "majority"}
    assert set(kept_scores["classifier"]) == set(kept_roles.index)
    assert note.startswith("a field of 80 real classifiers:") and "Cardoso et al. 2021 §5.4–5.6" in note
    assert "the 10 real classifiers with the highest mean score, 2 more that keep two real classifiers" in note
    assert "the 2 artificial one(s); the other 68 real classifiers are not part of those tables" in note


def test_the_bounded_evaluation_is_the_evaluation_of_the_rated_classifiers_and_says_so():
    scores, summaries, roles = large_field()
    subsets = build_subsets(summaries, cuts=(30, 60), rule="discrimination")
    bounded = evaluate_subsets(subsets, scores, summaries, roles=roles, config=QUICK, n_contenders=10)
    kept_scores, kept_roles, note = rated_field(validate_scores(scores), pd.Series(roles), n_contenders=10)
    alone = evaluate_subsets(subsets, kept_scores, summaries, roles=kept_roles, config=QUICK)
    assert bounded.notes == [note, *alone.notes]
    assert note in bounded.summary()
    for name, frame in bounded.to_frames().items():
        pd.testing.assert_frame_equal(frame, alone.to_frames()[name], check_exact=True)
    rated = set(kept_roles.index)
    assert set(bounded.ratings["classifier"]) == rated
    assert set(bounded.innate["classifier"]) == rated - {"optimal", "majority"}
    assert set(bounded.leaders[["leader", "runner_up"]].to_numpy().ravel()) <= rated
    for name in ("ratings", "reliability", "fidelity", "random_draws", "innate", "leaders"):
        assert not bounded.to_frames()[name].isna().any().any(), name


def test_the_note_counts_the_ladder_classifiers_left_out_and_names_no_artificial_one_when_there_is_none():
    scores, _, roles = large_field(n_real=30)
    roles = {name: "ladder" if name == "majority" else role for name, role in roles.items()}
    _, kept_roles, note = rated_field(validate_scores(scores), pd.Series(roles), n_contenders=10)
    assert "majority" not in kept_roles.index and "optimal" in kept_roles.index
    assert "the 1 artificial one(s); the other 18 real and 1 ladder classifiers" in note
    real_only = {name: role for name, role in roles.items() if role == "real"}
    _, _, note = rated_field(validate_scores(scores[scores["classifier"].isin(real_only)]), pd.Series(real_only),
                             n_contenders=10)
    assert "rate the 10 real classifiers with the highest mean score and 2 more that keep two real classifiers on " \
        "every dataset; the other 18 real classifiers" in note
    _, _, note = rated_field(validate_scores(scores), pd.Series(roles), n_contenders=29)
    assert "rate the 29 real classifiers with the highest mean score and the 1 artificial one(s); the other 1 " \
        "real and 1 ladder" in note


@pytest.mark.parametrize("bound", [1, 0, 2.5, "x", True])
def test_the_bound_is_an_integer_of_at_least_two(bound):
    scores, _ = synthetic_suite()
    with pytest.raises(ConfigError, match="n_contenders"):
        rated_field(scores, pd.Series(ROLES), n_contenders=bound)


def test_the_array_statistics_are_the_series_definitions():
    """The random subsets' τ and separation are computed on arrays (:func:`fidelity.paired_tau`,
    :func:`fidelity.rating_gap`); they are :func:`fidelity.kendall_tau` and :func:`fidelity.separation`."""
    reference = pd.Series([1700.0, 1600.0, 1500.0, 1400.0], index=list("abcd"))
    ratings = pd.Series([1650.0, 1660.0, 1450.0, np.nan, 1300.0, 1480.0], index=list("abcdxy"))
    real, baselines = pd.Index(list("abc")), pd.Index(["x", "y"])
    assert fidelity.paired_tau(reference.loc[real].to_numpy(), ratings.loc[real].to_numpy()) == \
        fidelity.kendall_tau(reference, ratings.loc[real]) == pytest.approx(1 / 3)
    assert fidelity.rating_gap(ratings.loc[real].to_numpy(), np.array([1300.0, 1480.0])) == \
        fidelity.separation(ratings, real, baselines) == -30.0
    assert np.isnan(fidelity.rating_gap(np.array([1500.0]), np.array([])))
    assert fidelity.paired_tau(np.array([1.0, np.nan, 3.0]), np.array([1.0, 2.0, 3.0])) == 0.0
    assert fidelity.paired_tau(np.array([1.0]), np.array([1.0])) == 0.0

"""The on-this-suite verdict: row-level sign flips, step-down max-T over every pair."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from benchirt.rating.on_suite import on_suite_step_down


def _brute_force(rows, classifiers):
    """Every sign pattern of every row, each pair's statistic written out from its definition, and the
    step-down written as a loop (Westfall & Young 1993, Algorithm 2.8)."""
    answers = [frame.reindex(classifiers).to_numpy(float) for frame in rows.values()]   # k × n_d, NaN absent
    pairs = list(itertools.combinations(range(len(classifiers)), 2))
    n_rows = sum(a.shape[1] for a in answers)

    def statistics(signs):
        out, at = [], 0
        flips = []
        for a in answers:
            flips.append(signs[at:at + a.shape[1]])
            at += a.shape[1]
        for i, j in pairs:
            top = bottom = 0.0
            for a, s in zip(answers, flips):
                if np.isnan(a[i]).any() or np.isnan(a[j]).any():
                    continue
                w = 1.0 / a.shape[1]
                top += w * (s * (a[i] - a[j])).sum()
                bottom += w * w * ((a[i] - a[j]) ** 2).sum()
            out.append(top / np.sqrt(bottom) if bottom > 0 else 0.0)
        return np.array(out)

    observed = statistics(np.ones(n_rows))
    tables = np.array([statistics(np.array(s)) for s in itertools.product([1.0, -1.0], repeat=n_rows)])
    order = sorted(range(len(pairs)), key=lambda p: -abs(observed[p]))
    adjusted, running = {}, 0.0
    for step, p in enumerate(order):
        rest = order[step:]
        share = np.mean(np.abs(tables[:, rest]).max(axis=1) >= abs(observed[p]) * (1 - 1e-9))
        running = max(running, share)
        adjusted[pairs[p]] = running
    return observed, adjusted


@pytest.mark.heavy
def test_on_suite_equals_a_brute_force_enumeration_on_a_small_field():
    rng = np.random.default_rng(4)
    names = ["a", "b", "c", "d"]
    rows = {"d1": pd.DataFrame(rng.integers(0, 2, (4, 5)), index=names),
            "d2": pd.DataFrame(rng.integers(0, 2, (3, 4)), index=names[:3]),   # d absent from d2
            "d3": pd.DataFrame([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 0, 0]], index=names)}
    result = on_suite_step_down(rows, names, n_tables=10 ** 6, alpha=0.3)
    observed, adjusted = _brute_force(rows, names)
    assert result.n_rows == 12 and result.n_tables == 2 ** result.n_informative
    for n, (i, j) in enumerate(itertools.combinations(range(4), 2)):
        assert result.statistic[i, j] == pytest.approx(observed[n])
        assert result.p_adjusted[i, j] == pytest.approx(adjusted[(i, j)])
    assert (result.better == ((result.p_adjusted <= 0.3) & (result.statistic > 0))).all()


def test_the_difference_is_the_mean_over_shared_datasets_of_the_accuracy_difference():
    rows = {"d1": pd.DataFrame([[1, 1, 1, 1], [1, 0, 0, 0]], index=["x", "y"]),
            "d2": pd.DataFrame([[1, 0], [1, 1]], index=["x", "y"])}
    result = on_suite_step_down(rows, ["x", "y"], n_tables=100)
    assert result.difference[0, 1] == pytest.approx(((1 - 0.25) + (0.5 - 1)) / 2)
    assert result.difference[1, 0] == pytest.approx(-result.difference[0, 1])


def _field(rng, n_classifiers, n_datasets, n_rows, gaps):
    """Classifiers answering independently with accuracy p_d + gap (the same on every row of a dataset)."""
    rows = {}
    for d in range(n_datasets):
        base = rng.uniform(0.6, 0.8)
        accuracy = np.clip(base + np.asarray(gaps), 0, 1)
        rows[f"d{d}"] = pd.DataFrame((rng.random((n_classifiers, n_rows)) < accuracy[:, None]).astype(int),
                                     index=[f"c{i}" for i in range(n_classifiers)])
    return rows


def test_family_wise_error_on_null_fields_and_power_on_a_planted_one():
    """20 null fields of 6 equal classifiers on 3 datasets of 300 rows: any false separation in at most 3
    (the binomial 95 % bound for 5 % of 20 is 3); a planted field whose best is 10 points above the rest is
    separated from every other classifier."""
    rng = np.random.default_rng(0)
    names = [f"c{i}" for i in range(6)]
    errors = sum(on_suite_step_down(_field(rng, 6, 3, 300, np.zeros(6)), names, n_tables=400, seed=s).better.any()
                 for s in range(20))
    assert errors <= 3
    planted = on_suite_step_down(_field(rng, 6, 3, 300, [0.1, 0, 0, 0, 0, 0]), names, n_tables=400)
    assert planted.better[0, 1:].all() and planted.rank_low[0] == planted.rank_high[0] == 1


def test_missing_answers_of_a_present_classifier_are_refused():
    rows = {"d1": pd.DataFrame([[1, np.nan], [1, 0]], index=["x", "y"])}
    with pytest.raises(Exception, match="missing cells"):
        on_suite_step_down(rows, ["x", "y"])


def _field_with_references(n_datasets=8, seed=0):
    """optimal (artificial) above three real classifiers, pessimal (artificial) below; rows and scores."""
    rng = np.random.default_rng(seed)
    names = ["optimal", "rf", "svm", "nb", "pessimal"]
    accuracy = np.array([1.0, 0.9, 0.85, 0.7, 0.0])
    rows, scores = {}, []
    for d in range(n_datasets):
        answers = (rng.random((5, 400)) < accuracy[:, None]).astype(int)
        rows[f"d{d}"] = pd.DataFrame(answers, index=names)
        scores += [(f"d{d}", name, a) for name, a in zip(names, answers.mean(axis=1))]
    return pd.DataFrame(scores, columns=["dataset", "classifier", "score"]), rows


def test_the_oracle_never_heads_the_verdict_and_is_drawn_as_a_reference_line():
    from benchirt.rating import RatingConfig, plots, rate
    from benchirt.report.conclusions import leaderboard_table

    scores, rows = _field_with_references()
    result = rate(scores, config=RatingConfig(score="score", n_permutations=0, n_bootstrap=200), rows=rows,
                  roles={"optimal": "artificial", "pessimal": "artificial"})
    board = result.leaderboard
    assert board["classifier"].iloc[0] == "optimal" and board["role"].tolist().count("artificial") == 2
    verdict = result.verdict
    assert "rf is the best real classifier" in verdict and "above it only the artificial reference optimal" in verdict
    assert "significantly better than 2 of 2 other real classifiers (svm and nb)" in verdict
    assert "its rank among the 3 real classifiers lies at 1" in verdict
    assert "optimal (artificial)" in verdict   # in the tier sentence
    assert board["could_be_best"].tolist() == [True, False, False, False, False]
    assert board["rank_low_on_suite"].tolist() == [1, 2, 3, 4, 5]
    [axes] = plots.plot_leaderboard(board).axes
    assert [t.get_text().split("  (")[0] for t in axes.get_yticklabels()] == ["nb", "svm", "rf"]
    assert len([line for line in axes.get_lines() if line.get_linestyle() == "--"]) == 2
    table = leaderboard_table(board)
    assert table["Classifier"].iloc[0] == "optimal (artificial)" and "Rank interval on this suite" in table


def test_with_scores_only_the_verdict_on_this_suite_says_it_cannot_be_computed():
    from benchirt.rating import RatingConfig, rate

    scores, _ = _field_with_references()
    result = rate(scores, config=RatingConfig(score="score", n_permutations=0, n_bootstrap=100))
    assert "On this suite" not in result.verdict and result.leaderboard["rank_low_on_suite"].isna().all()
    assert any(note.startswith("no verdict on this suite: only scores were given") for note in result.notes)


def test_with_few_datasets_the_verdict_on_this_suite_comes_first_and_says_why():
    from benchirt.rating import RatingConfig, rate

    scores, rows = _field_with_references(n_datasets=3)
    result = rate(scores, config=RatingConfig(score="score", n_permutations=0, n_bootstrap=200), rows=rows,
                  roles={"optimal": "artificial", "pessimal": "artificial"})
    assert not result.pairwise["separated"].any() and result.pairwise["separated_on_suite"].any()
    assert result.verdict.startswith("On this suite (on these test rows, which is more accurate?), reported "
                                     "first because across datasets nothing is separated on 3 datasets: rf is the best")
    assert result.verdict.index("Across datasets") > result.verdict.index("On this suite")


@pytest.mark.heavy
def test_entrants_left_off_a_sparse_board_are_placed_and_marked():
    """Entrants on two of 8 datasets are left out of the tests (no test over datasets can separate them) and
    placed on the board by the model across datasets: the strongest of them near the top, the weakest near the
    bottom."""
    from benchirt.rating import RatingConfig, rate

    rng = np.random.default_rng(2)
    skill = np.linspace(2, 0, 12)
    few = {"c00": [0, 1], "c11": [2, 3]}   # the strongest and the weakest ran on two datasets only
    rows = [(f"d{d}", f"c{i:02d}", skill[i] + 0.2 * rng.normal()) for d in range(8) for i in range(12)
            if f"c{i:02d}" not in few or d in few[f"c{i:02d}"]]
    result = rate(pd.DataFrame(rows, columns=["dataset", "classifier", "score"]),
                  config=RatingConfig(score="score", n_permutations=0, n_bootstrap=100))
    placed = result.left_out.set_index("classifier")
    assert set(placed.index) == {"c00", "c11"} and placed["placed_by_model"].all()
    assert placed.loc["c00", "placed_rank_low"] <= 2 and placed.loc["c11", "placed_rank_high"] >= 11
    assert (placed["n_ranked"] == 12).all()
    assert result.leaderboard.loc[result.leaderboard["placed_by_model"], "classifier"].tolist() == ["c00", "c11"]
    assert any("entrants not tested are placed on the leaderboard by a model across datasets" in note
               for note in result.notes)


def test_the_conclusions_give_each_verdict_its_own_bullet():
    from benchirt.rating import RatingConfig, rate
    from benchirt.report.conclusions import OTHER_VERDICT, rating_sentences

    scores, rows = _field_with_references()
    result = rate(scores, config=RatingConfig(score="score", n_permutations=0, n_bootstrap=200), rows=rows,
                  roles={"optimal": "artificial", "pessimal": "artificial"})
    verdict, _ = rating_sentences(result)
    assert verdict[0].startswith("Primary verdict — ") and "Across datasets" in verdict[0]
    assert "On this suite" not in verdict[0]
    assert verdict[1].startswith(OTHER_VERDICT + "On this suite (on these test rows, which is more accurate?): ")
    assert result.verdict.endswith(verdict[1][len(OTHER_VERDICT):])


def test_a_cap_on_wilcoxon_holm_is_said_in_the_verdict_and_the_step_down_has_none():
    from benchirt.rating import RatingConfig, rate

    rng = np.random.default_rng(3)
    k = 12
    scores = pd.DataFrame([(f"d{d}", f"c{i:02d}", 1.0 - i / k + 0.05 * rng.normal()) for d in range(10) for i in range(k)],
                          columns=["dataset", "classifier", "score"])
    capped = rate(scores,
                  config=RatingConfig(score="score", n_permutations=0, n_bootstrap=50, verdict="holm", max_pairwise=5))
    assert "Wilcoxon signed-rank test of each of the 10 pairs among the best-rated 5 only (rate.max_pairwise; the " \
           "other 56 pairs are untested" in capped.verdict
    assert capped.pairwise["p_adjusted"].notna().sum() == 10
    full = rate(scores, config=RatingConfig(score="score", n_permutations=0, n_bootstrap=50, max_pairwise=5))
    assert full.pairwise["p_adjusted"].notna().all() and "untested" not in full.verdict
    assert len(full.pairwise) == k * (k - 1) // 2 and full.pairwise["wilcoxon_p"].notna().sum() == 10

"""The IRT stage: irt_for_responses, item summaries, dataset rankings, True-Score table, plots."""
from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from benchirt.errors import DataError
from benchirt.irt import (
    DatasetIRT,
    IRTConfig,
    dataset_rankings,
    fit_irt,
    irt_for_responses,
    item_summary,
    summaries_frame,
    true_score_table,
)
from benchirt.irt.plots import plot_classifier_curves, plot_item_curves, plot_parameter_histograms
from benchirt.irt.simulate import simulate_responses


@dataclass
class FakeResponseResult:
    """Stand-in for benchirt.responses.ResponseResult (only the attributes the stage reads)."""

    dataset: str
    responses: pd.DataFrame
    roles: pd.Series


def _fake_result(name: str, seed: int) -> FakeResponseResult:
    sim = simulate_responses(60, n_items=80, model="2PL", seed=seed)
    responses = sim.responses.copy()
    responses.index = [f"mlp_epoch_{i:03d}" for i in range(1, 49)] + [f"real{i}" for i in range(12)]
    n_items = responses.shape[1]
    artificial = pd.DataFrame(
        [np.ones(n_items), np.zeros(n_items), np.random.default_rng(seed).integers(0, 2, n_items)],
        index=["optimal", "pessimal", "random1"],
        columns=responses.columns,
    ).astype(np.int8)
    responses = pd.concat([responses, artificial])
    roles = pd.Series(["ladder"] * 48 + ["real"] * 12 + ["artificial"] * 3, index=responses.index)
    return FakeResponseResult(name, responses, roles)


@pytest.fixture(scope="module")
def stage_results():
    config = IRTConfig(model="2PL")
    return [irt_for_responses(_fake_result(name, seed), config=config) for seed, name in enumerate(["alpha", "beta"])]


def test_stage_calibrates_on_pool_and_scores_everyone(stage_results):
    irt = stage_results[0]
    assert isinstance(irt, DatasetIRT) and irt.dataset == "alpha"
    assert irt.fit.n_respondents == 60  # ladder + real only
    table = irt.abilities.set_index("respondent")
    assert list(table.columns) == ["role", "calibrated", "theta", "se", "true_score"]
    assert len(table) == 63
    assert not table.loc["optimal", "calibrated"] and table.loc["real0", "calibrated"]
    assert table.loc["optimal", "theta"] > table["theta"].drop("optimal").max()
    assert table.loc["pessimal", "true_score"] < table.loc["random1", "true_score"] < table.loc["optimal", "true_score"]
    assert np.isfinite(table[["theta", "se", "true_score"]].to_numpy(float)).all()
    assert irt.statistics["n_items"] == 80 and irt.statistics["converged"]


def test_true_score_table_is_long_and_filters_roles(stage_results):
    scores = true_score_table(stage_results)
    assert list(scores.columns) == ["dataset", "classifier", "score"]
    assert len(scores) == 2 * 15  # 12 real + 3 artificial per dataset
    assert not scores["classifier"].str.startswith("mlp_epoch").any()
    only_real = true_score_table(stage_results, roles=("real",))
    assert len(only_real) == 24
    assert true_score_table([]).empty


def test_stage_errors_name_the_dataset():
    result = _fake_result("gamma", 0)
    with pytest.raises(DataError, match="gamma: no respondent has a calibration role"):
        irt_for_responses(result, config=IRTConfig(calibration_roles=("nonexistent",)))
    small = FakeResponseResult("delta", result.responses.iloc[:5], result.roles.iloc[:5])
    with pytest.raises(DataError, match="delta: .*at least 10"):
        irt_for_responses(small)
    orphan = FakeResponseResult("eps", result.responses, result.roles.iloc[:-1])
    with pytest.raises(DataError, match="eps: respondents \\['random1'\\] have no role"):
        irt_for_responses(orphan)


def test_item_summary_counts_by_hand():
    items = pd.DataFrame(
        {
            "discrimination": [2.0, 0.5, -1.0, 0.0, 0.8],
            "difficulty": [1.5, 0.0, 2.0, -6.0, 6.0],
            "guessing": [0.3, 0.1, 0.25, 0.0, 0.0],
            "flag": ["ok", "ok", "ok", "all_correct", "all_wrong"],
        }
    )
    summary = item_summary(items)
    assert summary == {
        "pct_difficulty_gt": 60.0,  # 1.5, 2.0, 6.0 > 1
        "pct_discrimination_gt": 20.0,  # 2.0 > 0.75; the all_wrong item's 0.8 is not a curve, never counted
        "pct_guessing_gt": 40.0,  # 0.3, 0.25 > 0.2
        "pct_negative_discrimination": 20.0,
        "n_items": 5,
        "n_flagged": 2,
    }
    custom = item_summary(items, config=IRTConfig(difficulty_threshold=1.8, guessing_threshold=0.28))
    assert custom["pct_difficulty_gt"] == 40.0 and custom["pct_guessing_gt"] == 20.0
    with pytest.raises(DataError, match="empty"):
        item_summary(items.iloc[:0])


def test_dataset_rankings_order_by_share_of_high_parameters():
    summaries = pd.DataFrame(
        {
            "pct_difficulty_gt": [10.0, 50.0, 30.0, 50.0],
            "pct_discrimination_gt": [90.0, 20.0, 60.0, 40.0],
            "pct_guessing_gt": [5.0, 1.0, 3.0, 2.0],
            "pct_negative_discrimination": [0.0, 30.0, 10.0, 5.0],
        },
        index=["easy", "hard", "mid", "hard2"],
    )
    ranks = dataset_rankings(summaries)
    assert ranks.loc["hard", "rank_difficulty"] == 1 and ranks.loc["hard2", "rank_difficulty"] == 1  # tie
    assert ranks.loc["mid", "rank_difficulty"] == 3 and ranks.loc["easy", "rank_difficulty"] == 4
    assert ranks["rank_discrimination"].to_dict() == {"hard": 4, "hard2": 3, "mid": 2, "easy": 1}
    assert ranks.loc["hard", "rank_negative_discrimination"] == 1
    assert list(ranks.index[:2]) == ["hard2", "hard"]  # ties broken by discrimination rank
    with pytest.raises(DataError, match="missing"):
        dataset_rankings(summaries.drop(columns="pct_guessing_gt"))


def test_rankings_from_stage_summaries(stage_results):
    frame = summaries_frame(stage_results)
    assert list(frame.index) == ["alpha", "beta"]
    ranks = dataset_rankings(frame)
    assert set(ranks["rank_difficulty"]) <= {1, 2}


def test_plots_return_figures(stage_results):
    irt = stage_results[0]
    responses = _fake_result("alpha", 0).responses
    fig = plot_item_curves(irt.fit, n_items=5)
    assert len(fig.axes[0].lines) >= 5
    ccc = plot_classifier_curves(irt.fit, responses, by="discrimination", bins=4, respondents=["optimal", "real0"])
    assert len(ccc.axes[0].lines) == 2
    optimal_line = ccc.axes[0].lines[0].get_ydata()
    assert np.allclose(optimal_line, 1.0)
    hist = plot_parameter_histograms(irt.fit)
    assert len(hist.axes) == 3
    with pytest.raises(DataError, match="difficulty or discrimination"):
        plot_classifier_curves(irt.fit, responses, by="guessing")
    with pytest.raises(DataError, match="unknown respondents \\['nobody'\\]"):
        plot_classifier_curves(irt.fit, responses, respondents=["nobody"])
    for figure in (fig, ccc, hist):
        plt.close(figure)


def test_plot_item_curves_marks_negative_items():
    sim = simulate_responses(132, n_items=60, model="2PL", negative_fraction=0.2, seed=1)
    for config, falling in ((IRTConfig(model="2PL"), "slope=-"), (IRTConfig(model="2PL", model_family="decodirt"), "a=-")):
        fig = plot_item_curves(fit_irt(sim.responses, config=config), n_items=3)
        labels = [line.get_label() for line in fig.axes[0].lines]
        assert any(falling in label for label in labels), labels
        plt.close(fig)


def test_other_thresholds_derive_the_tables_a_refit_would_give_without_fitting(stage_results, monkeypatch):
    from benchirt.irt import stage as irt_stage_module
    from benchirt.irt.config import SUMMARY_OPTIONS, fit_options, summary_options

    options = IRTConfig(model="2PL").to_dict()
    assert set(SUMMARY_OPTIONS) <= set(options) and {**fit_options(options), **summary_options(options)} == options
    lenient = IRTConfig(model="2PL", difficulty_threshold=-1.0, discrimination_threshold=0.1, guessing_threshold=0.0,
                        suspect_agreement=0.2, suspect_rising_alpha=0.001)
    refit = irt_for_responses(_fake_result("alpha", 0), config=lenient)
    monkeypatch.setattr(irt_stage_module, "fit_irt", lambda *args, **kwargs: pytest.fail("with_summaries fitted"))
    derived = stage_results[0].with_summaries(lenient)
    assert len(derived.suspect_labels) > len(stage_results[0].suspect_labels)
    pd.testing.assert_frame_equal(derived.suspect_labels, refit.suspect_labels)
    assert derived.statistics == refit.statistics | {"seconds": derived.statistics["seconds"]}
    assert derived.statistics["pct_difficulty_gt"] > stage_results[0].statistics["pct_difficulty_gt"]
    assert derived.fit is stage_results[0].fit  # the fit itself is kept
    back = derived.with_summaries(IRTConfig(model="2PL"))  # and the defaults give the first tables back
    pd.testing.assert_frame_equal(back.suspect_labels, stage_results[0].suspect_labels)
    assert back.statistics == stage_results[0].statistics

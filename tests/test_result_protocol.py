"""The result protocol (benchirt.results): every stage result has summary() and to_frames(); every
interval estimate has conf_int(level) with the level a parameter, nested levels and pinned errors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchirt.airt import fit_airt
from benchirt.errors import ConfigError
from benchirt.irt import IRTConfig, irt_for_responses
from benchirt.irt.simulate import simulate_responses
from benchirt.placement.add import AddedResult, AddOutcome
from benchirt.placement.model import fit_score_model
from benchirt.rating import RatingConfig, leaderboard, rate
from benchirt.responses.stage import ResponseResult
from benchirt.results import INTERVAL_COLUMNS, IntervalEstimate, StageResult, percentile_interval
from benchirt.subsets import SubsetConfig, build_subsets, evaluate_subsets


def _response_result() -> ResponseResult:
    sim = simulate_responses(n_respondents=60, n_items=40, model="2PL", seed=3)
    responses = sim.responses.set_axis([f"clf{i:02d}" for i in range(60)], axis=0)
    roles = pd.Series(["real"] * 50 + ["artificial"] * 10, index=responses.index)
    accuracy = responses.mean(axis=1)
    return ResponseResult(dataset="sim", responses=responses, roles=roles,
                          predictions=responses.astype(str), cv_accuracy=accuracy[roles == "real"],
                          test_accuracy=accuracy, metadata={}, test_index=np.arange(40),
                          notes=["a note"], sizes={"failed_classifiers": {"bad": "ValueError"}})


def _scores(n_datasets: int = 10, k: int = 5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame([(f"d{d:02d}", f"c{c}", 0.2 * c + rng.normal()) for d in range(n_datasets) for c in range(k)],
                        columns=["dataset", "classifier", "score"])


def _subset_evaluation():
    rng = np.random.default_rng(1)
    names = [f"d{i:02d}" for i in range(12)]
    scores = pd.DataFrame([(d, c, 0.1 * i + rng.normal()) for d in names for i, c in enumerate(["a", "b", "c", "base"])],
                          columns=["dataset", "classifier", "score"])
    summaries = pd.DataFrame({"dataset": names, "pct_discrimination_gt": np.linspace(90, 10, 12),
                              "pct_difficulty_gt": np.linspace(5, 40, 12), "pct_guessing_gt": 10.0})
    config = SubsetConfig(cuts=(50,), rule="discrimination", n_random=20, n_permutations=5, seed=0)
    roles = {"a": "real", "b": "real", "c": "real", "base": "artificial"}
    return evaluate_subsets(build_subsets(summaries, cuts=(50,), rule="discrimination"), scores, summaries, roles=roles,
                            config=config)


def _airt_result():
    rng = np.random.default_rng(2)
    ability = rng.normal(size=(30, 1))
    return fit_airt(pd.DataFrame(1 / (1 + np.exp(-(ability + rng.normal(0, 0.5, (30, 4))))),
                                 index=[f"p{i}" for i in range(30)], columns=list("wxyz")))


@pytest.fixture(scope="module")
def results() -> dict:
    response = _response_result()
    irt = irt_for_responses(response, config=IRTConfig(model="2PL", compare_models=False))
    rating = rate(_scores(), config=RatingConfig(n_bootstrap=200, n_permutations=0))
    board = leaderboard(_scores(), config=RatingConfig(n_bootstrap=200))
    matrix = _scores(12, 6, 4).pivot(index="dataset", columns="classifier", values="score")
    added = AddedResult("sim", "newcomer", response.responses.iloc[:1],
                        pd.DataFrame({"theta": [0.4], "se": [0.3], "true_score": [25.0]}), 0.8, 0.7)
    standing = pd.DataFrame({"classifier": ["newcomer"], "rank": [2], "rank_low": [1], "rank_high": [4]})
    return {
        "ResponseResult": response, "DatasetIRT": irt, "IRTFit": irt.fit, "RatingResult": rating,
        "Leaderboard": board, "Tournament": rating.tournament, "SubsetEvaluation": _subset_evaluation(),
        "AIRTResult": _airt_result(), "AddedResult": added,
        "AddOutcome": AddOutcome(Path("run"), computed=2, skipped={"x": "no split"}, notes=["n"],
                                 predicted=pd.DataFrame({"dataset": ["d0"], "score": [0.5]}), standing=standing),
        "ScoreModel": fit_score_model(matrix.iloc[:, :-1], rank=2),
        "observed": matrix.iloc[:3, -1],
    }


STAGE_RESULTS = ("ResponseResult", "DatasetIRT", "IRTFit", "RatingResult", "Leaderboard", "Tournament",
                 "SubsetEvaluation", "AIRTResult", "AddedResult", "AddOutcome")
INTERVALS = ("DatasetIRT", "IRTFit", "RatingResult", "Leaderboard", "Tournament", "AddedResult")


@pytest.mark.parametrize("name", STAGE_RESULTS)
def test_every_stage_result_has_a_text_summary_and_its_tables(results, name):
    result = results[name]
    assert isinstance(result, StageResult)
    text = result.summary()
    assert isinstance(text, str) and text.strip() and "\n" not in text[-1:]
    frames = result.to_frames()
    assert frames and all(isinstance(key, str) and isinstance(frame, pd.DataFrame) and len(frame)
                          for key, frame in frames.items())


@pytest.mark.parametrize("name", INTERVALS)
def test_every_interval_has_a_level_parameter_and_nested_levels(results, name):
    result = results[name]
    assert isinstance(result, IntervalEstimate)
    wide, narrow = result.conf_int(0.99), result.conf_int(level=0.5)
    assert list(wide.columns[-3:]) == list(INTERVAL_COLUMNS) and len(wide) == len(narrow) > 0
    assert (wide["low"] <= narrow["low"]).all() and (narrow["low"] <= narrow["estimate"]).all()
    assert (narrow["estimate"] <= narrow["high"]).all() and (narrow["high"] <= wide["high"]).all()
    assert (wide["high"] - wide["low"]).sum() > (narrow["high"] - narrow["low"]).sum()
    if "se" in wide:   # a normal interval: half-width z·se, z = 2.5758 at 99 %
        np.testing.assert_allclose(wide["high"] - wide["estimate"], 2.5758293 * wide["se"], rtol=1e-6)


@pytest.mark.parametrize("level", [0, 1, 95, "0.9", None])
def test_a_level_outside_the_open_unit_interval_is_refused(results, level):
    for name in INTERVALS:
        with pytest.raises(ConfigError, match=r"conf_int\.level: got .*, expected a number in \(0, 1\)"):
            results[name].conf_int(level)
    with pytest.raises(ConfigError, match=r"conf_int\.level"):
        results["ScoreModel"].conf_int(results["observed"], level=level)


def test_the_leaderboards_bootstrap_interval_at_95_is_its_table_columns(results):
    for table, intervals in ((results["Leaderboard"].table, results["Leaderboard"].conf_int()),
                             (results["RatingResult"].leaderboard, results["RatingResult"].conf_int())):
        assert intervals["classifier"].tolist() == table["classifier"].tolist()
        np.testing.assert_allclose(intervals["low"], table["bt_low"])
        np.testing.assert_allclose(intervals["high"], table["bt_high"])
        np.testing.assert_allclose(intervals["estimate"], table["bt_rating"])


def test_glicko_interval_at_two_sds_is_the_tournament_table(results):
    tournament = results["Tournament"]
    two_sd = tournament.conf_int(0.9544997361036416)
    np.testing.assert_allclose(two_sd["low"], tournament.table["low"], rtol=1e-9)
    np.testing.assert_allclose(two_sd["high"], tournament.table["high"], rtol=1e-9)
    pd.testing.assert_frame_equal(results["RatingResult"].conf_int(kind="glicko"), tournament.conf_int())
    with pytest.raises(ValueError, match="kind must be 'bradley_terry' or 'glicko', got 'elo'"):
        results["RatingResult"].conf_int(kind="elo")


def test_irt_intervals_cover_the_estimated_parameters_only(results):
    irt = results["DatasetIRT"]
    items = irt.fit.conf_int()
    assert set(items["parameter"]) == {"discrimination", "difficulty"}          # a 2PL estimates no guessing
    assert len(items) == 2 * int(irt.fit.informative.sum())
    abilities = irt.conf_int()
    assert abilities["respondent"].tolist() == irt.abilities["respondent"].tolist()
    np.testing.assert_allclose(abilities["high"] - abilities["low"], 2 * 1.959963985 * irt.abilities["se"])


def test_placement_interval_is_the_predictions_at_that_level(results):
    model, observed = results["ScoreModel"], results["observed"]
    table = model.conf_int(observed, level=0.8)
    predicted = model.predict(observed, level=0.8)
    np.testing.assert_allclose(table["low"], predicted["low"])
    np.testing.assert_allclose(table["high"], predicted["high"])
    assert table.loc[table["observed"], "low"].tolist() == observed.tolist()
    assert (table.loc[~table["observed"], "high"] > table.loc[~table["observed"], "low"]).all()


def test_irt_statistics_keep_the_former_summary_dict(results):
    irt = results["DatasetIRT"]
    assert irt.statistics["n_items"] == 40 and irt.statistics["model"] == "2PL"
    assert irt.to_frames()["statistics"].iloc[0]["n_items"] == 40


def test_percentile_interval_is_numpys_quantile_and_leaves_out_missing_replicates():
    draws = np.column_stack([np.arange(101.0), np.r_[np.arange(100.0), np.nan], np.full(101, np.nan)])
    low, high = percentile_interval(draws, level=0.9)
    np.testing.assert_allclose(low[:2], [5.0, 4.95])
    np.testing.assert_allclose(high[:2], [95.0, 94.05])
    assert np.isnan(low[2]) and np.isnan(high[2])

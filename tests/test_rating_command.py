"""``benchirt rate``: inputs, outputs, plots and bad inputs end to end."""
from __future__ import annotations

import pytest

import json
import re
import sys
import types

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from benchirt.cli import main
from benchirt.rating import (
    decodirt_to_benchirt_names, friedman_nemenyi, glicko_tournament, permutation_analysis, rate, read_scores,
)
from benchirt.rating import plots
from benchirt.rating.leaderboard import ON_SUITE_COLUMNS


def write_folders(root, table: dict[str, dict[str, float]]):
    for dataset, scores in table.items():
        folder = root / dataset
        folder.mkdir(parents=True)
        pd.DataFrame({"Clf": list(scores), "Score": list(scores.values())}).to_csv(folder / "true_scores.csv", index=False)
    return root


def small_table(n_datasets=6, classifiers=("otimo", "mlp", "knn", "pessimo"), seed=0):
    rng = np.random.default_rng(seed)
    table = {}
    for i in range(n_datasets):
        middle = rng.uniform(0.3, 0.7, size=len(classifiers) - 2)
        table[f"ds{i}"] = dict(zip(classifiers, (1.0, *middle, 0.0)))
    return table


@pytest.mark.heavy
def test_rate_folder_tree_writes_every_artifact(tmp_path, capsys):
    scores = write_folders(tmp_path / "scores", small_table())
    out = tmp_path / "out"
    assert main(["rate", str(scores), "--out", str(out), "--permutations", "20", "--plots"]) == 0
    ratings = pd.read_csv(out / "ratings.csv")
    assert list(ratings.columns[:7]) == ["classifier", "rating", "rd", "volatility", "low", "high", "rank"]
    assert ratings["rating"].is_monotonic_decreasing
    assert ratings["classifier"].iloc[0] == "otimo" and ratings["classifier"].iloc[-1] == "pessimo"
    assert {"orders_rating_sd", "orders_rank_min", "orders_rank_max", "orders_p_first"} <= set(ratings.columns)
    assert not ratings.isna().any().any()
    friedman = json.loads((out / "friedman.json").read_text())
    assert friedman["mode"] == "blocks" and friedman["n_blocks"] == 6 and 0 <= friedman["p_value"] <= 1
    assert friedman["average_ranks"][0] == {"classifier": "otimo", "average_rank": 1.0}
    nemenyi = pd.read_csv(out / "nemenyi.csv", index_col="classifier")
    assert nemenyi.shape == (4, 4) and list(nemenyi.index) == list(nemenyi.columns)
    assert len(pd.read_csv(out / "permutation.csv")) == 4
    assert len(pd.read_csv(out / "trajectory.csv")) == 6 * 4
    assert (out / "order.txt").read_text().split() == [f"ds{i}" for i in range(6)]
    for name in ("ratings_intervals", "trajectories", "rank_distribution", "nemenyi_heatmap", "cd_diagram"):
        assert (out / f"{name}.png").stat().st_size > 5000
    printed = capsys.readouterr().out
    assert "20 random orders" in printed and "Friedman test (datasets as blocks" in printed


def test_rate_long_csv_with_order_file_and_decodirt_stats(tmp_path):
    rows = [(d, c, s) for d, scores in small_table(5).items() for c, s in scores.items()]
    csv = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "classifier", "score"]).to_csv(csv, index=False)
    order = tmp_path / "order.txt"
    order.write_text("\n".join(f"ds{i}" for i in (4, 2, 0, 1, 3)))
    out = tmp_path / "out"
    assert main(["rate", str(csv), "--out", str(out), "--order", str(order), "--permutations", "0",
                 "--stats", "decodirt"]) == 0
    assert (out / "order.txt").read_text().split() == ["ds4", "ds2", "ds0", "ds1", "ds3"]
    assert not (out / "permutation.csv").exists()
    friedman = json.loads((out / "friedman.json").read_text())
    assert friedman["mode"] == "decodirt" and "compatibility" in friedman["description"]
    assert friedman["critical_difference"] is None
    expected = glicko_tournament(pd.read_csv(csv), order=str(order)).table
    np.testing.assert_allclose(pd.read_csv(out / "ratings.csv")["rating"], expected["rating"])


@pytest.mark.heavy
def test_two_classifiers_or_one_dataset_are_rated_and_tests_skipped_with_reason(tmp_path, capsys):
    scores = write_folders(tmp_path / "scores", {"a": {"x": 0.9, "y": 0.1}, "b": {"x": 0.4, "y": 0.4}})
    out = tmp_path / "out"
    assert main(["rate", str(scores), "--out", str(out), "--permutations", "10", "--plots"]) == 0
    ratings = pd.read_csv(out / "ratings.csv")
    assert ratings["classifier"].tolist() == ["x", "y"]
    friedman = json.loads((out / "friedman.json").read_text())
    assert "at least 3 classifiers, found 2" in friedman["skipped"]
    assert not (out / "nemenyi.csv").exists() and not (out / "cd_diagram.png").exists()
    assert "skipped" in capsys.readouterr().err

    single = write_folders(tmp_path / "single", {"only": {"x": 0.9, "y": 0.5, "z": 0.1}})
    assert main(["rate", str(single), "--out", str(tmp_path / "out1"), "--permutations", "3"]) == 0
    assert pd.read_csv(tmp_path / "out1" / "ratings.csv")["classifier"].tolist() == ["x", "y", "z"]
    assert "at least 2 datasets" in json.loads((tmp_path / "out1" / "friedman.json").read_text())["skipped"]


@pytest.mark.heavy
def test_a_sparse_fields_untested_entrants_are_written_with_why_and_where_placed(tmp_path, capsys):
    table = small_table(8, classifiers=("otimo", "mlp", "knn", "svm", "pessimo"))
    for dataset in ("ds0", "ds1", "ds2", "ds3", "ds4", "ds5"):
        del table[dataset]["svm"]                 # svm on 2 of 8 datasets: fewer than the 6 a test needs at 5 %
    out = tmp_path / "out"
    assert main(["rate", str(write_folders(tmp_path / "scores", table)), "--out", str(out), "--permutations", "5"]) == 0
    left_out = pd.read_csv(out / "left_out.csv")
    assert left_out["classifier"].tolist() == ["svm"] and left_out["n_datasets"].tolist() == [2]
    assert left_out["reason"].iloc[0].startswith("on fewer than 6 of the 8 datasets")
    assert {"placed_rank", "placed_rank_low", "placed_rank_high"} <= set(left_out.columns)
    board = pd.read_csv(out / "leaderboard.csv").set_index("classifier")
    assert bool(board.loc["svm", "placed_by_model"]) and board.loc["svm", "rank"] == left_out["placed_rank"].iloc[0]
    dense = tmp_path / "dense"
    assert main(["rate", str(write_folders(tmp_path / "dense-scores", small_table(8))), "--out", str(dense),
                 "--permutations", "5"]) == 0
    assert not (dense / "left_out.csv").exists()                  # nobody left out: no file


@pytest.mark.heavy
def test_missing_classifier_and_accuracy_also(tmp_path):
    table = small_table(4)
    del table["ds1"]["knn"]
    root = write_folders(tmp_path / "scores", table)
    for dataset, scores in table.items():
        pd.DataFrame({"Metodo": list(scores), "Acuracia": list(scores.values())}).to_csv(
            root / dataset / "test_accuracy.csv", index=False)
    out = tmp_path / "out"
    assert main(["rate", str(root), "--out", str(out), "--permutations", "5", "--also", "test_accuracy"]) == 0
    ratings = pd.read_csv(out / "ratings.csv").set_index("classifier")
    assert ratings.loc["knn", "n_played"] == 3 and ratings.loc["mlp", "n_played"] == 4
    friedman = json.loads((out / "friedman.json").read_text())
    assert friedman["dropped_datasets"] == ["ds1"]
    assert friedman["other_scores"]["test_accuracy"]["n_blocks"] == 3
    assert (out / "nemenyi_test_accuracy.csv").exists()


def test_bad_inputs_exit_2_with_a_clear_message(tmp_path, capsys):
    table = small_table(3)
    table["ds2"]["mlp"] = float("nan")
    root = write_folders(tmp_path / "nan", table)
    assert main(["rate", str(root), "--out", str(tmp_path / "o1")]) == 2
    err = capsys.readouterr().err
    assert "dataset 'ds2', classifier 'mlp': missing" in err and "Traceback" not in err
    assert not (tmp_path / "o1" / "ratings.csv").exists()
    words = tmp_path / "words.csv"
    words.write_text("dataset,classifier,score\na,x,1\na,y,n/a?\n")
    assert main(["rate", str(words), "--out", str(tmp_path / "o1")]) == 2
    assert "dataset 'a', classifier 'y': 'n/a?'" in capsys.readouterr().err

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["rate", str(empty), "--out", str(tmp_path / "o2")]) == 2
    assert "holds no dataset folders" in capsys.readouterr().err
    assert main(["rate", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "o3")]) == 2
    assert "scores not found" in capsys.readouterr().err
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("data,clf,score\na,x,1\n")
    assert main(["rate", str(bad_csv), "--out", str(tmp_path / "o4")]) == 2
    assert "missing dataset, classifier" in capsys.readouterr().err
    root = write_folders(tmp_path / "ok", small_table(3))
    assert main(["rate", str(root), "--out", str(tmp_path / "o5"), "--order", "random:x"]) == 2
    assert main(["rate", str(root), "--out", str(tmp_path / "o5"), "--score", "f1"]) == 2
    assert "no file in decodIRT dataset folders" in capsys.readouterr().err
    assert main(["rate", str(root), "--out", str(tmp_path / "o5"), "--compare", "mlp,knn,SVM"]) == 2
    assert "classifier(s) SVM have no scores" in capsys.readouterr().err


def test_decodirt_names_are_mapped_only_when_the_pool_provides_them(monkeypatch):
    scores = pd.DataFrame({"dataset": "a", "classifier": ["otimo", "SVM"], "score": [1.0, 0.5]})
    fake_pool = types.ModuleType("benchirt.pool")
    fake_pool.DECODIRT_NAMES = {"otimo": "optimal"}
    monkeypatch.setitem(sys.modules, "benchirt.pool", fake_pool)
    assert decodirt_to_benchirt_names(scores)["classifier"].tolist() == ["optimal", "SVM"]
    monkeypatch.setitem(sys.modules, "benchirt.pool", None)  # import fails: names stay as given
    assert decodirt_to_benchirt_names(scores)["classifier"].tolist() == ["otimo", "SVM"]


def test_plots_return_figures_for_both_modes():
    rows = [(d, c, s) for d, scores in small_table(5).items() for c, s in scores.items()]
    scores = pd.DataFrame(rows, columns=["dataset", "classifier", "score"])
    tournament = glicko_tournament(scores)
    analysis = permutation_analysis(scores, n_permutations=10)
    figures = [
        plots.plot_ratings(tournament), plots.plot_ratings(tournament, permutation=analysis),
        plots.plot_trajectories(tournament, value="rd"), plots.plot_rank_distribution(analysis),
    ]
    for mode in ("blocks", "decodirt"):
        comparison = friedman_nemenyi(scores, mode=mode)
        figures += [plots.plot_nemenyi_heatmap(comparison), plots.plot_cd_diagram(comparison)]
    assert all(isinstance(f, Figure) and f.axes for f in figures)
    assert "decodIRT" in figures[-2].axes[0].get_title()


@pytest.mark.heavy
def test_stage_on_reference_data(shared_data):
    result = rate(read_scores(shared_data / "decodirt-reference"))
    table = result.ratings
    assert table["classifier"].iloc[0] == "otimo" and table["classifier"].iloc[-1] == "pessimo"
    assert result.permutation.n_permutations == 200 and not result.skipped
    assert np.isfinite(table.select_dtypes("number").to_numpy()).all()


LEADERBOARD_CONTRACT = ["classifier", "bt_rating", "bt_low", "bt_high", "rank", "rank_low", "rank_high", "tier",
                        "glicko_rating", "glicko_rd", "mean_rank"]
PAIRWISE_CONTRACT = ["a", "b", "wins", "losses", "ties", "wilcoxon_p_holm", "p_a_better", "p_equivalent",
                     "p_b_better", "separated", "statistic", "p_adjusted"]


def test_rate_writes_leaderboard_and_pairwise_with_contract_columns(tmp_path, capsys):
    from benchirt.rating import RatingConfig, leaderboard

    rows = [(d, c, s) for d, scores in small_table(8).items() for c, s in scores.items()]
    csv = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "classifier", "score"]).to_csv(csv, index=False)
    out = tmp_path / "out"
    assert main(["rate", str(csv), "--out", str(out), "--glicko", "decodirt", "--bootstrap", "100", "--rope", "0.05",
                 "--seed", "3", "--permutations", "10"]) == 0
    board = pd.read_csv(out / "leaderboard.csv")
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert set(LEADERBOARD_CONTRACT) <= set(board.columns) and set(PAIRWISE_CONTRACT) <= set(pairwise.columns)
    assert board["classifier"].iloc[0] == "otimo" and board["bt_rating"].is_monotonic_decreasing
    assert len(pairwise) == 6 and not board[LEADERBOARD_CONTRACT].isna().any().any()
    # issue 42's contract: the verdict on this suite's columns (empty from scores alone), could_be_best, the placed
    assert {*ON_SUITE_COLUMNS, "placed_by_model"} <= set(board.columns)
    assert board["rank_low_on_suite"].isna().all() and not board["placed_by_model"].any()
    assert board["could_be_best"].tolist() == (board["rank_low"] == 1).tolist()
    assert "separated_on_suite" in pairwise and pairwise["separated_on_suite"].isna().all()
    assert pairwise["separated"].dtype == bool and (pairwise["separated"] == (pairwise["p_adjusted"] <= 0.05)).all()
    config = RatingConfig(score="score", glicko="decodirt", n_bootstrap=100, rope=0.05, seed=3)
    expected = leaderboard(pd.read_csv(csv), config=config)
    np.testing.assert_allclose(board["bt_low"], expected.table["bt_low"])
    np.testing.assert_allclose(pairwise["p_equivalent"], expected.pairwise["p_equivalent"])
    # ratings.csv stays the Glicko table, here the glicko2 package's (decodIRT) variant.
    ratings = pd.read_csv(out / "ratings.csv").set_index("classifier")
    np.testing.assert_allclose(board.set_index("classifier")["glicko_rating"], ratings.loc[board["classifier"], "rating"])
    package = glicko_tournament(pd.read_csv(csv), config=RatingConfig(score="score", glicko="decodirt")).table
    np.testing.assert_allclose(ratings.loc[package["classifier"], "rating"], package["rating"], rtol=0, atol=1e-9)
    printed = capsys.readouterr().out
    assert printed.startswith("Leaderboard: Bradley-Terry on score")
    assert printed.count("Primary verdict") == 1
    verdict = printed.split("Primary verdict: ", 1)[1]
    assert verdict.startswith("Across datasets") and "is the best real classifier" in verdict
    assert "above it only the artificial reference otimo" in verdict   # decodIRT's optimal classifier never heads it
    assert board.set_index("classifier").loc[["otimo", "pessimo"], "role"].eq("artificial").all()
    for check in ("Wilcoxon signed-rank", "Bayesian sign test", "Friedman/Nemenyi", "Glicko-2"):
        assert f"Agreement check: {check}" in printed
    sentences = [line for line in printed.splitlines() if line.startswith(("Primary verdict", "Agreement check"))]
    rounded = re.compile(r"(?<![\d.])[01]\.00(?!\d)")     # a probability shown as 1.00 or 0.00
    assert sentences and not any(rounded.search(line) for line in sentences), sentences


def test_rate_refuses_an_unknown_score_listing_the_valid_ones(tmp_path, capsys):
    csv = tmp_path / "scores.csv"
    pd.DataFrame({"dataset": ["a", "a"], "classifier": ["x", "y"], "acc": [0.5, 0.7], "f1": [0.4, 0.6]}).to_csv(csv, index=False)
    assert main(["rate", str(csv), "--out", str(tmp_path / "out")]) == 2
    assert "no score column 'score'; the score columns here are acc, f1" in capsys.readouterr().err
    assert main(["rate", str(csv), "--out", str(tmp_path / "out"), "--score", "f1", "--bootstrap", "0"]) == 0
    board = pd.read_csv(tmp_path / "out" / "leaderboard.csv")
    assert board["classifier"].tolist() == ["y", "x"] and board["bt_low"].isna().all()
    assert "intervals not computed (n_bootstrap = 0)" in capsys.readouterr().err


def test_rate_help_names_the_method_and_its_level(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["rate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "step-down max-T (Westfall & Young 1993)" in text and "family-wise error --alpha (default 0.05)" in text
    assert "at once at 95 %" in text and "--verdict {stepdown,holm,range}" in text


@pytest.mark.heavy
def test_a_large_field_prints_the_top_with_intervals_and_says_how_the_verdict_was_bounded(tmp_path, capsys):
    rng = np.random.default_rng(1)
    k = 80
    scores = np.linspace(6, 0, k) + rng.normal(size=(40, k))
    rows = [(f"d{i}", f"c{j:02d}", scores[i, j]) for i in range(40) for j in range(k)]
    csv = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "classifier", "score"]).to_csv(csv, index=False)
    out = tmp_path / "out"
    assert main(["rate", str(csv), "--out", str(out), "--bootstrap", "100", "--permutations", "0"]) == 0
    captured = capsys.readouterr()
    leaderboard_part = captured.out.split("Primary verdict")[0]
    assert "… and 60 more classifiers (leaderboard.csv has them all)" in leaderboard_part
    assert len([line for line in leaderboard_part.splitlines() if re.match(r"\s+\d+\s+c\d\d", line)]) == 20
    assert "rank interval (joint 95%)" in leaderboard_part
    assert "compare the 50 best-rated of 80 classifiers only (rate.max_pairwise); the primary verdict tests every pair" in captured.err
    board = pd.read_csv(out / "leaderboard.csv")
    outside = board.iloc[50:]
    assert (outside["rank_low"] > 1).all()   # below the 50th, still tested: none could be the best
    assert (board["rank_low"] <= board["rank_high"]).all()
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert len(pairwise) == k * (k - 1) // 2 and pairwise["p_adjusted"].notna().all()


def test_rows_give_benchirt_rate_the_verdict_on_this_suite_and_must_match_the_scores(tmp_path, capsys):
    """`--rows DIR` reads each dataset's responses.csv: the leaderboard gets its on-suite rank intervals, and the
    clearly better classifier is separated from the worst on these rows; rows for other datasets are refused."""
    rng = np.random.default_rng(0)
    accuracy = {"good": 0.9, "mid": 0.7, "bad": 0.5}
    scores = []
    for d in range(4):
        answers = pd.DataFrame({name: (rng.random(300) < p).astype(int) for name, p in accuracy.items()}).T
        answers.index.name = "respondent"
        (tmp_path / "rows" / f"d{d}").mkdir(parents=True)
        answers.to_csv(tmp_path / "rows" / f"d{d}" / "responses.csv")
        scores += [{"dataset": f"d{d}", "classifier": name, "score": answers.loc[name].mean()} for name in accuracy]
    pd.DataFrame(scores).to_csv(tmp_path / "scores.csv", index=False)
    assert main(["rate", str(tmp_path / "scores.csv"), "--rows", str(tmp_path / "rows"), "--out",
                 str(tmp_path / "out"), "--permutations", "0"]) == 0
    board = pd.read_csv(tmp_path / "out" / "leaderboard.csv").set_index("classifier")
    assert board.loc["good", "rank_high_on_suite"] == 1 and board.loc["bad", "rank_low_on_suite"] == 3
    pairs = pd.read_csv(tmp_path / "out" / "pairwise.csv")
    assert pairs.loc[(pairs["a"] == "good") & (pairs["b"] == "bad"), "separated_on_suite"].item()
    (tmp_path / "rows" / "d9").mkdir()
    (tmp_path / "rows" / "d9" / "responses.csv").write_text("respondent,i1\ngood,1\n")
    capsys.readouterr()
    assert main(["rate", str(tmp_path / "scores.csv"), "--rows", str(tmp_path / "rows"), "--out",
                 str(tmp_path / "out2")]) == 2
    err = capsys.readouterr().err
    assert "the response matrices must be the scores' datasets; not in the scores: d9" in err

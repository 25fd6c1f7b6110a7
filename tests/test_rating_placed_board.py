"""Every entrant of a sparse field is a row of the leaderboard (issue 42 item 3): the entrants on too few datasets to
be tested are placed among the others by a model across datasets, marked ``placed_by_model``, and never counted as
tested — not in the verdict, the pairs, the tiers, the figure or the counts of the sentences."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.rating import RatingConfig, rate
from benchirt.rating.placed import interleaved
from benchirt.rating.verdict import measured

#: Entrants on two of the 8 datasets only: the strongest (c00) and the weakest (c11) of 12.
FEW = {"c00": [0, 1], "c11": [2, 3]}
#: The columns only a test gives: empty on a placed row.
TESTED = ("bt_rating", "bt_low", "bt_high", "tier", "mean_rank", "p_above_next", "wins", "losses", "ties",
          "rank_low_on_suite", "rank_high_on_suite")


def sparse_scores() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    skill = np.linspace(2, 0, 12)
    rows = [(f"d{d}", f"c{i:02d}", skill[i] + 0.2 * rng.normal()) for d in range(8) for i in range(12)
            if f"c{i:02d}" not in FEW or d in FEW[f"c{i:02d}"]]
    return pd.DataFrame(rows, columns=["dataset", "classifier", "score"])


@pytest.fixture(scope="module")
def result():
    return rate(sparse_scores(), config=RatingConfig(score="score", n_permutations=0, n_bootstrap=100))


@pytest.mark.heavy
def test_every_entrant_is_one_row_and_the_placed_rows_carry_their_placement(result):
    board = result.leaderboard
    assert sorted(board["classifier"]) == sorted(sparse_scores()["classifier"].unique())   # each once
    placed = board[board["placed_by_model"]].set_index("classifier")
    assert set(placed.index) == set(FEW) and not board.loc[~board["placed_by_model"], "classifier"].isin(FEW).any()
    left = result.left_out.set_index("classifier")
    for name, row in placed.iterrows():
        assert (row["rank"], row["rank_low"], row["rank_high"]) == tuple(
            left.loc[name, ["placed_rank", "placed_rank_low", "placed_rank_high"]])
        assert row["rank_low"] <= row["rank"] <= row["rank_high"] and row["n_datasets"] == 2
        assert bool(row["could_be_best"]) == (row["rank_low"] == 1) and row["role"] == "real"
        assert all(pd.isna(row[column]) for column in TESTED)
        assert row["glicko_rating"] == result.tournament.table.set_index("classifier").loc[name, "rating"]
    assert placed.loc["c00", "rank_low"] <= 2 and placed.loc["c11", "rank_high"] >= 11
    # each placed row sits at the row its placed rank names (ranks 2 and 11 here, distinct)
    assert [int(i) + 1 for i in board.index[board["placed_by_model"]]] == sorted(placed["rank"])
    tested = measured(board)
    assert tested["rank"].tolist() == sorted(tested["rank"]) and tested["bt_rating"].notna().all()


@pytest.mark.heavy
def test_placed_entrants_never_enter_the_tests_the_pairs_or_the_headline(result):
    names = set(FEW)
    assert not (set(result.pairwise["a"]) | set(result.pairwise["b"])) & names
    assert len(result.pairwise) == 10 * 9 // 2
    assert list(result.bootstrap.columns) == sorted(measured(result.leaderboard)["classifier"])
    verdict = result.verdict
    assert verdict.startswith("Across datasets (would it hold on other datasets like these?): c01 ranks first")
    assert "it cannot be separated from any of the 9 others" in verdict                  # 10 tested, not 12
    assert "Could be the best (rank interval reaching 1): 10 of 10 (" in verdict
    assert verdict.endswith(
        "Not tested: 2 of the 12 entrants are on too few datasets for any test and are placed among the others by a "
        "model across datasets (rows marked placed; their rank and its 90 % interval are a prediction from multiple "
        "imputation); 1 of them could be the best by it (c00 (placed)).")
    assert result.conf_int()["classifier"].tolist() == measured(result.leaderboard)["classifier"].tolist()
    assert result.summary().startswith("Rating on score: 10 classifiers tested and 2 placed by a model over 8 datasets")
    assert "c00 (placed)" in result.summary()


@pytest.mark.heavy
def test_leaderboard_csv_has_every_entrant_and_pairwise_csv_none_placed(tmp_path, capsys):
    sparse_scores().to_csv(tmp_path / "scores.csv", index=False)
    out = tmp_path / "out"
    assert main(["rate", str(tmp_path / "scores.csv"), "--out", str(out), "--score", "score", "--permutations", "0",
                 "--bootstrap", "50"]) == 0
    console = capsys.readouterr().out
    assert "c00 (placed)" in console and "not tested" in console
    assert ("(placed): not tested, placed by a model across datasets; its rank interval is its placement's 90 % "
            "interval over multiple imputations") in console
    board, pairwise = pd.read_csv(out / "leaderboard.csv"), pd.read_csv(out / "pairwise.csv")
    assert board["classifier"].is_unique and len(board) == 12
    assert board.loc[board["placed_by_model"], "classifier"].tolist() == ["c00", "c11"]
    assert board.loc[board["placed_by_model"], "bt_rating"].isna().all()
    assert not (set(pairwise["a"]) | set(pairwise["b"])) & set(FEW)


def test_the_report_marks_the_placed_rows_and_draws_only_the_tested(result):
    from benchirt.rating import plots
    from benchirt.report.conclusions import leaderboard_table, rating_sentences

    table = leaderboard_table(result.leaderboard, n_datasets=8)
    placed = table[table["Classifier"].str.endswith(" (placed)")]
    assert placed["Classifier"].tolist() == ["c00 (placed)", "c11 (placed)"]
    assert placed["Bradley–Terry rating"].tolist() == ["", ""] and placed["Datasets (of 8)"].tolist() == [2, 2]
    assert not placed["Rank"].str.startswith("=").any()          # a placed rank ties with no tested one
    [axes] = plots.plot_leaderboard(result.leaderboard).axes
    labels = {t.get_text().split("  (")[0] for t in axes.get_yticklabels()}
    assert labels == set(measured(result.leaderboard)["classifier"])
    verdict, checks = rating_sentences(result)
    assert "c00" not in verdict[0].split("Not tested:")[0]
    assert any("puts c00 first and c01" in check for check in checks)       # Glicko-2 played them: said, not hidden


def test_a_placed_entrant_is_said_placed_by_benchirt_add(result):
    from benchirt.placement.add_command import _board_place

    board = result.leaderboard
    row = board.set_index("classifier").loc["c11"]
    assert _board_place(board, "c11") == (f"placed {row['rank']} of 12 on the leaderboard by a model across datasets, "
                                          f"not tested (90 % interval {row['rank_low']}-{row['rank_high']})")
    assert _board_place(board, "c01").startswith("rank 1 of 10 on the leaderboard")


def test_placed_rows_keep_their_places_when_ranks_tie_or_crowd_the_end():
    board = pd.DataFrame({"classifier": ["a", "b"], "rank": [1, 2]})
    placed = pd.DataFrame({"classifier": ["y", "x", "z"], "rank": [5, 5, 1]})
    assert interleaved(board, placed)["classifier"].tolist() == ["z", "a", "b", "x", "y"]
    assert interleaved(board, placed.assign(rank=[2, 2, 2]))["classifier"].tolist() == ["a", "x", "y", "z", "b"]

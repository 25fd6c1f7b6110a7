"""Glicko-2 tournament: decodIRT's procedure, ties, absent classifiers, orders, bad inputs."""
from __future__ import annotations

import glicko2
import numpy as np
import pandas as pd
import pytest

from benchirt.errors import ConfigError, DataError
from benchirt.rating import RatingConfig, glicko_tournament, match_outcomes, read_scores, resolve_order


def long_scores(rows):
    return pd.DataFrame(rows, columns=["dataset", "classifier", "score"])


def decodirt_procedure(folders):
    """decodIRT's tournament written directly with the glicko2 package (Cardoso et al. 2021 §4.7).

    One rating period per folder; every classifier plays every other; all updates of a period
    use the opponents' ratings and RDs from before the period.
    """
    tables = [pd.read_csv(folder / "true_scores.csv") for folder in folders]
    names = sorted(tables[0]["Clf"])
    players = {name: glicko2.Player() for name in names}
    for table in tables:
        score = dict(zip(table["Clf"], table["Score"]))
        before = {name: (p.getRating(), p.getRd()) for name, p in players.items()}
        for name in names:
            others = [o for o in names if o != name]
            results = [1.0 if score[name] > score[o] else 0.5 if score[name] == score[o] else 0.0 for o in others]
            players[name].update_player([before[o][0] for o in others], [before[o][1] for o in others], results)
    return pd.DataFrame(
        {"rating": [p.getRating() for p in players.values()], "rd": [p.getRd() for p in players.values()],
         "volatility": [p.vol for p in players.values()]},
        index=list(players),
    )


def test_reference_ratings_equal_decodirt_procedure(shared_data):
    root = shared_data / "decodirt-reference"
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    assert len(folders) == 50
    expected = decodirt_procedure(folders)
    tournament = glicko_tournament(read_scores(root), config=RatingConfig(glicko="decodirt"))
    table = tournament.table.set_index("classifier")
    for column in ("rating", "rd", "volatility"):
        np.testing.assert_allclose(table[column], expected.loc[table.index, column], rtol=0, atol=1e-6)
    assert tournament.order == [p.name for p in folders]
    assert table.index[0] == "otimo" and table.index[-1] == "pessimo"
    assert (table["rank"].to_numpy() == np.arange(1, 20)).all()
    assert len(tournament.trajectory) == 50 * 19


def test_accuracy_column_can_decide_the_matches(shared_data):
    root = shared_data / "decodirt-reference"
    accuracy = glicko_tournament(read_scores(root, score="test_accuracy"))
    # optimal has accuracy 1 on every dataset and pessimal 0: they must end first and last.
    assert accuracy.leader == "otimo" and accuracy.table["classifier"].iloc[-1] == "pessimo"
    wide = read_scores(root).rename(columns={"score": "true_score"}).merge(
        read_scores(root, score="test_accuracy").rename(columns={"score": "test_accuracy"}), on=["dataset", "classifier"]
    )
    by_column = glicko_tournament(wide, config=RatingConfig(score="test_accuracy"))
    pd.testing.assert_frame_equal(by_column.table, accuracy.table)


def test_match_outcomes_score_wins_draws_losses():
    out = match_outcomes(np.array([3.0, 1.0, 3.0, np.nan]))
    assert out[0, 1] == 1.0 and out[1, 0] == 0.0
    assert out[0, 2] == out[2, 0] == 0.5
    assert np.isnan(out[3]).all() and np.isnan(out[:, 3]).all() and np.isnan(np.diag(out)).all()
    assert match_outcomes(np.array([1.0, 1.05]), tie_tolerance=0.1)[0, 1] == 0.5


def test_ties_give_identical_ratings_and_two_players_are_symmetric():
    tied = long_scores([(d, c, 0.7) for d in ("a", "b", "c") for c in ("x", "y", "z")])
    table = glicko_tournament(tied).table
    np.testing.assert_allclose(table["rating"], 1500.0, atol=1e-9)
    assert (table["rank"] == 1).all() and not table["separable_from_leader"].any()

    duel = glicko_tournament(long_scores([("a", "x", 0.9), ("a", "y", 0.1)])).table.set_index("classifier")
    assert duel.loc["x", "rating"] > 1500 > duel.loc["y", "rating"]
    assert duel.loc["x", "rating"] - 1500 == pytest.approx(1500 - duel.loc["y", "rating"], abs=1e-9)
    assert duel.loc["x", "rd"] == pytest.approx(duel.loc["y", "rd"]) and duel.loc["x", "rd"] < 350


def test_absent_classifier_sits_out_and_its_rd_grows():
    rows = [("d1", "x", 0.9), ("d1", "y", 0.5), ("d1", "z", 0.1), ("d2", "x", 0.8), ("d2", "y", 0.2)]
    tournament = glicko_tournament(long_scores(rows))
    traj = tournament.trajectory.set_index(["period", "classifier"])
    after_1, after_2 = traj.loc[(1, "z")], traj.loc[(2, "z")]
    assert not after_2["played"] and after_1["played"]
    assert after_2["rating"] == after_1["rating"] and after_2["volatility"] == after_1["volatility"]
    # Glickman's step 6 for a player who does not compete: φ* = sqrt(φ² + σ²) on the Glicko-2 scale.
    scale = 173.7178
    assert after_2["rd"] == pytest.approx(scale * np.hypot(after_1["rd"] / scale, after_1["volatility"]), rel=1e-12)
    assert tournament.table.set_index("classifier").loc[["x", "y", "z"], "n_played"].tolist() == [2, 2, 1]


def test_one_dataset_is_one_period_and_intervals_follow_rd():
    rows = [("only", c, s) for c, s in zip("abcd", (0.4, 0.3, 0.2, 0.1))]
    tournament = glicko_tournament(long_scores(rows))
    table = tournament.table
    assert tournament.order == ["only"] and table["classifier"].tolist() == list("abcd")
    np.testing.assert_allclose(table["low"], table["rating"] - 2 * table["rd"])
    np.testing.assert_allclose(table["high"], table["rating"] + 2 * table["rd"])
    leader_low = table["low"].iloc[0]
    assert (table["separable_from_leader"] == (table["high"] < leader_low)).all()
    assert tournament.inseparable_from_leader == table.loc[1:, "classifier"][table["high"].iloc[1:] >= leader_low].tolist()


def test_orders_change_results_and_are_validated(tmp_path):
    rng = np.random.default_rng(5)
    rows = [(f"d{i}", c, rng.uniform()) for i in range(6) for c in "abcde"]
    scores = long_scores(rows)
    forward = glicko_tournament(scores)
    backward = glicko_tournament(scores, order=[f"d{i}" for i in reversed(range(6))])
    assert not np.allclose(forward.table.sort_values("classifier")["rating"],
                           backward.table.sort_values("classifier")["rating"])
    order_file = tmp_path / "order.txt"
    order_file.write_text("# my order\n" + "\n".join(f"d{i}" for i in reversed(range(6))) + "\n\n")
    from_file = glicko_tournament(scores, order=str(order_file))
    pd.testing.assert_frame_equal(from_file.table, backward.table)
    assert resolve_order(["b", "a"], order="given") == ["b", "a"]
    assert resolve_order(["b", "a", "c"], order="random:3") == resolve_order(["c", "b", "a"], order="random:3")
    with pytest.raises(ConfigError, match="missing dataset.*d5"):
        glicko_tournament(scores, order=[f"d{i}" for i in range(5)])
    with pytest.raises(ConfigError, match="unknown dataset.*nope"):
        resolve_order(["a"], order=["a", "nope"])
    with pytest.raises(ConfigError, match="random:SEED"):
        resolve_order(["a"], order="random:x")
    with pytest.raises(ConfigError, match="existing file"):
        resolve_order(["a"], order="no_such_order_file.txt")


def test_bad_scores_are_reported_with_dataset_and_classifier():
    with pytest.raises(DataError, match="dataset 'd2', classifier 'y'"):
        glicko_tournament(long_scores([("d1", "x", 1.0), ("d1", "y", 0.0), ("d2", "x", 1.0), ("d2", "y", np.nan)]))
    with pytest.raises(DataError, match="dataset 'd1', classifier 'x': 'high'"):
        glicko_tournament(long_scores([("d1", "x", "high"), ("d1", "y", 0.5)]))
    with pytest.raises(DataError, match="duplicate.*'d1'/'x'"):
        glicko_tournament(long_scores([("d1", "x", 1.0), ("d1", "x", 0.5)]))
    with pytest.raises(DataError, match="empty"):
        glicko_tournament(long_scores([]))
    with pytest.raises(DataError, match="no score column 'true_score'"):
        glicko_tournament(pd.DataFrame({"dataset": ["a"], "classifier": ["x"], "acc": [1.0]}))


def test_config_from_dict_rejects_unknown_keys_and_bad_values():
    config = RatingConfig.from_dict({"initial": [1600, 300, 0.05], "n_permutations": 50})
    assert config.initial == (1600.0, 300.0, 0.05) and config.n_permutations == 50
    with pytest.raises(ConfigError, match="unknown rate option.*'permutations'.*valid options: score"):
        RatingConfig.from_dict({"permutations": 10})
    for bad in ({"initial": (1500, -1, 0.06)}, {"initial": (float("inf"), 350, 0.06)}, {"initial": (1500, 350)}, {"stats": "anova"}, {"alpha": 1.5}, {"n_permutations": 1}):
        with pytest.raises(ConfigError):
            RatingConfig.from_dict(bad)
    shifted = glicko_tournament(long_scores([("a", "x", 1.0), ("a", "y", 0.0)]), config=config).table
    assert shifted["rating"].mean() == pytest.approx(1600.0)

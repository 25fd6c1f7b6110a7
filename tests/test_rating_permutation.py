"""Order analysis: in decodIRT mode the vectorised engine equals the glicko2 package; seeded, sound summaries."""
from __future__ import annotations

import glicko2
import numpy as np
import pandas as pd
import pytest

from benchirt.errors import ConfigError
from benchirt.rating import RatingConfig, glicko_tournament, permutation_analysis, read_scores
from benchirt.rating.batch import SCALE, play_orders, update_period

DECODIRT = RatingConfig(glicko="decodirt")


def random_scores(n_datasets=8, classifiers="abcdef", seed=0, absent=(), tie_every=3):
    """Scores with ties (every ``tie_every``-th dataset copies a's score to b) and absent pairs."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_datasets):
        values = dict(zip(classifiers, rng.uniform(size=len(classifiers))))
        if i % tie_every == 0:
            values["b"] = values["a"]
        rows += [(f"d{i}", c, v) for c, v in values.items() if (f"d{i}", c) not in absent]
    return pd.DataFrame(rows, columns=["dataset", "classifier", "score"])


def assert_same_as_package(scores, analysis, which, atol=1e-3, analysis_config=DECODIRT):
    """Whole tournaments: equal up to the package's volatility-search tolerance (see batch.py)."""
    for p in which:
        order = [analysis.datasets[i] for i in analysis.orders[p]]
        table = glicko_tournament(scores, order=order, config=analysis_config).table.set_index("classifier")
        names = list(analysis.ratings.columns)
        np.testing.assert_allclose(analysis.ratings.iloc[p], table.loc[names, "rating"], rtol=0, atol=atol)
        np.testing.assert_allclose(analysis.rds.iloc[p], table.loc[names, "rd"], rtol=0, atol=atol)
        np.testing.assert_array_equal(analysis.ranks.iloc[p], table.loc[names, "rank"])


def test_one_period_equals_glicko2_package_to_1e_9():
    """Random pre-period states and outcomes (draws, absences, both branches of the σ search)."""
    rng = np.random.default_rng(11)
    n_orders, k = 40, 7
    rating = rng.uniform(1150, 1850, (n_orders, k))
    rd = rng.uniform(25, 350, (n_orders, k))
    vol = rng.uniform(0.03, 0.1, (n_orders, k))
    result = rng.choice([0.0, 0.5, 1.0], size=(n_orders, k, k))
    result[rng.uniform(size=result.shape) < 0.15] = np.nan
    absent = rng.uniform(size=(n_orders, k)) < 0.1
    result[absent] = np.nan
    result.transpose(0, 2, 1)[absent] = np.nan
    result[:, np.arange(k), np.arange(k)] = np.nan
    mu, phi, sigma, played = update_period((rating - 1500) / SCALE, rd / SCALE, vol, result, glicko="decodirt")
    large_delta = 0
    for p in range(n_orders):
        for i in range(k):
            player = glicko2.Player(rating[p, i], rd[p, i], vol[p, i])
            met = np.flatnonzero(~np.isnan(result[p, i]))
            if met.size == 0:
                player.did_not_compete()
                assert not played[p, i]
            else:
                mus, phis = ((rating[p, met] - 1500) / SCALE).tolist(), (rd[p, met] / SCALE).tolist()
                outcome = result[p, i, met].tolist()
                v = player._v(mus, phis)
                large_delta += player._delta(mus, phis, outcome, v) ** 2 > (rd[p, i] / SCALE) ** 2 + v
                player.update_player(rating[p, met].tolist(), rd[p, met].tolist(), outcome)
            assert mu[p, i] * SCALE + 1500 == pytest.approx(player.getRating(), abs=1e-9)
            assert phi[p, i] * SCALE == pytest.approx(player.getRd(), abs=1e-9)
            assert sigma[p, i] == pytest.approx(player.vol, abs=1e-12)
    assert large_delta > 5 and absent.any()


def test_vectorised_engine_equals_glicko2_package_with_ties_and_absences():
    scores = random_scores(absent={("d1", "c"), ("d2", "c"), ("d4", "f"), ("d6", "a")})
    analysis = permutation_analysis(scores, n_permutations=12, seed=3, config=DECODIRT)
    assert_same_as_package(scores, analysis, range(12))


def test_vectorised_volatility_matches_package_including_its_rating_squared_term():
    # Large rating gaps make the package's μ² term (paper: φ²) matter; the engine must follow it.
    scores = pd.DataFrame(
        [(f"d{i}", c, s) for i in range(30) for c, s in zip("abc", (1.0, 0.5, 0.0))],
        columns=["dataset", "classifier", "score"],
    )
    batch = play_orders(scores.pivot(index="dataset", columns="classifier", values="score").to_numpy(),
                        np.arange(30)[None, :], glicko="decodirt")
    table = glicko_tournament(scores, config=DECODIRT).table.set_index("classifier").loc[list("abc")]
    np.testing.assert_allclose(batch.volatility[0], table["volatility"], rtol=0, atol=1e-7)
    np.testing.assert_allclose(batch.rating[0], table["rating"], rtol=0, atol=1e-3)
    assert batch.rating[0, 0] > 1900


def test_reference_orders_match_package_and_spread_exceeds_rd(shared_data):
    scores = read_scores(shared_data / "decodirt-reference")
    analysis = permutation_analysis(scores, n_permutations=200, seed=0, config=DECODIRT)
    assert_same_as_package(scores, analysis, (0, 57, 199))
    summary = analysis.summary.set_index("classifier")
    # Cardoso et al. 2021's claim "optimal first" does not survive reordering, and the spread over orders
    # is larger than the RD a single run reports for the leaders.
    assert summary.loc["otimo", "p_first"] < 1.0
    assert summary.loc["MLPClassifier", "rank_max"] - summary.loc["MLPClassifier", "rank_min"] >= 3
    assert (summary.loc[["otimo", "MLPClassifier"], "sd_over_rd"] > 1).all()


def test_seeded_and_summaries_consistent():
    scores = random_scores(n_datasets=10)
    first = permutation_analysis(scores, n_permutations=30, seed=7)
    again = permutation_analysis(scores, n_permutations=30, seed=7)
    other = permutation_analysis(scores, n_permutations=30, seed=8)
    pd.testing.assert_frame_equal(first.summary, again.summary)
    assert not np.array_equal(first.orders, other.orders)
    assert all(sorted(row) == list(range(10)) for row in first.orders)
    s = first.summary
    assert (s["rank_min"] <= s["rank_median"]).all() and (s["rank_median"] <= s["rank_max"]).all()
    assert (s["rating_min"] <= s["rating_p05"]).all() and (s["rating_p95"] <= s["rating_max"]).all()
    assert s["p_first"].sum() >= 1.0 - 1e-12
    assert (s["p_first_alone"] <= s["p_first"]).all() and s["p_first_alone"].sum() <= 1.0 + 1e-12
    assert s["rating_mean"].is_monotonic_decreasing
    np.testing.assert_allclose(s["sd_over_rd"], s["rating_sd"] / s["rd_mean"])
    np.testing.assert_allclose(
        s.set_index("classifier")["rating_mean"], first.ratings.mean(axis=0)[s["classifier"]].to_numpy()
    )


def test_dominant_classifier_and_single_dataset():
    rows = [(f"d{i}", c, v) for i in range(5) for c, v in zip("wxyz", (1.0, *np.random.default_rng(i).uniform(0, 0.9, 3)))]
    summary = permutation_analysis(pd.DataFrame(rows, columns=["dataset", "classifier", "score"]), n_permutations=20).summary
    top = summary.iloc[0]
    assert top["classifier"] == "w" and top["p_first"] == 1.0 and top["rank_max"] == 1

    single = pd.DataFrame({"dataset": "only", "classifier": list("abc"), "score": [3.0, 2.0, 1.0]})
    result = permutation_analysis(single, n_permutations=5)
    assert (result.summary["rating_sd"] < 1e-9).all() and (result.summary["rank_max"] == result.summary["rank_min"]).all()
    assert result.summary["classifier"].tolist() == list("abc")


def test_needs_two_orders():
    for value in (1, 0, 2.5):
        with pytest.raises(ConfigError) as info:
            permutation_analysis(random_scores(), n_permutations=value)
        assert str(info.value) == f"rate.n_permutations: got {value!r}, expected an integer >= 2 (random dataset orders)"
    assert permutation_analysis(random_scores(), n_permutations=np.int64(3)).n_permutations == 3
    assert permutation_analysis(random_scores(), config=RatingConfig(n_permutations=4)).n_permutations == 4

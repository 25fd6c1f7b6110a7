"""Bradley–Terry leaderboard: the fit, order invariance, interval coverage, tiers, verdict and edge cases."""
from __future__ import annotations

import choix
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from scipy.stats import binomtest

from benchirt.rating import RatingConfig, leaderboard, rate
from benchirt.rating.bradley_terry import (
    PRIOR_SD, RATING_PER_THETA, bootstrap_counts, fit_bradley_terry, pairwise_wins,
)
from benchirt.rating.command import format_summary
from benchirt.rating.glicko import match_outcomes
from benchirt.rating.leaderboard import (
    LEADERBOARD_COLUMNS, ON_SUITE_PAIR_COLUMNS, SEPARATION_COLUMNS, LeaderboardError, bradley_terry_table,
)
from benchirt.rating.pairwise import PAIRWISE_COLUMNS
from benchirt.rating.plots import plot_leaderboard
from benchirt.rating.verdict import leaderboard_verdict

FAST = RatingConfig(n_bootstrap=200, n_permutations=0)


def long_from_matrix(matrix: np.ndarray, names=None) -> pd.DataFrame:
    names = names or [f"c{j:02d}" for j in range(matrix.shape[1])]
    rows = [(f"d{i:02d}", names[j], matrix[i, j]) for i in range(matrix.shape[0]) for j in range(matrix.shape[1])
            if not np.isnan(matrix[i, j])]
    return pd.DataFrame(rows, columns=["dataset", "classifier", "score"])


def bt_scores(strength: np.ndarray, n_datasets: int, rng) -> np.ndarray:
    """Scores θ + Gumbel noise: every pairwise comparison follows Bradley–Terry with strengths e^θ."""
    return strength[None, :] + rng.gumbel(size=(n_datasets, strength.size))


def test_fit_equals_choix_map_estimate():
    rng = np.random.default_rng(3)
    wins = pairwise_wins(match_outcomes(bt_scores(rng.normal(0, 1, 7), 25, rng))).sum(axis=0)
    fit = fit_bradley_terry(wins)
    data = [(i, j) for i in range(7) for j in range(7) for _ in range(int(wins[i, j]))]
    # choix's penalty alpha·Σθ² is the N(0, 1/(2 alpha)) prior.
    expected = choix.opt_pairwise(7, data, alpha=1 / (2 * PRIOR_SD**2), tol=1e-12)
    np.testing.assert_allclose(fit.theta[0], expected - expected.mean(), rtol=0, atol=1e-5)
    assert fit.converged.all() and abs(fit.rating.mean() - 1500) < 1e-9


#: Largest difference (rating points) allowed between the Newton fit and a tightly converged L-BFGS-B fit of the
#: same posterior (the fitter that preceded it stopped at a remaining step of 1e-3 points).
EQUAL_RATINGS = 2e-3


def lbfgs_map(wins: np.ndarray) -> np.ndarray:
    """Reference: the MAP log-strengths of one (k, k) win matrix by scipy's L-BFGS-B on the negative log-posterior."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    meetings, won = wins + wins.T, wins.sum(axis=1)

    def objective(theta):
        diff = theta[:, None] - theta[None, :]
        value = -(wins * log_expit(diff)).sum() + 0.5 * (theta**2).sum() / PRIOR_SD**2
        return value, (meetings * expit(diff)).sum(axis=1) - won + theta / PRIOR_SD**2

    result = minimize(objective, np.zeros(len(wins)), jac=True, method="L-BFGS-B",
                      options={"gtol": 1e-12, "ftol": 0.0, "maxiter": 10_000})
    return result.x


def test_newton_fit_equals_lbfgs_on_wide_fields_with_absences_ties_and_an_unbeaten_classifier():
    """The Newton fit reaches the optimum scipy's L-BFGS-B finds, to :data:`EQUAL_RATINGS` rating points: on 60
    classifiers of widely spread strength (steps are shortened far from the optimum), with rounded scores (ties),
    classifiers absent from some datasets and one that beats everyone; from a cold and from a warm start."""
    rng = np.random.default_rng(11)
    strength = rng.normal(0, 2.5, 60)
    strength[0] = 12.0                                    # wins every comparison
    scores = bt_scores(strength, 6, rng).round(0)
    scores[rng.random(scores.shape) < 0.1] = np.nan
    scores[:, 0] = 100.0
    wins = pairwise_wins(match_outcomes(scores)).sum(axis=0)
    expected = RATING_PER_THETA * lbfgs_map(wins)
    cold = fit_bradley_terry(wins)
    warm = fit_bradley_terry(wins, start=rng.normal(0, 3, 60))
    for fit in (cold, warm):
        assert fit.converged.all() and fit.n_iterations < 30
        np.testing.assert_allclose(fit.rating[0] - 1500, expected, rtol=0, atol=EQUAL_RATINGS)
    assert cold.rating[0, 0] == cold.rating.max() and cold.rating[0, 0] > 1500 + 2 * 400


def test_unbeaten_classifier_gets_a_finite_rating_and_ties_count_half():
    matrix = np.array([[1.0, 0.5, 0.2], [1.0, 0.3, 0.3], [1.0, 0.9, 0.1]])
    board = leaderboard(long_from_matrix(matrix, ["best", "mid", "low"]), config=FAST).table.set_index("classifier")
    assert np.isfinite(board["bt_rating"]).all() and board.loc["best", "bt_rating"] > 1750
    assert board.loc["best", ["wins", "losses", "ties"]].tolist() == [6, 0, 0]
    assert board.loc["mid", ["wins", "losses", "ties"]].tolist() == [2, 3, 1]
    # three datasets are too few to separate anybody at 5 %: the joint rank interval is every rank
    assert board.loc["best", ["rank", "rank_low", "rank_high", "tier"]].tolist() == [1, 1, 3, 1]
    # One win and one loss weigh as two ties: the fit only sees the (fractional) win matrix.
    two_ties = fit_bradley_terry(np.array([[0, 1.0], [1.0, 0]]))
    assert np.abs(two_ties.theta).max() < 1e-12


@pytest.mark.heavy
def test_identical_under_100_dataset_orders():
    rng = np.random.default_rng(5)
    matrix = bt_scores(rng.normal(0, 0.7, 6), 15, rng).round(1)   # rounding makes ties
    matrix[2, 4] = np.nan
    scores = long_from_matrix(matrix)
    config = RatingConfig(n_bootstrap=30)
    reference, *_ = bradley_terry_table(scores, config=config)
    assert reference["bt_low"].notna().all()
    for seed in range(100):
        table, *_ = bradley_terry_table(scores.sample(frac=1.0, random_state=seed), config=config)
        pd.testing.assert_frame_equal(table, reference, check_exact=False, rtol=0, atol=1e-9)
    # The whole leaderboard (Glicko-2 aside, which is order-dependent by design) in a few orders.
    full = leaderboard(scores, config=FAST)
    for seed in range(2):
        board = leaderboard(scores.sample(frac=1.0, random_state=seed), config=FAST)
        pd.testing.assert_frame_equal(board.table, full.table, check_exact=False, rtol=0, atol=1e-9)
        pd.testing.assert_frame_equal(board.pairwise, full.pairwise, check_exact=False, rtol=0, atol=1e-9)


def coverage(n_simulations: int, n_replicates: int, k: int = 15, n_datasets: int = 40, seed: int = 0):
    """Share of simulations whose 95 % bootstrap interval covers the true rating (one classifier per simulation).

    The bootstrap replicates of many simulations are fitted as one stacked problem (≤ 20,000 at a time).
    """
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.5, 1.5, k)
    truth = 1500 + RATING_PER_THETA * (strength - strength.mean())
    counts = bootstrap_counts(n_datasets, n_replicates, seed=seed)
    per_fit = max(1, 20_000 // n_replicates)
    ratings = []
    for start in range(0, n_simulations, per_fit):
        problems = [np.einsum("bd,dij->bij", counts, pairwise_wins(match_outcomes(bt_scores(strength, n_datasets, rng))))
                    for _ in range(min(per_fit, n_simulations - start))]
        fit = fit_bradley_terry(np.concatenate(problems))
        assert fit.converged.all()
        ratings.append(fit.rating)
    rating = np.concatenate(ratings).reshape(n_simulations, n_replicates, k)
    low, high = np.quantile(rating, [0.025, 0.975], axis=1)
    chosen = np.arange(n_simulations) % k
    rows = np.arange(n_simulations)
    covered = (low[rows, chosen] <= truth[chosen]) & (truth[chosen] <= high[rows, chosen])
    all_covered = ((low <= truth) & (truth <= high)).mean()
    return int(covered.sum()), all_covered


def test_interval_coverage_on_simulated_bradley_terry_data():
    hits, pooled = coverage(n_simulations=60, n_replicates=200)
    assert binomtest(hits, 60, 0.95).pvalue > 0.01, hits
    assert 0.9 < pooled < 0.99


@pytest.mark.slow
def test_interval_coverage_full_size():
    hits, pooled = coverage(n_simulations=200, n_replicates=1000, seed=1)
    assert binomtest(hits, 200, 0.95).pvalue > 0.01, hits
    assert 0.92 < pooled < 0.98


def test_tiers_are_consecutive_follow_the_separation_and_plot_shades_them():
    rng = np.random.default_rng(8)
    matrix = bt_scores(np.array([3.0, 2.9, 0.0, -0.1, -3.0]), 30, rng)
    board = leaderboard(long_from_matrix(matrix), config=RatingConfig(n_bootstrap=300, n_permutations=0))
    table, pairwise = board.table, board.pairwise
    # three clearly separated groups of strengths: {3, 2.9}, {0, -0.1}, {-3}
    assert table["tier"].tolist() == [1, 1, 2, 2, 3]
    assert (pairwise["separated"] == (pairwise["p_adjusted"] <= pairwise["alpha"])).all()
    assert (np.sign(pairwise["statistic"]) == np.sign(pairwise["mean_difference"])).all()
    # joint rank intervals: 1 + the classifiers separated above, k − the classifiers separated below
    above = {name: 0 for name in table["classifier"]}
    below = dict(above)
    for a, b, s in zip(pairwise["a"], pairwise["b"], pairwise["separated"]):
        above[b] += int(s)
        below[a] += int(s)
    assert table["rank_low"].tolist() == [1 + above[name] for name in table["classifier"]] == [1, 1, 3, 3, 5]
    assert table["rank_high"].tolist() == [5 - below[name] for name in table["classifier"]] == [2, 2, 4, 4, 5]
    # a new tier exactly where every classifier above is separated from every one below
    separated = {(a, b) for a, b, s in zip(pairwise["a"], pairwise["b"], pairwise["separated"]) if s}
    names, tier = table["classifier"].tolist(), table["tier"].tolist()
    for g in range(len(names) - 1):
        boundary = all((a, b) in separated for a in names[:g + 1] for b in names[g + 1:])
        assert (tier[g + 1] == tier[g] + 1) == boundary and tier[g + 1] - tier[g] in (0, 1)
    assert (table["rank_low"] <= table["rank"]).all() and (table["rank"] <= table["rank_high"]).all()
    assert (table["bt_low"] <= table["bt_rating"]).all() and (table["bt_rating"] <= table["bt_high"]).all()
    figure = plot_leaderboard(table)
    assert isinstance(figure, Figure)
    assert len(figure.axes[0].patches) == table["tier"].nunique() // 2   # every second tier band is shaded


def test_verdict_names_leader_separated_and_inseparable_classifiers():
    rng = np.random.default_rng(2)
    matrix = bt_scores(np.array([1.0, 0.95, 0.9, -2.0]), 12, rng)
    board = leaderboard(long_from_matrix(matrix, ["A", "B", "C", "D"]), config=FAST)
    first = board.table["classifier"].iloc[0]
    verdict = board.verdict()
    rows = board.pairwise[board.pairwise["a"] == first]
    beaten = rows.loc[rows["separated"], "b"].tolist()
    assert verdict.split("like these?): ", 1)[1].startswith(f"{first} ranks first (Bradley–Terry rating {board.table['bt_rating'].iloc[0]:.0f}); ")
    assert beaten == ["D"] and "significantly better than 1 of 3 classifiers (D) and cannot be separated from 2" in verdict
    assert "step-down max-T (Westfall & Young 1993) over all 6 pairs at once on 12 datasets" in verdict
    assert "its rank lies between 1 and 3" in verdict
    assert "2 tiers" in verdict and "tier 2: D." in verdict


def test_two_classifiers():
    matrix = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.7], [0.2, 0.6]])
    result = rate(long_from_matrix(matrix, ["x", "y"]), config=FAST)
    board = result.leaderboard.set_index("classifier")
    assert board.loc["x", ["wins", "losses", "ties"]].tolist() == [2, 1, 1]
    assert board.loc["x", "bt_rating"] - 1500 == pytest.approx(1500 - board.loc["y", "bt_rating"], abs=1e-9)
    assert list(result.pairwise.columns) == [*PAIRWISE_COLUMNS, *SEPARATION_COLUMNS, *ON_SUITE_PAIR_COLUMNS]
    assert len(result.pairwise) == 1
    assert "test_accuracy" not in result.comparisons and result.skipped   # Friedman needs 3 classifiers


def test_one_dataset_has_undefined_intervals_and_says_so():
    result = rate(long_from_matrix(np.array([[0.9, 0.5, 0.1]]), ["a", "b", "c"]), config=FAST)
    board = result.leaderboard
    assert list(board.columns)[:len(LEADERBOARD_COLUMNS)] == list(LEADERBOARD_COLUMNS)
    assert board[["bt_low", "bt_high", "rank_low", "rank_high"]].isna().all().all()
    assert (board["tier"] == 1).all() and board["classifier"].tolist() == ["a", "b", "c"]
    assert any("intervals undefined" in note for note in result.notes)
    assert "with a single dataset no pair can be tested, so no classifier can be separated" in result.verdict


def test_one_dataset_prints_no_glicko_interval_no_order_analysis_and_a_singular():
    result = rate(long_from_matrix(np.array([[0.9, 0.5, 0.1]]), ["a", "b", "c"]),
                  config=RatingConfig(n_bootstrap=50, n_permutations=20))
    assert result.permutation is None and any("no dataset-order analysis and no Glicko-2 intervals" in note
                                              for note in result.notes)
    text = format_summary(result)
    assert "over 1 dataset in one order" in text and "1 datasets" not in text
    assert "R-2RD" not in text and "first alone" not in text and "random orders" not in text
    assert "tier" not in text.split("Primary verdict")[0]          # one tier: no Tier column


def test_all_ties():
    result = rate(long_from_matrix(np.full((5, 4), 0.7)), config=FAST)
    board = result.leaderboard
    np.testing.assert_allclose(board["bt_rating"], 1500.0, atol=1e-9)
    assert (board["rank"] == 1).all() and (board["tier"] == 1).all() and (board["ties"] == 15).all()
    assert (result.pairwise["wilcoxon_p_holm"] == 1.0).all()
    assert (result.pairwise["p_equivalent"] > 0.9).all()
    assert result.verdict.split("like these?): ", 1)[1].startswith("c00, c01, c02 and c03 are tied at the top (")


def test_classifier_missing_on_some_datasets():
    rng = np.random.default_rng(4)
    matrix = bt_scores(np.array([0.5, 0.0, -0.5, 0.2]), 10, rng)
    matrix[:6, 3] = np.nan
    board = leaderboard(long_from_matrix(matrix), config=FAST)
    table = board.table.set_index("classifier")
    assert table.loc["c03", "n_datasets"] == 4 and table.loc["c03", ["wins", "losses", "ties"]].sum() == 12
    assert (board.pairwise.loc[(board.pairwise[["a", "b"]] == "c03").any(axis=1), "n_datasets"] == 4).all()
    assert any("c03 (4 of 10 datasets)" in note for note in board.notes)
    assert table[["bt_low", "bt_high"]].notna().all().all()


def test_pairwise_tests_and_holm_correction():
    rng = np.random.default_rng(6)
    matrix = pd.DataFrame(rng.normal(0.7, 0.05, (20, 4)), columns=list("abcd"))
    matrix["a"] += 0.05
    table = leaderboard(long_from_matrix(matrix.to_numpy(), list("abcd")), config=FAST).pairwise
    p = table["wilcoxon_p"].to_numpy()
    order = np.argsort(p)
    holm = np.minimum(1, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    np.testing.assert_allclose(table["wilcoxon_p_holm"].to_numpy()[order], holm)
    np.testing.assert_allclose(table[["p_a_better", "p_equivalent", "p_b_better"]].sum(axis=1), 1.0)
    row = table[(table["a"] == "a")].iloc[0]
    assert row["wins"] + row["losses"] + row["ties"] == 20 and row["p_a_better"] > 0.9


def test_single_classifier_is_refused():
    with pytest.raises(LeaderboardError, match="at least two classifiers"):
        leaderboard(long_from_matrix(np.ones((3, 1))))
    result = rate(long_from_matrix(np.ones((3, 1))), config=FAST)
    assert result.leaderboard.empty and "no leaderboard" in result.verdict


def test_bootstrap_fits_in_blocks_equal_one_stacked_fit():
    """Fitting the bootstrap's problems a few at a time (memory bounded for hundreds of classifiers) gives the
    same ratings as one stacked fit, to the convergence tolerance."""
    from benchirt.rating.bradley_terry import STEP_TOLERANCE, bootstrap_counts, fit_bradley_terry, fit_weighted

    rng = np.random.default_rng(5)
    skill = rng.normal(0, 1, 12)
    scores = skill[None, :] + rng.normal(0, 1, (6, 12))
    wins = (scores[:, :, None] > scores[:, None, :]).astype(float)
    counts = bootstrap_counts(6, 9, seed=1)
    whole = fit_bradley_terry(np.einsum("bd,dij->bij", counts, wins))
    blocks = fit_weighted(counts, wins, block_elements=2 * 12 * 12)   # 2 problems per block, 5 blocks
    assert whole.converged.all() and blocks.converged.all()
    np.testing.assert_allclose(blocks.rating, whole.rating, atol=20 * STEP_TOLERANCE)
    assert np.array_equal(fit_weighted(counts, wins).theta, whole.theta)   # one block: the same fit


def test_a_wide_field_whose_glicko_would_diverge_is_played_weighted_per_dataset_and_said():
    """With 60 classifiers whose per-dataset noise equals their spread, Glicko-2 with every game counted runs away
    (each dataset is 59 games decided together): the tournament is played with each dataset's games weighted
    1/(opponents), stays bounded, and the leaderboard says so. Glickman's 19-classifier setting is played as is."""
    import warnings

    from benchirt.rating.batch import diverges

    rng = np.random.default_rng(0)
    config = RatingConfig(n_bootstrap=20, n_permutations=0, max_pairwise=4)
    wide = rng.normal(0, 1, 60)[None, :] + rng.normal(0, 1, (5, 60))
    assert diverges(wide) > 0                          # unweighted, it diverges
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)                  # and weighted, no overflow at all
        board = leaderboard(long_from_matrix(wide), config=config)
    note = [n for n in board.notes if n.startswith("Glicko-2 with every game counted diverged")]
    assert len(note) == 1 and "of 60 classifiers" in note[0] and "weighted 1/(opponents" in note[0], board.notes
    assert board.table["glicko_rating"].between(1000, 2000).all() and (board.table["glicko_rd"] < 350).all()
    assert board.table["bt_rating"].between(500, 2500).all()
    small = leaderboard(long_from_matrix(rng.normal(0, 1, 19)[None, :] + rng.normal(0, 1, (5, 19))), config=config)
    assert not [n for n in small.notes if n.startswith("Glicko-2")]


def test_one_tier_draws_no_band_and_no_tier_label_and_the_verdict_no_tier_sentence():
    rng = np.random.default_rng(6)
    board = leaderboard(long_from_matrix(bt_scores(np.array([0.3, 0.2, 0.1, 0.0]), 8, rng)), config=FAST)
    assert board.table["tier"].nunique() == 1
    figure = plot_leaderboard(board.table)
    labels = [tick.get_text() for tick in figure.axes[0].get_yticklabels()]
    assert not figure.axes[0].patches and not any("tier" in label for label in labels)
    assert all("rank " in label for label in labels)                    # the joint rank interval instead
    assert "tier" not in board.verdict() and "tier" not in str(board).split("\n")[1]


def test_a_pairwise_table_stored_by_the_range_test_is_still_read():
    table = pd.DataFrame({"classifier": ["a", "b"], "bt_rating": [1600.0, 1400.0], "tier": [1, 2],
                          "n_datasets": [20, 20]})
    pairwise = pd.DataFrame({"a": ["a"], "b": ["b"], "bt_difference": [200.0], "bt_difference_low": [40.0],
                             "bt_difference_high": [360.0], "bt_separated": [True], "bt_critical_value": [160.0]})
    verdict = leaderboard_verdict(table, pairwise)
    assert "significantly better than 1 of 1 classifiers (b)" in verdict and "more than 160 points apart" in verdict
    assert "2 tiers" in verdict


def test_a_diverged_tournament_given_from_outside_is_still_said():
    from benchirt.rating.leaderboard import glicko_divergence_note

    table = pd.DataFrame({"classifier": ["a", "b", "c"], "volatility": [0.06, 2.5, 0.07]})
    [note] = glicko_divergence_note(table)
    assert note.startswith("Glicko-2 diverged for 1 of 3 classifiers (volatility above 1, largest 2.5)")
    assert glicko_divergence_note(table.assign(volatility=0.06)) == []

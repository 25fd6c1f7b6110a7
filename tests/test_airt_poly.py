"""Polytomous AIRT: quantile binning and the graded response model (benchirt.airt.polytomous)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import approx_fprime

from benchirt.airt.polytomous import GRMConfig, bin_performance, fit_grm, simulate_gpcm, simulate_grm
from benchirt.errors import ConfigError, DataError

SLOPES = [1.5, 1.0, 2.0, -1.3, 0.8, 1.2]
THRESHOLDS = [[-1.0, 0.0, 1.0, 2.0], [-1.5, -0.5, 0.5, 1.5], [-0.5, 0.0, 0.5, 1.0],
              [1.5, 0.5, -0.5, -1.5],            # anomalous: a < 0, thresholds decreasing
              [-2.0, 0.0, 1.0, 2.0], [-1.0, 1.0]]


@pytest.fixture(scope="module")
def recovered():
    levels, theta = simulate_grm(SLOPES, THRESHOLDS, 1500, seed=3)
    return fit_grm(levels), levels, theta


# --- binning (Kandanaarachchi & Smith-Miles 2023, appendix A eq. 9) --------------------------------------------------------------------------
def test_bin_performance_quintiles_by_hand():
    perf = pd.DataFrame({"A": np.arange(0, 10, dtype=float), "B": np.arange(10, 20, dtype=float)})
    levels = bin_performance(perf, n_levels=5)
    # 20 distinct values 0..19: percentiles 3.8, 7.6, 11.4, 15.2 -> four values per level
    expected = np.repeat([1, 2, 3, 4, 5], 4).reshape(2, 10).T
    np.testing.assert_array_equal(levels.to_numpy(dtype=int), expected)
    assert levels.attrs["cut_points"] == pytest.approx([0, 3.8, 7.6, 11.4, 15.2, 19])


def test_bin_performance_lower_is_better_reverses():
    runtimes = pd.DataFrame({"A": [1.0, 50.0, 100.0], "B": [2.0, 60.0, 90.0]})
    levels = bin_performance(runtimes, n_levels=3, maximize=False)
    assert levels.loc[0, "A"] == 3 and levels.loc[2, "A"] == 1


def test_bin_performance_ties_collapse_levels():
    # 60% of the values equal the cutoff: several quantiles coincide -> fewer, consecutive levels
    perf = pd.DataFrame({"A": [0.1, 0.2, 1, 1, 1], "B": [0.3, 1, 1, 1, 0.4]})
    levels = bin_performance(perf, n_levels=5)
    used = sorted(np.unique(levels.to_numpy(dtype=int)))
    assert used == list(range(1, len(used) + 1)) and len(used) < 5
    assert (levels.to_numpy(dtype=int)[perf.to_numpy() == 1] == max(used)).all()


def test_bin_performance_bad_input():
    with pytest.raises(DataError, match="n_levels"):
        bin_performance(pd.DataFrame({"A": [0.1, 0.2]}), n_levels=1)
    with pytest.raises(DataError, match="infinite"):
        bin_performance(pd.DataFrame({"A": [0.1, np.inf]}))


# --- graded response model ----------------------------------------------------------------------------
def test_grm_recovers_parameters_and_the_anomalous_item(recovered):
    fit, _, theta = recovered
    assert fit.converged
    a = fit.items["discrimination"].to_numpy()
    np.testing.assert_allclose(a, SLOPES, atol=0.25)
    assert list(fit.items["anomalous"]) == [False, False, False, True, False, False]
    for estimated, true in zip(fit.items["thresholds"], THRESHOLDS):
        np.testing.assert_allclose(estimated, true, atol=0.3)
    assert np.corrcoef(fit.theta["theta"], theta)[0, 1] > 0.85
    assert (fit.theta["difficulty"] == -fit.theta["theta"]).all()


def test_grm_metrics_follow_their_definitions(recovered):
    fit, _, _ = recovered
    items = fit.items
    abs_a = items["discrimination"].abs()
    np.testing.assert_allclose(items["consistency"], 1 / abs_a)
    np.testing.assert_allclose(items["stability"], abs_a.max() - abs_a)          # the airt vignette (Kandanaarachchi 2023)
    assert items["stability"].min() == 0.0
    limits = [-t[-1] for t in items["thresholds"]]                                # -d_{C-1}
    np.testing.assert_allclose(items["difficulty_limit"], limits)
    # at theta = -difficulty_limit the top level is reached with probability 1/2 (P(X >= top) = 0.5)
    for j, (name, row) in enumerate(items.iterrows()):
        probs = fit.category_probabilities([-row["difficulty_limit"]])[0, j]
        assert probs[row["n_categories"] - 1] == pytest.approx(0.5, abs=1e-9)


def test_trace_lines_are_distributions(recovered):
    fit, levels, _ = recovered
    lines = fit.trace_lines(np.linspace(-3, 3, 7))
    assert set(lines.columns) == {"algorithm", "theta", "level", "probability"}
    totals = lines.groupby(["algorithm", "theta"])["probability"].sum()
    np.testing.assert_allclose(totals, 1.0)
    assert set(lines.loc[lines["algorithm"] == "item5", "level"]) == {1, 2, 3}
    # a typical item's top level becomes more likely with easiness, the anomalous item's less likely
    top = lines[lines["level"] == 5].pivot(index="theta", columns="algorithm", values="probability")
    assert top["item0"].is_monotonic_increasing and top["item3"].is_monotonic_decreasing


def test_predicted_levels_agree_with_data(recovered):
    fit, levels, _ = recovered
    predicted = fit.most_likely_level()
    expected = fit.expected_level()
    assert predicted.shape == levels.shape and expected.shape == levels.shape
    within_one = (np.abs(predicted.to_numpy() - levels.to_numpy()) <= 1).mean()
    assert within_one > 0.7
    assert np.all((expected.to_numpy() >= 1) & (expected.to_numpy() <= 5))


def test_gradient_matches_finite_differences():
    from benchirt.airt.polytomous import _code_levels, _GRMProblem, _starting_values

    levels, _ = simulate_grm([1.2, -0.7, 0.9], [[-1, 0, 1], [0.5, -0.5], [0.0]], 200, seed=5)
    codes, level_lists, _, _ = _code_levels(levels)
    k = np.array([len(lv) - 1 for lv in level_lists])
    problem = _GRMProblem(codes, k, GRMConfig())
    x0 = problem.pack(*_starting_values(codes, k, problem.k_max)) + 0.1
    numeric = approx_fprime(x0, lambda x: problem.objective(x)[0], 1e-6)
    np.testing.assert_allclose(problem.objective(x0)[1], numeric, rtol=1e-4, atol=1e-3)


def test_orientation_theta_is_easiness():
    levels, theta = simulate_grm([-1.5, -1.2, -1.0, 1.0], [[1, 0, -1]] * 3 + [[-1, 0, 1]], 800, seed=7)
    fit = fit_grm(levels)
    # most algorithms do worse as the latent variable grows: the fit flips it so theta is easiness
    assert fit.items["discrimination"].tolist()[:3] == pytest.approx([1.5, 1.2, 1.0], abs=0.35)
    assert fit.items["anomalous"].tolist() == [False, False, False, True]
    assert np.corrcoef(fit.theta["theta"], -theta)[0, 1] > 0.6   # four items: little information


def test_constant_algorithm_is_skipped_with_reason():
    levels, _ = simulate_grm([1.0, 1.5, 0.8], [[-1, 1], [0.0], [-0.5, 0.5]], 300, seed=1)
    levels["stuck"] = 4
    fit = fit_grm(levels)
    assert "stuck" not in fit.items.index and "single observed level (4)" in fit.skipped["stuck"]
    assert np.isfinite(fit.items.drop(columns=["levels", "thresholds"]).to_numpy(dtype=float)).all()


def test_perfectly_separating_item_stays_finite():
    levels, theta = simulate_grm([1.0, 1.2, 0.9], [[-1, 1], [0.0], [-0.5, 0.5]], 300, seed=2)
    levels["sharp"] = np.where(theta > 0, 2, 1)       # a Guttman item: infinite slope without a prior
    fit = fit_grm(levels)
    a = fit.items.loc["sharp", "discrimination"]
    assert np.isfinite(a) and 2.0 < a < 30.0


def test_missing_levels_are_left_out_of_the_likelihood():
    levels, _ = simulate_grm([1.0, 1.2, 0.9], [[-1, 1], [0.0], [-0.5, 0.5]], 300, seed=4)
    with_missing = levels.astype("Int64")
    with_missing.iloc[:40, 0] = pd.NA
    fit = fit_grm(with_missing)
    assert fit.converged and np.isfinite(fit.log_likelihood)


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"A": [1], "B": [2]}), "at least 2 datasets"),
    (pd.DataFrame({"A": [1.5, 2.0, 1.0], "B": [1, 2, 3]}), "must be integers"),
    (pd.DataFrame({"A": [1, 2, 1], "B": [3, 3, 3]}), "at least 2 algorithms"),
    (pd.DataFrame({"A": ["low", "high"], "B": [1, 2]}), "non-numeric"),
])
def test_grm_bad_input(frame, message):
    with pytest.raises(DataError, match=message):
        fit_grm(frame)


def test_grm_config_rejects_unknown_keys():
    with pytest.raises(ConfigError, match="valid"):
        GRMConfig.from_dict({"n_nodes": 3})
    assert GRMConfig.from_dict({"n_quadrature": 41}).n_quadrature == 41


def test_binned_real_like_performance_end_to_end():
    rng = np.random.default_rng(0)
    easiness = rng.normal(size=120)
    perf = pd.DataFrame({f"alg{j}": 1 / (1 + np.exp(-(1 + 0.3 * j) * easiness + rng.normal(0, 0.3, 120)))
                         for j in range(4)})
    perf["odd"] = 1 / (1 + np.exp(1.2 * easiness + rng.normal(0, 0.3, 120)))   # anomalous algorithm
    fit = fit_grm(bin_performance(perf, n_levels=5))
    assert fit.items.loc["odd", "anomalous"] and not fit.items.drop(index="odd")["anomalous"].any()
    assert np.corrcoef(fit.theta["theta"], easiness)[0, 1] > 0.9


def test_goodness_compares_actual_and_most_likely_levels(recovered):
    fit, levels, _ = recovered
    goodness = fit.goodness(levels)
    predicted = fit.most_likely_level()
    mse = ((levels.to_numpy() - predicted.to_numpy()) ** 2).mean(axis=0)
    table = goodness.table.set_index("algorithm")
    np.testing.assert_allclose(table["mse"].to_numpy(), mse)
    assert ((table["aucdf"] > 0) & (table["aucdf"] <= 1)).all()


@pytest.mark.heavy
def test_flat_prior_fit_matches_python_mirt_on_positive_slopes():
    """Reference check: with (practically) flat priors our MML estimate equals mirt's GRM (slopes > 0 there)."""
    mirt = pytest.importorskip("mirt")
    slopes = [1.5, 1.0, 2.0, 0.8]
    thresholds = [[-1, 0, 1, 2], [-1.5, -0.5, 0.5, 1.5], [-0.5, 0, 0.5, 1.0], [-2, 0, 1, 2]]
    levels, _ = simulate_grm(slopes, thresholds, 1000, seed=11)
    ours = fit_grm(levels, config=GRMConfig(slope_prior_sd=1e6, intercept_prior_sd=1e6))
    reference = mirt.fit_mirt((levels.to_numpy() - 1).astype(int), model="GRM", n_quadpts=61, tol=1e-7)
    coef = reference.coef()
    np.testing.assert_allclose(ours.items["discrimination"], coef["discrimination"], atol=2e-3)
    np.testing.assert_allclose(np.vstack(ours.items["thresholds"]),
                               coef[[f"thresholds_{k}" for k in range(1, 5)]].to_numpy(), atol=5e-3)
    assert ours.log_likelihood == pytest.approx(reference.log_likelihood, abs=1e-3)


# --- generalized partial credit model (the model R airt fits) ------------------------------------------
GPCM_SLOPES = [1.4, 1.0, -1.2, 0.8]
GPCM_STEPS = [[-1.0, 0.0, 1.0], [-0.5, 0.5, 0.2], [0.8, -0.3, -1.0], [-1.5, 1.0]]


def test_gpcm_probabilities_by_hand():
    from benchirt.airt.polytomous import _gpcm_category_probs

    # a = 1, d = (0.5, 1.0) at theta = 0.3: P proportional to (1, e^(0.3 + 0.5), e^(0.6 + 1.0))
    probs = _gpcm_category_probs(np.array([1.0]), np.array([[0.5, 1.0]]), np.array([0.3]))[0, 0]
    weights = np.exp([0.0, 0.8, 1.6])
    np.testing.assert_allclose(probs, weights / weights.sum())


def test_gpcm_gradient_matches_finite_differences():
    from benchirt.airt.polytomous import _code_levels, _GPCMProblem

    levels, _ = simulate_gpcm(GPCM_SLOPES, GPCM_STEPS, 200, seed=5)
    codes, level_lists, _, _ = _code_levels(levels)
    k = np.array([len(lv) - 1 for lv in level_lists])
    problem = _GPCMProblem(codes, k, GRMConfig(model="gpcm"))
    x0 = np.random.default_rng(0).normal(0, 0.5, problem.n_items * (problem.k_max + 1))
    numeric = approx_fprime(x0, lambda x: problem.objective(x)[0], 1e-6)
    analytic = problem.objective(x0)[1]
    used = np.column_stack([np.ones(problem.n_items, bool), ~problem.pad]).ravel()   # padded slots are inert
    np.testing.assert_allclose(analytic[used], numeric[used], rtol=1e-4, atol=1e-3)


def test_gpcm_recovers_steps_and_the_anomalous_item():
    levels, theta = simulate_gpcm(GPCM_SLOPES, GPCM_STEPS, 2000, seed=2)
    fit = fit_grm(levels, config=GRMConfig(model="gpcm"))
    assert fit.converged and fit.model == "gpcm"
    np.testing.assert_allclose(fit.items["discrimination"], GPCM_SLOPES, atol=0.2)
    assert list(fit.items["anomalous"]) == [False, False, True, False]
    for estimated, true in zip(fit.items["thresholds"], GPCM_STEPS):
        np.testing.assert_allclose(estimated, true, atol=0.3)
    assert np.corrcoef(fit.theta["theta"], theta)[0, 1] > 0.8
    probs = fit.category_probabilities(np.linspace(-3, 3, 7))
    np.testing.assert_allclose(probs.sum(axis=2), 1.0)


def test_difficulty_limit_definitions_highest_and_lowest_threshold():
    levels, _ = simulate_gpcm(GPCM_SLOPES, GPCM_STEPS, 500, seed=4)
    for model in ("grm", "gpcm"):
        top = fit_grm(levels, config=GRMConfig(model=model))
        first = fit_grm(levels, config=GRMConfig(model=model, difficulty_limit="lowest"))
        np.testing.assert_allclose(top.items["difficulty_limit"], [-t[-1] for t in top.items["thresholds"]])
        np.testing.assert_allclose(first.items["difficulty_limit"], [-t[0] for t in top.items["thresholds"]],
                                   atol=1e-6)
    with pytest.raises(ConfigError, match="^GRM.model: got 'nrm', expected one of grm, gpcm$"):
        GRMConfig(model="nrm")
    with pytest.raises(ConfigError, match="difficulty_limit"):
        GRMConfig(difficulty_limit="middle")


def test_flat_prior_gpcm_matches_python_mirt():
    """Reference check: with (practically) flat priors our GPCM equals mirt's (positive slopes there)."""
    mirt = pytest.importorskip("mirt")
    levels, _ = simulate_gpcm([1.4, 1.0, 0.9, 0.8], [[-1, 0, 1], [-0.5, 0.5, 0.2], [0.3, -0.3, 1.0], [-1.5, 1.0, 0.5]],
                              1000, seed=11)
    ours = fit_grm(levels, config=GRMConfig(model="gpcm", slope_prior_sd=1e6, intercept_prior_sd=1e6))
    reference = mirt.fit_mirt((levels.to_numpy() - 1).astype(int), model="GPCM", n_quadpts=61, tol=1e-7,
                              compute_standard_errors=False)
    coef = reference.coef()
    np.testing.assert_allclose(ours.items["discrimination"], coef["discrimination"], atol=5e-3)
    np.testing.assert_allclose(np.vstack(ours.items["thresholds"]),
                               coef[[f"steps_{k}" for k in range(1, 4)]].to_numpy(), atol=1e-2)
    assert ours.log_likelihood == pytest.approx(reference.log_likelihood, abs=1e-2)

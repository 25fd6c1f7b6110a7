"""AIRT core: continuous response model, metrics, latent trait analysis, goodness, configuration, fit_airt."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize
from scipy.interpolate import make_smoothing_spline
from scipy.stats import multivariate_normal

from benchirt.airt import (AIRTConfig, algorithm_metrics, easiness, expit, fit_airt, fit_continuous,
                           latent_trait_analysis, logit, model_goodness)
from benchirt.airt.metrics import MAX_CONSISTENCY
from benchirt.errors import ConfigError, DataError


def simulate_crm(n_resp, alpha, beta, gamma, seed=0):
    """Draw from the CRM of Kandanaarachchi & Smith-Miles 2023 eq. 3: theta ~ N(0, 1), gamma z ~ N(theta - beta, 1 / alpha^2)."""
    rng = np.random.default_rng(seed)
    alpha, beta, gamma = map(np.asarray, (alpha, beta, gamma))
    theta = rng.normal(size=n_resp)
    z = (theta[:, None] - beta) / gamma + rng.normal(size=(n_resp, alpha.size)) / (alpha * gamma)
    return theta, z


def true_parameters(n_items=10, anomalous=(2, 5, 8), seed=1):
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0.8, 2.5, n_items)
    gamma = rng.uniform(0.6, 2.0, n_items)
    beta = rng.normal(0.0, 0.7, n_items)
    alpha[list(anomalous)] *= -1
    gamma[list(anomalous)] *= -1
    return alpha, beta, gamma


def perf_frame(x):
    return pd.DataFrame(x, index=[f"d{i}" for i in range(x.shape[0])],
                        columns=[f"algo{j}" for j in range(x.shape[1])])


# --------------------------------------------------------------------------------------------------------
# continuous response model
# --------------------------------------------------------------------------------------------------------
def test_parameter_recovery_with_anomalous_items():
    alpha, beta, gamma = true_parameters()
    theta, z = simulate_crm(800, alpha, beta, gamma, seed=3)
    fit = fit_continuous(z)
    assert fit.converged
    np.testing.assert_array_equal(np.sign(fit.discrimination), np.sign(alpha))
    np.testing.assert_array_equal(np.sign(fit.scale), np.sign(gamma))
    for estimate, truth in ((fit.discrimination, alpha), (fit.difficulty, beta), (fit.scale, gamma),
                            (fit.theta, theta)):
        assert np.corrcoef(estimate, truth)[0, 1] > 0.97
    # the N(0, 1) prior fixes the scale: the estimates are on the true scale, not just correlated
    assert np.median(np.abs(fit.discrimination / alpha - 1)) < 0.15
    assert np.median(np.abs(fit.scale / gamma - 1)) < 0.15
    assert np.max(np.abs(fit.difficulty - beta)) < 0.5


def test_recovery_through_guarded_logit_of_performances():
    alpha, beta, gamma = true_parameters(n_items=8, anomalous=(1, 6), seed=5)
    theta, z = simulate_crm(400, alpha, beta, gamma, seed=7)
    x = expit(z)  # performances in (0, 1); a few lie beyond the 0.01 guard
    fit = fit_continuous(logit(x, epsilon=0.01))
    np.testing.assert_array_equal(fit.discrimination < 0, alpha < 0)
    assert np.corrcoef(fit.theta, theta)[0, 1] > 0.95


def _mvn_loglik(z, a, b, g, prior_mean=0.0, prior_var=1.0):
    """Independent marginal likelihood: z_i ~ N((mu0 - b) / g, var0 l l' + diag(1 / (a g)^2)), l = 1 / g."""
    loading = 1.0 / g
    cov = prior_var * np.outer(loading, loading) + np.diag(1.0 / (a * g) ** 2)
    return multivariate_normal((prior_mean - b) / g, cov).logpdf(z).sum()


def test_log_likelihood_is_the_exact_marginal_and_a_maximum():
    alpha, beta, gamma = true_parameters(n_items=5, anomalous=(3,), seed=11)
    _, z = simulate_crm(300, alpha, beta, gamma, seed=12)
    fit = fit_continuous(z, tol=1e-12)
    a, b, g = fit.discrimination, fit.difficulty, fit.scale
    assert fit.log_likelihood == pytest.approx(_mvn_loglik(z, a, b, g), rel=1e-10)

    def negative(params):
        pa, pb, pg = np.split(params, 3)
        return -_mvn_loglik(z, pa, pb, pg)

    start = np.concatenate([a, b, g])
    better = optimize.minimize(negative, start, method="L-BFGS-B")
    assert -better.fun - fit.log_likelihood < 1e-4  # a general optimiser finds nothing higher


def test_same_maximum_likelihood_as_sklearn_factor_analysis():
    """The CRM is a one-factor model: z_j = -beta_j / gamma_j + theta / gamma_j + noise of variance 1/(alpha gamma)^2.

    sklearn's FactorAnalysis maximises the same Gaussian likelihood by a different algorithm (SVD-based);
    its loadings l, means m and noise variances psi give gamma = 1/l, beta = -m/l, alpha = l / sqrt(psi).
    """
    from sklearn.decomposition import FactorAnalysis

    alpha, beta, gamma = true_parameters(n_items=8, anomalous=(1, 5), seed=21)
    _, z = simulate_crm(400, alpha, beta, gamma, seed=22)
    fit = fit_continuous(z, tol=1e-12)
    fa = FactorAnalysis(n_components=1, tol=1e-10, max_iter=100000, svd_method="lapack").fit(z)
    loading = fa.components_[0] * np.sign(np.corrcoef(fa.transform(z)[:, 0], z.mean(axis=1))[0, 1])
    np.testing.assert_allclose(fit.scale, 1 / loading, rtol=1e-4)
    np.testing.assert_allclose(fit.difficulty, -fa.mean_ / loading, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fit.discrimination, loading / np.sqrt(fa.noise_variance_), rtol=1e-4)
    assert fit.log_likelihood == pytest.approx(fa.score(z) * z.shape[0], rel=1e-8)


def test_easiness_is_seed_eq_10():
    z = np.array([[1.0, 0.0], [0.0, 2.0]])
    theta = easiness(z, np.array([1.0, 2.0]), np.array([0.0, 1.0]), np.array([1.0, -1.0]))
    # row 1: (1*(0 + 1) + 4*(1 - 0)) / 5 = 1; row 2: (1*0 + 4*(1 - 2)) / 5 = -0.8
    np.testing.assert_allclose(theta, [1.0, -0.8])


def test_density_is_normalised_for_negative_discrimination():
    alpha, beta, gamma = true_parameters(n_items=4, anomalous=(0,), seed=2)
    _, z = simulate_crm(200, alpha, beta, gamma)
    fit = fit_continuous(z)
    assert fit.discrimination[0] < 0
    for theta in (-1.5, 0.3):
        total, _ = integrate.quad(lambda v: float(fit.density(v, theta, 0)), -60, 60, limit=200)
        assert total == pytest.approx(1.0, abs=1e-6)


def test_logit_guard_keeps_zero_and_one_finite_and_monotone():
    x = np.array([0.0, 0.005, 0.01, 0.5, 0.99, 1.0])
    z = logit(x, epsilon=0.01)
    assert np.isfinite(z).all()
    assert z[0] == z[1] == z[2] == pytest.approx(-np.log(99))
    assert z[-1] == z[-2] == pytest.approx(np.log(99))
    assert np.all(np.diff(z) >= 0)
    np.testing.assert_allclose(expit(logit(np.array([0.2, 0.7]))), [0.2, 0.7])


def test_constant_column_is_left_out_and_does_not_change_the_others():
    alpha, beta, gamma = true_parameters(n_items=5, anomalous=(1,), seed=4)
    _, z = simulate_crm(150, alpha, beta, gamma)
    plain = fit_continuous(z)
    with_constant = fit_continuous(np.column_stack([z, np.full(150, logit(1.0))]))
    assert not with_constant.informative[-1]
    np.testing.assert_allclose(with_constant.discrimination[:-1], plain.discrimination)
    np.testing.assert_allclose(with_constant.theta, plain.theta)
    assert with_constant.discrimination[-1] == 0.0
    assert np.isfinite(with_constant.predicted_logit()).all()


def test_latent_scale_is_oriented_by_the_mean_logit():
    alpha, beta, gamma = true_parameters(n_items=6, anomalous=(0,), seed=9)
    theta, z = simulate_crm(300, alpha, beta, gamma, seed=10)
    fit, mirrored = fit_continuous(z), fit_continuous(-z)
    assert np.corrcoef(fit.theta, z.mean(axis=1))[0, 1] > 0
    # z -> -z is the same model with theta -> -theta, beta -> -beta: alpha and gamma keep their signs
    np.testing.assert_allclose(mirrored.theta, -fit.theta, atol=1e-4)
    np.testing.assert_allclose(mirrored.discrimination, fit.discrimination, rtol=1e-3)
    np.testing.assert_allclose(mirrored.difficulty, -fit.difficulty, atol=1e-3)


def test_heywood_item_stops_at_the_discrimination_bound():
    alpha, beta, gamma = true_parameters(n_items=5, anomalous=(2,), seed=6)
    theta, z = simulate_crm(200, alpha, beta, gamma, seed=6)
    z[:, 0] = 0.5 * theta + 1e-4 * np.random.default_rng(0).normal(size=200)  # almost exactly theta
    fit = fit_continuous(z, max_discrimination=10.0)
    assert fit.converged and np.isfinite(fit.log_likelihood)
    assert fit.at_bound.tolist() == [True, False, False, False, False]
    assert fit.discrimination[0] == pytest.approx(10.0)
    assert np.corrcoef(fit.theta, theta)[0, 1] > 0.999
    table = algorithm_metrics(fit, list("abcde"), z)
    assert table.loc[0, "flag"] == "discrimination at bound" and table.loc[0, "consistency"] == pytest.approx(0.1)
    assert table.loc[1:, "flag"].eq("ok").all()


def test_model_errors():
    with pytest.raises(DataError, match="at least 2 respondents"):
        fit_continuous(np.zeros((1, 3)))
    with pytest.raises(DataError, match="same performance on every dataset"):
        fit_continuous(np.ones((6, 3)))
    with pytest.raises(DataError, match="finite"):
        fit_continuous(np.array([[0.0, np.inf], [1.0, 2.0]]))


# --------------------------------------------------------------------------------------------------------
# metrics
# --------------------------------------------------------------------------------------------------------
def test_algorithm_metrics_follow_the_definitions():
    alpha, beta, gamma = true_parameters(n_items=4, anomalous=(2,), seed=8)
    _, z = simulate_crm(120, alpha, beta, gamma)
    z = np.column_stack([z, np.zeros(120)])
    fit = fit_continuous(z)
    table = algorithm_metrics(fit, ["a", "b", "c", "d", "flat"], z)
    np.testing.assert_array_equal(table["anomalous"], table["discrimination_high"] < 0)
    np.testing.assert_array_equal(algorithm_metrics(fit, list("abcde"), z, sign_rule=True)["anomalous"],
                                  fit.discrimination < 0)
    np.testing.assert_allclose(table["consistency"][:4], 1 / np.abs(fit.discrimination[:4]))
    np.testing.assert_allclose(table["difficulty_limit"], -fit.difficulty)
    assert table.loc[4, "flag"] == "constant" and table.loc[4, "consistency"] == MAX_CONSISTENCY
    assert table["anomalous"].tolist() == [False, False, True, False, False]


# --------------------------------------------------------------------------------------------------------
# latent trait analysis
# --------------------------------------------------------------------------------------------------------
def crossing_lines():
    """A rises with difficulty, B falls, C is flat at 0.3; no dataset sits on a crossing point."""
    delta = -2.05 + 0.1 * np.arange(42)
    perf = pd.DataFrame({"A": 0.5 + 0.2 * delta, "B": 0.5 - 0.2 * delta, "C": np.full(42, 0.3)},
                        index=[f"d{i}" for i in range(42)])
    return perf, pd.Series(delta, index=perf.index)


def test_strengths_weaknesses_and_lto_of_crossing_lines():
    perf, delta = crossing_lines()
    latent = latent_trait_analysis(perf, delta)  # lines are in the spline's null space: reproduced exactly
    np.testing.assert_allclose(latent.fitted.to_numpy(), perf.to_numpy(), atol=1e-8)
    lto = latent.occupancy(0.0).set_index("algorithm")
    assert lto.loc["A", "lto_strength"] == lto.loc["B", "lto_strength"] == 0.5
    assert lto.loc["C", "lto_strength"] == 0.0
    # weakest: A below 0.3 for delta < -1 (11 datasets), B for delta > 1 (11), C in between (20)
    assert lto["lto_weakness"].to_dict() == pytest.approx({"A": 11 / 42, "B": 11 / 42, "C": 20 / 42})
    # with epsilon 0.05, A is also strong where B - A = -0.4 delta <= 0.05, i.e. delta >= -0.125
    assert latent.occupancy(0.05).set_index("algorithm").loc["A", "lto_strength"] == pytest.approx(22 / 42)
    intervals = latent.intervals(0.0)
    strong_a = intervals[(intervals["kind"] == "strength") & (intervals["algorithm"] == "A")]
    assert len(strong_a) == 1
    assert strong_a["start"].iloc[0] == pytest.approx(0.0, abs=0.01) and strong_a["end"].iloc[0] == pytest.approx(2.05)
    assert latent.portfolio(0.0) == ["A", "B"]
    assert latent.portfolio(1.0) == ["A", "B", "C"]
    table = latent.portfolio_table([0.0, 1.0])
    assert table.groupby("epsilon").size().to_dict() == {0.0: 2, 1.0: 3}


@pytest.mark.heavy
def test_gcv_spline_follows_a_noisy_curve_like_scipys_gcv():
    rng = np.random.default_rng(0)
    delta = np.sort(rng.uniform(-2, 2, 200))
    truth = 0.6 + 0.3 * np.sin(1.5 * delta)
    noisy = truth + rng.normal(0, 0.05, 200)
    perf = pd.DataFrame({"A": noisy, "B": np.full(200, 0.2)})
    latent = latent_trait_analysis(perf, delta, max_points=1000)
    fitted = latent.fitted["A"].to_numpy()
    assert np.sqrt(np.mean((fitted - truth) ** 2)) < 0.025  # it smooths (noise SD 0.05), it does not interpolate
    reference = make_smoothing_spline(delta, noisy)(delta)  # scipy's own GCV search
    assert np.sqrt(np.mean((fitted - reference) ** 2)) < 0.005
    # binned into 50 points, the curve stays close
    binned = latent_trait_analysis(perf, delta, max_points=50).fitted["A"].to_numpy()
    assert np.sqrt(np.mean((binned - fitted) ** 2)) < 0.01
    # with at most 2 degrees of freedom GCV can only pick (nearly) the straight line
    smooth = latent_trait_analysis(perf, delta, max_df=2.0)
    grid, straight = smooth.grid, smooth.curves["A"].to_numpy()
    line = np.polyval(np.polyfit(grid, straight, 1), grid)
    assert np.abs(straight - line).max() < 0.02 < np.abs(latent.curves["A"].to_numpy() - line).max()


def test_tied_difficulties_are_merged_and_too_few_are_refused():
    perf, delta = crossing_lines()
    doubled = pd.concat([perf, perf.rename(index=lambda s: s + "b")])
    latent = latent_trait_analysis(doubled, np.concatenate([delta, delta]))
    np.testing.assert_allclose(latent.fitted.to_numpy(), doubled.to_numpy(), atol=1e-8)
    with pytest.raises(DataError, match="only 4 distinct dataset difficulties"):
        latent_trait_analysis(perf.iloc[:8], np.repeat([0.0, 1.0, 2.0, 3.0], 2))


# --------------------------------------------------------------------------------------------------------
# goodness
# --------------------------------------------------------------------------------------------------------
def test_continuous_goodness_by_hand():
    actual = pd.DataFrame({"p": [1.0, 0.5, 0.0], "q": [0.2, 0.4, 0.9]})
    predicted = pd.DataFrame({"p": [0.8, 0.5, 0.3], "q": [0.2, 0.1, 0.6]})
    good = model_goodness(actual, predicted, grid_size=20001)
    table = good.table.set_index("algorithm")
    assert table.loc["p"].to_dict() == pytest.approx(
        {"mse": 0.13 / 3, "aucdf": 1 - 0.5 / 3, "auaec": 0.5, "aupec": 1.6 / 3, "effectiveness_gap": 0.1 / 3})
    assert table.loc["q"].to_dict() == pytest.approx(
        {"mse": 0.06, "aucdf": 0.8, "auaec": 0.5, "aupec": 0.3, "effectiveness_gap": 0.2})
    # the exact areas agree with a trapezoid over the curves (the way the R package integrates)
    grid = good.residual_cdf.index.to_numpy()
    np.testing.assert_allclose(integrate.trapezoid(good.residual_cdf.to_numpy(), grid, axis=0),
                               table["aucdf"], atol=1e-4)
    np.testing.assert_allclose(integrate.trapezoid(good.actual_effectiveness.to_numpy(), grid, axis=0),
                               table["auaec"], atol=1e-4)


def test_polytomous_goodness_by_hand():
    actual = pd.DataFrame({"p": [2, 1, 0, 2]})
    predicted = pd.DataFrame({"p": [2, 2, 0, 1]})
    row = model_goodness(actual, predicted, levels=3).table.iloc[0]
    # rho = |e| / 2 = (0, .5, 0, .5): CDF (.5, 1, 1) at (0, .5, 1) -> trapezoid .875
    # effectiveness points P(x >= 2), P(x >= 1), P(x >= 0) = (.5, .75, 1) -> .75 for both
    assert (row["mse"], row["aucdf"], row["auaec"], row["aupec"]) == pytest.approx((0.5, 0.875, 0.75, 0.75))
    with pytest.raises(DataError, match="category codes 0..2"):
        model_goodness(actual, predicted + 1, levels=3)


def test_goodness_input_errors():
    frame = pd.DataFrame({"p": [0.1, 0.2]})
    with pytest.raises(DataError, match="same datasets and algorithms"):
        model_goodness(frame, frame.rename(columns={"p": "q"}))
    with pytest.raises(DataError, match=r"in \[0, 1\]"):
        model_goodness(frame, frame * 10)


# --------------------------------------------------------------------------------------------------------
# configuration
# --------------------------------------------------------------------------------------------------------
def test_config_from_dict():
    config = AIRTConfig.from_dict({"epsilon": 0.01, "epsilons": [0, 0.05]})
    assert config.epsilons == (0.0, 0.05) and config.epsilon == 0.01
    with pytest.raises(ConfigError, match="unknown airt option.*'eps'.*valid options:.*logit_epsilon"):
        AIRTConfig.from_dict({"eps": 0.1})
    with pytest.raises(ConfigError, match="logit_epsilon"):
        AIRTConfig.from_dict({"logit_epsilon": 0.7})
    with pytest.raises(ConfigError, match="^airt.max_iter: got 'many', expected an integer >= 1$"):
        AIRTConfig.from_dict({"max_iter": "many"})


# --------------------------------------------------------------------------------------------------------
# fit_airt
# --------------------------------------------------------------------------------------------------------
def simulated_perf(n_resp=120, seed=0):
    alpha, beta, gamma = true_parameters(n_items=6, anomalous=(4,), seed=seed)
    theta, z = simulate_crm(n_resp, alpha, beta, gamma, seed=seed)
    return theta, alpha, perf_frame(expit(z))


def test_fit_airt_tables():
    theta, alpha, perf = simulated_perf()
    result = fit_airt(perf)
    assert list(result.algorithms.columns[:7]) == ["algorithm", "discrimination", "difficulty", "scale",
                                                    "anomalous", "consistency", "difficulty_limit"]
    assert {"lto_strength", "lto_weakness", "flag"} <= set(result.algorithms.columns)
    assert result.algorithms["anomalous"].tolist() == list(alpha < 0)
    assert np.corrcoef(result.datasets["difficulty"], -theta)[0, 1] > 0.95
    np.testing.assert_allclose(result.datasets["difficulty"], -result.datasets["easiness"])
    assert list(result.goodness.columns[:5]) == ["algorithm", "mse", "aucdf", "auaec", "aupec"]
    for table in (result.algorithms, result.datasets, result.goodness):
        numbers = table.select_dtypes("number").to_numpy(dtype=float)
        assert np.isfinite(numbers).all()
    assert result.predicted.to_numpy().min() >= 0 and result.predicted.to_numpy().max() <= 1
    assert result.algorithms["lto_strength"].sum() == pytest.approx(1.0)  # epsilon 0: one best per dataset
    assert set(result.portfolio(0.0)) <= set(perf.columns)
    assert "anomalous algorithm(s) algo4: better" in result.summary()


def test_fit_airt_flags_a_constant_algorithm():
    _, _, perf = simulated_perf()
    perf["always_right"] = 1.0
    result = fit_airt(perf)
    row = result.algorithms.set_index("algorithm").loc["always_right"]
    assert row["flag"] == "constant" and row["discrimination"] == 0.0
    assert row["lto_strength"] == 1.0  # best on every dataset
    assert row["difficulty_limit"] == pytest.approx(result.datasets["difficulty"].max())
    assert result.goodness.set_index("algorithm").loc["always_right", "mse"] == 0.0
    assert np.isfinite(result.algorithms.select_dtypes("number").to_numpy(dtype=float)).all()
    assert any("constant algorithm" in note for note in result.notes)


def _with_entry(perf, value):
    changed = perf.astype(object)
    changed.iloc[2, 1] = value
    return changed


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p * 100, r"\[0, 1\].*rescale"),
    (lambda p: p.iloc[:1], "at least"),
    (lambda p: p.iloc[:4], "at least 5 datasets"),
    (lambda p: _with_entry(p, "n/a"), "non-numeric value 'n/a' at row 'd2'"),
    (lambda p: p * 0 + 0.5, "same performance on every dataset"),
])
def test_fit_airt_bad_inputs(mutate, message):
    _, _, perf = simulated_perf(n_resp=30)
    with pytest.raises(DataError, match=message):
        fit_airt(mutate(perf))


def test_a_missing_value_is_refused_by_the_r_packages_estimator_only():
    _, _, perf = simulated_perf(n_resp=30)
    with pytest.raises(DataError, match="missing value.*row 'd2', column 'algo1'"):
        fit_airt(_with_entry(perf, np.nan).astype(float), config=AIRTConfig(compat="airt-r"))
    assert "observed cells: 179 of 180" in " ".join(fit_airt(_with_entry(perf, np.nan).astype(float)).notes)


# --------------------------------------------------------------------------------------------------------
# anomaly rule and implausible parameters
# --------------------------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_anomaly_rule_rarely_calls_a_flat_algorithm_anomalous_and_finds_a_clear_one():
    """A flat algorithm (alpha = 0) among 9 ordinary ones on 27 datasets: the sign rule calls it anomalous in about
    half of the portfolios, the interval rule in at most 6 % (nominal 2.5 %); a clearly anomalous one
    (alpha = -1) is found in at least 95 % (benchmarks/airt_anomaly.py: 100 % on 27 datasets)."""
    rng = np.random.default_rng(11)
    flat_interval = flat_sign = found = 0
    replicates = 80
    for _ in range(replicates):
        for test_alpha in (0.0, -1.0):
            alpha = np.append(rng.uniform(0.8, 2.5, 9), test_alpha)
            gamma = rng.uniform(0.6, 2.0, 10) * np.where(alpha < 0, -1, 1)
            theta, z = simulate_crm(27, np.where(alpha == 0, 1.0, alpha), rng.normal(0, 0.7, 10), gamma,
                                    seed=int(rng.integers(1 << 30)))
            if test_alpha == 0.0:
                z[:, -1] = rng.normal(size=27)                               # unrelated to theta
            table = algorithm_metrics(fit := fit_continuous(z), [f"a{j}" for j in range(10)], z)
            if test_alpha == 0.0:
                flat_interval += table["anomalous"].iloc[-1]
                flat_sign += fit.discrimination[-1] < 0
            else:
                found += table["anomalous"].iloc[-1]
    assert flat_interval / replicates <= 0.06
    assert 0.3 <= flat_sign / replicates <= 0.7
    assert found / replicates >= 0.95


def test_implausible_parameters_of_a_flat_algorithm_are_flagged():
    """Nearly flat algorithm: tiny discrimination, huge |scale| and consistency; flagged, the others are not."""
    alpha, beta, gamma = true_parameters(n_items=6, anomalous=(), seed=3)
    theta, z = simulate_crm(40, alpha, beta, gamma, seed=3)
    z[:, 5] = 0.02 * theta + np.random.default_rng(4).normal(0.5, 1.0, 40)
    fit = fit_continuous(z)
    table = algorithm_metrics(fit, list("abcdef"), z)
    assert table.loc[:4, "flag"].eq("ok").all()
    assert "consistency far above the rest" in table.loc[5, "flag"]
    assert "scale far beyond the data's range" in table.loc[5, "flag"]
    assert not table.loc[5, "anomalous"]
    assert table.loc[5, "discrimination_low"] < 0 < table.loc[5, "discrimination_high"]

"""``airt.compat: airt-r``: the R package airt's estimator, checked on rules worked by hand and on the
published AIRT numbers (Kandanaarachchi & Smith-Miles, Table 4; the airt vignette)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import trapezoid

from benchirt.airt import AIRTConfig, fit_airt
from benchirt.airt.compat import fit_continuous_r, r_logit, r_predicted, replace_extremes, standardized_easiness
from benchirt.cli import main
from benchirt.errors import ConfigError, DataError

FIXTURE = Path(__file__).parent / "fixtures" / "openml_weka_2017.csv"

# Table 4 of the AIRT paper: consistency, difficulty limit (none anomalous), OpenML-WEKA-2017.
TABLE_4 = {
    "8990_MLP": (1.401, 1.427), "8994_MLP": (1.349, 1.271), "8995_MLP": (1.201, 1.842),
    "SMO_PolyKernel": (0.655, 1.950), "OneR": (1.426, 1.026), "J48": (0.274, 1.749), "2364_IBk": (1.010, 1.798),
    "REPTree": (0.595, 1.663), "RandomTree": (0.709, 1.457), "RandomForest": (0.500, 2.064),
    "LMT": (0.467, 1.994), "HoeffdingTree": (0.757, 1.553), "SMO_RBFKernel": (0.842, 1.508),
    "JRip": (0.253, 1.741), "2889_IBk": (0.950, 1.812), "HyperPipes": (1.272, 0.919),
    "NaiveBayes": (1.173, 1.968), "OLM": (3.768, -1.176), "FURIA": (0.281, 1.806), "BayesNet": (0.752, 1.942),
    "ConjunctiveRule": (2.473, 0.845), "SimpleCart": (0.643, 1.819), "AdaBoostM1_NaiveBayes": (0.819, 1.750),
    "LADTree": (0.852, 1.793), "Logistic": (0.669, 1.824), "AdaBoostM1_DecisionStump": (2.069, 0.882),
    "AdaBoostM1_J48": (0.408, 1.947), "Bagging_REPTree": (0.660, 1.837), "DecisionTable": (0.645, 1.532),
    "LogitBoost_DecisionStump": (0.473, 1.927),
}


@pytest.fixture(scope="module")
def weka():
    return pd.read_csv(FIXTURE, index_col=0)


def test_only_exact_extremes_are_replaced_by_a_hundredth_from_the_bounds():
    x = np.array([[0.0, 1.0], [0.5, 0.995], [1.0, 0.0]])
    shifted, span = replace_extremes(x, 0.0, 1.0)
    np.testing.assert_allclose(shifted, [[0.01, 0.99], [0.5, 0.995], [0.99, 0.01]])
    np.testing.assert_allclose(span, [1.0, 1.0])
    # on the data's own range [0.2, 0.8]: shifted onto [0, 0.6], 0.6 -> 0.59, 0 -> 0.01
    shifted, span = replace_extremes(np.array([[0.2], [0.5], [0.8]]), 0.2, 0.8)
    np.testing.assert_allclose(shifted.ravel(), [0.01, 0.3, 0.59])
    z = r_logit(np.array([[0.2], [0.5], [0.8]]), 0.2, 0.8).ravel()
    np.testing.assert_allclose(z, [np.log(0.01 / 0.59), 0.0, np.log(0.59 / 0.01)], atol=1e-12)


def test_first_cycle_follows_the_closed_forms_with_sample_moments():
    # two cycles by hand on a 4 x 2 logit matrix from the start alpha = gamma = 1, beta = -mean(z)
    z = np.array([[0.0, 1.0], [1.0, 1.5], [2.0, 3.5], [3.0, 2.0]])
    one = fit_continuous_r(z, max_cycles=2, converge=0.0)
    var = 1.0 / (2 + 1)                                     # sigma^2 = 1 / (sum alpha^2 + 1)
    mu = var * ((z - z.mean(axis=0)).sum(axis=1))           # alpha = gamma = 1, beta = -mean
    cov = np.array([np.cov(z[:, j], mu)[0, 1] for j in range(2)])
    gamma = (np.var(mu, ddof=1) + var) / cov
    beta = mu.mean() - gamma * z.mean(axis=0)
    alpha = 1.0 / np.sqrt(gamma**2 * np.var(z, axis=0, ddof=1) - gamma * cov)
    assert one.n_cycles == 1
    np.testing.assert_allclose(one.fit.scale, gamma)
    np.testing.assert_allclose(one.fit.difficulty, beta)
    np.testing.assert_allclose(one.fit.discrimination, alpha)
    np.testing.assert_allclose(one.fit.theta, standardized_easiness(z, alpha, beta, gamma))
    assert one.fit.theta.mean() == pytest.approx(0.0, abs=1e-12) and one.fit.theta.std(ddof=1) == pytest.approx(1.0)


def test_stopping_rule_is_the_first_change_below_a_hundredth(weka):
    r = fit_continuous_r(r_logit(weka.to_numpy(), weka.to_numpy().min(), weka.to_numpy().max()))
    changes = np.diff(r.q_trace)
    assert r.stopped_by_rule and abs(changes[-1]) < 0.01
    assert (np.abs(changes[:-1]) >= 0.01).all()
    # on the AIRT paper's data the rule stops after 16 cycles (R's counter reads 17), far from the maximum
    assert r.n_cycles == 16
    assert not r.fit.converged
    converged = fit_airt(weka).fit.log_likelihood
    assert converged > r.fit.log_likelihood + 100


def test_prediction_formula_of_airt():
    shifted = np.array([[0.2, 0.9], [0.5, 0.3], [0.8, 0.6], [0.4, 0.99]])
    z = r_logit(shifted, 0.0, 1.0)
    fit = fit_continuous_r(z, max_cycles=3, converge=0.0).fit
    low, high = shifted.min(axis=0), shifted.max(axis=0) + 0.001
    theta = standardized_easiness(np.log((shifted - low).clip(0.01) / (high - low - (shifted - low).clip(0.01))),
                                  fit.discrimination, fit.difficulty, fit.scale)
    expected = high / (1 + np.exp(-np.minimum((theta[:, None] - fit.difficulty) * fit.scale, 10)))
    np.testing.assert_allclose(r_predicted(shifted, fit), expected)


def test_reproduces_table_4_of_the_airt_paper(weka):
    result = fit_airt(weka, config=AIRTConfig(compat="airt-r", compat_range="data"))   # the paper's scripts' range
    table = result.algorithms.set_index("algorithm")
    published = pd.DataFrame(TABLE_4, index=["consistency", "difficulty_limit"]).T
    np.testing.assert_allclose(table.loc[published.index, "consistency"], published["consistency"], atol=5e-4)
    np.testing.assert_allclose(table.loc[published.index, "difficulty_limit"], published["difficulty_limit"],
                               atol=5e-4)
    assert not table["anomalous"].any()
    # the ASlib reader's min-max scaling first (then the range is [0, 1]): Table 4 to 2 decimals
    scaled = (weka - weka.min().min()) / (weka.max().max() - weka.min().min())
    table = fit_airt(scaled, config=AIRTConfig(compat="airt-r")).algorithms.set_index("algorithm")
    np.testing.assert_allclose(table.loc[published.index, "consistency"], published["consistency"], atol=5e-3)
    np.testing.assert_allclose(table.loc[published.index, "difficulty_limit"], published["difficulty_limit"],
                               atol=5e-3)


def test_command_compat_mode_and_refusals(tmp_path, weka):
    csv = tmp_path / "perf.csv"
    weka.to_csv(csv)
    out = tmp_path / "out"
    assert main(["airt", str(csv), "--compat", "airt-r", "--compat-range", "data", "--out", str(out)]) == 0
    fit = json.loads((out / "fit.json").read_text())
    assert fit["compat"] == "airt-r" and fit["converged"] is False and "airt-r" in fit["notes"][0]
    rf = pd.read_csv(out / "algorithms.csv").set_index("algorithm").loc["RandomForest"]
    assert round(rf["consistency"], 3) == 0.500 and round(rf["difficulty_limit"], 3) == 2.064
    assert main(["airt", str(csv), "--compat", "mirt", "--out", str(out)]) == 2  # in the config's words
    with pytest.raises(ConfigError, match="^airt.compat: got 'R', expected null or 'airt-r'$"):
        AIRTConfig.from_dict({"compat": "R"})
    assert main(["airt", str(csv), "--compat-range", "data", "--out", str(out)]) == 2   # ignored otherwise: refused
    with pytest.raises(ConfigError, match="^airt.polytomous_levels: got 3, expected 5 \\(the default\\) unless polytomous is grm or gpcm$"):
        AIRTConfig(polytomous_levels=3)
    constant = weka.iloc[:, :3].assign(flat=0.5)
    with pytest.raises(DataError, match="constant algorithm"):
        fit_airt(constant, config=AIRTConfig(compat="airt-r"))


@pytest.mark.heavy
def test_polytomous_option_fits_the_chosen_model_with_the_mode_s_difficulty_limit(tmp_path, weka):
    perf = weka.iloc[:, :8]
    table = fit_airt(perf, config=AIRTConfig(polytomous="gpcm")).polytomous.set_index("algorithm")
    thresholds = table["thresholds"].map(lambda text: [float(v) for v in text.split(";")])
    np.testing.assert_allclose(table["difficulty_limit"], [-t[-1] for t in thresholds], atol=1e-5)
    r_mode = fit_airt(perf, config=AIRTConfig(compat="airt-r", polytomous="gpcm"))
    r_table = r_mode.polytomous.set_index("algorithm")
    np.testing.assert_allclose(r_table["difficulty_limit"], [-t[0] for t in thresholds], atol=1e-5)
    assert any("airt vignette" in note for note in r_mode.notes)
    assert fit_airt(perf).polytomous is None
    csv = tmp_path / "perf.csv"
    perf.to_csv(csv)
    assert main(["airt", str(csv), "--polytomous", "grm", "--polytomous-levels", "4", "--out", str(tmp_path / "o")]) == 0
    written = pd.read_csv(tmp_path / "o" / "polytomous.csv")
    assert list(written.columns) == ["algorithm", "discrimination", "consistency", "anomalous", "difficulty_limit",
                                     "n_categories", "thresholds"]
    assert written["n_categories"].max() <= 4 and not written.isna().any().any()
    with pytest.raises(ConfigError, match="^airt.polytomous: got 'nominal', expected null or one of grm, gpcm$"):
        AIRTConfig(polytomous="nominal")


# The airt vignette ("Introduction to airt", Kandanaarachchi 2024, R package airt 0.3): cirtmodel(classification_cts)
# with the package's defaults; its printed a, b, alpha (= 1/gamma, EstCRM's scaling parameter), consistency,
# difficulty limit, model goodness AUC and MSE. None is anomalous.
VIGNETTE = pd.DataFrame(
    [("NB", 1.0616819, -2.194386, 0.90328321, 0.9419017, 2.194386, 0.9280249, 0.010955390),
     ("LDA", 0.7007157, -1.985004, 0.94313213, 1.4271123, 1.985004, 0.9154309, 0.036688063),
     ("QDA", 0.0425553, -9.424135, 0.07283815, 23.4988369, 9.424135, 0.6213411, 0.218351417),
     ("CART", 1.6372654, -2.020255, 1.18446953, 0.6107745, 2.020255, 0.9467225, 0.004586373),
     ("J48", 1.6672540, -1.953229, 1.33407465, 0.5997886, 1.953229, 0.9128949, 0.010249511),
     ("KNN", 2.2718686, -1.846259, 1.34858550, 0.4401663, 1.846259, 0.9041264, 0.011792307),
     ("L_SVM", 2.7886486, -1.766353, 1.41280913, 0.3585966, 1.766353, 0.8858156, 0.014130285),
     ("poly_SVM", 1.8031423, -1.548461, 1.20644497, 0.5545874, 1.548461, 0.9172362, 0.008912185),
     ("RBF_SVM", 3.8200064, -1.721103, 1.44409420, 0.2617797, 1.721103, 0.8773909, 0.015905481),
     ("RandF", 1.0750655, -1.807717, 1.43468583, 0.9301759, 1.807717, 0.8497528, 0.033819748)],
    columns=["algorithm", "a", "b", "alpha", "consistency", "difficulty_limit", "auc", "mse"]).set_index("algorithm")


def test_reproduces_the_airt_vignette_with_the_package_defaults(tmp_path):
    """``--compat airt-r`` alone (range [0, 1], cirtmodel's defaults) gives the vignette's printed numbers."""
    csv = Path(__file__).parent / "fixtures" / "airt_classification_cts.csv"
    perf = pd.read_csv(csv, index_col=0)
    out = tmp_path / "out"
    assert main(["airt", str(csv), "--compat", "airt-r", "--out", str(out)]) == 0
    table = pd.read_csv(out / "algorithms.csv").set_index("algorithm").loc[VIGNETTE.index]
    np.testing.assert_allclose(table["discrimination"], VIGNETTE["a"], atol=5e-7)
    np.testing.assert_allclose(table["consistency"], VIGNETTE["consistency"], rtol=1e-6)
    np.testing.assert_allclose(table["difficulty_limit"], VIGNETTE["difficulty_limit"], atol=5e-6)
    assert not table["anomalous"].any()
    # QDA's flat curve: its difficulty limit, scale and consistency are flagged as implausible, no other's
    assert table.loc["QDA", "flag"].count(";") == 2 and (table.drop(index="QDA")["flag"] == "ok").all()
    result = fit_airt(perf, config=AIRTConfig(compat="airt-r"))
    np.testing.assert_allclose(result.fit.difficulty, VIGNETTE["b"], atol=5e-6)
    np.testing.assert_allclose(1 / result.fit.scale, VIGNETTE["alpha"], rtol=1e-6)
    goodness = result.goodness.set_index("algorithm").loc[VIGNETTE.index]
    np.testing.assert_allclose(goodness["mse"], VIGNETTE["mse"], rtol=1e-6)
    # airt's AUC: trapezoid over x = seq(0, 1, length 100) of the share of |residual| <= (i - 1)/100, i = 1..100
    # (tolerances 0 .. .99 drawn at 0 .. 1); benchirt's AUCDF is the exact area under the residual CDF.
    shifted, _ = replace_extremes(perf.to_numpy(), 0.0, 1.0)
    residual = np.abs(shifted - result.predicted.to_numpy())
    share = (residual[None, :, :] <= np.arange(100)[:, None, None] / 100).mean(axis=1)
    np.testing.assert_allclose(trapezoid(share, np.linspace(0, 1, 100), axis=0), VIGNETTE["auc"], atol=5e-7)
    np.testing.assert_allclose(goodness["aucdf"], 1 - residual.mean(axis=0), atol=1e-9)
    # the AIRT paper's range (the matrix's extremes, 0.01 .. 1 here) is what flips QDA's tiny discrimination
    data_range = fit_airt(perf,
                          config=AIRTConfig(compat="airt-r", compat_range="data")).algorithms.set_index("algorithm")
    assert data_range.loc["QDA", "discrimination"] < 0 < VIGNETTE.loc["QDA", "a"]

"""AIRT on the observed cells of a sparse matrix (issue 43 item 1): the EM of benchirt.airt.observed, the minima
of benchirt.airt.sparse, the derived outputs, a complete matrix fitted as before, and the cv-fold0 field."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import multivariate_normal, spearmanr

from benchirt.airt import AIRTConfig, expit, fit_airt, fit_continuous, logit
from benchirt.airt.continuous import _CompleteCells, _Setup
from benchirt.airt.observed import ObservedCells
from benchirt.airt.sparse import MIN_ALGORITHMS_PER_DATASET, MIN_DATASETS_PER_ALGORITHM, observed_field
from benchirt.errors import DataError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from airt_observed import draw  # noqa: E402  (a module of benchmarks/: the test draws the benchmark's field)

FIXTURES = Path(__file__).resolve().parent / "fixtures"




def pin_matrix():
    """The complete matrix whose AIRT output at f3a958b (before observed cells) is tests/fixtures/airt_complete_pin.json."""
    from test_airt_core import simulated_perf

    _, _, perf = simulated_perf(n_resp=40, seed=2)
    perf["always_right"] = 1.0
    return perf


# --------------------------------------------------------------------------------------------------------
# a complete matrix: the same numbers as before
# --------------------------------------------------------------------------------------------------------
def test_a_complete_matrix_gives_the_numbers_of_the_code_before_observed_cells_bit_for_bit():
    pin = json.loads((FIXTURES / "airt_complete_pin.json").read_text())
    result = fit_airt(pin_matrix())
    fit = result.fit
    assert fit.observed is None and isinstance(fit.posterior_var, float) and fit.n_iter == pin["fit"]["n_iter"]
    for name in ("discrimination", "difficulty", "scale", "theta", "posterior_mean"):
        np.testing.assert_array_equal(getattr(fit, name), pin["fit"][name])
    assert fit.posterior_var == pin["fit"]["posterior_var"] and fit.log_likelihood == pin["fit"]["log_likelihood"]
    for table, pinned in ((result.algorithms, pin["algorithms"]), (result.goodness, pin["goodness"])):
        for column, values in pinned.items():
            np.testing.assert_array_equal(table[column].to_numpy(dtype=float), values)
    assert result.algorithms["flag"].tolist() == pin["flags"]
    assert result.portfolio_table().to_dict(orient="list") == pin["portfolios"]
    np.testing.assert_array_equal(result.latent.lam.to_numpy(), np.array(pin["lam"], dtype=float))
    np.testing.assert_array_equal(result.latent.curves.to_numpy().sum(axis=0), pin["curves_sum"])
    np.testing.assert_array_equal(result.predicted.to_numpy().ravel(), pin["predicted"])
    assert not any("observed cells" in note for note in result.notes)


def test_every_cell_observed_the_masked_steps_are_the_complete_ones():
    _, z, _ = draw(0, n_datasets=50, n_items=6)
    complete, masked = _CompleteCells(z), ObservedCells.of(z)
    setup = _Setup(0.0, 1.0, 10.0)
    a, b, g = np.linspace(0.5, 2.0, 6), np.linspace(-1, 1, 6), np.linspace(1.5, 0.7, 6)
    (mu_c, var_c), (mu_m, var_m) = complete.e_step(a, b, g, setup), masked.e_step(a, b, g, setup)
    np.testing.assert_allclose(mu_m, mu_c, rtol=1e-12)
    np.testing.assert_allclose(var_m, var_c, rtol=1e-12)
    for got, expected in zip(masked.m_step(mu_c, np.full(50, var_c), 10.0), complete.m_step(mu_c, var_c, 10.0)):
        np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert masked.loglik(a, b, g, mu_m, var_m, setup) == pytest.approx(complete.loglik(a, b, g, mu_c, var_c, setup),
                                                                       rel=1e-12)


# --------------------------------------------------------------------------------------------------------
# the likelihood of the observed cells
# --------------------------------------------------------------------------------------------------------
def test_the_log_likelihood_is_the_exact_marginal_of_each_datasets_observed_cells():
    """Under the CRM z_i^obs ~ N((m - b)/g, diag(1/(a g)^2) + s^2 (1/g)(1/g)^T) over dataset i's observed items
    (Kandanaarachchi & Smith-Miles 2023 eq. 3 integrated over theta ~ N(m, s^2)); missing cells contribute nothing."""
    _, _, sparse = draw(1, n_datasets=40, n_items=8, presence=0.5)
    sparse = sparse[(~np.isnan(sparse)).sum(axis=1) >= 1]
    a, b, g = np.linspace(0.6, 2.0, 8), np.linspace(-1, 1, 8), np.linspace(1.4, -0.8, 8)
    g[g == 0] = 0.3
    cells, setup = ObservedCells.of(sparse), _Setup(0.2, 1.5**2, 10.0)
    mu, var = cells.e_step(a, b, g, setup)
    expected = 0.0
    for row in sparse:
        seen = ~np.isnan(row)
        loading = 1.0 / g[seen]
        cov = np.diag(1.0 / (a[seen] * g[seen]) ** 2) + setup.prior_var * np.outer(loading, loading)
        expected += multivariate_normal((setup.prior_mean - b[seen]) / g[seen], cov).logpdf(row[seen])
    assert cells.loglik(a, b, g, mu, var, setup) == pytest.approx(expected, rel=1e-10)


def test_the_em_on_observed_cells_converges_to_a_maximum_of_their_likelihood():
    _, _, sparse = draw(2, n_datasets=200, n_items=12, presence=0.4)
    sparse = sparse[(~np.isnan(sparse)).sum(axis=1) >= MIN_ALGORITHMS_PER_DATASET]
    fit = fit_continuous(sparse)
    assert fit.converged and fit.observed is not None and fit.posterior_var.shape == (len(sparse),)
    cells, setup = ObservedCells.of(sparse), _Setup(0.0, 1.0, 10.0)
    a, b, g = fit.discrimination, fit.difficulty, fit.scale
    best = cells.loglik(a, b, g, *cells.e_step(a, b, g, setup), setup)
    assert best == pytest.approx(fit.log_likelihood, rel=1e-9)
    rng = np.random.default_rng(0)
    for _ in range(5):   # nearby parameters have a lower likelihood
        a2, b2, g2 = (p * (1 + 0.01 * rng.normal(size=p.size)) for p in (a, b, g))
        assert cells.loglik(a2, b2, g2, *cells.e_step(a2, b2, g2, setup), setup) < best


def test_an_item_or_a_respondent_without_an_observed_cell_is_refused():
    _, z, _ = draw(0, n_datasets=20, n_items=4)
    for cut, message in ((np.s_[:, 2], r"column\(s\) \[2\] have no observed cell"),
                         (np.s_[5, :], r"row\(s\) \[5\] have no observed cell")):
        sparse = z.copy()
        sparse[cut] = np.nan
        with pytest.raises(DataError, match=message):
            fit_continuous(sparse)


def test_thirty_percent_of_the_cells_recover_the_generating_parameters_and_the_full_data_fit():
    """Thresholds below the smallest of 40 replicates of ``python benchmarks/airt_observed.py`` (experiment 1:
    0.966, 0.977, 0.981 against the truth; 0.972, 0.985, 0.988 against the full-data fit; 0.972 for theta; every
    sign right in all 40), so they hold for any draw, not just the ones tested."""
    for seed in (0, 1):
        (alpha, beta, gamma, theta), z, sparse = draw(seed)
        keep = (~np.isnan(sparse)).sum(axis=1) >= MIN_ALGORITHMS_PER_DATASET
        full, fit = fit_continuous(z), fit_continuous(sparse[keep])
        assert fit.converged and 0.25 < np.mean(~np.isnan(sparse)) < 0.35
        for name, truth in (("discrimination", alpha), ("difficulty", beta), ("scale", gamma)):
            assert np.corrcoef(getattr(fit, name), truth)[0, 1] >= 0.95, name
            assert np.corrcoef(getattr(fit, name), getattr(full, name))[0, 1] >= 0.95, name
        assert np.corrcoef(fit.theta, theta[keep])[0, 1] >= 0.95
        np.testing.assert_array_equal(np.sign(fit.discrimination), np.sign(alpha))


def test_hiding_cells_of_a_real_complete_matrix_keeps_the_parameters():
    """OpenML-WEKA-2017 (105 datasets × 30 classifiers), 30 % of cells hidden at random. Rank correlations with the
    whole-matrix fit; thresholds below the smallest of 40 replicates of ``python benchmarks/airt_observed.py``
    (experiment 2: 0.853, 0.860, 0.784, 0.963)."""
    z = logit(pd.read_csv(FIXTURES / "openml_weka_2017.csv", index_col=0).to_numpy(), epsilon=0.01)
    full = fit_continuous(z)
    for seed in (0, 1):
        hidden = np.where(np.random.default_rng(seed).random(z.shape) < 0.3, np.nan, z)
        fit = fit_continuous(hidden)
        for name, threshold in (("discrimination", 0.8), ("difficulty", 0.8), ("scale", 0.75), ("theta", 0.95)):
            assert spearmanr(getattr(fit, name), getattr(full, name))[0] >= threshold, name


# --------------------------------------------------------------------------------------------------------
# which lines are kept
# --------------------------------------------------------------------------------------------------------
def test_lines_below_the_minima_and_unlinked_groups_are_left_out_and_named():
    rng = np.random.default_rng(0)
    perf = pd.DataFrame(rng.uniform(0.2, 0.9, (9, 6)), index=[f"d{i}" for i in range(9)],
                        columns=[f"a{j}" for j in range(6)])
    perf.iloc[:4, 5] = np.nan           # a5 on 5 datasets: kept
    perf.iloc[:6, 4] = np.nan           # a4 on 3 datasets: left out
    perf.iloc[0, :4] = np.nan           # d0: no result left
    island = pd.DataFrame(0.5, index=["x1", "x2"], columns=["b1", "b2"])
    table = pd.concat([perf, island])    # x1, x2 × b1, b2 share no result with the rest
    assert MIN_DATASETS_PER_ALGORITHM == 5 and MIN_ALGORITHMS_PER_DATASET == 2
    field = observed_field(table)
    assert field.sparse_algorithms == ["a4", "b1", "b2"] and field.sparse_datasets == ["d0", "x1", "x2"]
    assert list(field.table.columns) == ["a0", "a1", "a2", "a3", "a5"] and list(field.table.index) == [f"d{i}" for i in range(1, 9)]
    notes = " ".join(field.notes())
    assert "observed cells: 44 of 88 (50%)" in notes and "left out 3 (a4, b1, b2) algorithm(s)" in notes
    linked = pd.concat([perf.iloc[1:, :4], pd.DataFrame(0.5, index=[f"x{i}" for i in range(5)], columns=["b1", "b2"])])
    field = observed_field(linked)      # two groups each above the minima, sharing no result
    assert field.unlinked_datasets == [f"x{i}" for i in range(5)] and field.unlinked_algorithms == ["b1", "b2"]
    assert "sharing no result with the rest" in " ".join(field.notes())


# --------------------------------------------------------------------------------------------------------
# fit_airt's outputs on a sparse matrix
# --------------------------------------------------------------------------------------------------------
def sparse_perf(seed=0):
    _, z, sparse = draw(seed, n_datasets=120, n_items=8, presence=0.5)
    sparse[0, :] = np.nan
    sparse[0, 0] = 0.4                   # a dataset with one result: left out
    return pd.DataFrame(expit(sparse), index=[f"d{i}" for i in range(120)], columns=[f"algo{j}" for j in range(8)])


@pytest.mark.heavy
def test_fit_airt_on_observed_cells_says_so_and_gives_finite_tables():
    perf = sparse_perf()
    result = fit_airt(perf, config=AIRTConfig(grid_size=50))
    assert result.fit.observed is not None and len(result.datasets) == 119 and "d0" not in set(result.datasets["dataset"])
    for table in (result.algorithms, result.datasets, result.goodness, result.portfolio_table()):
        assert np.isfinite(table.select_dtypes("number").to_numpy(dtype=float)).all()
    assert np.isfinite(result.predicted.to_numpy()).all() and result.performance.isna().any().any()
    notes = " ".join(result.notes)
    observed = int(perf.notna().to_numpy().sum())
    assert f"observed cells: {observed} of 960" in notes and "left out 1 (d0) dataset(s)" in notes
    for said in ("model goodness (MSE, AUCDF, AUAEC, AUPEC) is computed on each algorithm's observed cells only",
                 "beyond the range of those datasets it is extrapolated", "its 95 % discrimination interval from their number"):
        assert said in notes
    assert all(f"note: {n}" in result.summary() for n in result.notes)
    # goodness on an algorithm's observed cells, by hand
    seen = result.performance["algo3"].notna()
    x, x_hat = result.performance.loc[seen, "algo3"], result.predicted.loc[seen, "algo3"]
    row = result.goodness.set_index("algorithm").loc["algo3"]
    assert row["mse"] == pytest.approx(((x - x_hat) ** 2).mean()) and row["aupec"] == pytest.approx(x_hat.mean())
    assert row["aucdf"] == pytest.approx(1 - (x - x_hat).abs().mean()) and row["auaec"] == pytest.approx(x.mean())
    # the discrimination interval: from the algorithm's own number of datasets
    low, high = result.algorithms.set_index("algorithm").loc["algo3", ["discrimination_low", "discrimination_high"]]
    assert low < result.fit.discrimination[3] < high


@pytest.mark.heavy
def test_the_polytomous_model_reads_the_observed_cells_and_says_so():
    result = fit_airt(sparse_perf(), config=AIRTConfig(polytomous="grm", grid_size=50))
    assert result.polytomous is not None and len(result.polytomous) == 8
    assert any(n.startswith("polytomous graded response model") and n.endswith("missing cells left out of its "
                                                                                "likelihood") for n in result.notes)


def test_the_r_packages_estimator_and_the_portfolio_comparison_need_every_cell():
    from benchirt.airt.portfolio import compare_portfolios

    perf = sparse_perf()
    with pytest.raises(DataError, match="missing value"):
        fit_airt(perf, config=AIRTConfig(compat="airt-r"))
    with pytest.raises(DataError, match="missing value"):
        compare_portfolios(perf)


def test_too_few_datasets_left_is_refused_naming_what_was_left_out():
    perf = sparse_perf().iloc[:8]
    perf.iloc[1:, 1:] = np.nan
    with pytest.raises(DataError, match=r"AIRT needs at least 5.*left out"):
        fit_airt(perf)


# --------------------------------------------------------------------------------------------------------
# the real sparse field: cv-fold0
# --------------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_cv_fold0_field_gets_an_airt_result_on_its_observed_cells(shared_data, tmp_path):
    """configs/cv-fold0.yaml's field (20 OpenML tasks, 277 flows, none on all 20): AIRT was skipped (its largest
    complete block had 4 tasks); on the observed cells it fits every task."""
    from benchirt.cli import main
    from benchirt.pipeline.run import load_run

    folder = shared_data / "openml-runs" / "cv-fold0"
    if not folder.is_dir():
        pytest.skip(f"{folder} not found")
    config = yaml.safe_load((Path(__file__).resolve().parents[1] / "configs" / "cv-fold0.yaml").read_text())
    config.update(stages=["respond", "airt"], out=str(tmp_path / "run"))
    config["respond"]["path"] = str(folder)
    (tmp_path / "cv.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    assert main(["run", str(tmp_path / "cv.yaml"), "--quiet"]) == 0
    airt = load_run(tmp_path / "run").airt
    assert len(airt.datasets) == 20 and len(airt.algorithms) >= 200 and airt.fit.converged
    notes = " ".join(airt.notes)
    assert "observed cells: " in notes and "of 5,540" in notes and "with results on fewer than 5 datasets" in notes
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["stages"]["airt"]["status"] == "done"
    assert any("observed cells" in note for note in manifest["artifacts"]["airt"]["notes"])

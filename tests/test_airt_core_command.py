"""``benchirt airt``, the AIRT figures and the analysis of real performance data."""
from __future__ import annotations

import json

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from benchirt.airt import expit, fit_airt
from benchirt.airt import plots
from benchirt.cli import main
from data_samples import runtime_description, write_aslib_scenario

ARTIFICIAL = ("rand1", "rand2", "rand3", "majoritario", "minoritario", "pessimo", "otimo")


def toy_perf(n_datasets=40, seed=0):
    """Accuracy-like matrix: three typical algorithms and one anomalous one."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_datasets)
    z = np.column_stack([1.5 * theta + 1.0, 1.0 * theta + 0.5, 0.6 * theta, -0.8 * theta - 0.5])
    z += rng.normal(0, 0.3, z.shape)
    return pd.DataFrame(expit(z), index=[f"data{i}" for i in range(n_datasets)],
                        columns=["strong", "medium", "steady", "contrarian"]).rename_axis("dataset")


@pytest.fixture(scope="module")
def toy_result():
    return fit_airt(toy_perf())


def test_command_writes_the_contract_files(tmp_path):
    csv = tmp_path / "perf.csv"
    toy_perf().to_csv(csv)
    out = tmp_path / "out"
    assert main(["airt", str(csv), "--out", str(out)]) == 0
    algorithms = pd.read_csv(out / "algorithms.csv")
    assert {"algorithm", "consistency", "difficulty_limit", "anomalous", "lto_strength", "lto_weakness"} \
        <= set(algorithms.columns)
    assert algorithms.set_index("algorithm").loc["contrarian", "anomalous"]
    assert not algorithms.set_index("algorithm").loc[["strong", "medium", "steady"], "anomalous"].any()
    datasets = pd.read_csv(out / "datasets.csv")
    assert list(datasets.columns[:2]) == ["dataset", "difficulty"] and len(datasets) == 40
    goodness = pd.read_csv(out / "goodness.csv")
    assert list(goodness.columns[:5]) == ["algorithm", "mse", "aucdf", "auaec", "aupec"]
    for name in ("algorithms", "datasets", "goodness", "latent_curves", "strengths", "portfolio", "predicted"):
        frame = pd.read_csv(out / f"{name}.csv")
        assert not frame.isna().any().any(), name
    fit = json.loads((out / "fit.json").read_text())
    assert fit["converged"] and fit["n_datasets"] == 40 and fit["n_algorithms"] == 4
    portfolio = pd.read_csv(out / "portfolio.csv")
    assert sorted(portfolio["epsilon"].unique()) == [0.0, 0.01, 0.05]


def test_command_options_reach_the_analysis(tmp_path):
    csv = tmp_path / "perf.csv"
    toy_perf(15).to_csv(csv)
    out = tmp_path / "out"
    argv = ["airt", str(csv), "--out", str(out), "--epsilon", "0.02", "--epsilons", "0,0.1",
            "--spline-lam", "0.5", "--logit-epsilon", "0.001"]
    assert main(argv) == 0
    config = json.loads((out / "fit.json").read_text())["config"]
    assert (config["epsilon"], config["epsilons"], config["spline_lam"], config["logit_epsilon"]) == \
        (0.02, [0.0, 0.1], 0.5, 0.001)
    assert set(pd.read_csv(out / "portfolio.csv")["epsilon"]) == {0.0, 0.1}
    assert set(pd.read_csv(out / "strengths.csv")["epsilon"]) == {0.0, 0.02, 0.1}
    assert main(["airt", str(csv), "--out", str(out), "--epsilon", "2"]) == 2  # ConfigError: epsilon in [0, 1]


def test_command_lower_is_better_runtimes(tmp_path, capsys):
    perf = toy_perf()
    runtimes = 10.0 ** (3 * (1 - perf))  # seconds: the better the accuracy, the faster
    csv = tmp_path / "runtimes.csv"
    runtimes.to_csv(csv)
    assert main(["airt", str(csv), "--out", str(tmp_path / "bad")]) == 2
    assert "rescale" in capsys.readouterr().err
    out = tmp_path / "out"
    assert main(["airt", str(csv), "--out", str(out), "--lower-is-better"]) == 0
    goodness = pd.read_csv(out / "goodness.csv").set_index("algorithm")
    # one min-max over the whole matrix, reversed: AUAEC is the mean of (max - t) / (max - min)
    scaled = (runtimes.to_numpy().max() - runtimes) / np.ptp(runtimes.to_numpy())
    np.testing.assert_allclose(goodness.loc[perf.columns, "auaec"], scaled.mean(), rtol=1e-9)
    assert "lower is better" in " ".join(json.loads((out / "fit.json").read_text())["input_notes"])


@pytest.mark.parametrize("argv, message", [
    ([], "exactly one"),
    (["--aslib", "somewhere", "x.csv"], "exactly one"),
    (["missing.csv"], "not found"),
])
def test_command_input_errors(tmp_path, capsys, argv, message):
    assert main(["airt", *argv, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err


def test_command_one_dataset_is_a_clear_error(tmp_path, capsys):
    csv = tmp_path / "one.csv"
    toy_perf().iloc[:1].to_csv(csv)
    assert main(["airt", str(csv), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "at least 2 datasets" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


DESCRIPTION = runtime_description("TOY", 1000)


def test_command_reads_an_aslib_scenario_with_failures_and_repetitions(tmp_path):
    runtimes = 10.0 ** (3 * (1 - toy_perf(30)))
    rows = []
    for instance, row in runtimes.iterrows():
        for algorithm, seconds in row.items():
            status = "timeout" if seconds > 900 else "ok"
            rows.append((instance, 1, algorithm, f"{seconds:.3f}", status))
            if algorithm == "steady":
                rows.append((instance, 2, algorithm, f"{seconds * 1.1:.3f}", "ok"))
    folder = write_aslib_scenario(tmp_path / "TOY", rows, DESCRIPTION)
    out = tmp_path / "out"
    assert main(["airt", "--aslib", str(folder), "--out", str(out), "--transform", "log"]) == 0
    fit = json.loads((out / "fit.json").read_text())
    assert fit["source"]["scenario"] == "TOY" and fit["n_datasets"] == 30
    notes = " ".join(fit["input_notes"])
    assert "repetitions" in notes
    assert np.isfinite(pd.read_csv(out / "algorithms.csv").select_dtypes("number").to_numpy()).all()


@pytest.mark.heavy
def test_command_plots(tmp_path):
    csv = tmp_path / "perf.csv"
    toy_perf(25).to_csv(csv)
    out = tmp_path / "out"
    assert main(["airt", str(csv), "--out", str(out), "--plots"]) == 0
    written = sorted(p.stem for p in (out / "plots").glob("*.png"))
    assert written == sorted(plots.STANDARD_PLOTS)
    assert all((out / "plots" / f"{stem}.png").stat().st_size > 5000 for stem in written)


@pytest.mark.heavy
def test_plot_functions_return_figures(toy_result):
    for plot in (plots.plot_heatmaps, plots.plot_trace_lines, plots.plot_latent_curves,
                 plots.plot_strengths_weaknesses, plots.plot_effectiveness, plots.plot_residual_cdf,
                 plots.plot_auaec_aupec):
        figure = plot(toy_result)
        assert isinstance(figure, Figure) and figure.axes
        matplotlib.pyplot.close(figure)
    # latent and goodness plots also take the bare analysis objects (e.g. of a polytomous model)
    assert isinstance(plots.plot_latent_curves(toy_result.latent, dashed=["steady"]), Figure)
    assert isinstance(plots.plot_effectiveness(toy_result.model_goodness), Figure)
    heat = plots.plot_heatmaps(toy_result, algorithms=["contrarian"])
    assert "anomalous" in heat.axes[0].get_title()
    gaps = pd.DataFrame({"method": ["airt", "airt", "topset", "topset"], "n_algorithms": [1, 2, 1, 2],
                         "mean_gap": [0.1, 0.05, 0.12, 0.06], "se": [0.01, np.nan, 0.02, 0.01],
                         "epsilon": [0.0, 0.0, 0.0, 0.0]})
    figure = plots.plot_portfolio_gap(gaps)
    assert len(figure.axes) == 1 and len(figure.axes[0].get_legend().get_texts()) == 2
    with pytest.raises(ValueError, match="mean_gap"):
        plots.plot_portfolio_gap(gaps.drop(columns="mean_gap"))
    matplotlib.pyplot.close("all")


# --------------------------------------------------------------------------------------------------------
# real data
# --------------------------------------------------------------------------------------------------------
def cc18_accuracy(shared_data):
    """Datasets x classifiers test accuracy of decodIRT's 50 CC18 datasets (12 real + 7 artificial)."""
    folders = sorted((shared_data / "decodirt-reference").iterdir())
    rows = {f.name: pd.read_csv(f / "test_accuracy.csv").set_index("Metodo")["Acuracia"] for f in folders
            if (f / "test_accuracy.csv").is_file()}
    return pd.DataFrame(rows).T


def test_cc18_classifier_pool(shared_data):
    perf = cc18_accuracy(shared_data)
    assert perf.shape == (50, 19)
    result = fit_airt(perf)
    assert result.fit.converged
    algorithms = result.algorithms.set_index("algorithm")
    # the optimal and pessimal classifiers are constant (accuracy 1 and 0 everywhere): flagged, finite
    assert algorithms.loc[["otimo", "pessimo"], "flag"].eq("constant").all()
    assert np.isfinite(result.algorithms.select_dtypes("number").to_numpy(dtype=float)).all()
    # the optimal classifier is the best everywhere, the pessimal one the worst everywhere
    assert result.portfolio(0.0) == ["otimo"]
    assert algorithms.loc["otimo", "lto_strength"] == 1.0 and algorithms.loc["pessimo", "lto_weakness"] == 1.0
    # datasets on which the real classifiers do worse are the harder ones
    real = [c for c in perf.columns if c not in ARTIFICIAL]
    difficulty = result.datasets.set_index("dataset")["difficulty"]
    assert difficulty.corr(-perf[real].mean(axis=1), method="spearman") > 0.9


def test_real_aslib_scenario(shared_data):
    from benchirt.airt.aslib import load_aslib

    scenario = load_aslib(shared_data / "aslib" / "SAT11-INDU")
    result = fit_airt(scenario.performance)
    assert result.fit.converged
    for table in (result.algorithms, result.datasets, result.goodness):
        assert np.isfinite(table.select_dtypes("number").to_numpy(dtype=float)).all()
    assert 0.5 < result.goodness["aucdf"].min() <= result.goodness["aucdf"].max() <= 1.0
    # AUAEC is the mean performance on [0, 1]
    np.testing.assert_allclose(result.goodness["auaec"], scenario.performance.mean().to_numpy())


@pytest.mark.heavy
def test_command_fits_a_matrix_with_empty_cells_on_its_observed_cells(tmp_path, capsys):
    rng = np.random.default_rng(3)
    perf = pd.DataFrame(rng.uniform(0.3, 0.95, size=(12, 4)), index=[f"d{i}" for i in range(12)],
                        columns=["a", "b", "c", "e"])
    perf.iloc[0, 2] = perf.iloc[5, 1] = np.nan          # two algorithms not run on a dataset each
    csv = tmp_path / "perf.csv"
    perf.to_csv(csv)
    out = tmp_path / "out"
    assert main(["airt", str(csv), "--out", str(out)]) == 0
    assert set(pd.read_csv(out / "algorithms.csv")["algorithm"]) == {"a", "b", "c", "e"}
    assert main(["airt", str(csv), "--out", str(tmp_path / "lower"), "--lower-is-better"]) == 0
    capsys.readouterr()
    assert main(["airt", str(csv), "--out", str(tmp_path / "r"), "--compat", "airt-r"]) == 2
    assert "2 missing value(s), first at row 'd0', column 'c'" in capsys.readouterr().err

"""``benchirt run`` with ``responses: {source: openml-runs, …}``: imported runs through IRT, rating and report."""
from __future__ import annotations

import pandas as pd
import pytest

from benchirt.errors import ConfigError
from benchirt.pipeline.config import load_config
from benchirt.pipeline.run import load_run, run_pipeline


def _config(shared_data, **responses):
    path = shared_data / "openml-runs" / "iris-matrices" / "results_Iris_Study59_4432x150.csv"
    return {"suite": "openml-runs", "stages": ["respond", "irt", "rate", "report"],
            "responses": {"source": "openml-runs", "path": str(path), "min_accuracy": 0.35, **responses},
            "rating": {"n_permutations": 0, "n_bootstrap": 0, "max_pairwise": 10},
            "report": {"max_dataset_plots": 0, "dpi": 40}, "execution": {"n_jobs": 1}}


@pytest.mark.heavy
def test_iris_study_imports_and_fits(shared_data, tmp_path):
    config = load_config({**_config(shared_data, per_flow="best", max_items=60), "stages": ["respond", "irt"]})
    run_pipeline(config, out=tmp_path / "run", show_progress=False)
    results = load_run(tmp_path / "run")
    [result] = results.respond.values()
    assert result.responses.shape[1] == 60 and (result.roles == "real").all()
    assert set(result.provenance.columns) >= {"respondent", "run_id", "flow_name", "openml_url", "accuracy"}
    assert any("one run per flow (best): 660 respondents" in note for note in result.notes)
    assert result.provenance["n_identical"].sum() == 660
    [irt] = results.irt.values()
    assert set(irt.abilities["respondent"]) == set(result.responses.index)
    # a rerun reuses the imported responses: same source, same options
    outcome = run_pipeline(config, out=tmp_path / "run", show_progress=False)
    dataset = outcome.manifest.datasets["results_Iris_Study59_4432x150"]
    assert dataset["respond"]["status"] == "reused" or dataset["respond"].get("reused") is True


@pytest.mark.slow
def test_iris_study_runs_through_irt_rating_and_report(shared_data, tmp_path):
    config = load_config(_config(shared_data, per_flow="best", max_items=60))
    run_pipeline(config, out=tmp_path / "run", show_progress=False)
    results = load_run(tmp_path / "run")
    n_rated = len(results.rate.leaderboard)
    assert len(results.rate.pairwise) == n_rated * (n_rated - 1) // 2  # the primary verdict tests every pair
    assert any(f"compare the 10 best-rated of {n_rated} classifiers only (rate.max_pairwise); the primary verdict "
               "tests every pair" in note for note in results.rate.notes)
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "Respondents from stored runs" in page and "the 20 highest abilities" in page


def test_an_import_section_is_validated_like_any_other(shared_data):
    with pytest.raises(ConfigError, match="respond.per_flow: got 'top'"):
        load_config(_config(shared_data, per_flow="top"))
    with pytest.raises(ConfigError, match="unknown respond option"):
        load_config(_config(shared_data, ladder_epochs=3))
    config = load_config(_config(shared_data))
    assert type(config.stage_config("respond")).__name__ == "ImportConfig"
    assert pd.api.types.is_number(config.stage_config("respond").min_accuracy)


@pytest.mark.heavy
def test_rating_figures_draw_the_best_of_a_large_field_only():
    """With hundreds of respondents a figure shows the top (its height and the k × k grids grow with the field)."""
    import numpy as np

    from benchirt.rating import RatingConfig, rate
    from benchirt.rating import plots

    rng = np.random.default_rng(0)
    names = [f"c{i:03d}" for i in range(79)] + ["sklearn.pipeline.Pipeline(" + "step=x," * 40 + ")(1)"]
    scores = pd.DataFrame([{"dataset": f"d{d}", "classifier": c, "score": rng.normal(i / 80, 0.05)}
                           for d in range(4) for i, c in enumerate(names)])
    result = rate(scores, config=RatingConfig(score="score", n_permutations=4, n_bootstrap=0, max_pairwise=5))
    figure = plots.plot_leaderboard(result.leaderboard, top=30)
    [axes] = figure.axes
    assert len(axes.get_yticks()) == 30 and "the best 30 of 80" in axes.get_title()
    assert len(plots.plot_ratings(result.tournament, permutation=result.permutation, top=30).axes[0].get_yticks()) == 30
    grid = plots.plot_rank_distribution(result.permutation, top=30).axes[0].get_images()[0].get_array()
    assert grid.shape == (30, 30)
    assert len(result.pairwise) == 80 * 79 // 2   # every pair is counted and decided
    assert result.pairwise["wilcoxon_p"].notna().sum() == 10   # rating.max_pairwise: checks among the 5 best-rated
    labels = [t.get_text() for t in plots.plot_leaderboard(result.leaderboard).axes[0].get_yticklabels()]
    assert max(len(label.split("  (tier")[0]) for label in labels) == plots.LABEL_CHARS


@pytest.mark.heavy
def test_a_matrix_source_paired_with_its_dataset_shows_the_datasets_labels(shared_data, tmp_path):
    """The Iris matrix holds no labels; paired with Iris they are read from the data (OpenML's row order is
    Iris's: 50 setosa, 50 versicolor, 50 virginica), and paired with another dataset it is refused."""
    config = load_config({**_config(shared_data, per_flow="best", pair_with_suite=True), "suite": "builtin:iris",
                          "stages": ["respond"]})
    run_pipeline(config, out=tmp_path / "run", show_progress=False)
    [result] = load_run(tmp_path / "run").respond.values()
    rows = result.responses.columns.astype(int)
    assert list(result.test_labels.index) == list(result.responses.columns)
    assert list(result.test_labels) == [("setosa", "versicolor", "virginica")[r // 50] for r in rows]
    assert not any("holds no labels" in note for note in result.notes)
    assert any("paired with the suite's dataset 'iris' (150 rows)" in note for note in result.notes)
    wine = load_config({**_config(shared_data, pair_with_suite=True), "suite": "builtin:wine", "stages": ["respond"]})
    outcome = run_pipeline(wine, out=tmp_path / "wine", show_progress=False)
    [entry] = outcome.manifest.datasets.values()
    assert entry["respond"]["status"] == "skipped"
    assert "differ: the runs' dataset has 150 rows, this one 178" in entry["respond"]["reason"]


def test_a_matrix_source_alone_says_it_holds_no_labels(shared_data, tmp_path):
    config = load_config({**_config(shared_data, per_flow="best", max_items=30), "stages": ["respond"]})
    run_pipeline(config, out=tmp_path / "run", show_progress=False)
    [result] = load_run(tmp_path / "run").respond.values()
    assert result.test_labels.empty and any("holds no labels" in note for note in result.notes)

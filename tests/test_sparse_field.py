"""A sparse field through rating, subsets and AIRT (issue 34 item 3): what each does with the missing cells, said.

Six small tasks written here as respondents × items matrices; no flow runs on all six. The leaderboard
tests the flows on enough datasets for a signed-rank test (here: the most any flow has, 5) and places the others
among them by a model, marked (issue 42 item 3), the
Glicko-2 ratings stay finite and bounded, the subsets compare the flows present, AIRT fits the observed cells,
leaving out the flows on fewer than 5 tasks and the tasks left with fewer than 2 flows — and the notes, the
manifest and summary.md say each of these.
"""
from __future__ import annotations

import pytest

import json
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from benchirt.cli import main
from benchirt.pipeline.run import load_run
from benchirt.rating.batch import update_period
from benchirt.rating.sparse import min_datasets, ranked_field
from benchirt.rating.verdict import measured
from benchirt.report.config import ReportConfig
from benchirt.humanize import short_name
from benchirt.document.context import SectionContext
from benchirt.document.page import Table, render_html, render_markdown
from benchirt.rating.report_sections import leaderboard
from benchirt.report.sections import conclusions
from benchirt.responses.complete_block import largest_complete_block

TASKS = ("t1", "t2", "t3", "t4", "t5", "t6")
#: Which tasks each flow ran on: c0–c9 on t1–t5; on t6 the others: g0–g6 (also on t5), h (t2, t3), i (t1) and
#: the star, on t6 only.
PRESENCE = {**{f"c{k}": TASKS[:5] for k in range(10)}, **{f"g{k}": ("t5", "t6") for k in range(7)},
            "h": ("t2", "t3", "t6"), "i": ("t1", "t6"), "star": ("t6",)}
#: Abilities: the star answers nearly every item of its one task right (it would lead on that task alone).
ABILITY = {**{f"c{k}": 1.5 - 0.3 * k for k in range(10)}, **{f"g{k}": 0.9 - 0.2 * k for k in range(7)},
           "h": 0.4, "i": 0.6, "star": 6.0}


def _write_tasks(folder, n_items: int = 24):
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    for t, task in enumerate(TASKS):
        flows = [flow for flow, tasks in PRESENCE.items() if task in tasks]
        difficulty = np.linspace(-1.5, 1.5, n_items)
        theta = np.array([ABILITY[f] for f in flows])
        answers = (rng.random((len(flows), n_items)) < 1 / (1 + np.exp(-(theta[:, None] - difficulty)))).astype(int)
        frame = pd.DataFrame(answers, columns=[str(100 * t + j) for j in range(n_items)],
                             index=pd.Index([f"{flow}||1" for flow in flows], name="run"))
        frame.to_csv(folder / f"{task}.csv")
    return folder


@pytest.mark.heavy
def test_a_sparse_field_is_rated_subset_and_fitted_by_airt_with_its_gaps_said(tmp_path, capsys):
    folder = _write_tasks(tmp_path / "field")
    config = {
        "suite": "sparse", "stages": ["respond", "irt", "rate", "subset", "airt"],
        "respond": {"source": "openml-runs", "path": str(folder), "per_flow": "best", "min_accuracy": 0.0},
        "irt": {"model": "1PL"}, "rate": {"n_permutations": 4, "n_bootstrap": 20},
        "subset": {"n_random": 5, "n_permutations": 0, "cuts": "50"},
        "execution": {"n_jobs": 1}}
    (tmp_path / "sparse.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    assert main(["run", str(tmp_path / "sparse.yaml"), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    console = " ".join(capsys.readouterr().out.split())
    assert "The 10 classifiers not tested are on fewer than 5 of the 6 datasets" in console
    assert "Not tested: 10 of the 20 entrants are on too few datasets for any test" in console
    results = load_run(tmp_path / "run")
    rating = results.rate
    assert sorted(measured(rating.leaderboard)["classifier"]) == [f"c{k}" for k in range(10)]   # on 5 datasets
    assert sorted(rating.leaderboard["classifier"]) == sorted(PRESENCE)            # every entrant, once
    left = rating.left_out.set_index("classifier")["n_datasets"].to_dict()
    assert left == {**{f"g{k}": 2 for k in range(7)}, "h": 3, "i": 2, "star": 1}
    note = next(n for n in rating.notes if "classifiers not tested" in n)
    assert note.startswith("10 of 20 classifiers not tested, on fewer than 5 of the 6 datasets")
    glicko = rating.tournament.table                                             # everyone plays the tournament
    assert len(glicko) == 20 and np.isfinite(glicko[["rating", "rd", "volatility"]].to_numpy()).all()
    assert glicko["rating"].between(500, 2500).all() and (glicko["volatility"] < 0.2).all()
    fidelity = results.subset.fidelity
    assert np.isfinite(fidelity["kendall_tau"]).all()
    assert any(n.startswith("a sparse field: 20 of 20 classifiers are absent from some of the 6 datasets")
               for n in results.subset.notes)
    airt_notes = " ".join(results.airt.notes)
    assert "observed cells: 70 of 120 (58%); AIRT is fitted to the 50 of them on 5 datasets × 10 algorithms" in airt_notes
    assert "left out 10 (i, h, g0, g1, g2, g3, g4, g5 and 2 more) algorithm(s) with results on fewer than 5" in airt_notes
    assert "left out 1 (t6) dataset(s) with results of fewer than 2 algorithms" in airt_notes
    assert results.airt.algorithms.shape[0] == 10 and results.airt.datasets.shape[0] == 5
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert {manifest["stages"][s]["status"] for s in ("rate", "subset", "airt")} == {"done"}
    said = {stage: " ".join(manifest["artifacts"][stage]["notes"]) for stage in ("rate", "subset", "airt")}
    assert "10 of 20 classifiers not tested" in said["rate"]
    assert "a sparse field" in said["subset"] and "observed cells: 70 of 120" in said["airt"]
    board_section = leaderboard(results.rate, SectionContext(results.config, dpi=40))
    assert any(isinstance(b, Table) and b.caption.startswith("Not tested: 10 classifiers")
               and sorted(b.frame["classifier"]) == sorted(left) for b in board_section.blocks)
    [full] = [b for b in board_section.blocks if isinstance(b, Table) and b.caption.startswith("Leaderboard, best")]
    assert "10 rows placed by a model across datasets" in full.caption and len(full.frame) == 20
    assert list(full.shown().columns[:3]) == ["Rank", "Classifier", "Placed by a model (not tested)"]
    opening = conclusions(results, ReportConfig())          # the report's and summary.md's opening block
    markdown, page = render_markdown("t", "", [opening]), render_html("t", "", [opening])
    for text in (markdown, page):
        assert "10 of 20 classifiers not tested" in text
        assert "Glicko-2 with every game counted diverged" not in text              # 20 flows: not needed here
    assert markdown.index("| Rank | Classifier |") < markdown.index("classifiers not tested")   # the top first
    assert "star (placed)" in markdown                                              # in the top rows, marked


def test_the_leaderboard_threshold_is_the_fewest_datasets_a_sign_flip_test_can_separate_on():
    assert [min_datasets(a) for a in (0.05, 0.01, 0.1, 0.5)] == [6, 8, 5, 2]
    for alpha in (0.05, 0.01, 0.1):
        n = min_datasets(alpha)
        assert 2 / 2**n <= alpha < 2 / 2 ** (n - 1)
    dense = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "classifier": ["x", "y"] * 2, "score": [1, 2, 3, 4]})
    kept, left_out, note = ranked_field(dense, 0.05)
    assert kept is dense and left_out.empty and note is None                    # dense: nobody, however few datasets


def test_weighted_games_make_a_period_against_n_copies_of_one_opponent_one_game():
    """Weights 1/(opponents met): a period against three copies of the same opponent with the same outcome is the
    unweighted period against one of them; a period with one opponent is unchanged."""
    mu = np.array([[0.3, -0.2, -0.2, -0.2]])
    phi = np.array([[0.9, 0.5, 0.5, 0.5]])
    sigma = np.full((1, 4), 0.06)
    result = np.full((1, 4, 4), np.nan)
    result[0, 0, 1:] = 1.0
    result[0, 1:, 0] = 0.0
    weighted = update_period(mu, phi, sigma, result, weighted=True)
    single = result.copy()
    single[0, 0, 2:] = np.nan
    single[0, 2:, 0] = np.nan
    one_game = update_period(mu, phi, sigma, single)
    for got, expected in zip(weighted[:3], one_game[:3]):
        np.testing.assert_allclose(got[0, 0], expected[0, 0], rtol=1e-9)
    for got, expected in zip(update_period(mu, phi, sigma, single, weighted=True)[:3], one_game[:3]):
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_the_complete_block_drops_the_sparsest_line_first_and_says_what():
    table = pd.DataFrame({"a": [1, 1, 1, 1], "b": [1, 1, 1, None], "c": [None, None, 1, 1], "d": [1, 1, 1, None]},
                         index=["t1", "t2", "t3", "t4"], dtype=float)
    block = largest_complete_block(table)
    assert block.table.shape == (3, 3) and block.dropped_columns == ["c"] and block.dropped_rows == ["t4"]
    assert not block.table.isna().any().any()
    assert block.note(rows="tasks", columns="flows").startswith(
        "a sparse table: kept its largest complete block found greedily, "
        "3 tasks × 3 flows; left out 1 tasks (t4) and 1 flows (c)")
    assert largest_complete_block(table.fillna(0)).note() is None


def test_long_names_are_cut_in_the_middle_keeping_their_setup():
    name = "sklearn.pipeline.Pipeline(imputation=sklearn.impute.SimpleImputer,estimator=RandomForestClassifier)(12)"
    short = short_name(name, limit=44)
    assert len(short) == 44 and short.startswith("sklearn.pipeli…") and short.endswith("RandomForestClassifier)(12)")
    assert short_name("classif.ranger(5)") == "classif.ranger(5)"


def test_a_sparse_period_on_the_classifiers_present_gives_the_numbers_of_the_full_arrays():
    from benchirt.rating.batch import SCALE, match_outcomes, play_orders

    rng = np.random.default_rng(5)
    scores = rng.normal(0, 1, (6, 15))
    scores[rng.random((6, 15)) < 0.4] = np.nan                            # a sparse field
    outcomes = match_outcomes(scores)
    orders = np.array([rng.permutation(6) for _ in range(5)])
    for weighted in (False, True):
        batch = play_orders(scores, orders, weighted=weighted)
        mu, phi, sigma = np.zeros((5, 15)), np.full((5, 15), 350 / SCALE), np.full((5, 15), 0.06)
        for t in range(6):                                                  # the full (orders, k, k) arrays
            mu, phi, sigma, _ = update_period(mu, phi, sigma, outcomes[orders[:, t]], weighted=weighted)
        np.testing.assert_allclose(batch.rating, mu * SCALE + 1500, atol=1e-8)
        np.testing.assert_allclose(batch.rd, phi * SCALE, atol=1e-8)
        np.testing.assert_allclose(batch.volatility, sigma, atol=1e-10)


def test_weighted_glicko_intervals_cover_where_every_game_counted_does_not():
    """50 players, 20 periods decided by one score each (benchmarks/interval_coverage.py --weighted, small): with
    every game counted the R ± 2RD intervals cover the true rating far below 95 %; weighted per period they cover."""
    import sys
    import warnings

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from coverage_simulation import coverage_table, glicko_coverage  # a module of benchmarks/

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        every = coverage_table(glicko_coverage(50, 20, 10, outcomes="scores", seed=1))["coverage"].item()
    weighted = coverage_table(glicko_coverage(50, 20, 10, outcomes="scores", seed=1, weighted=True))
    assert every < 0.8 and weighted["coverage"].item() >= 0.95
    assert weighted["mean_width"].item() < 600                       # bounded, not the diverged widths


def test_figure_labels_keep_full_names_where_shortened_ones_would_read_the_same():
    from benchirt.document.figures import figure_names

    one, two, other = ("pipeline(" + "a" * 20 + middle + "b" * 40 + f"){run}" for middle, run in
                       (("x" * 20, "(1)"), ("y" * 20, "(1)"), ("z" * 20, "(2)")))
    labels = figure_names([one, two, other, "ranger"])
    assert labels[one] == one and labels[two] == two                  # both would read pipeline(xxx…yyy)(1)
    assert labels[other] == short_name(other) and len(labels[other]) == 44 and labels["ranger"] == "ranger"


def test_every_subset_is_played_weighted_when_the_full_suites_tournament_would_diverge():
    import warnings

    from benchirt.subsets import SubsetConfig, evaluate_subsets

    rng = np.random.default_rng(0)
    wide = rng.normal(0, 1, 60)[None, :] + rng.normal(0, 1, (6, 60))   # diverges counted game by game
    datasets, names = [f"d{j}" for j in range(6)], [f"c{i}" for i in range(60)]
    scores = pd.DataFrame([{"dataset": d, "classifier": c, "score": wide[j, i]}
                           for j, d in enumerate(datasets) for i, c in enumerate(names)])
    summaries = pd.DataFrame({"pct_discrimination_gt": np.linspace(10, 60, 6), "pct_difficulty_gt": np.linspace(5, 30, 6)},
                             index=pd.Index(datasets, name="dataset"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)                   # nothing overflows
        evaluation = evaluate_subsets({"half": datasets[:3]}, scores, summaries, roles=dict.fromkeys(names, "real"),
                                      config=SubsetConfig(n_random=5, n_permutations=3))
    assert any(note.startswith("Glicko-2 with every game counted diverged for") for note in evaluation.notes)
    assert evaluation.notes[0].startswith("a field of 60 real classifiers")   # rated among 50 contenders, weighted
    ratings = evaluation.ratings
    assert set(ratings["subset"]) == {"full", "half"} and ratings["rating"].between(1000, 2000).all()
    assert (ratings["volatility"] < 0.1).all() and ratings["rd"].between(50, 350).all()   # one game per dataset

"""Coverage of the intervals on simulated data with known truth (benchmarks/coverage_simulation.py).

Each band is wide enough for the simulation's noise and narrow enough that a standard error off by a
factor of two fails it: halving a normal interval's SE brings 95 % coverage to about 68 %, doubling it to
about 100 %. The bigger runs and the measured numbers: ``benchmarks/interval_coverage.py``,
benchmarks/results/interval-coverage.md.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from coverage_simulation import coverage_table, glicko_coverage, irt_coverage  # noqa: E402  (a module of benchmarks/)


@pytest.fixture(scope="module")
def irt_2pl():
    return coverage_table(irt_coverage("2PL", n_respondents=500, n_items=40, replicates=5, seed=0)).set_index("kind")


def test_2pl_item_intervals_cover_the_true_parameters_at_about_95_percent(irt_2pl):
    for kind in ("discrimination", "difficulty"):
        row = irt_2pl.loc[kind]
        assert row["n_intervals"] == 200
        assert 0.88 <= row["coverage"] <= 0.99, (kind, row["coverage"])   # measured: 0.925, 0.945


def test_3pl_item_intervals_cover_the_true_parameters_at_about_95_percent():
    table = irt_coverage("3PL", n_respondents=1000, n_items=60, replicates=2, seed=0)
    items = table[table["kind"] != "theta"]
    assert len(items) == 360 and set(items["kind"]) == {"discrimination", "difficulty", "guessing"}
    assert 0.88 <= items["covered"].mean() <= 0.98, items["covered"].mean()   # measured: 0.925


def test_eap_theta_intervals_cover_the_true_abilities_at_about_95_percent(irt_2pl):
    row = irt_2pl.loc["theta"]
    assert row["n_intervals"] == 2500
    assert 0.93 <= row["coverage"] <= 0.97, row["coverage"]   # measured: 0.952


def test_coverage_follows_the_level():
    """At 50 % the same intervals cover about half as often: the level is used, not a fixed 1.96."""
    table = coverage_table(irt_coverage("2PL", n_respondents=300, n_items=30, replicates=2, level=0.5,
                                        seed=7)).set_index("kind")
    assert 0.40 <= table.loc["theta", "coverage"] <= 0.60
    assert 0.35 <= table.loc[["discrimination", "difficulty"], "coverage"].mean() <= 0.65


def test_glicko_rd_intervals_with_independent_games_cover_at_least_the_nominal_rate():
    """Glickman's RD with one independent game per pair and period: conservative (the volatility keeps
    adding to RD), never below 95 %, but not so wide that twice the RD would pass."""
    table = coverage_table(glicko_coverage(k=10, n_periods=20, replicates=200, seed=0)).set_index("kind")
    assert table.loc["glicko", "n_intervals"] == 2000
    assert 0.95 <= table.loc["glicko", "coverage"] <= 0.998   # measured: 0.988


def test_glicko_rd_undercovers_when_one_score_per_dataset_decides_every_pair():
    """benchirt's tournament decides all pairs of a dataset by one score per classifier: the k − 1 games of
    a period share that score's noise, Glicko-2 counts them as independent, so RD is too small (said in
    docs/rating.md; the Bradley–Terry bootstrap over datasets is the leaderboard's interval)."""
    table = coverage_table(glicko_coverage(k=10, n_periods=20, replicates=200, outcomes="scores",
                                           seed=0)).set_index("kind")
    assert 0.7 <= table.loc["glicko", "coverage"] <= 0.9   # measured: 0.83


def test_unknown_outcome_model_is_refused():
    with pytest.raises(ValueError, match="outcomes must be 'independent' or 'scores', got 'elo'"):
        glicko_coverage(outcomes="elo")

"""The leaderboard's sensitivity to the field (issue 34 item 4): the top's order after the weakest classifiers are
removed or entered twice, measured on the run's scores and stated in the leaderboard's notes."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.rating import RatingConfig, rate
from benchirt.rating.sensitivity import bradley_terry_ratings, field_sensitivity, sensitivity_note


def _field(k: int, datasets: int, spread: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame([(f"d{d}", f"c{i:02d}", i * spread + rng.normal()) for d in range(datasets) for i in range(k)],
                        columns=["dataset", "classifier", "score"])


def test_a_field_in_one_order_everywhere_is_unmoved():
    """Every dataset ranks the classifiers the same way: removing or copying the weakest changes no order."""
    scores = _field(12, 5, 10.0, 0)  # steps of 10 SD: one order on every dataset
    table = field_sensitivity(scores, share=0.25, top=6)
    assert table["change"].tolist() == ["removed", "duplicated"]
    assert (table["changed"] == 3).all() and (table["top"] == 6).all()
    assert np.allclose(table["kendall_tau"], 1.0) and table["leader_kept"].all()


def test_the_ratings_are_the_leaderboards_pairwise_wins():
    """Two classifiers, one dataset each way and one tie: equal wins, equal ratings; a strict winner rates higher."""
    scores = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2", "d3", "d3"], "classifier": ["a", "b"] * 3,
                           "score": [1.0, 0.0, 0.0, 1.0, 0.5, 0.5]})
    def ratings(frame):
        return bradley_terry_ratings(frame.pivot(index="dataset", columns="classifier", values="score"))
    equal = ratings(scores)
    assert equal["a"] == pytest.approx(equal["b"])
    assert ratings(scores.assign(score=[1.0, 0.0] * 3)).idxmax() == "a"


def test_a_close_field_moves_and_the_note_says_by_how_much():
    scores = _field(30, 12, 0.05, 0)
    table = field_sensitivity(scores)
    assert (table["changed"] == 6).all() and (table["top"] == 10).all()
    assert ((table["kendall_tau"] > -1) & (table["kendall_tau"] < 1)).all()  # moved, measurably
    note = sensitivity_note(table)
    assert note.startswith("field sensitivity (the 6 weakest classifiers removed, or each entered twice")
    assert "over the top 10" in note


def test_too_small_a_field_has_no_note_and_rate_states_it_otherwise():
    assert sensitivity_note(field_sensitivity(_field(3, 4, 1.0, 1))) is None
    result = rate(_field(6, 4, 1.0, 2), config=RatingConfig(n_permutations=0, n_bootstrap=20))
    assert any(note.startswith("field sensitivity") for note in result.notes)

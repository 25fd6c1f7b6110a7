"""``rate()`` checks its scores table once, at its boundary, and passes the checked table inward (issue 45)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import benchirt.rating.scores as scores_module
from benchirt.errors import DataError
from benchirt.rating import RatingConfig, leaderboard, rate
from benchirt.rating.scores import CheckedScores, checked_scores


def _scores() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame([(f"d{i}", name, rng.uniform()) for i in range(8) for name in "abcde"],
                        columns=["dataset", "classifier", "score"])


def test_rate_validates_its_scores_table_once(monkeypatch):
    calls = []
    validate = scores_module.validate_scores

    def counting(*args, **kwargs):
        calls.append(args[1] if len(args) > 1 else kwargs.get("column"))
        return validate(*args, **kwargs)

    monkeypatch.setattr(scores_module, "validate_scores", counting)
    result = rate(_scores(), config=RatingConfig(n_permutations=20, n_bootstrap=20))
    assert len(result.leaderboard) == 5
    assert calls == ["score"]


def test_a_checked_table_gives_what_the_frame_gives():
    frame = _scores()
    config = RatingConfig(n_bootstrap=20)
    assert leaderboard(checked_scores(frame), config=config).table.equals(leaderboard(frame, config=config).table)
    checked = checked_scores(frame)
    assert checked_scores(checked) is checked and isinstance(checked, CheckedScores)


def test_rate_still_refuses_a_bad_table_at_its_boundary():
    frame = _scores()
    frame.loc[3, "score"] = np.nan
    with pytest.raises(DataError, match="not finite"):
        rate(frame)

"""The one long score table of a run: IRT abilities or accuracies, real and artificial classifiers only."""
from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from benchirt.errors import ConfigError
from benchirt.rating.run_scores import run_scores


def _irt(dataset: str, shift: float):
    abilities = pd.DataFrame({"respondent": ["a", "b", "ladder_1"], "role": ["real", "artificial", "ladder"],
                              "theta": [0.5 + shift, -1.0, 0.0], "true_score": [40 + shift, 10.0, 20.0]})
    return SimpleNamespace(dataset=dataset, abilities=abilities)


def _responses(shift: float):
    index = ["a", "b", "ladder_1"]
    return SimpleNamespace(roles=pd.Series(["real", "artificial", "ladder"], index=index),
                           test_accuracy=pd.Series([0.9 - shift, 0.5, 0.7], index=index),
                           cv_accuracy=pd.Series([0.8 - shift], index=["a"]))


IRTS = {"y": _irt("y", 1.0), "x": _irt("x", 0.0)}
RESPONSES = {"x": _responses(0.0), "y": _responses(0.1)}


@pytest.mark.parametrize("score, expected", [
    ("true_score", [("x", "a", 40.0), ("x", "b", 10.0), ("y", "a", 41.0), ("y", "b", 10.0)]),
    ("theta", [("x", "a", 0.5), ("x", "b", -1.0), ("y", "a", 1.5), ("y", "b", -1.0)]),
    ("test_accuracy", [("x", "a", 0.9), ("x", "b", 0.5), ("y", "a", 0.8), ("y", "b", 0.5)]),
    ("cv_accuracy", [("x", "a", 0.8), ("y", "a", 0.7)]),  # the artificial classifiers are not cross-validated
])
def test_each_run_score_is_one_long_table_without_the_ladder(score, expected):
    table = run_scores(IRTS, RESPONSES, score)
    assert list(table.columns) == ["dataset", "classifier", "score"]
    assert [(d, c, round(s, 10)) for d, c, s in table.itertuples(index=False)] == expected


def test_a_score_a_run_does_not_have_is_refused_with_the_choices():
    with pytest.raises(ConfigError) as info:
        run_scores(IRTS, RESPONSES, "f1")
    assert str(info.value) == ("rate.score: got 'f1', expected one of true_score, theta, test_accuracy, "
                               "cv_accuracy")

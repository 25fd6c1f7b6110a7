"""The long ``dataset, classifier, score`` table of a run's scores, any of which can decide its ratings."""
from __future__ import annotations

from typing import Mapping

import pandas as pd

from benchirt.errors import ConfigError
from benchirt.rating.config import RUN_SCORES
from benchirt.responses.suite import accuracy_scores


def run_scores(irts: Mapping[str, object], responses: Mapping[str, object], score: str) -> pd.DataFrame:
    """Long ``dataset, classifier, score`` table of one of the run's :data:`~benchirt.rating.config.RUN_SCORES`.

    ``true_score`` and ``theta`` come from the IRT abilities, ``test_accuracy`` and ``cv_accuracy``
    from the responses, for the real and artificial classifiers (``cv_accuracy`` exists for the real
    ones only: the artificial classifiers are not cross-validated).

    Raises
    ------
    ConfigError
        For a name outside ``RUN_SCORES``, listing them.
    """
    if score not in RUN_SCORES:
        raise ConfigError(f"rating.score {score!r} is not a score of a run; choose one of {', '.join(RUN_SCORES)}")
    names = sorted(irts)
    if score in ("true_score", "theta"):
        rows = []
        for name in names:
            table = irts[name].abilities
            table = table[table["role"].isin(("real", "artificial"))]
            rows.append(pd.DataFrame({"dataset": name, "classifier": table["respondent"].astype(str),
                                      "score": table[score].to_numpy()}))
        return pd.concat(rows, ignore_index=True)
    if score == "test_accuracy":
        return accuracy_scores({name: responses[name] for name in names})
    rows = [pd.DataFrame({"dataset": name, "classifier": responses[name].cv_accuracy.index.astype(str),
                          "score": responses[name].cv_accuracy.to_numpy()}) for name in names]
    return pd.concat(rows, ignore_index=True).dropna(subset=["score"])

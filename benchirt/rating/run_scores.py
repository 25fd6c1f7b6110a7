"""The long ``dataset, classifier, score`` table of a run's scores, any of which can decide its ratings."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import pandas as pd

from benchirt.irt.stage import true_score_table
from benchirt.rating.config import RUN_SCORE
from benchirt.responses.suite import accuracy_scores

if TYPE_CHECKING:
    from benchirt.irt.stage import DatasetIRT
    from benchirt.responses.suite import DatasetResponses

#: The classifiers a run's scores cover: the pool and the artificial ones (Cardoso et al. 2021 §5.2).
ROLES = ("real", "artificial")


def run_scores(irts: Mapping[str, DatasetIRT], responses: Mapping[str, DatasetResponses], score: str) -> pd.DataFrame:
    """Long ``dataset, classifier, score`` table of one of the run's :data:`~benchirt.rating.config.RUN_SCORES`.

    ``true_score`` and ``theta`` come from the IRT abilities (:func:`benchirt.irt.true_score_table`), ``test_accuracy``
    and ``cv_accuracy`` from the responses (:func:`benchirt.responses.suite.accuracy_scores`); ``cv_accuracy`` exists
    for the real classifiers only (artificial ones are not cross-validated).

    Raises
    ------
    ConfigError
        For a name outside ``RUN_SCORES``, listing them.
    """
    RUN_SCORE.check("rate", "score", score)
    names = sorted(irts)
    if score in ("true_score", "theta"):
        table = true_score_table([irts[name] for name in names], roles=ROLES, column=score)
    else:
        table = accuracy_scores({name: responses[name] for name in names}, roles=ROLES, which=score.split("_")[0])
    return table.assign(classifier=table["classifier"].astype(str))

"""Predict new classifiers' scores on the datasets they were not run on, and their standing."""
from __future__ import annotations

import pandas as pd

from benchirt.errors import DataError
from benchirt.placement.model import ScoreModel
from benchirt.placement.standing import standing

PREDICTED_COLUMNS = ("classifier", "dataset", "score", "low", "high", "observed")


def check_observed(model: ScoreModel, observed: pd.DataFrame) -> pd.DataFrame:
    """Validate long ``classifier, dataset, score`` rows against the calibration.

    Raises
    ------
    DataError
        A dataset outside the calibration; a new classifier named like a pool member.
    """
    model.positions(observed["dataset"].unique())
    clash = sorted(set(observed["classifier"]) & set(map(str, model.scores.columns)))
    if clash:
        raise DataError(
            f"observed classifier(s) {clash} are pool members of the calibration; rename them, or pass "
            "--exclude NAME to leave them out of the pool (leave-one-classifier-out)"
        )
    return observed


def predict_new(model: ScoreModel, observed: pd.DataFrame, level: float = 0.9,
                seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores on every dataset and the standing of each new classifier in ``observed``.

    Parameters
    ----------
    model : ScoreModel
    observed : pandas.DataFrame
        Long ``classifier, dataset, score`` (measured scores, on the calibration's score scale).

    Returns
    -------
    predicted : pandas.DataFrame
        :data:`PREDICTED_COLUMNS` (+ ``sd``): every (new classifier, calibration dataset);
        ``observed`` is True for measured rows (``low = high = score``), False for predictions.
    standings : pandas.DataFrame
        One row per new classifier (:func:`benchirt.placement.standing.standing`).
    """
    check_observed(model, observed)
    predicted, standings = [], []
    for name, rows in observed.groupby("classifier", sort=True):
        measured = pd.Series(rows["score"].to_numpy(float), index=rows["dataset"].astype(str).to_numpy())
        frame = model.predict(measured, level).reset_index()
        frame.insert(0, "classifier", name)
        predicted.append(frame)
        standings.append(standing(model, measured, str(name), level, seed=seed))
    columns = [*PREDICTED_COLUMNS, "sd"]
    return pd.concat(predicted, ignore_index=True)[columns], pd.DataFrame(standings)

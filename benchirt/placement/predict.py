"""Predict new classifiers' scores on the datasets they were not run on, and their standing."""
from __future__ import annotations

import pandas as pd

from benchirt.errors import DataError
from benchirt.placement.model import ScoreModel
from benchirt.placement.standing import standing

PREDICTED_COLUMNS = ("classifier", "dataset", "score", "low", "high", "observed")


def check_observed(model: ScoreModel, observed: pd.DataFrame) -> pd.DataFrame:
    """Validate long ``classifier, dataset, score`` rows against the calibration; ``DataError`` for a dataset outside it
    or a new classifier named like a pool member."""
    model.positions(observed["dataset"].unique())
    clash = sorted(set(observed["classifier"]) & set(map(str, model.scores.columns)))
    if clash:
        raise DataError(
            f"observed classifier(s) {clash} are pool members of the calibration; rename them, or pass "
            "--exclude NAME to leave them out of the pool (leave-one-classifier-out)"
        )
    return observed


#: An observed score further beyond the pool's range on its dataset than this many times the range's
#: width is reported by :func:`off_scale_notes` (a scale mix-up such as accuracies against True-Scores).
OFF_SCALE_WIDTHS = 3.0


def off_scale_notes(model: ScoreModel, observed: pd.DataFrame) -> list[str]:
    """One line per new classifier whose observed scores lie far outside the pool's range: more than
    :data:`OFF_SCALE_WIDTHS` times the width of the pool's range (max - min) below its minimum or above its maximum
    on a dataset, almost always another scale (an accuracy against True-Scores, a percentage against fractions), from
    which the model would extrapolate. Datasets where the whole pool ties (width 0) are not judged."""
    pool = model.scores
    notes = []
    for name, rows in observed.groupby("classifier", sort=True):
        far = []
        for dataset, score in zip(rows["dataset"].astype(str), rows["score"].to_numpy(float)):
            low, high = float(pool.loc[dataset].min()), float(pool.loc[dataset].max())
            margin = OFF_SCALE_WIDTHS * (high - low)
            if margin > 0 and not low - margin <= score <= high + margin:
                far.append(f"{dataset}: {score:.4g}, pool {low:.4g} to {high:.4g}")
        if far:
            notes.append(
                f"{name}: {len(far)} of {len(rows)} observed scores lie more than {OFF_SCALE_WIDTHS:g} times the "
                f"pool's range beyond it ({'; '.join(far[:3])}{'; ...' if len(far) > 3 else ''}) — the "
                "predictions extrapolate from them; check that the scores are on the calibration's scale "
                "(e.g. True-Scores, not accuracies)"
            )
    return notes


#: The share of a newcomer's observed datasets on which it must score above every pool member for
#: :func:`beyond_pool_notes` to warn.
BEYOND_POOL_SHARE = 0.5


def beyond_pool_notes(model: ScoreModel, observed: pd.DataFrame) -> list[str]:
    """One line per new classifier that beats the whole pool on more than :data:`BEYOND_POOL_SHARE` of the
    datasets it was run on (or loses to it on as many): its other scores are then extrapolated beyond every
    calibration classifier, where the model has seen no one, and its intervals are not checked there."""
    pool = model.scores
    notes = []
    for name, rows in observed.groupby("classifier", sort=True):
        datasets = rows["dataset"].astype(str).to_numpy()
        scores = rows["score"].to_numpy(float)
        above = int((scores > pool.loc[datasets].max(axis=1).to_numpy()).sum())
        below = int((scores < pool.loc[datasets].min(axis=1).to_numpy()).sum())
        for count, side in ((above, "above"), (below, "below")):
            if count > BEYOND_POOL_SHARE * len(rows):
                notes.append(f"{name} scores {side} every pool member on {count} of the {len(rows)} datasets it was "
                             "run on: its other scores and its rank are extrapolated beyond the calibration, where "
                             "the intervals are unchecked; run it on more datasets or add such classifiers to the "
                             "pool")
    return notes


def predict_new(model: ScoreModel, observed: pd.DataFrame, *, level: float = 0.9,
                seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores on every dataset and the standing of each new classifier in ``observed`` (long ``classifier, dataset,
    score``, measured on the calibration's score scale).

    Returns ``predicted``, :data:`PREDICTED_COLUMNS` (+ ``sd``) for every (new classifier, calibration dataset),
    ``observed`` True for measured rows (``low = high = score``) and False for predictions; and ``standings``, one row
    per new classifier (:func:`benchirt.placement.standing.standing`).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from benchirt.placement import fit_score_model
    >>> rng = np.random.default_rng(0)
    >>> calibration = pd.DataFrame(rng.uniform(0.5, 1.0, (6, 5)), index=[f"d{i}" for i in range(6)],
    ...                            columns=[f"c{i}" for i in range(5)])
    >>> model = fit_score_model(calibration)
    >>> observed = pd.DataFrame({"classifier": ["new", "new"], "dataset": ["d0", "d1"], "score": [0.8, 0.7]})
    >>> predicted, standings = predict_new(model, observed)
    >>> predicted.shape, int(predicted["observed"].sum())      # 6 datasets, 2 of them measured
    ((6, 7), 2)
    >>> standings[["classifier", "n_measured", "n_predicted"]]
      classifier  n_measured  n_predicted
    0        new           2            4
    """
    check_observed(model, observed)
    predicted, standings = [], []
    for name, rows in observed.groupby("classifier", sort=True):
        measured = pd.Series(rows["score"].to_numpy(float), index=rows["dataset"].astype(str).to_numpy())
        frame = model.predict(measured, level=level).reset_index()
        frame.insert(0, "classifier", name)
        predicted.append(frame)
        standings.append(standing(model, measured, str(name), level=level, seed=seed))
    columns = [*PREDICTED_COLUMNS, "sd"]
    return pd.concat(predicted, ignore_index=True)[columns], pd.DataFrame(standings)

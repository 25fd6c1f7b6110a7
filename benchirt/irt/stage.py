"""The IRT stage of the pipeline: one dataset's response matrix in, items, θ and True-Scores out
(seed 003 §4, steps 3-4; decodIRT_MLtIRT and decodIRT_analysis, §4.4-4.5)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import pandas as pd

from benchirt.errors import DataError
from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit
from benchirt.irt.summary import item_summary


@dataclass
class DatasetIRT:
    """One dataset's IRT result.

    Attributes
    ----------
    dataset : str
    fit : IRTFit
        Item parameters calibrated on ``config.calibration_roles``.
    abilities : pandas.DataFrame
        One row per respondent (calibrated or not): ``respondent, role, calibrated,
        theta, se, true_score``.
    summary : dict
        :func:`benchirt.irt.summary.item_summary` plus ``converged``, ``n_iter``,
        ``seconds``, ``model``.
    """

    dataset: str
    fit: IRTFit
    abilities: pd.DataFrame
    summary: dict = field(default_factory=dict)


def irt_for_responses(result, config: IRTConfig | None = None) -> DatasetIRT:
    """Calibrate the items of one dataset and score every respondent.

    Parameters
    ----------
    result : ResponseResult
        Uses only ``.dataset`` (str), ``.responses`` (DataFrame respondents × items
        of 0/1) and ``.roles`` (Series respondent → "real" / "ladder" / "artificial").
    config : IRTConfig, optional

    Returns
    -------
    DatasetIRT

    Raises
    ------
    DataError
        No respondent has a calibration role, or the calibration matrix is unusable
        (see :func:`benchirt.irt.fit_irt`); the message names the dataset.
    """
    config = config or IRTConfig()
    responses = result.responses
    roles = result.roles.reindex(responses.index)
    if roles.isna().any():
        unknown = list(roles.index[roles.isna()][:5])
        raise DataError(f"{result.dataset}: respondents {unknown} have no role in ResponseResult.roles")
    calibrate = roles.isin(config.calibration_roles).to_numpy()
    if not calibrate.any():
        raise DataError(
            f"{result.dataset}: no respondent has a calibration role {config.calibration_roles}; "
            f"roles present: {sorted(roles.unique())}"
        )
    try:
        fit = fit_irt(responses[calibrate], config)
        table = fit.ability_table(responses, config.ability)
    except DataError as exc:
        raise DataError(f"{result.dataset}: {exc}") from None
    abilities = table.reset_index()
    abilities.insert(1, "role", roles.to_numpy())
    abilities.insert(2, "calibrated", calibrate)
    summary = item_summary(fit.items, config)
    summary.update(converged=fit.converged, n_iter=fit.n_iter, seconds=fit.seconds, model=fit.model)
    return DatasetIRT(dataset=result.dataset, fit=fit, abilities=abilities, summary=summary)


def summaries_frame(irts: Sequence[DatasetIRT]) -> pd.DataFrame:
    """The stage summaries of several datasets, index = dataset (input of ``dataset_rankings``)."""
    return pd.DataFrame([irt.summary for irt in irts], index=pd.Index([i.dataset for i in irts], name="dataset"))


def true_score_table(irts: Sequence[DatasetIRT], roles: Sequence[str] = ("real", "artificial")) -> pd.DataFrame:
    """True-Scores of the reported classifiers on every dataset, long form (the rating input).

    Parameters
    ----------
    irts : sequence of DatasetIRT
    roles : sequence of str
        Respondent roles to report (decodIRT reports the 12 real and 7 artificial
        classifiers, seed 003 §5.2).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, classifier, score`` (True-Score, seed 003 §2.5).
    """
    frames = []
    for irt in irts:
        rows = irt.abilities[irt.abilities["role"].isin(roles)]
        frames.append(
            pd.DataFrame({"dataset": irt.dataset, "classifier": rows["respondent"], "score": rows["true_score"]})
        )
    if not frames:
        return pd.DataFrame(columns=["dataset", "classifier", "score"])
    return pd.concat(frames, ignore_index=True)

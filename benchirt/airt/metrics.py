"""AIRT algorithm and dataset metrics from a fitted continuous model (Kandanaarachchi & Smith-Miles 2023 §3.2-3.5, Algorithm 1 stage 2)."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from benchirt.airt.continuous import ContinuousFit
from benchirt.airt.plausibility import INTERVAL_LEVEL, discrimination_interval, implausible_flags

#: Consistency 1/|alpha| is reported as at most this value, so that a constant algorithm (alpha = 0) or one
#: unrelated to dataset difficulty stays finite; such rows are flagged.
MAX_CONSISTENCY = 1e3

ALGORITHM_COLUMNS = ("algorithm", "discrimination", "difficulty", "scale", "anomalous", "consistency",
                     "difficulty_limit", "flag", "discrimination_low", "discrimination_high")


def algorithm_metrics(fit: ContinuousFit, algorithms: Sequence[str], z: np.ndarray, *,
                      sign_rule: bool = False) -> pd.DataFrame:
    """Anomalous indicator, consistency and difficulty limit of every algorithm (Kandanaarachchi & Smith-Miles 2023
    §3.3-3.5).

    * ``anomalous``: better results on harder datasets than on easier ones (§3.3), called only when the 95 % interval of
      alpha_j (``discrimination_low``, ``discrimination_high``,
      :func:`benchirt.airt.plausibility.discrimination_interval`) lies below 0; with ``sign_rule`` (the R package airt's
      rule, ``--compat airt-r``) whenever alpha_j < 0;
    * ``consistency = 1 / |alpha_j|`` (§3.4), capped at :data:`MAX_CONSISTENCY`;
    * ``difficulty_limit = -beta_j`` (§3.5): the dataset difficulty at which the algorithm's most likely performance
      crosses 0.5 (logit 0); higher = handles harder datasets.

    ``algorithms`` names the items in the fitted matrix's column order; ``z`` (N, n) holds the logits fitted (for the
    implausible-parameter flags).

    Returns
    -------
    pd.DataFrame, n rows
        Columns :data:`ALGORITHM_COLUMNS`: ``discrimination`` alpha, ``difficulty`` beta, ``scale`` gamma, and ``flag``:
        ``"ok"``, ``"constant"`` (same performance on every dataset: alpha = gamma = 0, left out of the model;
        difficulty limit = the hardest dataset if its performance is >= 0.5, else the easiest),
        ``"discrimination at bound"`` (a Heywood case), ``"consistency capped"``, or the flags of
        :func:`benchirt.airt.plausibility.implausible_flags` joined by "; "."""
    alpha = fit.discrimination
    with np.errstate(divide="ignore"):
        raw_consistency = np.where(alpha != 0, 1.0 / np.abs(alpha), np.inf)
    consistency = np.minimum(raw_consistency, MAX_CONSISTENCY)
    flag = np.select([~fit.informative, fit.at_bound, raw_consistency > MAX_CONSISTENCY],
                     ["constant", "discrimination at bound", "consistency capped"], default="")
    implausible = implausible_flags(fit, z, consistency)
    flags = ["; ".join(part for part in (first, second) if part) or "ok" for first, second in zip(flag, implausible)]
    low, high = discrimination_interval(fit, level=INTERVAL_LEVEL)
    return pd.DataFrame({
        "algorithm": list(map(str, algorithms)),
        "discrimination": alpha,
        "difficulty": fit.difficulty,
        "scale": fit.scale,
        "anomalous": alpha < 0 if sign_rule else high < 0,
        "consistency": consistency,
        "difficulty_limit": -fit.difficulty,
        "flag": flags,
        "discrimination_low": low,
        "discrimination_high": high,
    })


def dataset_metrics(fit: ContinuousFit, datasets: Sequence[str]) -> pd.DataFrame:
    """Dataset easiness theta_i (Kandanaarachchi & Smith-Miles 2023 eq. 10) and difficulty delta_i = -theta_i (eq. 11):
    columns ``dataset, difficulty, easiness``, N rows."""
    return pd.DataFrame({"dataset": list(map(str, datasets)), "difficulty": -fit.theta, "easiness": fit.theta})

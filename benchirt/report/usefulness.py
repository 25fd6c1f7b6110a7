"""Which datasets tell the real classifiers apart: dataset usefulness measured on the classifiers that matter.

Cardoso et al. 2020 (§4.5) rank datasets by the share of items whose discrimination (or difficulty) exceeds
a threshold. Those item parameters are calibrated on every respondent, the artificial ones (random, majority,
minority, pessimal, optimal) included, and on an easy dataset the artificial respondents alone make many items
look discriminating: on iris and wine 11 of 12 real classifiers score 43.9-44.1 of 45, yet the share of
discriminating items puts them first. A reader choosing datasets wants the ones that separate the real
classifiers, so this module measures, per dataset and over the real classifiers only:

* ``ability_sd``: the standard deviation of their IRT abilities (theta on the dataset's scale, whose unit is
  the calibration pool's spread) — the ranking measure;
* ``accuracy_range``: the range of their test accuracies, in percentage points — the simplest baseline that
  answers the same question, reported next to it;
* ``n_real``: how many real classifiers were measured.

The artificial respondents keep their role: they anchor the calibration and the True-Score scale.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

USEFULNESS_COLUMNS = ("dataset", "n_real", "ability_sd", "accuracy_range", "rank")


def real_classifier_spread(irts: Sequence, responses: Mapping[str, object]) -> pd.DataFrame:
    """Per dataset, the spread of the real classifiers' abilities and accuracies (module docstring).

    Parameters
    ----------
    irts : sequence of DatasetIRT
        ``abilities`` with ``respondent, role, theta``.
    responses : mapping of dataset name to ResponseResult
        ``test_accuracy`` per respondent (missing datasets get an empty accuracy range).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`USEFULNESS_COLUMNS`, most useful first (rank 1 = largest ability spread; ties share
        the best rank); datasets with fewer than 2 real classifiers are left out.
    """
    rows = []
    for irt in irts:
        real = irt.abilities[irt.abilities["role"] == "real"]
        if len(real) < 2:
            continue
        accuracy = getattr(responses.get(irt.dataset), "test_accuracy", None)
        accuracy = (accuracy.reindex(real["respondent"]).dropna() if accuracy is not None else pd.Series(dtype=float))
        rows.append({"dataset": irt.dataset, "n_real": len(real),
                     "ability_sd": float(np.std(real["theta"].astype(float), ddof=1)),
                     "accuracy_range": float(100 * np.ptp(accuracy)) if len(accuracy) >= 2 else np.nan})
    table = pd.DataFrame(rows, columns=USEFULNESS_COLUMNS[:-1])
    table["rank"] = table["ability_sd"].rank(ascending=False, method="min").astype(int)
    return table.sort_values(["rank", "dataset"]).reset_index(drop=True)


def usefulness_sentence(spread: pd.DataFrame, share_rankings: pd.DataFrame | None = None, *, top: int = 3) -> str:
    """The conclusions' sentence on the most informative datasets, measured on the real classifiers.

    ``share_rankings``: :func:`benchirt.irt.dataset_rankings` (``pct_discrimination_gt`` per dataset), the
    item-parameter measure, whose leaders and Spearman correlation with this one are named for comparison.
    """
    if spread.empty:
        return ""
    n_real = int(spread["n_real"].max())
    lead = spread.head(top)
    last = spread.tail(min(2, max(len(spread) - top, 0)))
    text = (f"Most informative datasets — the ones that separate the {n_real} real classifiers (spread of their "
            "IRT abilities, SD; artificial respondents left out): "
            + ", ".join(f"{row.dataset} ({row.ability_sd:.2f}{_accuracy(row.accuracy_range)})"
                        for row in lead.itertuples(index=False)))
    if len(last):
        text += "; least: " + ", ".join(f"{row.dataset} ({row.ability_sd:.2f}{_accuracy(row.accuracy_range)})"
                                        for row in last.itertuples(index=False))
    baseline = spread.dropna(subset=["accuracy_range"])
    if len(baseline) >= 3:
        rho = spearmanr(baseline["ability_sd"], baseline["accuracy_range"]).statistic
        text += f". The simplest baseline, the range of their test accuracies, orders the datasets alike (Spearman {rho:.2f})"
    if share_rankings is not None and "pct_discrimination_gt" in share_rankings and len(spread) >= 3:
        share = share_rankings["pct_discrimination_gt"].astype(float).reindex(spread["dataset"])
        leaders = share.sort_values(ascending=False, kind="mergesort").head(top)
        rho = spearmanr(spread["ability_sd"], share.to_numpy()).statistic
        text += (". The share of highly discriminating items (calibrated with the artificial respondents) would "
                 "pick " + ", ".join(f"{name} ({value:.0f} %)" for name, value in leaders.items())
                 + f" (Spearman with the spread {rho:.2f})")
    return text + "."


def _accuracy(value: float) -> str:
    return "" if value != value else f", accuracies {value:.1f} points apart"

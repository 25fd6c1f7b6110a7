"""Suspect labels: test instances whose item discriminates strongly negatively (Cardoso et al. 2021 §2.5, §5.2).

An instance that good classifiers get wrong and weak ones get right has ``a < 0``: the usual
reason in a benchmark is a wrong or ambiguous class label (Martínez-Plumed et al. 2019 make the
same reading). Such items are listed with the row of the dataset they come from (the item id is
the row position, :class:`benchirt.responses.ResponseResult`), the label the dataset gives, and the
label most real classifiers predict instead.

The rule: ``a <= -threshold`` with ``threshold = IRTConfig.suspect_discrimination`` (reason
``negative_discrimination``), plus the items no calibration respondent answers correctly (reason
``all_wrong``: every classifier disagrees with the label; the IRT model has no parameters for
them). ``benchmarks/suspect_labels.py`` measures precision and recall on datasets with a known
share of flipped labels.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.irt.fit import NO_INFORMATION_FLAGS

COLUMNS = ["item", "row", "reason", "discrimination", "se_discrimination", "difficulty", "p_correct", "label",
           "consensus", "consensus_share"]


def suspect_labels(items: pd.DataFrame, threshold: float, predictions: pd.DataFrame | None = None,
                   responses: pd.DataFrame | None = None) -> pd.DataFrame:
    """Items with discrimination ``<= -threshold`` (most negative first), then items nobody answers right.

    Parameters
    ----------
    items : pandas.DataFrame
        ``IRTFit.items`` (index ``item``: the test instance's row position as a string).
    threshold : float
        Positive; see the module docstring.
    predictions, responses : pandas.DataFrame, optional
        Predicted labels and 0/1 correctness, respondents × items (e.g. the real classifiers'):
        give the dataset's label (the prediction of a respondent who was right) and the consensus
        (the most frequent prediction, with its share).

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`; ``row`` is the item id as an integer (-1 when it is not one), ``label`` is
        empty when no respondent answered the item correctly, ``consensus`` empty and
        ``consensus_share`` 0 without predictions.
    """
    informative = ~items["flag"].isin(NO_INFORMATION_FLAGS)
    negative = items[informative & (items["discrimination"] <= -threshold)].sort_values("discrimination")
    chosen = pd.concat([negative, items[items["flag"] == "all_wrong"]])
    out = pd.DataFrame({
        "item": chosen.index.astype(str),
        "row": [int(i) if str(i).lstrip("-").isdigit() else -1 for i in chosen.index],
        "reason": ["negative_discrimination"] * len(negative) + ["all_wrong"] * (len(chosen) - len(negative)),
        "discrimination": chosen["discrimination"].to_numpy(float),
        "se_discrimination": chosen["se_discrimination"].to_numpy(float),
        "difficulty": chosen["difficulty"].to_numpy(float),
        "p_correct": chosen["p_correct"].to_numpy(float),
    })
    labels, consensus, share = [], [], []
    for item in out["item"]:
        label, top, fraction = "", "", 0.0
        if predictions is not None and item in predictions.columns:
            predicted = predictions[item].astype(str)
            counts = predicted.value_counts()
            top, fraction = str(counts.index[0]), float(counts.iloc[0] / len(predicted))
            if responses is not None:
                right = predicted[responses[item].reindex(predicted.index).to_numpy() == 1]
                label = str(right.iloc[0]) if len(right) else ""
        labels.append(label)
        consensus.append(top)
        share.append(fraction)
    out["label"], out["consensus"], out["consensus_share"] = labels, consensus, np.asarray(share, float)
    return out[COLUMNS]


def real_wrong_share(responses: pd.DataFrame) -> pd.Series:
    """Per item, the share of the real classifiers (rows of 0/1 ``responses``) that get it wrong."""
    return 1.0 - responses.mean(axis=0)

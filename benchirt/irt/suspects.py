"""Suspect labels: test instances whose dataset label is probably wrong (Cardoso et al. 2021 §2.5, §5.2).

An instance that the good classifiers get wrong is the usual sign of a wrong or ambiguous class label
(Martínez-Plumed et al. 2019 make the same reading of negative discrimination; Brodley & Friedl 1999
filter noisy labels by the agreement of several classifiers). The rule has two parts, both needed:

1. **the real classifiers agree**: at least ``agreement`` (default 0.75) of them get the item wrong.
   A consensus filter on its own (Brodley & Friedl 1999) with 80 % agreement is the baseline the rule
   is measured against;
2. **the IRT model agrees**: the fitted item curve, calibrated on the whole pool (the MLP ladder and
   the real classifiers), gives the *ablest* real classifier a probability of answering it right of at
   most ``best_correct`` (default 0.2). A hard but correctly labelled instance keeps a rising curve
   (the ablest respondents answer it right more often than the rest); a flipped label gives a flat or
   falling curve, or no curve at all when no calibration respondent answers it right (reason
   ``all_wrong``; :meth:`benchirt.irt.fit.IRTFit.probability` gives such items 0).

The second part removes hard, correctly labelled instances that most real classifiers miss; that
precision lets the first part ask for less agreement (75 % instead of 80 %) and so find more flipped
labels. Measured with 5 % of the labels flipped in CC18 datasets (``python benchmarks/suspect_labels.py``;
docs/irt.md has the table, including the datasets where it does not beat the baseline).

Each suspect lists its dataset row (the item id is the row position,
:class:`benchirt.responses.ResponseResult`), the label the dataset gives (read from the data) and the
label most real classifiers predict instead.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["item", "row", "reason", "real_wrong_share", "p_best_correct", "discrimination", "se_discrimination",
           "difficulty", "p_correct", "label", "consensus", "consensus_share"]


def real_wrong_share(responses: pd.DataFrame) -> pd.Series:
    """Per item, the share of the real classifiers (rows of 0/1 ``responses``) that get it wrong."""
    return 1.0 - responses.mean(axis=0)


def suspect_labels(fit, real_responses: pd.DataFrame, real_theta, agreement: float = 0.75,
                   best_correct: float = 0.2, predictions: pd.DataFrame | None = None,
                   labels: pd.Series | None = None) -> pd.DataFrame:
    """The items both parts of the module's rule flag, the most widely missed first.

    Parameters
    ----------
    fit : benchirt.irt.fit.IRTFit
        The dataset's calibration (``items`` index: the test instance's row position as a string).
    real_responses : pandas.DataFrame
        0/1 answers of the real classifiers, classifiers × items (a subset of the fit's items).
    real_theta : array_like
        Their abilities (the fit's scale), in the row order of ``real_responses``.
    agreement : float
        Least share of real classifiers that get a suspect wrong.
    best_correct : float
        Largest model probability that the ablest real classifier answers a suspect right.
    predictions : pandas.DataFrame, optional
        The real classifiers' predicted labels, same shape: the consensus (most frequent prediction,
        with its share).
    labels : pandas.Series, optional
        The dataset's label of each item (index = item): the ``label`` column.

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`; ``row`` is the item id as an integer (-1 when it is not one); ``label`` and
        ``consensus`` are empty (and ``consensus_share`` 0) when not given. Empty without real classifiers.
    """
    if real_responses.empty:
        return pd.DataFrame(columns=COLUMNS)
    items = fit.items
    wrong = real_wrong_share(real_responses)
    best = float(np.max(np.asarray(real_theta, dtype=float)))
    p_best = pd.Series(fit.probability([best])[0], index=items.index.astype(str))
    ids = [str(item) for item in real_responses.columns]
    chosen = [item for item in ids if wrong[item] >= agreement and p_best[item] <= best_correct]
    chosen.sort(key=lambda item: (-wrong[item], p_best[item]))
    table = items.reindex(chosen)
    out = pd.DataFrame({
        "item": chosen,
        "row": [int(item) if item.lstrip("-").isdigit() else -1 for item in chosen],
        "reason": ["all_wrong" if flag == "all_wrong" else "best_expected_wrong" for flag in table["flag"]],
        "real_wrong_share": wrong.reindex(chosen).to_numpy(float),
        "p_best_correct": p_best.reindex(chosen).to_numpy(float),
        "discrimination": table["discrimination"].to_numpy(float),
        "se_discrimination": table["se_discrimination"].to_numpy(float),
        "difficulty": table["difficulty"].to_numpy(float),
        "p_correct": table["p_correct"].to_numpy(float),
        "label": (labels.reindex(chosen).fillna("").astype(str).to_numpy() if labels is not None and len(labels)
                  else [""] * len(chosen)),
    })
    consensus, share = [], []
    for item in chosen:
        if predictions is not None and item in predictions.columns:
            counts = predictions[item].astype(str).value_counts()
            consensus.append(str(counts.index[0]))
            share.append(float(counts.iloc[0] / counts.sum()))
        else:
            consensus.append("")
            share.append(0.0)
    out["consensus"], out["consensus_share"] = consensus, np.asarray(share, float)
    return out[COLUMNS]

"""Suspect labels: test instances whose dataset label is probably wrong (Cardoso et al. 2021 §2.5, §5.2).

The baseline is the consensus filter of Brodley & Friedl 1999: an instance that at least a share of several classifiers
misclassify. Its flags also include instances that are merely hard (near the class boundary, where classes overlap).
*Who* gets the instance right tells the two apart (Martínez-Plumed et al. 2019 read an item's curve the same way): a
**flipped label** is answered right only by chance, which does not favour the ablest classifiers; a **hard, correctly
labelled** instance is answered right by the ablest ones. So an instance is a suspect when

1. at least ``agreement`` (default 0.8) of the real classifiers get it wrong, **and**
2. those that get it right are *not* significantly abler than those that get it wrong: the one-sided Mann–Whitney test
   (Mann & Whitney 1947; ``scipy.stats.mannwhitneyu``, exact unless abilities tie) of their abilities has p >
   ``rising_alpha`` (default 0.05). The ability is each real classifier's share of right answers over the dataset's test
   items (not the IRT θ, which a 3PL fit can give the weakest classifier highest). One right answer alone never
   suffices: with 12 real classifiers its smallest p is 1/12.

The second part only removes flags from the baseline; under a flipped label it removes at most ``rising_alpha`` of the
items. ``python benchmarks/suspect_labels.py`` compares it with the baseline. The 3PL curve's probability that the
ablest real classifier answers right is shown (``p_best_correct``) but does not decide.

Each suspect lists its dataset row (the item id is the row position, :class:`benchirt.responses.ResponseResult`), the
label the dataset gives and the label most real classifiers predict instead."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from scipy.stats import mannwhitneyu

COLUMNS = ["item", "row", "reason", "real_wrong_share", "rising_p", "p_best_correct", "discrimination",
           "se_discrimination", "ability_slope", "difficulty", "p_correct", "label", "consensus", "consensus_share"]


def real_wrong_share(responses: pd.DataFrame) -> pd.Series:
    """Per item, the share of the real classifiers (rows of 0/1 ``responses``) that get it wrong."""
    return 1.0 - responses.mean(axis=0)


def rising_p(answers: np.ndarray, ability: np.ndarray) -> float:
    """One-sided p-value that the classifiers answering right (``answers`` 1) are abler (larger ``ability``) than those
    answering wrong: the exact Mann–Whitney test (asymptotic when abilities tie); 1 when nobody, or everybody,
    answers right."""
    right = np.asarray(answers) == 1
    if right.all() or not right.any():
        return 1.0
    return float(mannwhitneyu(ability[right], ability[~right], alternative="greater").pvalue)


def suspect_labels(fit, real_responses: pd.DataFrame, real_theta, *, agreement: float = 0.8,
                   rising_alpha: float = 0.05, predictions: pd.DataFrame | None = None,
                   labels: pd.Series | None = None, ability=None) -> pd.DataFrame:
    """The items both parts of the module's rule flag, the most widely missed first (:func:`select_suspects` of
    :func:`label_evidence`).

    Parameters
    ----------
    fit : benchirt.irt.fit.IRTFit
        The dataset's calibration (``items`` index: the test instance's row position as a string).
    real_responses : pandas.DataFrame
        0/1 answers of the real classifiers, classifiers × items (a subset of the fit's items).
    real_theta : array_like
        Their abilities θ (the fit's scale), in the row order of ``real_responses``: the item curve's probability at the
        largest (``p_best_correct``).
    agreement : float
        Least share of real classifiers that get a suspect wrong (the consensus filter).
    rising_alpha : float
        An item is kept out when those that answer it right are abler than those that answer it wrong at this level
        (:func:`rising_p`).
    predictions : pandas.DataFrame, optional
        The real classifiers' predicted labels, same shape: the consensus (most frequent prediction, with its share).
    labels : pandas.Series, optional
        The dataset's label of each item (index = item): the ``label`` column.
    ability : array_like, optional
        What orders the classifiers for :func:`rising_p`, in the row order of ``real_responses``; by default their share
        of right answers.

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`; ``row`` is the item id as an integer (-1 when it is not one); ``reason`` is ``all_wrong``
        (every real classifier wrong) or ``right_not_ablest``; ``label`` and ``consensus`` are empty
        (``consensus_share`` 0) when not given. Empty without real classifiers."""
    evidence = label_evidence(fit, real_responses, real_theta, predictions=predictions, labels=labels,
                              ability=ability, least_wrong=agreement)
    return select_suspects(evidence, fit.items, agreement=agreement, rising_alpha=rising_alpha)


def label_evidence(fit, real_responses: pd.DataFrame, real_theta, *, predictions: pd.DataFrame | None = None,
                   labels: pd.Series | None = None, ability=None, least_wrong: float = 0.0) -> pd.DataFrame:
    """What the rule reads of every item some real classifier gets wrong, whatever its two thresholds.

    The parameters are those of :func:`suspect_labels`; ``least_wrong`` keeps only the items at least that share of the
    real classifiers get wrong (0: every such item, so that :func:`select_suspects` can apply any ``agreement`` without
    the responses).

    Returns
    -------
    pandas.DataFrame
        Index ``item`` (str); columns ``real_wrong_share``, ``rising_p``, ``p_best_correct``, ``label``, ``consensus``,
        ``consensus_share``. Empty without real classifiers."""
    columns = ["real_wrong_share", "rising_p", "p_best_correct", "label", "consensus", "consensus_share"]
    if real_responses.empty:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="item", dtype=str))
    theta = np.asarray(real_theta, dtype=float)
    ids = [str(item) for item in real_responses.columns]
    answers = real_responses.to_numpy()  # no copy of an int8 matrix; the means accumulate per row/column
    wrong = 1.0 - answers.mean(axis=0)
    order = answers.mean(axis=1) if ability is None else np.asarray(ability, dtype=float)
    kept = np.flatnonzero((wrong > 0) & (wrong >= least_wrong))
    chosen = [ids[j] for j in kept]
    p_best = pd.Series(fit.probability([float(np.max(theta))])[0], index=fit.items.index.astype(str))
    consensus, share = _consensus(predictions, chosen)
    return pd.DataFrame({
        "real_wrong_share": wrong[kept].astype(float),
        "rising_p": _rising_ps(answers[:, kept], order),
        "p_best_correct": p_best.reindex(chosen).to_numpy(float),
        "label": (labels.reindex(chosen).fillna("").astype(str).to_numpy() if labels is not None and len(labels)
                  else [""] * len(chosen)),
        "consensus": consensus,
        "consensus_share": share,
    }, index=pd.Index(chosen, name="item", dtype=str))[columns]


def select_suspects(evidence: pd.DataFrame, items: pd.DataFrame, *, agreement: float = 0.8,
                    rising_alpha: float = 0.05) -> pd.DataFrame:
    """The suspect labels of :func:`label_evidence` under the rule's two thresholds, the most widely missed first.

    Parameters
    ----------
    evidence : pandas.DataFrame
        :func:`label_evidence` (with ``least_wrong`` at most ``agreement``).
    items : pandas.DataFrame
        The fit's item table (``IRTFit.items``): the item parameters each suspect lists.
    agreement, rising_alpha : float
        As in :func:`suspect_labels`.

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`, as :func:`suspect_labels` returns them."""
    flagged = evidence[(evidence["real_wrong_share"] >= agreement) & (evidence["rising_p"] > rising_alpha)]
    flagged = flagged.assign(_order=-flagged["real_wrong_share"]).sort_values(["_order", "p_best_correct"],
                                                                              kind="stable")
    chosen = [str(item) for item in flagged.index]
    table = items.set_axis(items.index.astype(str)).reindex(chosen)
    wrong = flagged["real_wrong_share"].to_numpy(float)
    out = pd.DataFrame({
        "item": chosen,
        "row": [int(item) if item.lstrip("-").isdigit() else -1 for item in chosen],
        "reason": ["all_wrong" if share >= 1.0 else "right_not_ablest" for share in wrong],
        "real_wrong_share": wrong,
        "rising_p": flagged["rising_p"].to_numpy(float),
        "p_best_correct": flagged["p_best_correct"].to_numpy(float),
        "discrimination": table["discrimination"].to_numpy(float),
        "se_discrimination": table["se_discrimination"].to_numpy(float),
        "ability_slope": (table["ability_slope"] if "ability_slope" in table else table["discrimination"]).to_numpy(float),
        "difficulty": table["difficulty"].to_numpy(float),
        "p_correct": table["p_correct"].to_numpy(float),
        "label": flagged["label"].astype(str).to_numpy(),
        "consensus": flagged["consensus"].astype(str).to_numpy(),
        "consensus_share": flagged["consensus_share"].to_numpy(float),
    })
    return out[COLUMNS]


def _rising_ps(answers: np.ndarray, ability: np.ndarray) -> np.ndarray:
    """:func:`rising_p` of every column of ``answers`` (classifiers × items), each distinct column tested once (the
    p-value depends on the column alone, and few columns are distinct)."""
    if answers.shape[1] == 0:
        return np.zeros(0, float)
    patterns, inverse = np.unique(answers, axis=1, return_inverse=True)
    tested = np.asarray([rising_p(patterns[:, k], ability) for k in range(patterns.shape[1])], float)
    return tested[np.ravel(inverse)]


def _consensus(predictions: pd.DataFrame | None, items: list[str]) -> tuple[list[str], np.ndarray]:
    """Per item, the label most real classifiers predict and its share ("" and 0 without predictions); a tie goes to
    the label predicted first (in the classifiers' order, as ``value_counts`` breaks it)."""
    consensus, share = [""] * len(items), np.zeros(len(items), float)
    if predictions is None or not len(predictions):
        return consensus, share
    present = set(predictions.columns)
    where = {item: i for i, item in enumerate(items) if item in present}
    values = predictions[list(where)].astype(str).to_numpy()
    for column, i in enumerate(where.values()):
        label, count = Counter(values[:, column].tolist()).most_common(1)[0]
        consensus[i], share[i] = str(label), count / values.shape[0]
    return consensus, np.asarray(share, float)

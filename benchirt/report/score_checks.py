"""True-Scores that disagree with accuracy: flagged, with the reason they can.

The True-Score (Cardoso et al. 2021 §2.5) is the model's expected number of correct answers at a respondent's
ability, ``sum_j P_j(theta)``, not the number it got right. The two part when the respondent's answers fit no
ability well: the ``minority`` respondent (right on exactly the minority class's items) answers right the items
that good classifiers get wrong — items of negative discrimination, whose probability of a correct answer
*falls* with ability — so its likelihood can peak at an ability where the model expects most items right. On
breast-w it scores 203.8 of 210 at a test accuracy of 0.34. The report therefore flags every reported
respondent whose rank by True-Score and rank by test accuracy differ by more than :data:`RANK_MARGIN` places
(ties in accuracy count as one span of ranks, so equal accuracies never create a disagreement).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

#: A respondent is flagged when its True-Score rank lies more than this many places outside the span of
#: ranks its test accuracy takes (accuracy ties span several ranks).
RANK_MARGIN = 3

DISAGREEMENT_COLUMNS = ("dataset", "classifier", "role", "true_score", "n_items", "test_accuracy",
                        "true_score_rank", "accuracy_rank", "places_apart")


def rank_disagreements(irts: Sequence, responses: Mapping[str, object], roles: Sequence[str] = ("real", "artificial"),
                       margin: int = RANK_MARGIN) -> pd.DataFrame:
    """Reported respondents whose True-Score rank and test-accuracy rank disagree by more than ``margin``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`DISAGREEMENT_COLUMNS`; ``accuracy_rank`` is "best-worst" when accuracies tie;
        largest disagreement first.
    """
    rows = []
    for irt in irts:
        accuracy = getattr(responses.get(irt.dataset), "test_accuracy", None)
        if accuracy is None:
            continue
        reported = irt.abilities[irt.abilities["role"].isin(roles)].set_index("respondent")
        frame = pd.DataFrame({"role": reported["role"], "true_score": reported["true_score"].astype(float),
                              "test_accuracy": accuracy.reindex(reported.index).astype(float)}).dropna()
        if len(frame) < 2:
            continue
        score_rank = frame["true_score"].rank(ascending=False, method="first")
        best = frame["test_accuracy"].rank(ascending=False, method="min")
        worst = frame["test_accuracy"].rank(ascending=False, method="max")
        apart = (best - score_rank).clip(lower=0) + (score_rank - worst).clip(lower=0)
        n_items = len(irt.fit.items)
        for name in frame.index[apart > margin]:
            rows.append({"dataset": irt.dataset, "classifier": name, "role": frame.at[name, "role"],
                         "true_score": frame.at[name, "true_score"], "n_items": n_items,
                         "test_accuracy": frame.at[name, "test_accuracy"],
                         "true_score_rank": int(score_rank[name]),
                         "accuracy_rank": (f"{int(best[name])}" if best[name] == worst[name]
                                           else f"{int(best[name])}-{int(worst[name])}"),
                         "places_apart": int(apart[name])})
    table = pd.DataFrame(rows, columns=DISAGREEMENT_COLUMNS)
    return table.sort_values(["places_apart", "dataset"], ascending=[False, True]).reset_index(drop=True)

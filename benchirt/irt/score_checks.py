"""True-Scores that disagree with accuracy: flagged, with the reason they can.

The True-Score (Cardoso et al. 2021 §2.5) is the model's expected number correct at a respondent's ability,
``sum_j P_j(theta)``, not the number it got right. Items every calibration respondent answered alike carry no
information: they count as right (or wrong) for *every* respondent, whatever it answered, and the ability comes from the
other items only — so a respondent that missed all the easy items can still score near the maximum. And a respondent
whose answers fit no ability is placed where the informative items it got right put it. The report therefore flags every
reported respondent whose ranks by True-Score and by test accuracy differ by more than :data:`RANK_MARGIN` places (tied
accuracies count as one span of ranks), with the number of no-information items it answered against the model."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from benchirt.irt.stage import DatasetIRT
    from benchirt.responses.stage import ResponseResult

#: A respondent is flagged when its True-Score rank lies more than this many places outside the span of
#: ranks its test accuracy takes (accuracy ties span several ranks).
RANK_MARGIN = 3

DISAGREEMENT_COLUMNS = ("dataset", "classifier", "role", "true_score", "n_items", "test_accuracy",
                        "true_score_rank", "accuracy_rank", "places_apart", "no_information_missed")
#: Item flags of items that carry no information on ability, and the answer the model assumes for them.
_NO_INFORMATION = {"all_correct": 1, "all_wrong": 0}


def rank_disagreements(irts: Sequence[DatasetIRT], responses: Mapping[str, ResponseResult], *, roles: Sequence[str] = ("real", "artificial"),
                       margin: int = RANK_MARGIN) -> pd.DataFrame:
    """Reported respondents whose True-Score rank and test-accuracy rank disagree by more than ``margin``, largest
    disagreement first. Columns :data:`DISAGREEMENT_COLUMNS`; ``accuracy_rank`` is "best-worst" when accuracies tie;
    ``no_information_missed``: the no-information items the respondent answered otherwise than the model assumes for
    everyone (from ``responses``; empty without them)."""
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
        items = irt.fit.items
        n_items = len(items)
        answers = getattr(responses.get(irt.dataset), "responses", None)
        assumed = items["flag"].map(_NO_INFORMATION).dropna() if "flag" in items else pd.Series(dtype=float)
        for name in frame.index[apart > margin]:
            missed = (int((answers.loc[name, assumed.index].to_numpy() != assumed.to_numpy()).sum())
                      if answers is not None and name in answers.index else None)
            rows.append({"dataset": irt.dataset, "classifier": name, "role": frame.at[name, "role"],
                         "true_score": frame.at[name, "true_score"], "n_items": n_items,
                         "test_accuracy": frame.at[name, "test_accuracy"],
                         "true_score_rank": int(score_rank[name]),
                         "accuracy_rank": (f"{int(best[name])}" if best[name] == worst[name]
                                           else f"{int(best[name])}-{int(worst[name])}"),
                         "places_apart": int(apart[name]), "no_information_missed": missed})
    table = pd.DataFrame(rows, columns=DISAGREEMENT_COLUMNS)
    return table.sort_values(["places_apart", "dataset"], ascending=[False, True]).reset_index(drop=True)

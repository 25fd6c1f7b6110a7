"""How much the top of the leaderboard depends on who else is in the field.

A leaderboard built from pairwise matches depends on irrelevant candidates: adding or removing classifiers that never
contend for the top changes the matches everyone else wins, and with them the order at the top (Zhang & Hardt 2024, the
"irrelevant alternatives" sensitivity of rank aggregation). This module measures it on the run's own scores: the weakest
``share`` of the classifiers by Bradley–Terry rating are (a) removed and (b) entered twice (an exact copy, as a
near-duplicate run), the ratings refitted, and the order of the ``top`` best compared with Kendall's τ (Kendall 1938)
and by whether the leader stays.

Written by hand: a few lines around the leaderboard's own score matrix, match outcomes and Bradley–Terry fit and
:func:`scipy.stats.kendalltau`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from benchirt.rating.bt_grid import dataset_orders, fit_field
from benchirt.rating.config import RatingConfig
from benchirt.rating.scores import CheckedScores, checked_scores, score_matrix

#: Share of the field, the weakest by rating, that is removed or duplicated.
WEAKEST_SHARE = 0.2
#: How many of the best classifiers' order is compared.
TOP = 10
#: Suffix of the duplicated classifiers' names.
COPY = "#copy"
COLUMNS = ["change", "changed", "top", "kendall_tau", "leader_kept"]


def bradley_terry_ratings(matrix: pd.DataFrame, *, tie_tolerance: float = 0.0) -> pd.Series:
    """Bradley–Terry ratings (Elo scale) of a datasets × classifiers score matrix (NaN: absent), fitted as the
    leaderboard's point estimate is: on every dataset each pair present plays one match, the higher score wins,
    scores within ``tie_tolerance`` tie (:func:`benchirt.rating.bt_grid.fit_field`)."""
    orders = dataset_orders(matrix.to_numpy(float), tie_tolerance=tie_tolerance)
    return pd.Series(fit_field(orders, np.ones(matrix.shape[0])).rating[0], index=matrix.columns.astype(str))


def field_sensitivity(scores: pd.DataFrame | CheckedScores, *, config: RatingConfig | None = None, share: float = WEAKEST_SHARE,
                      top: int = TOP) -> pd.DataFrame:
    """The top of the board after removing, then duplicating, the weakest ``share`` of the classifiers (at least one).

    ``scores`` is a long table ``dataset, classifier`` and the score ``config.score`` names (higher is better);
    ``config`` supplies ``score`` and ``tie_tolerance``; ``top`` is how many of the best-rated classifiers' order is
    compared. Returns one row per change (``removed``, ``duplicated``): ``changed`` (how many classifiers), ``top``,
    ``kendall_tau`` of the top's ratings before and after (1: same order) and ``leader_kept``; empty with fewer than 4
    classifiers.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({"dataset": ["d1"] * 5 + ["d2"] * 5, "classifier": list("abcde") * 2,
    ...                        "score": [5, 4, 3, 2, 1, 5, 3, 4, 2, 1]})
    >>> table = field_sensitivity(scores, share=0.2, top=3)
    >>> table[["change", "changed", "leader_kept"]].values.tolist()
    [['removed', 1, True], ['duplicated', 1, True]]
    """
    config = config or RatingConfig()
    matrix = score_matrix(checked_scores(scores, score=config.score).table)
    base = bradley_terry_ratings(matrix, tie_tolerance=config.tie_tolerance).sort_values(ascending=False)
    if len(base) < 4:
        return pd.DataFrame(columns=COLUMNS)
    weakest = list(base.index[-max(1, math.floor(share * len(base))):])
    best = list(base.index[:min(top, len(base) - len(weakest))])
    changed = {"removed": matrix.drop(columns=weakest),
               "duplicated": matrix.join(matrix[weakest].add_suffix(COPY))}
    rows = []
    for change, table in changed.items():
        after = bradley_terry_ratings(table, tie_tolerance=config.tie_tolerance)
        tau = kendalltau(base[best].to_numpy(), after[best].to_numpy())[0] if len(best) > 1 else 1.0
        originals = after[~after.index.str.endswith(COPY)]
        rows.append({"change": change, "changed": len(weakest), "top": len(best), "kendall_tau": float(tau),
                     "leader_kept": bool(originals.idxmax() == base.index[0])})
    return pd.DataFrame(rows, columns=COLUMNS)


def sensitivity_note(table: pd.DataFrame) -> str | None:
    """One sentence for the leaderboard's notes, or None when the field is too small to change."""
    if table.empty:
        return None
    parts = []
    for row in table.itertuples(index=False):
        leader = "the leader stays" if row.leader_kept else "the leader CHANGES"
        parts.append(f"{row.change} — Kendall τ {row.kendall_tau:.2f} over the top {row.top}, {leader}")
    changed = int(table["changed"].iloc[0])
    return (f"field sensitivity (the {changed} weakest classifiers removed, or each entered twice, Bradley–Terry "
            f"refitted; Zhang & Hardt 2024): " + "; ".join(parts))

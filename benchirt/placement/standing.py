"""A new classifier's place among the pool: average rank over the datasets, with a rank interval.

The standing is the Friedman-style average rank (Demšar 2006): on every dataset the classifiers are ranked by score (1 =
best, ties share the mean rank), the ranks averaged over the suite, and the position is ``1 +`` the number of pool
members with a better average rank. For unmeasured datasets :meth:`ScoreModel.draw` gives joint draws of the new
classifier's scores; each draw is ranked, the reported rank is the median over the draws and the interval their central
``level`` range; measured datasets keep their score in every draw. (Ranking the point prediction would be biased: it has
no per-dataset noise, and average ranks are not linear in the scores.)
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from benchirt.placement.model import ScoreModel


def average_ranks(pool: np.ndarray, column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks with a new column inserted: ``pool`` (D, C) scores (higher = better) and ``column`` (N, D)
    candidate score columns of the new classifier give ``new`` (N,), its average rank among the ``C + 1``, and
    ``members`` (N, C), each pool member's average rank with it present."""
    base = rankdata(-pool, axis=1)  # ranks within the pool, ties averaged
    above = column[:, :, None] > pool[None]
    tied = column[:, :, None] == pool[None]
    new = (1.0 + (pool[None] > column[:, :, None]).sum(axis=2) + 0.5 * tied.sum(axis=2)).mean(axis=1)
    members = base.mean(axis=0)[None] + (above + 0.5 * tied).mean(axis=1)
    return new, members


def position(new: np.ndarray, members: np.ndarray) -> np.ndarray:
    """``1 +`` the number of pool members with a strictly better average rank, shape (N,)."""
    return 1 + (members < new[:, None] - 1e-12).sum(axis=1)


def standing(model: ScoreModel, observed: pd.Series, classifier: str, *, level: float = 0.9,
             n_draws: int = 2000, seed: int = 0) -> dict:
    """The new classifier's rank with its interval, and its average rank: a dict of ``classifier, rank, rank_low,
    rank_high, mean_rank, mean_rank_low, mean_rank_high, n_classifiers`` (pool + 1), ``n_measured``, ``n_predicted``."""
    pool = model.scores.to_numpy(float)
    draws = model.draw(observed, n_draws, seed=seed)
    draw_new, draw_members = average_ranks(pool, draws)
    places = position(draw_new, draw_members)
    tail = (1 - level) / 2
    return {
        "classifier": classifier,
        "rank": int(np.round(np.median(places))),
        "rank_low": int(np.floor(np.quantile(places, tail))),
        "rank_high": int(np.ceil(np.quantile(places, 1 - tail))),
        "mean_rank": float(np.median(draw_new)),
        "mean_rank_low": float(np.quantile(draw_new, tail)),
        "mean_rank_high": float(np.quantile(draw_new, 1 - tail)),
        "n_classifiers": pool.shape[1] + 1,
        "n_measured": int(len(observed)),
        "n_predicted": int(pool.shape[0] - len(observed)),
    }

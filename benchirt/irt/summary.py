"""Per-dataset item summaries and the dataset rankings of Cardoso et al. 2021 §4.5."""
from __future__ import annotations

import pandas as pd

from benchirt.errors import DataError
from benchirt.irt.config import IRTConfig
from benchirt.irt.fit import NO_INFORMATION_FLAGS, falling_measure

#: Summary columns that :func:`dataset_rankings` ranks, with the parameter each describes.
RANKED = {
    "pct_difficulty_gt": "difficulty",
    "pct_discrimination_gt": "discrimination",
    "pct_guessing_gt": "guessing",
    "pct_negative_discrimination": "negative_discrimination",
}


def item_summary(items: pd.DataFrame, config: IRTConfig | None = None) -> dict:
    """Percentages of items above the seed's thresholds (Cardoso et al. 2021 §4.5, §5.1).

    Parameters
    ----------
    items : pandas.DataFrame
        ``IRTFit.items`` (columns ``discrimination, difficulty, guessing, flag``).
    config : IRTConfig, optional
        Supplies ``difficulty_threshold`` (1), ``discrimination_threshold`` (0.75)
        and ``guessing_threshold`` (0.2).

    Returns
    -------
    dict
        ``pct_difficulty_gt``, ``pct_discrimination_gt``, ``pct_guessing_gt``,
        ``pct_negative_discrimination`` (percent of *all* items, 0-100; the monotone family's items
        whose ``ability_slope`` is negative, decodIRT's whose discrimination is), ``n_items``,
        ``n_flagged`` (no information). Flagged items count as what they are: an item
        nobody answers correctly is difficult (its reported ``b`` lies above the ability
        range), one everybody answers correctly is not, and neither is discriminative
        (whatever its reported ``a``: see :func:`benchirt.irt.fit.flagged_item_values`),
        guessable or negatively discriminating.
    """
    config = config or IRTConfig()
    n = len(items)
    if n == 0:
        raise DataError("item summary: the item table is empty")
    flagged = items["flag"].isin(NO_INFORMATION_FLAGS)

    def pct(mask) -> float:
        return float(100.0 * mask.sum() / n)

    return {
        "pct_difficulty_gt": pct(items["difficulty"] > config.difficulty_threshold),
        "pct_discrimination_gt": pct((items["discrimination"] > config.discrimination_threshold) & ~flagged),
        "pct_guessing_gt": pct((items["guessing"] > config.guessing_threshold) & ~flagged),
        "pct_negative_discrimination": pct((falling_measure(items, config) < 0) & ~flagged),
        "n_items": int(n),
        "n_flagged": int(flagged.sum()),
    }


def dataset_rankings(summaries: pd.DataFrame) -> pd.DataFrame:
    """Rank datasets by the share of difficult, discriminative, guessable and negatively
    discriminating items (Cardoso et al. 2021 §4.5; Fig. 3 plots the first two).

    Parameters
    ----------
    summaries : pandas.DataFrame
        Index = dataset, columns as returned by :func:`item_summary` (at least the
        four ``pct_*`` columns).

    Returns
    -------
    pandas.DataFrame
        Index = dataset; for each parameter its percentage and ``rank_<parameter>``
        (1 = the largest share; ties share the best rank), sorted by
        ``rank_difficulty``.
    """
    missing = [c for c in RANKED if c not in summaries.columns]
    if missing:
        raise DataError(f"dataset rankings: summary columns {missing} are missing; pass item_summary() rows")
    if summaries.empty:
        raise DataError("dataset rankings: no datasets to rank")
    out = pd.DataFrame(index=summaries.index.copy())
    for column, name in RANKED.items():
        out[column] = summaries[column].astype(float)
        out[f"rank_{name}"] = out[column].rank(ascending=False, method="min").astype(int)
    return out.sort_values(["rank_difficulty", "rank_discrimination"]).rename_axis("dataset")

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


def item_summary(items: pd.DataFrame, *, config: IRTConfig | None = None) -> dict:
    """Percentages of items above the seed's thresholds (Cardoso et al. 2021 §4.5, §5.1).

    ``config`` supplies ``difficulty_threshold`` (1), ``discrimination_threshold`` (0.75) and ``guessing_threshold``
    (0.2); ``items`` is ``IRTFit.items``.

    Returns
    -------
    dict
        ``pct_difficulty_gt``, ``pct_discrimination_gt``, ``pct_guessing_gt``, ``pct_negative_discrimination`` (percent
        of *all* items, 0-100; negative ``ability_slope`` for the monotone family, negative discrimination for
        decodIRT's), ``n_items``, ``n_flagged`` (no information). Flagged items count as what they are: an item nobody
        answers correctly is difficult, one everybody does is not, and neither is discriminative (whatever its reported
        ``a``, :func:`benchirt.irt.fit.flagged_item_values`), guessable or negatively discriminating."""
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


#: Above this share of its informative items falling with ability or held at a = 0, the monotone model is said
#: not to fit (:func:`default_model_check`). On simulated 2PL pools with half the discriminations negative
#: (400 x 30 and 1,000 x 50, five seeds each) the share is 0.38-0.53 and the monotone abilities correlate 0.05-0.58
#: with the generating ones (free-sign: 0.93-0.96); on decodIRT's 50 reference pools it is 0.00-0.69, above 0.35
#: on 6 (``python benchmarks/irt_default_fit.py``).
MISMATCH_SHARE = 0.35
#: A discrimination at most this far above 0 is held at the monotone family's lower bound.
_AT_ZERO = 1e-6


def default_model_check(items: pd.DataFrame, config: IRTConfig) -> dict | None:
    """Whether the monotone model fits the items: the share of informative items whose answers fall with the item
    model's own ability (``item_model_slope`` < 0, :mod:`benchirt.irt.slope`; ``ability_slope`` in a table without
    it) or whose discrimination is held at its bound a = 0, against :data:`MISMATCH_SHARE`.

    The monotone family bounds every a at 0 (docs/irt.md, "Which model scores, and why"): when half the items truly
    fall, its one scale fits one half and its abilities may measure little of either; decodIRT's free-sign family
    (``--compat decodirt``) fits both.

    Returns
    -------
    dict or None
        None for the free-sign family; else ``share_misfit`` (0-1 of the informative items), ``n_falling``,
        ``n_at_zero``, ``n_informative``, ``threshold`` and ``fits`` (share at most the threshold)."""
    slope = "item_model_slope" if "item_model_slope" in items else "ability_slope"
    if config.model_family != "monotone" or slope not in items:
        return None
    informative = items[~items["flag"].isin(NO_INFORMATION_FLAGS)]
    falling = informative[slope].to_numpy(float) < 0
    at_zero = informative["discrimination"].to_numpy(float) <= _AT_ZERO
    n = len(informative)
    share = float((falling | at_zero).sum() / n) if n else 0.0
    return {"share_misfit": share, "n_falling": int(falling.sum()), "n_at_zero": int(at_zero.sum()),
            "n_informative": int(n), "threshold": MISMATCH_SHARE, "fits": bool(share <= MISMATCH_SHARE)}


def default_model_sentence(check: dict | None, *, fix: str = "--compat decodirt") -> str | None:
    """One line saying the monotone model does not fit (:func:`default_model_check`), with the share and the mode that
    fits (``fix``: how the reader chooses it); None when it fits or was not checked."""
    if check is None or check["fits"]:
        return None
    return (f"the default monotone model does not fit: {100 * check['share_misfit']:.0f} % of the "
            f"{check['n_informative']} informative items fall with its ability (item_model_slope < 0: "
            f"{check['n_falling']}) "
            f"or are held at a = 0 ({check['n_at_zero']}), above the {100 * check['threshold']:.0f} % threshold; "
            f"its abilities may measure neither half. {fix} fits a free-sign model (negative discriminations "
            "allowed) — compare both (docs/irt.md, \"When the default model does not fit\")")


def dataset_rankings(summaries: pd.DataFrame) -> pd.DataFrame:
    """Rank datasets by the share of difficult, discriminative, guessable and negatively discriminating items (Cardoso
    et al. 2021 §4.5; Fig. 3 plots the first two). ``summaries``: index = dataset, at least the four ``pct_*``
    columns of :func:`item_summary`. Returns, per dataset, each percentage and ``rank_<parameter>`` (1 = the largest
    share; ties share the best rank), sorted by ``rank_difficulty``."""
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

"""The fit's item table: one row per item in input order, with a, b, c (Cardoso et al. 2021 §4.1), their standard
errors, the proportion correct, the slope on ability (Lord 1980, :func:`benchirt.irt.slope.ability_slopes`) and a
flag: ``ok``, ``at_bound``, or ``all_correct`` / ``all_wrong`` for items without information
(:func:`benchirt.irt.fit.flagged_item_values`). Hand-written: a pandas table."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.irt.config import IRTConfig
from benchirt.irt.fit import flagged_item_values
from benchirt.irt.problem import Problem, guessing, item_blocks
from benchirt.irt.slope import ability_slopes


def fitted_slopes(post: np.ndarray, problem: Problem) -> np.ndarray:
    """Each distinct item's logistic slope on the respondents' EAP abilities (``post``: the patterns' posterior weights
    on the fit's grid): :func:`benchirt.irt.slope.ability_slopes`, :data:`_SLOPE_BLOCKS` item blocks at a time so its
    items x patterns tables stay small."""
    theta = post @ problem.nodes
    prior_sd = problem.config.prior_discrimination[1]
    m = len(problem.multiplicity)
    return np.concatenate([ability_slopes(problem.items[block], theta, weights=problem.counts, prior_sd=prior_sd)[0]
                           for block in item_blocks(m, max(8, -(-m // _SLOPE_BLOCKS)))])


#: :func:`fitted_slopes` goes through the items in this many blocks.
_SLOPE_BLOCKS = 32


def item_table(items, informative, p_correct, params, se, config: IRTConfig,
               *, slopes: np.ndarray | None = None) -> pd.DataFrame:
    """One row per item, in input order: parameters, SEs, proportion correct, the slope on ability
    (:func:`fitted_slopes`; 0 for items without information, absent for an optimum's table) and flag."""
    m = len(items)
    table = pd.DataFrame(index=pd.Index(items, name="item"))
    a = np.zeros(m)
    b = np.zeros(m)
    c = np.zeros(m)
    se_full = np.zeros((m, 3))
    a[informative] = params[:, 0]
    b[informative] = params[:, 1]
    c[informative] = guessing(params) if config.model == "3PL" else 0.0
    se_full[informative] = se
    flag = np.full(m, "ok", dtype=object)
    at_bound = (np.abs(params[:, 0]) >= config.max_discrimination - 1e-9) | (
        np.abs(params[:, 1]) >= config.max_difficulty - 1e-9
    )
    if config.model == "3PL":
        at_bound |= guessing(params) >= config.max_guessing - 1e-9
    flag[np.flatnonzero(informative)[at_bound]] = "at_bound"
    for kind in ("all_correct", "all_wrong"):
        mask = p_correct == (1.0 if kind == "all_correct" else 0.0)
        values = flagged_item_values(kind, config)
        a[mask], b[mask], c[mask] = values
        flag[mask] = kind
    table["discrimination"] = a
    table["difficulty"] = b
    table["guessing"] = c
    table["se_discrimination"] = se_full[:, 0]
    table["se_difficulty"] = se_full[:, 1]
    table["se_guessing"] = se_full[:, 2]
    table["p_correct"] = p_correct
    if slopes is not None:
        slope = np.zeros(m)
        slope[informative] = slopes
        table["ability_slope"] = slope
    table["flag"] = flag
    return table

"""The model that scores the respondents, beside the model that describes the items.

A fit's item model (``IRTConfig.model``, the 3PL by default) gives every test instance a difficulty, discrimination and
guessing (Cardoso et al. 2021 §4.1). Which model's ability and True-Score rank the respondents is a separate choice
(``IRTConfig.scoring_model``; docs/irt.md, "Which model scores, and why"): with the monotone family the 1PL (Rasch
1960), whose ability is a monotone function of the number correct, because the discriminations a pool gives weight the
items in a way that does not carry over to the classifiers ranked. It is fitted on the same calibration responses and
grid, from the item model's solution (:func:`benchirt.irt.estimation.fit_irt`'s ``initial``).

:func:`with_ranking_slopes` re-estimates each item's ``ability_slope`` (:mod:`benchirt.irt.slope`) on the scoring
model's abilities, so "abler classifiers do worse here" means abler by the ranking the leaderboard shows."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import NO_INFORMATION_FLAGS, IRTFit
from benchirt.irt.scoring import align_responses
from benchirt.irt.slope import ability_slopes

#: Items whose slopes are estimated at once (two items × respondents tables of this many rows).
SLOPE_BLOCK = 256


def fit_scoring_model(responses, fit: IRTFit) -> IRTFit:
    """The fit whose abilities score the respondents: ``fit`` itself when its model is the config's ``scoring_model``,
    else that model fitted on ``responses`` (``fit``'s calibration matrix) from ``fit``'s items, on its grid."""
    config = fit.config
    if config.resolved_scoring_model == fit.model:
        return fit
    model = config.resolved_scoring_model
    scoring = replace(config, model=model, scoring_model=model,
                      quadrature=fit.quadrature_nodes, refine_quadrature=False)
    return fit_irt(responses, config=scoring, initial=fit.items)


def with_ranking_slopes(fit: IRTFit, scorer: IRTFit, responses) -> IRTFit:
    """``fit`` with every informative item's ``ability_slope`` estimated on ``scorer``'s EAP abilities of the
    calibration ``responses``, and the slope on the item model's own abilities kept as ``item_model_slope`` (read by
    :func:`benchirt.irt.summary.default_model_check`); ``fit`` itself when it scores (``scorer is fit``) or has no
    slopes (decodIRT's free-sign model)."""
    if scorer is fit or "ability_slope" not in fit.items:
        return fit
    theta = scorer.abilities(responses).to_numpy(float)
    if isinstance(responses, pd.DataFrame):
        responses = align_responses(responses, list(fit.items.index), "fitted")
    answers = np.asarray(responses, dtype=np.int8).T        # items × respondents
    informative = np.flatnonzero(~fit.items["flag"].isin(NO_INFORMATION_FLAGS).to_numpy())
    slope = np.zeros(len(fit.items))
    prior_sd = fit.config.prior_discrimination[1]
    for start in range(0, len(informative), SLOPE_BLOCK):
        block = informative[start:start + SLOPE_BLOCK]
        slope[block] = ability_slopes(answers[block], theta, weights=None, prior_sd=prior_sd)[0]
    return replace(fit, items=fit.items.assign(item_model_slope=fit.items["ability_slope"], ability_slope=slope))

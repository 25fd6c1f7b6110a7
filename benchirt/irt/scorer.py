"""The model that scores the respondents, beside the model that describes the items.

A fit's item model (``IRTConfig.model``, the 3PL by default) gives every test instance a difficulty,
discrimination and guessing (Cardoso et al. 2021 §4.1). Which model's ability and True-Score rank the
respondents is a separate choice (``IRTConfig.scoring_model``; docs/irt.md, "Which model scores, and
why"): with the monotone family it is the 1PL (Rasch 1960), whose ability is a monotone function of
the number of correct answers, because the discriminations a pool's responses give (mostly the MLP
ladder's, in decodIRT's pools) weight the items in a way that does not carry over to the classifiers
being ranked (``benchmarks/irt_validity.py --part predictive``).

The scoring model is fitted on the same calibration responses, on the item model's quadrature grid,
from the item model's solution (the 1PL from the mean discrimination and the difficulties, the 2PL
from the discriminations and difficulties: :func:`benchirt.irt.estimation.fit_irt`'s ``initial``).
"""
from __future__ import annotations

from dataclasses import replace

from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit


def fit_scoring_model(responses, fit: IRTFit) -> IRTFit:
    """The fit whose abilities score the respondents: ``fit`` itself when its model is the config's
    ``scoring_model``, else that model fitted on ``responses`` (the calibration matrix ``fit`` was
    fitted on) from ``fit``'s items, on its grid."""
    config = fit.config
    if config.resolved_scoring_model == fit.model:
        return fit
    model = config.resolved_scoring_model
    scoring = replace(config, model=model, scoring_model=model,
                      quadrature=fit.quadrature_nodes, refine_quadrature=False)
    return fit_irt(responses, scoring, initial=fit.items)

"""Item Response Theory for benchmark response matrices (seed 003 §2.5, §4.1, §4.4-4.5).

>>> from benchirt.irt import fit_irt, IRTConfig
>>> fit = fit_irt(responses)                 # respondents x items of 0/1
>>> fit.items                                # a, b, c, SEs, flags — one row per item
>>> theta = fit.abilities(new_responses)     # EAP (or method="MAP")
>>> fit.true_score(theta)                    # sum of P(correct) over the items
>>> fit.convergence()                        # status, EM starts and the local optima they found
>>> compare_models(responses)                # 1PL/2PL/3PL log-likelihood, AIC, BIC
>>> item_fit(fit, responses)                 # infit/outfit per item, misfit flag
"""
from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit
from benchirt.irt.models import MODELS, probability
from benchirt.irt.compare import compare_models
from benchirt.irt.itemfit import item_fit
from benchirt.irt.stage import (
    DatasetIRT,
    irt_for_responses,
    model_comparison_table,
    summaries_frame,
    suspect_label_table,
    true_score_table,
)
from benchirt.irt.suspects import suspect_labels
from benchirt.irt.summary import dataset_rankings, item_summary

__all__ = [
    "MODELS",
    "DatasetIRT",
    "IRTConfig",
    "IRTFit",
    "compare_models",
    "dataset_rankings",
    "fit_irt",
    "irt_for_responses",
    "item_fit",
    "item_summary",
    "model_comparison_table",
    "probability",
    "summaries_frame",
    "suspect_label_table",
    "suspect_labels",
    "true_score_table",
]

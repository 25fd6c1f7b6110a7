"""Item Response Theory for benchmark response matrices (seed 003 §2.5, §4.1, §4.4-4.5).

>>> from benchirt.irt import fit_irt, IRTConfig
>>> fit = fit_irt(responses)                 # respondents x items of 0/1
>>> fit.items                                # a, b, c, SEs, flags — one row per item
>>> theta = fit.abilities(new_responses)     # EAP (or method="MAP")
>>> fit.true_score(theta)                    # sum of P(correct) over the items
"""
from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit
from benchirt.irt.models import MODELS, probability
from benchirt.irt.stage import DatasetIRT, irt_for_responses, summaries_frame, true_score_table
from benchirt.irt.summary import dataset_rankings, item_summary

__all__ = [
    "MODELS",
    "DatasetIRT",
    "IRTConfig",
    "IRTFit",
    "dataset_rankings",
    "fit_irt",
    "irt_for_responses",
    "item_summary",
    "probability",
    "summaries_frame",
    "true_score_table",
]

"""Type stub of :mod:`benchirt.irt`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from benchirt.irt.compare import compare_models as compare_models
from benchirt.irt.config import IRTConfig as IRTConfig
from benchirt.irt.config import MODELS as MODELS
from benchirt.irt.estimation import fit_irt as fit_irt
from benchirt.irt.fit import IRTFit as IRTFit
from benchirt.irt.itemfit import item_fit as item_fit
from benchirt.irt.models import probability as probability
from benchirt.irt.stage import DatasetIRT as DatasetIRT
from benchirt.irt.stage import irt_for_responses as irt_for_responses
from benchirt.irt.stage import model_comparison_table as model_comparison_table
from benchirt.irt.stage import summaries_frame as summaries_frame
from benchirt.irt.stage import suspect_label_table as suspect_label_table
from benchirt.irt.stage import true_score_table as true_score_table
from benchirt.irt.summary import dataset_rankings as dataset_rankings
from benchirt.irt.summary import item_summary as item_summary
from benchirt.irt.suspects import suspect_labels as suspect_labels

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

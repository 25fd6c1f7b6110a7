"""Type stub of :mod:`benchirt.airt`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from benchirt.airt.analysis import AIRTResult as AIRTResult
from benchirt.airt.analysis import fit_airt as fit_airt
from benchirt.airt.config import AIRTConfig as AIRTConfig
from benchirt.airt.continuous import ContinuousFit as ContinuousFit
from benchirt.airt.continuous import easiness as easiness
from benchirt.airt.continuous import expit as expit
from benchirt.airt.continuous import fit_continuous as fit_continuous
from benchirt.airt.continuous import logit as logit
from benchirt.airt.goodness import ModelGoodness as ModelGoodness
from benchirt.airt.goodness import model_goodness as model_goodness
from benchirt.airt.latent import LatentTraitAnalysis as LatentTraitAnalysis
from benchirt.airt.latent import latent_trait_analysis as latent_trait_analysis
from benchirt.airt.metrics import algorithm_metrics as algorithm_metrics
from benchirt.airt.metrics import dataset_metrics as dataset_metrics

"""Type stub of :mod:`benchirt.pool`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from benchirt.pool.artificial import ARTIFICIAL_NAMES as ARTIFICIAL_NAMES
from benchirt.pool.artificial import artificial_predictions as artificial_predictions
from benchirt.pool.estimators import ALLOWED_PACKAGES as ALLOWED_PACKAGES
from benchirt.pool.estimators import resolve_classifier_class as resolve_classifier_class
from benchirt.pool.ladder import LadderRun as LadderRun
from benchirt.pool.ladder import ladder_name as ladder_name
from benchirt.pool.ladder import ladder_predictions as ladder_predictions
from benchirt.pool.real import DEFAULT_POOL as DEFAULT_POOL
from benchirt.pool.real import ExtraEstimator as ExtraEstimator
from benchirt.pool.real import REAL_CLASSIFIERS as REAL_CLASSIFIERS
from benchirt.pool.real import RealClassifier as RealClassifier
from benchirt.pool.real import resolve_pool as resolve_pool

ROLES: tuple[str, ...]
DECODIRT_NAMES: dict[str, str]

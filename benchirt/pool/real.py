"""The real classifiers of the pool: decodIRT's twelve, plus any scikit-learn classifier named in a config.

Cardoso et al. 2021 §4.3 lists decodIRT's second set of models: Gaussian and Bernoulli naive Bayes, KNN with 2, 3, 5
and 8 neighbours, a decision tree, random forests with 3, 5 and the default number of trees, an SVM and an MLP, all
with scikit-learn's defaults. :data:`REAL_CLASSIFIERS` holds them under benchirt's names; :class:`ExtraEstimator` adds
any other classifier by dotted import path. Every estimator taking a ``random_state`` gets the stage's seed, as in
decodIRT. ``scale`` says whether the model needs standardised numeric features (KNN, SVC, MLP); the others see
imputed, unscaled values. Scaling departs from decodIRT, which fed raw features to every model, so that its SVM
collapsed to the majority class on data such as wdbc. Bernoulli naive Bayes keeps unscaled input (binarised at 0), as
scikit-learn's default defines that model.
"""
from __future__ import annotations

import importlib
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchirt.errors import ConfigError
from benchirt.options import Boolean, MappingOf, Text, checked_options, require, validated
from benchirt.pool.estimators import resolve_classifier_class

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


@dataclass(frozen=True)
class RealClassifier:
    """One named member of the real pool: ``name`` (its row label in the response matrix), ``estimator_class`` (a
    scikit-learn classifier class, or for the built-in pool a fixed dotted path inside scikit-learn, imported when first
    built so that reading a config does not import scikit-learn), ``params`` (hyper-parameters differing from the
    defaults) and ``scale`` (numeric features standardised before it)."""

    name: str
    estimator_class: type | str
    params: dict = field(default_factory=dict)
    scale: bool = False

    def build(self, seed: int = 0) -> BaseEstimator:
        """A fresh, unfitted estimator; ``random_state=seed`` where the estimator has one."""
        estimator_class = self.estimator_class
        if isinstance(estimator_class, str):
            module, _, name = estimator_class.rpartition(".")
            estimator_class = getattr(importlib.import_module(module), name)
        estimator = estimator_class(**self.params)
        if "random_state" in estimator.get_params():
            estimator.set_params(random_state=seed)
        return estimator


def _knn(k: int) -> RealClassifier:
    return RealClassifier(f"knn_{k}", "sklearn.neighbors.KNeighborsClassifier", {"n_neighbors": k}, scale=True)


#: decodIRT's twelve real classifiers (Cardoso et al. 2021 §4.3), in decodIRT's order.
REAL_CLASSIFIERS: dict[str, RealClassifier] = {
    spec.name: spec
    for spec in (
        RealClassifier("gaussian_nb", "sklearn.naive_bayes.GaussianNB"),
        RealClassifier("bernoulli_nb", "sklearn.naive_bayes.BernoulliNB"),
        _knn(2),
        _knn(3),
        _knn(5),
        _knn(8),
        RealClassifier("decision_tree", "sklearn.tree.DecisionTreeClassifier"),
        RealClassifier("random_forest_3", "sklearn.ensemble.RandomForestClassifier", {"n_estimators": 3}),
        RealClassifier("random_forest_5", "sklearn.ensemble.RandomForestClassifier", {"n_estimators": 5}),
        RealClassifier("random_forest", "sklearn.ensemble.RandomForestClassifier"),
        RealClassifier("svc", "sklearn.svm.SVC", scale=True),
        RealClassifier("mlp", "sklearn.neural_network.MLPClassifier", scale=True),
    )
}

#: The default real pool: all of :data:`REAL_CLASSIFIERS`.
DEFAULT_POOL: tuple[str, ...] = tuple(REAL_CLASSIFIERS)


#: The declared constraint of every key of a ``respond.extra`` entry (:func:`benchirt.options.validated`).
ENTRY_OPTIONS = {
    "estimator": Text(what="the dotted path of a classifier class"),
    "params": MappingOf(what="a mapping of keyword arguments"),
    "scale": Boolean(),
}


@dataclass(frozen=True)
class ExtraEstimator:
    """A classifier added to the real pool by configuration.

    ``name`` is its row label (no clash with another member); ``estimator`` the dotted path of a scikit-learn
    compatible classifier class (e.g. ``"sklearn.linear_model.LogisticRegression"``) built with ``params``; ``scale``
    (default True) standardises numeric features; ``allowed_packages`` are top-level packages the class may come from
    beyond :data:`benchirt.pool.estimators.ALLOWED_PACKAGES` (``respond.allowed_packages``).
    """

    name: str
    estimator: str
    params: dict = field(default_factory=dict)
    scale: bool = True
    allowed_packages: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_packages", tuple(self.allowed_packages))
        self.to_real()  # validates the class path and the parameters now, not mid-run

    def to_real(self) -> RealClassifier:
        """The :class:`RealClassifier` this entry describes; ConfigError when it cannot be built. The class is checked
        by :func:`~benchirt.pool.estimators.resolve_classifier_class` before instantiation, then the parameters by
        the estimator's own validation (``_validate_params``, otherwise run only in ``fit``), so ``C: -1`` fails at
        config time rather than mid-run."""
        where = f"extra classifier {self.name!r}"
        estimator_class = resolve_classifier_class(self.estimator, allowed_packages=self.allowed_packages, where=where)
        spec = RealClassifier(self.name, estimator_class, dict(self.params), scale=bool(self.scale))
        try:
            instance = spec.build()
            if hasattr(instance, "_parameter_constraints"):  # scikit-learn's declared parameter checks
                instance._validate_params()
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"{where}: {self.estimator}({self.params}) cannot be built: {exc}. "
                "Fix 'params' to the estimator's keyword arguments and valid values."
            ) from None
        from sklearn.base import is_classifier

        if not is_classifier(instance):
            raise ConfigError(
                f"{where}: {self.estimator} is not a scikit-learn classifier; "
                "name a class with fit/predict and _estimator_type 'classifier'."
            )
        return spec

    @classmethod
    def from_dict(cls, name: str, entry: Any, *, allowed_packages: tuple[str, ...] = ()) -> "ExtraEstimator":
        """Build from a config entry ``{"estimator": path, "params": {...}, "scale": bool}`` or a bare path."""
        where = f"respond.extra.{name}"
        if isinstance(entry, str):
            entry = {"estimator": entry}
        entry = checked_options(where, entry, ENTRY_OPTIONS)
        require("estimator" in entry, where, "estimator", None, ENTRY_OPTIONS["estimator"].describe())
        entry = validated(where, {"scale": True, **entry, "params": entry.get("params") or {}}, ENTRY_OPTIONS)
        return cls(name=name, allowed_packages=tuple(allowed_packages), **entry)


def resolve_pool(names: tuple[str, ...], *, extra: tuple[ExtraEstimator, ...] = ()) -> list[RealClassifier]:
    """The real pool in row order: the named built-ins, then the extra estimators; ConfigError for an unknown name
    (listing the known ones) or a duplicate."""
    unknown = [name for name in names if name not in REAL_CLASSIFIERS]
    if unknown:
        raise ConfigError(
            f"unknown classifier name(s) {unknown} in the response pool; known classifiers: "
            f"{', '.join(REAL_CLASSIFIERS)} (add others under 'extra' with a dotted estimator path)"
        )
    pool = [REAL_CLASSIFIERS[name] for name in names] + [entry.to_real() for entry in extra]
    duplicates = sorted(name for name, count in Counter(spec.name for spec in pool).items() if count > 1)
    if duplicates:
        raise ConfigError(f"classifier name(s) {duplicates} appear more than once in the response pool; rename them")
    return pool

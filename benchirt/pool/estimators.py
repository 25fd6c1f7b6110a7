"""Safe resolution of a classifier class named by a dotted path in a configuration.

A config names extra classifiers as text (``"sklearn.svm.LinearSVC"``); importing and calling whatever it names would
let a config run code (``os.system``). So the path is checked in three steps, each before anything is imported or
built: (1) its form, dot-separated public identifiers (no ``_private`` parts); (2) its top-level package, one of
:data:`ALLOWED_PACKAGES` or one the config lists (``respond.allowed_packages``) — checked *before* ``import_module``,
since importing can run code; (3) what it names: a class defined in an allowed package that is a scikit-learn
classifier (a ``ClassifierMixin`` subclass or ``_estimator_type == "classifier"``, as xgboost/lightgbm/catboost
declare) with ``fit`` and ``predict``. Only then may the caller construct it; scikit-learn's ``is_classifier`` needs an
instance, which must not be built yet, hence the class-level check here.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Iterable

from benchirt.errors import ConfigError

#: Top-level packages whose classifiers a config may name without listing them in ``allowed_packages``.
ALLOWED_PACKAGES: tuple[str, ...] = ("sklearn", "xgboost", "lightgbm", "catboost")


def resolve_classifier_class(dotted: str, *, allowed_packages: Iterable[str] = (), where: str = "estimator") -> type:
    """The scikit-learn classifier class (not an instance) that ``dotted`` (e.g.
    ``"sklearn.linear_model.LogisticRegression"``) names, checked before anything is constructed.
    ``allowed_packages`` are the user's top-level packages beyond :data:`ALLOWED_PACKAGES`; ``where`` names what the
    path configures in messages (e.g. ``"extra classifier 'logreg'"``). ConfigError, naming what is allowed, when the
    path is malformed, outside the allowed packages (nothing is imported then), not importable, or not a classifier
    class.
    """
    allowed = tuple(dict.fromkeys((*ALLOWED_PACKAGES, *allowed_packages)))
    allowed_text = f"classifier classes from {', '.join(allowed)} (add your own package to respond.allowed_packages)"
    parts = dotted.split(".") if isinstance(dotted, str) else []
    if len(parts) < 2 or not all(part.isidentifier() for part in parts):
        raise ConfigError(
            f"{where}: {dotted!r} is not a dotted class path like 'sklearn.svm.LinearSVC'; allowed: {allowed_text}"
        )
    if any(part.startswith("_") for part in parts):
        raise ConfigError(f"{where}: {dotted!r} names a private module or attribute; allowed: {allowed_text}")
    if parts[0] not in allowed:
        raise ConfigError(f"{where}: {dotted!r} is outside the allowed packages; allowed: {allowed_text}")
    module_name, attribute = ".".join(parts[:-1]), parts[-1]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"{where}: cannot import {module_name!r} ({exc}); check the spelling and that it is installed") from None
    candidate = getattr(module, attribute, None)
    if candidate is None:
        raise ConfigError(f"{where}: module {module_name!r} has no attribute {attribute!r}; check the spelling")
    if not inspect.isclass(candidate):
        raise ConfigError(f"{where}: {dotted!r} is not a class ({type(candidate).__name__}); allowed: {allowed_text}")
    home = (candidate.__module__ or "").split(".")[0]
    if home not in allowed:
        raise ConfigError(f"{where}: {dotted!r} is defined in {candidate.__module__!r}, outside the allowed packages; allowed: {allowed_text}")
    if not _is_classifier_class(candidate) or inspect.isabstract(candidate):
        raise ConfigError(
            f"{where}: {dotted} is not a scikit-learn classifier; name a class with fit/predict and "
            f"_estimator_type 'classifier'; allowed: {allowed_text}"
        )
    return candidate


def _is_classifier_class(candidate: type) -> bool:
    from sklearn.base import ClassifierMixin

    declared = issubclass(candidate, ClassifierMixin) or getattr(candidate, "_estimator_type", None) == "classifier"
    return declared and all(callable(getattr(candidate, method, None)) for method in ("fit", "predict"))

"""Safe resolution of a classifier class named by a dotted path in a configuration.

A config names extra classifiers as text (``"sklearn.svm.LinearSVC"``). Importing and calling whatever
that text names would let a config run code (``os.system``, ``subprocess.Popen``). So the path is
checked in three steps, each before anything is imported or built:

1. its form: dot-separated public Python identifiers (no ``_private`` parts);
2. its top-level package: one of :data:`ALLOWED_PACKAGES` or a package the user lists explicitly in
   the config (``respond.allowed_packages``) — checked *before* ``import_module``, since importing a
   module can itself run code;
3. what it names: a class (not a function or instance), defined in an allowed package, that is a
   scikit-learn classifier (subclass of ``sklearn.base.ClassifierMixin`` or with
   ``_estimator_type == "classifier"``, as xgboost/lightgbm/catboost declare) with ``fit`` and
   ``predict``.

Only then may the caller construct an instance. scikit-learn's ``is_classifier`` needs an instance,
which is exactly what must not be built yet, hence the class-level check here.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Iterable

from benchirt.errors import ConfigError

#: Top-level packages whose classifiers a config may name without listing them in ``allowed_packages``.
ALLOWED_PACKAGES: tuple[str, ...] = ("sklearn", "xgboost", "lightgbm", "catboost")


def resolve_classifier_class(dotted: str, *, allowed_packages: Iterable[str] = (), where: str = "estimator") -> type:
    """The scikit-learn classifier class a dotted path names, checked before anything is constructed.

    Parameters
    ----------
    dotted : str
        ``"package.module.ClassName"``, e.g. ``"sklearn.linear_model.LogisticRegression"``.
    allowed_packages : iterable of str
        Top-level packages the user allows in addition to :data:`ALLOWED_PACKAGES` (their own code).
    where : str
        What the path configures, for the error message (e.g. ``"extra classifier 'logreg'"``).

    Returns
    -------
    type
        The class, not an instance.

    Raises
    ------
    ConfigError
        When the path is malformed, outside the allowed packages (nothing is imported then), cannot be
        imported, or names something other than a classifier class; the message names what is allowed.
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

"""Options of the response stage (:class:`ResponseConfig`)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import (
    Boolean, Constraint, Integer, Names, Number, checked_options, require, validate_fields, validated,
)
from benchirt.pool import DEFAULT_POOL, ExtraEstimator, resolve_pool


@dataclass(frozen=True, kw_only=True)
class ExtraClassifiers(Constraint):
    """``respond.extra``: in a config, a mapping name -> ``{estimator: dotted.path, params: {...}}``; on the config
    object, the :class:`~benchirt.pool.ExtraEstimator` entries it becomes (:meth:`ResponseConfig.from_dict`)."""

    def expected(self) -> str:
        return "a mapping name -> {estimator: dotted.path, params: {...}}"

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (list, tuple)) and all(isinstance(entry, ExtraEstimator) for entry in value)

    def normal(self, value: Any) -> Any:
        return tuple(value)

    def invalid_values(self) -> tuple[Any, ...]:
        return (3, ["sklearn.linear_model.LogisticRegression"])


@dataclass(frozen=True)
class ResponseConfig:
    """How responses are produced for one dataset (Cardoso et al. 2021 §4.3, with benchirt's corrections).

    Attributes
    ----------
    test_size, max_test : float, int
        Share of the labelled rows held out as test items (decodIRT: 0.3) and its cap (decodIRT: 500, Cardoso et al.
        2021 §4.4): the test part is a stratified draw of ``min(ceil(test_size * n), max_test)`` rows — ``ceil`` as
        scikit-learn's ``train_test_split`` rounds, which reproduces decodIRT's item counts — and every other row is
        training data (as in decodIRT).
    cv_folds : int
        Folds of the stratified cross-validation on the training part (decodIRT: 10).
    seed : int
        Seed of the split, the folds, every estimator's ``random_state``, the ladder and the artificial classifiers.
    ladder_epochs : int
        Rungs of the MLP epoch ladder (decodIRT: 100); 0 disables the ladder.
    pool : tuple of str
        Built-in real classifiers, by benchirt name (see :data:`benchirt.pool.REAL_CLASSIFIERS`).
    extra, allowed_packages : tuple of ExtraEstimator, tuple of str
        Further real classifiers by dotted import path; in YAML/dicts
        ``name: {estimator: "sklearn.linear_model.LogisticRegression", params: {...}, scale: true}``. Only classifier
        classes from sklearn, xgboost, lightgbm, catboost or the top-level packages (your own) of ``allowed_packages``
        (:func:`benchirt.pool.resolve_classifier_class`).
    artificial : bool
        Add the seven artificial classifiers.
    n_jobs : int
        joblib workers for the fits of one dataset (-1: all cores).
    max_train, max_cv_train : int or None
        When set, the training part (the rest is unused), and the part cross-validated (the final models still train on
        the whole training part), are stratified subsamples of at most this many rows. None: all.
    max_categories : int or None
        Most one-hot columns per nominal feature; rarer categories share one column.
    time_budget : float or None
        Seconds of fitting one real classifier may cost on one dataset (all its fits). When set, the first fold runs
        first; a classifier whose first fit, times its number of fits, exceeds the budget is left out of that dataset
        and recorded as skipped (``ResponseResult.sizes["skipped_classifiers"]``, notes, report). Which are skipped then
        depends on the machine's speed. None: no budget."""

    test_size: float = 0.3
    max_test: int = 500
    cv_folds: int = 10
    seed: int = 0
    ladder_epochs: int = 100
    pool: tuple[str, ...] = DEFAULT_POOL
    extra: tuple[ExtraEstimator, ...] = ()
    allowed_packages: tuple[str, ...] = ()
    artificial: bool = True
    n_jobs: int = 1
    max_train: int | None = None
    max_cv_train: int | None = None
    max_categories: int | None = 32
    time_budget: float | None = None

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "test_size": Number(above=0, below=1),
        "max_test": Integer(minimum=1),
        "cv_folds": Integer(minimum=2),
        "seed": Integer(),
        "ladder_epochs": Integer(minimum=0),
        "pool": Names(what="classifier names", empty=True),
        "extra": ExtraClassifiers(),
        "allowed_packages": Names(what="top-level package names", empty=True, identifiers=True),
        "artificial": Boolean(),
        "n_jobs": Integer(nonzero=True, meaning="-1: all cores"),
        "max_train": Integer(minimum=2, optional=True),
        "max_cv_train": Integer(minimum=2, optional=True),
        "max_categories": Integer(minimum=2, optional=True),
        "time_budget": Number(above=0, unit="seconds", optional=True),
    }

    def __post_init__(self) -> None:
        section = "respond"
        validate_fields(section, self, self.OPTIONS)
        for entry in self.extra:
            beyond = sorted(set(entry.allowed_packages) - set(self.allowed_packages))
            require(not beyond, section, "allowed_packages", list(self.allowed_packages),
                    f"a list naming {', '.join(beyond)} (allowed by classifier {entry.name!r})")
        resolve_pool(self.pool, extra=self.extra)  # unknown or duplicate names fail here, listing the known ones
        require(bool(self.pool or self.extra or self.ladder_epochs or self.artificial), section, "pool", list(self.pool),
                "at least one respondent: a pool, extra classifiers, ladder_epochs > 0 or artificial: true")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ResponseConfig":
        """Build from a plain mapping (a YAML section); ConfigError on unknown keys or bad values."""
        d = validated("respond", checked_options("respond", d, cls),
                      {key: cls.OPTIONS[key] for key in ("pool", "allowed_packages")})
        allowed = d.get("allowed_packages") or ()
        if isinstance(d.get("extra"), Mapping) or d.get("extra") is None:  # anything else: refused as declared
            extra = d.pop("extra", None) or {}
            d["extra"] = tuple(ExtraEstimator.from_dict(str(name), entry, allowed_packages=allowed)
                               for name, entry in extra.items())
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable form that :meth:`from_dict` reads back (for config hashing)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["pool"] = list(self.pool)
        d["allowed_packages"] = list(self.allowed_packages)
        d["extra"] = {e.name: {"estimator": e.estimator, "params": dict(e.params), "scale": e.scale} for e in self.extra}
        return d


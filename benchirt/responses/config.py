"""Options of the response stage (:class:`ResponseConfig`)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.options import (
    check_bool, check_integer, check_names, checked_options, is_integer, is_number, require,
)
from benchirt.pool import DEFAULT_POOL, ExtraEstimator, resolve_pool


@dataclass(frozen=True)
class ResponseConfig:
    """How responses are produced for one dataset (Cardoso et al. 2021 §4.3, with benchirt's corrections).

    Attributes
    ----------
    test_size : float
        Share of the labelled rows held out as test items (decodIRT: 0.3). The test part has
        ``min(ceil(test_size * n), max_test)`` rows — ``ceil`` as scikit-learn's ``train_test_split``
        rounds, which reproduces decodIRT's item counts (e.g. 231 items for diabetes' 768 rows).
    max_test : int
        Cap on the number of test items (decodIRT: 500, Cardoso et al. 2021 §4.4). The capped test part is a
        stratified draw of ``max_test`` rows; every other row is training data (as in decodIRT).
    cv_folds : int
        Folds of the stratified cross-validation on the training part (decodIRT: 10).
    seed : int
        Seed of the split, the folds, every estimator's ``random_state``, the ladder and the artificial
        classifiers.
    ladder_epochs : int
        Rungs of the MLP epoch ladder (decodIRT: 100); 0 disables the ladder.
    pool : tuple of str
        Built-in real classifiers, by benchirt name (see :data:`benchirt.pool.REAL_CLASSIFIERS`).
    extra : tuple of ExtraEstimator
        Further real classifiers by dotted import path; in YAML/dicts a mapping
        ``name: {estimator: "sklearn.linear_model.LogisticRegression", params: {...}, scale: true}``.
        Each class is checked before it is built (:func:`benchirt.pool.resolve_classifier_class`):
        only classifier classes from sklearn, xgboost, lightgbm, catboost or ``allowed_packages``.
    allowed_packages : tuple of str
        Further top-level packages (your own) whose classifier classes ``extra`` may name.
    artificial : bool
        Add the seven artificial classifiers.
    n_jobs : int
        joblib workers for the fits of one dataset (-1: all cores).
    max_train : int or None
        When set, the training part is a stratified subsample of at most this many rows (for data far
        beyond 100k rows); the rest is unused. None: use all.
    max_cv_train : int or None
        When set, cross-validation runs on a stratified subsample of at most this many training rows;
        the final models still train on the whole training part. None: cross-validate on all of it.
    max_categories : int or None
        Most one-hot columns per nominal feature; rarer categories share one column.
    time_budget : float or None
        Seconds of fitting one real classifier may cost on one dataset (all its cross-validation and
        final fits). When set, the first cross-validation fold runs before the others; a classifier
        whose first fit, times its number of fits, exceeds the budget is left out of that dataset and
        recorded as skipped (``ResponseResult.sizes["skipped_classifiers"]``, the notes and the
        report). Which classifiers are skipped then depends on the machine's speed. None: no budget.
    """

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "pool", tuple(self.pool))
        object.__setattr__(self, "extra", tuple(self.extra))
        object.__setattr__(self, "allowed_packages", tuple(self.allowed_packages))
        section = "respond"
        require(is_number(self.test_size) and 0.0 < self.test_size < 1.0, section, "test_size", self.test_size,
                "a number strictly between 0 and 1")
        check_integer(section, "max_test", self.max_test, 1)
        check_integer(section, "cv_folds", self.cv_folds, 2)
        check_integer(section, "seed", self.seed)
        check_integer(section, "ladder_epochs", self.ladder_epochs, 0)
        require(is_integer(self.n_jobs) and self.n_jobs != 0, section, "n_jobs", self.n_jobs,
                "a non-zero integer (-1: all cores)")
        check_integer(section, "max_train", self.max_train, 2, optional=True)
        check_integer(section, "max_cv_train", self.max_cv_train, 2, optional=True)
        check_integer(section, "max_categories", self.max_categories, 2, optional=True)
        require(self.time_budget is None or (is_number(self.time_budget) and self.time_budget > 0), section,
                "time_budget", self.time_budget, "null or a number of seconds > 0")
        check_bool(section, "artificial", self.artificial)
        for entry in self.extra:
            require(isinstance(entry, ExtraEstimator), section, "extra", entry, "ExtraEstimator entries")
            beyond = sorted(set(entry.allowed_packages) - set(self.allowed_packages))
            require(not beyond, section, "allowed_packages", list(self.allowed_packages),
                    f"a list naming {', '.join(beyond)} (allowed by classifier {entry.name!r})")
        resolve_pool(self.pool, self.extra)  # unknown or duplicate names fail here, listing the known ones
        require(bool(self.pool or self.extra or self.ladder_epochs or self.artificial), section, "pool", list(self.pool),
                "at least one respondent: a pool, extra classifiers, ladder_epochs > 0 or artificial: true")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ResponseConfig":
        """Build from a plain mapping (a YAML section); ConfigError on unknown keys or bad values."""
        d = checked_options("respond", d, cls)
        if "pool" in d:
            d["pool"] = check_names("respond", "pool", d["pool"], "classifier names", empty=True)
        allowed = check_names("respond", "allowed_packages", d.get("allowed_packages") or (),
                              "top-level package names", empty=True)
        require(all(name.isidentifier() for name in allowed), "respond", "allowed_packages", allowed,
                "a list of top-level package names")
        d["allowed_packages"] = allowed
        if "extra" in d:
            extra = d["extra"] or {}
            require(isinstance(extra, Mapping), "respond", "extra", extra,
                    "a mapping name -> {estimator: dotted.path, params: {...}}")
            d["extra"] = tuple(ExtraEstimator.from_dict(str(name), entry, allowed) for name, entry in extra.items())
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable form that :meth:`from_dict` reads back (for config hashing)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["pool"] = list(self.pool)
        d["allowed_packages"] = list(self.allowed_packages)
        d["extra"] = {e.name: {"estimator": e.estimator, "params": dict(e.params), "scale": e.scale} for e in self.extra}
        return d


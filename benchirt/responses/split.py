"""Split rules of the response stage: stratified test draw with a cap, subsamples, cross-validation folds.

Cardoso et al. 2021 §4.3: a stratified 70/30 split whose test part has at most 500 instances. The test part has
``n_test = min(ceil(test_size * n), max_test)`` rows drawn in one stratified draw (scikit-learn's ``train_test_split``
with an integer ``test_size``), and **every other row is training data**, as in decodIRT: the cap fixes the test items
either way, and discarding the surplus would only weaken every model. :attr:`ResponseConfig.max_train` and
``max_cv_train`` cap the training and cross-validation parts by further stratified draws.

Degenerate class counts never stop a run:

- a class with a single row stays in training (noted);
- when the draw is too small to hold one row of every class (or leaves too few for training), it falls back to an
  unstratified shuffle (noted);
- cross-validation uses ``StratifiedKFold(min(cv_folds, largest class count))``; classes with fewer training rows than
  folds are absent from some validation folds (noted).

A dataset with a single class, or too few rows to train and test at all, raises :class:`DataError` (the pipeline records
it as skipped)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split

from benchirt.errors import DataError


@dataclass
class Split:
    """Positions (into the array that was split) of the two parts, and notes on any fallback."""

    train: np.ndarray
    test: np.ndarray
    notes: list[str] = field(default_factory=list)


def n_test_items(n: int, test_size: float, max_test: int) -> int:
    """``min(ceil(test_size * n), max_test)``, the product rounded to 9 decimals first so that 0.3 * 10 stays 3 (its
    float's ceiling is 4)."""
    return min(math.ceil(round(test_size * n, 9)), max_test)


def stratified_draw(y: np.ndarray, size: int, seed: int, *, what: str = "draw") -> Split:
    """Draw ``size`` positions of ``y`` stratified by class; the drawn rows are ``test``, the rest ``train``.

    Parameters
    ----------
    y : numpy.ndarray, shape (n,)
        Class codes.
    size : int
        Rows to draw, 0 <= size < n.
    seed : int
        ``random_state`` of the draw.
    what : str
        Name of the draw in notes.

    Returns
    -------
    Split
        Both parts sorted ascending. Rows of a class with a single member are never drawn."""
    y = np.asarray(y)
    n = len(y)
    if size <= 0:
        return Split(np.arange(n), np.array([], dtype=int))
    notes: list[str] = []
    classes, counts = np.unique(y, return_counts=True)
    single = classes[counts == 1]
    eligible = np.flatnonzero(~np.isin(y, single)) if len(single) else np.arange(n)
    if len(single):
        notes.append(f"{what}: {len(single)} class(es) with a single row kept out of the draw (training only)")
    size = min(size, len(eligible) - 1)
    if size <= 0:
        return Split(np.arange(n), np.array([], dtype=int), notes)
    n_classes = len(classes) - len(single)
    if size >= n_classes and len(eligible) - size >= n_classes:
        _, drawn = train_test_split(eligible, test_size=size, stratify=y[eligible], random_state=seed)
    else:
        notes.append(
            f"{what}: {size} rows cannot hold every one of {n_classes} classes on both sides; drew without stratification"
        )
        drawn = np.random.default_rng(seed).choice(eligible, size=size, replace=False)
    drawn = np.sort(drawn)
    return Split(np.setdiff1d(np.arange(n), drawn), drawn, notes)


def split_train_test(y: np.ndarray, test_size: float, max_test: int, seed: int, *, dataset: str = "dataset") -> Split:
    """The response stage's train/test split of labelled rows (rules in the module docstring); ``y`` holds their class
    codes. Raises :class:`DataError` for a single-class dataset, or when no row can be held out for testing."""
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) < 2:
        raise DataError(
            f"dataset {dataset!r} has a single class ({len(y)} labelled rows): a classifier's answers carry no "
            "information there; remove it from the suite"
        )
    requested = n_test_items(len(y), test_size, max_test)
    split = stratified_draw(y, requested, seed, what="test split")
    if len(split.test) == 0:
        raise DataError(
            f"dataset {dataset!r}: every class has a single row ({len(y)} rows), so no row can be held out "
            "for testing; the target looks like an identifier — check the target column"
        )
    if len(split.test) < requested:
        split.notes.append(f"test split: {len(split.test)} test rows instead of {requested}")
    if len(np.unique(y[split.train])) < 2:
        raise DataError(
            f"dataset {dataset!r}: the training part has a single class after the split ({len(y)} rows); "
            "the dataset is too small for the response stage"
        )
    return split


def cv_folds(y: np.ndarray, n_folds: int, seed: int, *,
             dataset: str = "dataset") -> tuple[list[tuple[np.ndarray, np.ndarray]], list[str]]:
    """Stratified ``n_folds``-fold cross-validation of the training part (decodIRT: 10 folds, Cardoso et al. 2021 §4.3).

    Parameters
    ----------
    y : numpy.ndarray, shape (n_train,)
        Class codes of the training rows.

    Returns
    -------
    (list of (numpy.ndarray, numpy.ndarray), list of str)
        ``(fit positions, validation positions)`` per fold, and notes on reduced folds or rare classes.

    Raises
    ------
    DataError
        When no class has two training rows (no fold can be validated)."""
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    k = min(n_folds, int(counts.max()))
    if k < 2:
        raise DataError(
            f"dataset {dataset!r}: {len(y)} training rows, no class with two of them; cannot cross-validate"
        )
    notes = []
    if k < n_folds:
        notes.append(f"cross-validation: {k} folds instead of {n_folds} (largest class has {counts.max()} training rows)")
    rare = int((counts < k).sum())
    if rare:
        notes.append(f"cross-validation: {rare} class(es) with fewer training rows than the {k} folds; some folds do not validate them")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the rare-class warning, recorded above instead
        folds = list(StratifiedKFold(k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))
    return folds, notes

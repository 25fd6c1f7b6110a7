"""One dataset's response work cut into tasks: its preparation, its fit units, their results folded in.

:func:`prepare` cleans, splits, subsamples and folds (:mod:`benchirt.responses.split`) and keeps only the rows some fit
uses, so that the tasks travel small. :class:`FitPlan` cuts the fits into :class:`FitUnit` tasks (:func:`plan_units`),
hands them out and folds their results in — in the plan's fixed order, never the order they finished. With one thread
per native pool (:func:`benchirt.threads.one_thread`), the response matrix is the same bit for bit however the units
ran: in one process, on joblib workers (:func:`benchirt.responses.respond`) or spread over a cluster by the pipeline's
executor (:mod:`benchirt.pipeline.fits`)."""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchirt.data import Dataset
from benchirt.pool import LadderRun, RealClassifier, ladder_predictions
from benchirt.preprocess import clean_features, transform_pair
from benchirt.responses.config import ResponseConfig
from benchirt.responses.split import cv_folds, split_train_test, stratified_draw
from benchirt.threads import one_thread

#: One classifier's result in a fit unit: ``(predicted codes, None, seconds)`` or ``(None, error, seconds)``.
MemberResult = tuple[np.ndarray | None, str | None, float]


@dataclass(kw_only=True)
class Rows:
    """Cleaned features, class codes and the row positions of every part of one dataset. After :func:`prepare` the frame
    holds only the rows some fit uses (``positions`` maps them back to the dataset's rows); ``train``, ``test`` and
    ``cv_rows`` index that frame."""

    X: pd.DataFrame
    codes: np.ndarray          # class code per row, -1 where the label is missing
    label_names: np.ndarray    # class code -> label string
    train: np.ndarray          # positions of the training part (final fits, ladder, artificial)
    test: np.ndarray           # positions of the test items
    cv_rows: np.ndarray        # positions cross-validated (the training part or its subsample)
    folds: list                # (fit, validate) index pairs into cv_rows
    notes: list[str]
    labelled: int = 0          # rows with a label
    train_rows: int = 0        # size of the training part before max_train
    positions: np.ndarray | None = None  # row of the dataset of each row of X (None: X has every row)

    @property
    def test_positions(self) -> np.ndarray:
        """The test items' row positions in the dataset (their item ids)."""
        return self.test.copy() if self.positions is None else self.positions[self.test]


@dataclass
class PreparedDataset:
    """What every fit task of one dataset needs: its planned :class:`Rows` and the dataset's metadata."""

    name: str
    rows: Rows
    metadata: dict


def plan_rows(dataset: Dataset, config: ResponseConfig, *, test_rows: np.ndarray | None = None) -> Rows:
    """Clean the features, split, subsample and fold (rules in :mod:`benchirt.responses.split`). ``test_rows`` (row
    positions in the dataset) fixes the test items instead of the stratified draw, every other labelled row training
    (:mod:`benchirt.stored_runs.beside`)."""
    name = dataset.name
    X, notes = clean_features(dataset.X, dataset=name)
    labels = dataset.y.reset_index(drop=True)
    labelled = np.flatnonzero(labels.notna().to_numpy())
    if len(labelled) < len(labels):
        notes.append(f"left out {len(labels) - len(labelled)} row(s) with a missing label")
    codes = labels.cat.codes.to_numpy().astype(np.int64)

    if test_rows is None:
        split = split_train_test(codes[labelled], config.test_size, config.max_test, config.seed, dataset=name)
        notes += split.notes
        train, test = labelled[split.train], labelled[split.test]
    else:
        test = np.asarray(test_rows, dtype=np.int64)
        train = np.setdiff1d(labelled, test)
    train_rows = len(train)
    if config.max_train is not None and len(train) > config.max_train:
        kept = _subsample(codes, train, config.max_train, config.seed, "training subsample", notes)
        notes.append(f"trained on a stratified subsample of {len(kept)} of the {len(train)} training rows")
        train = kept
    cv_rows = train
    if config.max_cv_train is not None and len(train) > config.max_cv_train:
        cv_rows = _subsample(codes, train, config.max_cv_train, config.seed, "cross-validation subsample", notes)
        notes.append(f"cross-validated on a stratified subsample of {len(cv_rows)} of the {len(train)} training rows")
    folds, fold_notes = cv_folds(codes[cv_rows], config.cv_folds, config.seed, dataset=name)
    label_names = np.array([str(c) for c in labels.cat.categories], dtype=object)
    return Rows(X=X, codes=codes, label_names=label_names, train=train, test=test, cv_rows=cv_rows, folds=folds,
                notes=notes + fold_notes, labelled=len(labelled), train_rows=train_rows)


def prepare(dataset: Dataset, config: ResponseConfig, *, test_rows: np.ndarray | None = None) -> PreparedDataset:
    """Plan one dataset's rows (:func:`plan_rows`) and keep only the rows a fit uses. A fit's preprocessing sees only
    its own rows (:func:`benchirt.preprocess.transform_pair`), so dropping the unused ones (beyond ``max_train``,
    unlabelled) changes no result; at most ``max_train + max_test`` rows remain."""
    rows = plan_rows(dataset, config, test_rows=test_rows)
    used = np.unique(np.concatenate([rows.train, rows.test, rows.cv_rows]))
    if len(used) < len(rows.X):
        rows.X = rows.X.iloc[used].reset_index(drop=True)
        rows.codes = rows.codes[used]
        rows.train, rows.test, rows.cv_rows = (np.searchsorted(used, part) for part in (rows.train, rows.test, rows.cv_rows))
        rows.positions = used
    return PreparedDataset(dataset.name, rows, dataset.metadata())


@dataclass(kw_only=True, frozen=True)
class FitUnit:
    """One task of a dataset's fits: ``index``, its position in the plan's fixed order (the order results are folded
    in); ``kind``, ``"fold"`` (a cross-validation fold, number ``fold``, 0-based; else -1), ``"final"`` (the final
    fit on the training part, answering the test items) or ``"ladder"`` (the MLP epoch ladder); ``scale``, the
    members' preprocessing kind (standardised numeric columns or not); ``members``, the real classifiers fitted (none
    for the ladder)."""

    index: int
    kind: str
    fold: int = -1
    scale: bool = False
    members: tuple = ()

    @property
    def fits(self) -> int:
        """Progress units: one per (classifier, fit), one for the ladder."""
        return 1 if self.kind == "ladder" else len(self.members)

    @property
    def label(self) -> str:
        """``fold 3 (scaled)``, ``final fit (unscaled)`` or ``MLP ladder`` (for messages)."""
        if self.kind == "ladder":
            return "MLP ladder"
        what = f"fold {self.fold + 1}" if self.kind == "fold" else "final fit"
        return f"{what} ({'scaled' if self.scale else 'unscaled'})"


def run_unit(prepared: PreparedDataset, unit: FitUnit, config: ResponseConfig) -> LadderRun | dict[str, MemberResult]:
    """Run one unit: a :class:`~benchirt.pool.LadderRun` for the ladder, else ``name -> (predicted, error, seconds)``.
    See :func:`fit_predict` for the fits' return values."""
    rows = prepared.rows
    if unit.kind == "ladder":
        X_train, X_test = transform_pair(rows.X, rows.train, rows.test, scale=True, max_categories=config.max_categories)
        with one_thread():
            return ladder_predictions(X_train, rows.codes[rows.train], X_test, epochs=config.ladder_epochs, seed=config.seed)
    fit_rows, predict_rows = _part(rows, unit)
    return fit_predict(rows.X, rows.codes, fit_rows, predict_rows, list(unit.members), config)


def _part(rows: Rows, unit: FitUnit) -> tuple[np.ndarray, np.ndarray]:
    """(fit rows, predict rows) of a fold or final unit."""
    if unit.kind == "final":
        return rows.train, rows.test
    fit, validate = rows.folds[unit.fold]
    return rows.cv_rows[fit], rows.cv_rows[validate]


def fit_predict(
    X: pd.DataFrame, codes: np.ndarray, fit_rows: np.ndarray, predict_rows: np.ndarray,
    members: list[RealClassifier], config: ResponseConfig,
) -> dict[str, MemberResult]:
    """Fit every member on ``fit_rows`` (one shared preprocessing) and predict ``predict_rows``. Returns
    ``name -> (predicted codes, None, seconds)`` or ``name -> (None, error message, seconds)``, ``seconds`` being the
    wall time of that member's fit and prediction. A part with a single class is answered with that class."""
    X_fit, X_predict = transform_pair(X, fit_rows, predict_rows, scale=members[0].scale, max_categories=config.max_categories)
    y_fit = codes[fit_rows]
    if len(np.unique(y_fit)) == 1:
        return {spec.name: (np.full(len(predict_rows), y_fit[0]), None, 0.0) for spec in members}
    out: dict[str, MemberResult] = {}
    with warnings.catch_warnings(), one_thread():
        warnings.simplefilter("ignore")  # convergence and similar warnings of default hyper-parameters
        for spec in members:
            start = time.perf_counter()
            try:
                model = spec.build(config.seed).fit(X_fit, y_fit)
                out[spec.name] = (np.asarray(model.predict(X_predict)).astype(np.int64), None, time.perf_counter() - start)
            except Exception as exc:  # noqa: BLE001 — any estimator failure leaves that classifier out, noted
                out[spec.name] = (None, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    return out


@dataclass(kw_only=True)
class FitOutputs:
    """The fits' results of one dataset, folded in the plan's order."""

    fold_accuracy: dict[str, list[float]]        # real classifier -> accuracy per fold, in fold order
    test_predictions: dict[str, np.ndarray]      # real classifier -> predicted codes of the test items
    failed: dict[str, str]                       # real classifier -> first error
    ladder: LadderRun | None
    over_budget: dict[str, str] = field(default_factory=dict)  # real classifier -> why the budget left it out


def plan_units(pool, n_folds: int, ladder_epochs: int) -> tuple[list[FitUnit], list[FitUnit]]:
    """A dataset's fit units in the plan's fixed order, as (first folds, the rest): the one rule for the fits
    (:class:`FitPlan`) and for ``benchirt run --estimate`` (:func:`benchirt.pipeline.estimate.response_cost`).

    Pure: it depends on ``pool``'s names and ``scale`` (the real classifiers in row order,
    :func:`benchirt.pool.resolve_pool`), ``n_folds`` and ``ladder_epochs`` (0: no ladder), never on the data. Order: the
    first fold of each preprocessing kind that has members (unscaled, then scaled; timed first under a ``time_budget``),
    then the MLP ladder, then each kind's other folds and its final fit."""
    first, rest = [], []
    if ladder_epochs:
        rest.append(("ladder", -1, False, ()))
    for scale in (False, True):
        members = tuple(spec for spec in pool if spec.scale == scale)
        if members:
            first.append(("fold", 0, scale, members))
            rest += [("fold", k, scale, members) for k in range(1, n_folds)] + [("final", -1, scale, members)]
    return ([FitUnit(index=i, kind=kind, fold=fold, scale=scale, members=members)
             for i, (kind, fold, scale, members) in enumerate(first)],
            [FitUnit(index=len(first) + i, kind=kind, fold=fold, scale=scale, members=members)
             for i, (kind, fold, scale, members) in enumerate(rest)])


def over_budget(first_seconds: dict[str, float], n_fits: int, time_budget: float) -> dict[str, str]:
    """The time-budget rule: a classifier whose first fit took ``seconds``, times its ``n_fits`` fits (folds and final),
    more than ``time_budget`` is left out; ``name -> why``, in ``first_seconds``'s order. Used on measured seconds
    (:class:`FitPlan`) and on predicted ones (the estimate)."""
    return {clf: (f"time budget: its first fit took {seconds:.1f} s, so its {n_fits} fits would take "
                  f"about {seconds * n_fits:.0f} s > time_budget {time_budget:g} s")
            for clf, seconds in first_seconds.items() if seconds * n_fits > time_budget}


def release(held: list[FitUnit], left_out) -> list[FitUnit]:
    """The held units without the classifiers ``left_out`` (names); a unit left with no member is dropped (the ladder is
    always kept). Indices are kept, so results still fold in the plan's order."""
    released = []
    for unit in held:
        members = tuple(m for m in unit.members if m.name not in left_out)
        if unit.kind == "ladder" or members:
            released.append(FitUnit(index=unit.index, kind=unit.kind, fold=unit.fold, scale=unit.scale, members=members))
    return released


class FitPlan:
    """The fit units of one prepared dataset (in :func:`plan_units`'s order), handed out as they become runnable, and
    their results; ``ladder``: include the MLP ladder (when ``config.ladder_epochs`` > 0).

    Without a ``time_budget`` every unit is runnable at once. With one, the first folds run first; then the classifiers
    :func:`over_budget` names are left out of the other units (:func:`release`; :attr:`FitOutputs.over_budget`), which
    are released."""

    def __init__(self, prepared: PreparedDataset, pool: list[RealClassifier], config: ResponseConfig,
                 ladder: bool = True) -> None:
        self.prepared, self.pool, self.config = prepared, list(pool), config
        self.n_fits = len(prepared.rows.folds) + 1
        self._first, rest_units = plan_units(self.pool, len(prepared.rows.folds),
                                             config.ladder_epochs if ladder else 0)
        if config.time_budget is None or not self._first:  # nothing to time: every unit runs at once
            self._ready, self._held = self._first + rest_units, []
        else:
            self._ready, self._held = list(self._first), rest_units
        self._units = {unit.index: unit for unit in self._first + rest_units}
        self._results: dict[int, LadderRun | dict[str, MemberResult]] = {}
        self.over_budget: dict[str, str] = {}

    def take(self) -> list[FitUnit]:
        """The units runnable now that were not handed out before (each unit is handed out once)."""
        ready, self._ready = self._ready, []
        return ready

    def record(self, unit: FitUnit, value: LadderRun | dict[str, MemberResult]) -> None:
        """Store a unit's result; when it completes the first folds under a budget, release the others."""
        self._results[unit.index] = value
        if self._held and all(first.index in self._results for first in self._first):
            # plan order: the notes list the skipped classifiers in pool order by kind
            firsts = [self._results[first.index] for first in self._first]
            first_seconds = {clf: seconds for result in firsts if not isinstance(result, LadderRun)
                             for clf, (_, _, seconds) in result.items()}
            assert self.config.time_budget is not None  # units are held back only under a time budget
            self.over_budget = over_budget(first_seconds, self.n_fits, self.config.time_budget)
            released = release(self._held, self.over_budget)
            for held in self._held:
                del self._units[held.index]
            self._units.update((unit.index, unit) for unit in released)
            self._ready += released
            self._held = []

    @property
    def finished(self) -> bool:
        """Every unit has a result (none is held back, none is waiting to be handed out or running)."""
        return not self._held and not self._ready and len(self._results) == len(self._units)

    def progress(self) -> tuple[int, int]:
        """(fits done, fits planned) in progress units (:attr:`FitUnit.fits`)."""
        done = sum(self._units[i].fits for i in self._results)
        return done, sum(unit.fits for unit in self._units.values())

    def outputs(self) -> FitOutputs:
        """The results folded in the plan's unit order (whatever order the units finished in)."""
        rows = self.prepared.rows
        outputs = FitOutputs(fold_accuracy={spec.name: [] for spec in self.pool}, test_predictions={}, failed={},
                             ladder=None, over_budget=dict(self.over_budget))
        for index in sorted(self._results):
            unit, result = self._units[index], self._results[index]
            if isinstance(result, LadderRun):  # the ladder unit's
                outputs.ladder = result
                continue
            _, predict_rows = _part(rows, unit)
            for clf, (predicted, error, _) in result.items():
                if predicted is None:  # failed: ``error`` says why (fit_predict)
                    outputs.failed.setdefault(clf, f"{unit.kind} fit: {error}")
                elif unit.kind == "fold":
                    outputs.fold_accuracy[clf].append(float(np.mean(predicted == rows.codes[predict_rows])))
                else:
                    outputs.test_predictions[clf] = predicted
        return outputs


def _subsample(codes: np.ndarray, rows: np.ndarray, size: int, seed: int, what: str, notes: list[str]) -> np.ndarray:
    """A stratified subsample of ``size`` of ``rows`` (single-row classes always kept)."""
    draw = stratified_draw(codes[rows], len(rows) - size, seed, what=what)
    notes += draw.notes
    return rows[draw.train]

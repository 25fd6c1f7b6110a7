"""The response stage: every respondent's 0/1 answers on one dataset's test items (seed 003 §4.3).

Per dataset: a stratified train/test split (:mod:`benchirt.responses.split`), stratified 10-fold
cross-validation accuracy of every real classifier on the training part, the real classifiers refitted
on the whole training part to answer the test items (decodIRT answered them with the model of its last
cross-validation fold, fitted on 90 % of the training part), the MLP epoch ladder from one training
(:mod:`benchirt.pool.ladder`), and the artificial classifiers (:mod:`benchirt.pool.artificial`).

Work is cut into tasks of one (preprocessing kind, fold) each: the preprocessor is fitted once per fold
and scaling kind (:mod:`benchirt.preprocess`) and shared by every model of that kind, and joblib runs the
tasks in parallel. Each task runs every BLAS and OpenMP pool with one thread (:func:`benchirt.threads.one_thread`):
its matrices are small (an MLP batch is 200 rows), parallelism comes from the tasks, multi-threaded BLAS
spin-waiting on a busy machine multiplied the CPU time of a credit-g run by up to 8 in our measurements,
and the number of OpenMP threads changes how k-nearest-neighbour search breaks distance ties. Results
do not depend on ``n_jobs``, the executor or the machine's cores: every estimator gets ``random_state=seed``
and one thread.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from benchirt.data import Dataset
from benchirt.errors import ConfigError, DataError
from benchirt.pool import (
    ROLES,
    LadderRun,
    RealClassifier,
    artificial_predictions,
    ladder_name,
    ladder_predictions,
    resolve_pool,
)
from benchirt.preprocess import clean_features, transform_pair
from benchirt.responses.config import ResponseConfig
from benchirt.responses.split import cv_folds, split_train_test, stratified_draw
from benchirt.threads import one_thread


@dataclass
class ResponseResult:
    """One dataset's responses (rows = respondents, columns = test items).

    Attributes
    ----------
    dataset : str
        Dataset name.
    responses : pandas.DataFrame, shape (n_respondents, n_test), int8
        1 where the respondent classified the test item correctly. Index: classifier names (real in pool
        order, then ``mlp_epoch_001…``, then the artificial ones); columns: test-item ids, the item's row
        position in the dataset as a string.
    roles : pandas.Series, shape (n_respondents,)
        Role of each respondent, one of ``ROLES`` = ("real", "ladder", "artificial").
    predictions : pandas.DataFrame, shape (n_respondents, n_test)
        Predicted labels (as strings), same index and columns as ``responses``.
    cv_accuracy : pandas.Series
        Mean accuracy over the cross-validation folds of the training part, real classifiers only.
    test_accuracy : pandas.Series
        Accuracy on the test items, every respondent (the row means of ``responses``).
    metadata : dict
        :meth:`benchirt.data.Dataset.metadata` of the whole dataset.
    test_index : numpy.ndarray, shape (n_test,)
        Row positions of the test items in the dataset.
    notes : list of str
        Everything the stage adapted on this dataset (dropped columns or rows, fallbacks of the split or
        the folds, classifiers that failed and were left out).
    sizes : dict
        The size policy as applied: ``rows`` (labelled rows), ``test_rows``, ``train_rows`` (the
        training part before any cap), ``train_used`` (rows the final models and the ladder trained
        on: ``max_train`` applied), ``cv_rows`` (rows cross-validated: ``max_cv_train`` applied),
        ``max_train``, ``max_cv_train``, ``time_budget`` and ``skipped_classifiers`` (name -> why it was
        left out by the time budget).
    """

    dataset: str
    responses: pd.DataFrame
    roles: pd.Series
    predictions: pd.DataFrame
    cv_accuracy: pd.Series
    test_accuracy: pd.Series
    metadata: dict
    test_index: np.ndarray
    notes: list[str] = field(default_factory=list)
    sizes: dict = field(default_factory=dict)


def respond(dataset: Dataset, config: ResponseConfig | None = None, show_progress: bool = False,
            on_progress: Callable[[int, int], None] | None = None) -> ResponseResult:
    """Produce the response matrix of one dataset (seed 003 §4.3).

    Parameters
    ----------
    dataset : benchirt.data.Dataset
        Features and labels; rows with a missing label are left out (noted).
    config : ResponseConfig, optional
        Split, folds, pool, seed and parallelism; default ``ResponseConfig()`` (decodIRT's protocol).
    show_progress : bool
        Show a tqdm bar over the fits: one step per (classifier, cross-validation fold or final fit),
        one for the MLP ladder.
    on_progress : callable, optional
        Called as ``on_progress(done, total)`` in those units after every task (how a worker process
        reports its progress to the pipeline, :mod:`benchirt.pipeline.progress`).

    Returns
    -------
    ResponseResult

    Raises
    ------
    DataError
        When the dataset cannot yield responses (a single class, no usable feature, too few rows);
        the pipeline records it as a skipped dataset.
    """
    config = config or ResponseConfig()
    rows = _plan_rows(dataset, config)
    pool = resolve_pool(config.pool, config.extra)
    outputs = _run_fits(rows, pool, config, show_progress, desc=f"responses {dataset.name}", on_progress=on_progress)

    failed = outputs.failed
    rows.notes += [f"left out classifier {clf!r}: {error}" for clf, error in failed.items()]
    rows.notes += [f"skipped classifier {clf!r}: {why}" for clf, why in outputs.over_budget.items()]
    real_names = [spec.name for spec in pool if spec.name not in failed and spec.name not in outputs.over_budget]
    predicted = {clf: outputs.test_predictions[clf] for clf in real_names}
    roles = dict.fromkeys(real_names, "real")
    if outputs.ladder is not None:
        if outputs.ladder.epochs_trained < config.ladder_epochs:
            rows.notes.append(
                f"ladder: the MLP converged after {outputs.ladder.epochs_trained} epochs; later rungs repeat that model"
            )
        rungs = {ladder_name(k + 1): outputs.ladder.predictions[k] for k in range(config.ladder_epochs)}
        predicted.update(rungs)
        roles.update(dict.fromkeys(rungs, "ladder"))
    if config.artificial:
        artificial = artificial_predictions(rows.codes[rows.train], rows.codes[rows.test], config.seed)
        predicted.update(artificial)
        roles.update(dict.fromkeys(artificial, "artificial"))
    if not predicted:
        raise DataError(
            f"dataset {dataset.name!r}: no respondent is left (every real classifier failed, and neither ladder nor "
            f"artificial classifiers are configured): {'; '.join(failed.values())}"
        )

    index = pd.Index(list(predicted), name="classifier")
    items = pd.Index([str(position) for position in rows.test], name="item")
    predicted_codes = np.vstack([predicted[clf] for clf in index])
    responses = pd.DataFrame((predicted_codes == rows.codes[rows.test]).astype(np.int8), index=index, columns=items)
    cv_accuracy = {clf: float(np.mean(outputs.fold_accuracy[clf])) for clf in real_names}
    return ResponseResult(
        dataset=dataset.name,
        responses=responses,
        roles=pd.Series(roles, name="role").reindex(index),
        predictions=pd.DataFrame(rows.label_names[predicted_codes], index=index, columns=items),
        cv_accuracy=pd.Series(cv_accuracy, name="cv_accuracy", dtype=float),
        test_accuracy=responses.mean(axis=1).astype(float).rename("test_accuracy"),
        metadata=dataset.metadata(),
        test_index=rows.test.copy(),
        notes=rows.notes,
        sizes={"rows": int(rows.labelled), "test_rows": len(rows.test), "train_rows": int(rows.train_rows),
               "train_used": len(rows.train), "cv_rows": len(rows.cv_rows), "max_train": config.max_train,
               "max_cv_train": config.max_cv_train, "time_budget": config.time_budget,
               "skipped_classifiers": dict(outputs.over_budget)},
    )


def respond_more(dataset: Dataset, config: ResponseConfig, classifiers: Sequence[RealClassifier],
                 test_index: np.ndarray) -> ResponseResult:
    """Responses of more classifiers on the split a finished response stage stored (``benchirt add``).

    The rows are planned exactly as :func:`respond` planned them (same cleaning, split, subsamples,
    folds and preprocessing, all determined by ``config`` and the data), and the planned test items
    must be the stored ones: anything else means the data or the options changed since the run.
    Only ``classifiers`` are trained (10-fold CV accuracy and the final fit on the training part);
    no ladder, no artificial classifiers.

    Parameters
    ----------
    dataset : benchirt.data.Dataset
    config : ResponseConfig
        The run's response options.
    classifiers : sequence of RealClassifier
    test_index : numpy.ndarray
        ``ResponseResult.test_index`` of the stored result.

    Returns
    -------
    ResponseResult
        Rows = the classifiers that could be fitted (role ``real``); ``notes`` names the others.

    Raises
    ------
    DataError
        The split drawn now differs from the stored one.
    """
    rows = _plan_rows(dataset, config)
    if not np.array_equal(rows.test, np.asarray(test_index)):
        raise DataError(
            f"dataset {dataset.name!r}: its test items drawn now differ from the stored split "
            f"({len(rows.test)} vs {len(test_index)} items); the data or the response options changed since the run"
        )
    outputs = _run_fits(rows, list(classifiers), config, False, desc=f"add {dataset.name}")
    names = [spec.name for spec in classifiers if spec.name not in outputs.failed and spec.name not in outputs.over_budget]
    notes = [f"left out classifier {clf!r}: {error}" for clf, error in outputs.failed.items()]
    notes += [f"skipped classifier {clf!r}: {why}" for clf, why in outputs.over_budget.items()]
    index = pd.Index(names, name="classifier")
    items = pd.Index([str(position) for position in rows.test], name="item")
    codes = np.vstack([outputs.test_predictions[clf] for clf in names]) if names else np.zeros((0, len(rows.test)), int)
    responses = pd.DataFrame((codes == rows.codes[rows.test]).astype(np.int8), index=index, columns=items)
    return ResponseResult(
        dataset=dataset.name,
        responses=responses,
        roles=pd.Series("real", index=index, name="role"),
        predictions=pd.DataFrame(rows.label_names[codes], index=index, columns=items),
        cv_accuracy=pd.Series({clf: float(np.mean(outputs.fold_accuracy[clf])) for clf in names}, name="cv_accuracy",
                              dtype=float),
        test_accuracy=responses.mean(axis=1).astype(float).rename("test_accuracy"),
        metadata=dataset.metadata(),
        test_index=rows.test.copy(),
        notes=notes,
    )


@dataclass
class _Rows:
    """Cleaned features, class codes and the row positions of every part of one dataset."""

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


def _plan_rows(dataset: Dataset, config: ResponseConfig) -> _Rows:
    """Clean the features, split, subsample and fold (rules in :mod:`benchirt.responses.split`)."""
    name = dataset.name
    X, notes = clean_features(dataset.X, name)
    labels = dataset.y.reset_index(drop=True)
    labelled = np.flatnonzero(labels.notna().to_numpy())
    if len(labelled) < len(labels):
        notes.append(f"left out {len(labels) - len(labelled)} row(s) with a missing label")
    codes = labels.cat.codes.to_numpy().astype(np.int64)

    split = split_train_test(codes[labelled], config.test_size, config.max_test, config.seed, name)
    notes += split.notes
    train, test = labelled[split.train], labelled[split.test]
    train_rows = len(train)
    if config.max_train is not None and len(train) > config.max_train:
        kept = _subsample(codes, train, config.max_train, config.seed, "training subsample", notes)
        notes.append(f"trained on a stratified subsample of {len(kept)} of the {len(train)} training rows")
        train = kept
    cv_rows = train
    if config.max_cv_train is not None and len(train) > config.max_cv_train:
        cv_rows = _subsample(codes, train, config.max_cv_train, config.seed, "cross-validation subsample", notes)
        notes.append(f"cross-validated on a stratified subsample of {len(cv_rows)} of the {len(train)} training rows")
    folds, fold_notes = cv_folds(codes[cv_rows], config.cv_folds, config.seed, name)
    label_names = np.array([str(c) for c in labels.cat.categories], dtype=object)
    return _Rows(X, codes, label_names, train, test, cv_rows, folds, notes + fold_notes, len(labelled), train_rows)


@dataclass
class _FitOutputs:
    fold_accuracy: dict[str, list[float]]        # real classifier -> accuracy per fold
    test_predictions: dict[str, np.ndarray]      # real classifier -> predicted codes of the test items
    failed: dict[str, str]                       # real classifier -> first error
    ladder: LadderRun | None
    over_budget: dict[str, str] = field(default_factory=dict)  # real classifier -> why the budget left it out


def _run_fits(
    rows: _Rows, pool: list[RealClassifier], config: ResponseConfig, show_progress: bool, desc: str,
    on_progress: Callable[[int, int], None] | None = None,
) -> _FitOutputs:
    """All fits of one dataset as joblib tasks: one per (scaling kind, fold or final fit), plus the ladder.

    With a ``time_budget`` the first fold of each scaling kind runs first, and a classifier whose fit
    there, times its number of fits (folds + final), exceeds the budget is left out of the other tasks.
    """
    outputs = _FitOutputs({spec.name: [] for spec in pool}, {}, {}, None)
    n_fits = len(rows.folds) + 1
    tasks = [("ladder", None, None)] if config.ladder_epochs else []
    first = []
    for scale in (False, True):
        members = [spec for spec in pool if spec.scale == scale]
        if members:
            parts = [(rows.cv_rows[fit], rows.cv_rows[validate]) for fit, validate in rows.folds] + [(rows.train, rows.test)]
            kinds = ["fold"] * len(rows.folds) + ["final"]
            first.append((kinds[0], parts[0], members))
            tasks += [(kind, part, members) for kind, part in zip(kinds[1:], parts[1:])]
    if config.time_budget is None:
        tasks, first = first + tasks, []
    progress = tqdm(total=_fits(first) + _fits(tasks), desc=desc, unit="fit", disable=not show_progress, leave=False)
    done = [0]

    def step(units: int) -> None:
        progress.update(units)
        done[0] += units
        if on_progress is not None:
            on_progress(done[0], progress.total)

    with progress:
        first_seconds = _collect(first, rows, config, outputs, step)
        for clf, seconds in first_seconds.items():
            if seconds * n_fits > config.time_budget:
                outputs.over_budget[clf] = (f"time budget: its first fit took {seconds:.1f} s, so its {n_fits} fits "
                                            f"would take about {seconds * n_fits:.0f} s > time_budget {config.time_budget:g} s")
        tasks = [(kind, part, [m for m in members if m.name not in outputs.over_budget] if members else None)
                 for kind, part, members in tasks]
        tasks = [task for task in tasks if task[0] == "ladder" or task[2]]
        progress.total = _fits(first) + _fits(tasks)
        progress.refresh()
        _collect(tasks, rows, config, outputs, step)
    return outputs


def _collect(tasks: list, rows: _Rows, config: ResponseConfig, outputs: _FitOutputs,
             step: Callable[[int], None]) -> dict[str, float]:
    """Run ``(kind, (fit rows, predict rows), members)`` tasks in parallel and fold their results into ``outputs``.

    ``step(units)`` is told the progress units (:func:`_fits`) of each finished task.

    Returns the seconds each classifier's fit and prediction took (its last task's, when it had several).
    """
    jobs = [delayed(_ladder)(rows.X, rows.codes, rows.train, rows.test, config) if kind == "ladder"
            else delayed(_fit_predict)(rows.X, rows.codes, part[0], part[1], members, config)
            for kind, part, members in tasks]
    seconds_taken = {}
    results = Parallel(n_jobs=config.n_jobs, return_as="generator")(jobs)
    for result, (kind, part, members) in zip(results, tasks):  # the generator first: zip then exhausts it
        step(_fits([(kind, part, members)]))
        if kind == "ladder":
            outputs.ladder = result
            continue
        for clf, (predicted, error, seconds) in result.items():
            seconds_taken[clf] = seconds
            if error is not None:
                outputs.failed.setdefault(clf, f"{kind} fit: {error}")
            elif kind == "fold":
                outputs.fold_accuracy[clf].append(float(np.mean(predicted == rows.codes[part[1]])))
            else:
                outputs.test_predictions[clf] = predicted
    return seconds_taken


def _fits(tasks: list) -> int:
    """The progress units of ``tasks``: one per (classifier, fold or final fit), one for the ladder."""
    return sum(1 if kind == "ladder" else len(members) for kind, _, members in tasks)


def accuracy_matrix(results: Sequence[ResponseResult], role: str = "real", which: str = "test") -> pd.DataFrame:
    """Datasets × classifiers accuracy table — the input of the AIRT stage (seed 004).

    Parameters
    ----------
    results : sequence of ResponseResult
        One per dataset; dataset names must be distinct.
    role : str
        Respondents to include: one of ``ROLES`` or ``"all"``.
    which : str
        ``"test"`` (accuracy on the test items) or ``"cv"`` (cross-validation accuracy; real only).

    Returns
    -------
    pandas.DataFrame, shape (n_datasets, n_classifiers)
        Index ``dataset``, columns ``classifier`` in the first result's order, values in [0, 1].
        A classifier absent from some dataset (it failed there) is dropped with a warning, so the
        table never holds NaN.
    """
    if which not in ("test", "cv"):
        raise ConfigError(f"accuracy_matrix: which={which!r}; valid: 'test', 'cv'")
    if role not in (*ROLES, "all"):
        raise ConfigError(f"accuracy_matrix: role={role!r}; valid: {', '.join((*ROLES, 'all'))}")
    if which == "cv" and role != "real":
        raise ConfigError("accuracy_matrix: cross-validation accuracy exists for role='real' only")
    names = [r.dataset for r in results]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DataError(f"accuracy_matrix: dataset name(s) {duplicates} occur more than once; give each dataset a distinct name")
    rows = []
    for result in results:
        accuracy = result.cv_accuracy if which == "cv" else result.test_accuracy
        members = result.roles.index if role == "all" else result.roles.index[result.roles == role]
        rows.append(accuracy.reindex([m for m in members if m in accuracy.index]).rename(result.dataset))
    if not rows:
        return pd.DataFrame(index=pd.Index([], name="dataset"), columns=pd.Index([], name="classifier"), dtype=float)
    table = pd.DataFrame(rows)
    incomplete = table.columns[table.isna().any()].tolist()
    if incomplete:
        warnings.warn(f"accuracy_matrix: left out classifier(s) missing on some datasets: {incomplete}", stacklevel=2)
        table = table.drop(columns=incomplete)
    table.index.name, table.columns.name = "dataset", "classifier"
    return table.astype(float)


def _subsample(codes: np.ndarray, rows: np.ndarray, size: int, seed: int, what: str, notes: list[str]) -> np.ndarray:
    """A stratified subsample of ``size`` of ``rows`` (single-row classes always kept)."""
    draw = stratified_draw(codes[rows], len(rows) - size, seed, what=what)
    notes += draw.notes
    return rows[draw.train]


def _fit_predict(
    X: pd.DataFrame, codes: np.ndarray, fit_rows: np.ndarray, predict_rows: np.ndarray,
    members: list[RealClassifier], config: ResponseConfig,
) -> dict[str, tuple[np.ndarray | None, str | None, float]]:
    """Fit every member on ``fit_rows`` (one shared preprocessing) and predict ``predict_rows``.

    Returns ``name -> (predicted codes, None, seconds)`` or ``name -> (None, error message, seconds)``,
    ``seconds`` being the wall time of that member's fit and prediction. A part with a single class is
    answered with that class (the only model such data supports).
    """
    X_fit, X_predict = transform_pair(X, fit_rows, predict_rows, scale=members[0].scale, max_categories=config.max_categories)
    y_fit = codes[fit_rows]
    if len(np.unique(y_fit)) == 1:
        return {spec.name: (np.full(len(predict_rows), y_fit[0]), None, 0.0) for spec in members}
    out = {}
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


def _ladder(X: pd.DataFrame, codes: np.ndarray, train: np.ndarray, test: np.ndarray, config: ResponseConfig):
    """The epoch ladder on the scaled preprocessing of the training part."""
    X_train, X_test = transform_pair(X, train, test, scale=True, max_categories=config.max_categories)
    with one_thread():
        return ladder_predictions(X_train, codes[train], X_test, epochs=config.ladder_epochs, seed=config.seed)

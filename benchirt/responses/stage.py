"""The response stage: every respondent's 0/1 answers on one dataset's test items (Cardoso et al. 2021 §4.3).

Per dataset: a stratified train/test split (:mod:`benchirt.responses.split`), stratified 10-fold cross-validation
accuracy of every real classifier on the training part, the real classifiers refitted on the whole training part to
answer the test items (decodIRT used its last fold's model, fitted on 90 % of it), the MLP epoch ladder
(:mod:`benchirt.pool.ladder`) and the artificial classifiers (:mod:`benchirt.pool.artificial`).

The work is cut into tasks of one (preprocessing kind, fold) each (:mod:`benchirt.responses.units`), run by joblib or by
the pipeline's executor (:mod:`benchirt.pipeline.fits`). Each task runs every BLAS and OpenMP pool with one thread
(:func:`benchirt.threads.one_thread`): its matrices are small, multi-threaded BLAS spin-waits on a busy machine, and the
number of OpenMP threads changes how k-nearest-neighbour search breaks distance ties. With ``random_state=seed`` on
every estimator, results do not depend on ``n_jobs``, the executor or the machine's cores."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, parallel_config
from benchirt.bars import tqdm

from benchirt.data import Dataset
from benchirt.errors import ConfigError, DataError
from benchirt.options import Choice, Constraint, validated
from benchirt.pool import ROLES, RealClassifier, artificial_predictions, ladder_name, resolve_pool
from benchirt.responses.config import ResponseConfig
from benchirt.responses.units import FitPlan, prepare, run_unit
from benchirt.safe_text import printable
from benchirt.workers import initializer

@dataclass
class ResponseResult:
    """One dataset's responses (rows = respondents, columns = test items).

    Attributes
    ----------
    dataset : str
    responses : pandas.DataFrame, shape (n_respondents, n_test), int8
        1 where the respondent classified the test item correctly. Index: classifier names (real in pool order, then
        ``mlp_epoch_001…``, then the artificial ones); columns: the test item's row position in the dataset, as a
        string.
    roles : pandas.Series, shape (n_respondents,)
        Role of each respondent, one of ``ROLES`` = ("real", "ladder", "artificial").
    predictions : pandas.DataFrame, shape (n_respondents, n_test)
        Predicted labels (as strings), same index and columns as ``responses``.
    cv_accuracy, test_accuracy : pandas.Series
        Mean cross-validation accuracy on the training part (real classifiers only); accuracy on the test items (every
        respondent: the row means of ``responses``).
    metadata : dict
        :meth:`benchirt.data.Dataset.metadata` of the whole dataset.
    test_index : numpy.ndarray, shape (n_test,)
        Row positions of the test items in the dataset.
    notes : list of str
        Everything the stage adapted (dropped columns or rows, fallbacks of the split or folds, failed classifiers).
    sizes : dict
        The size policy as applied: ``rows`` (labelled), ``test_rows``, ``train_rows`` (before any cap), ``train_used``
        (after ``max_train``), ``cv_rows`` (after ``max_cv_train``), ``max_train``, ``max_cv_train``, ``time_budget``,
        ``skipped_classifiers`` (name -> why the time budget left it out) and ``failed_classifiers`` (name -> the error
        its fit raised).
    test_labels : pandas.Series, shape (n_test,)
        The dataset's label of each test item (as a string), index = the items. Empty for results stored before it
        existed.
    provenance : pandas.DataFrame or None
        For responses imported from stored runs (:mod:`benchirt.stored_runs`), where each respondent comes from
        (``respondent, run_id, flow_id, flow_name, setup_id, uploader, accuracy, n_identical, openml_url``); else None.
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
    test_labels: pd.Series = field(default_factory=lambda: pd.Series(dtype=str))
    provenance: pd.DataFrame | None = None

    def left_out(self) -> dict[str, str]:
        """Classifiers of the configured pool this result lacks because their fit failed: name -> the error. The
        pipeline records them per dataset or, with ``execution.strict``, fails the dataset
        (:mod:`benchirt.pipeline.runner`)."""
        return dict(self.sizes.get("failed_classifiers") or {})

    def summary(self) -> str:
        """A few lines for a terminal: size, the best real classifier, what was left out and the notes."""
        counts = self.roles.value_counts()
        lines = [f"{self.dataset}: {len(self.responses)} respondents ("
                 + ", ".join(f"{counts.get(role, 0)} {role}" for role in ROLES)
                 + f") x {self.responses.shape[1]} test items"]
        real = self.test_accuracy[self.roles.reindex(self.test_accuracy.index) == "real"]
        if len(real):
            lines.append(f"best real classifier on the test items: {real.idxmax()} ({real.max():.3f}); "
                         f"mean {real.mean():.3f}")
        for key, why in (("skipped_classifiers", "left out by the time budget"),
                         ("failed_classifiers", "failed")):
            names = sorted(self.sizes.get(key) or {})
            if names:
                lines.append(f"{why}: {', '.join(names)}")
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``responses`` and ``predictions`` (respondents x items, ``respondent`` a column), ``accuracy``
        (``respondent, role, test_accuracy, cv_accuracy``) and, for imported responses, ``provenance``."""
        accuracy = pd.DataFrame({"respondent": self.responses.index.astype(str),
                                 "role": self.roles.reindex(self.responses.index).to_numpy(),
                                 "test_accuracy": self.test_accuracy.reindex(self.responses.index).to_numpy(),
                                 "cv_accuracy": self.cv_accuracy.reindex(self.responses.index).to_numpy()})
        frames = {"responses": self.responses.rename_axis("respondent").reset_index(),
                  "predictions": self.predictions.rename_axis("respondent").reset_index(),
                  "accuracy": accuracy}
        if self.provenance is not None:
            frames["provenance"] = self.provenance
        return frames


def respond(dataset: Dataset, *, config: ResponseConfig | None = None, show_progress: bool = False,
            on_progress: Callable[[int, int], None] | None = None, test_rows: np.ndarray | None = None
            ) -> ResponseResult:
    """Produce the response matrix of one dataset (Cardoso et al. 2021 §4.3).

    Parameters
    ----------
    dataset : benchirt.data.Dataset
        Features and labels; rows with a missing label are left out (noted).
    config : ResponseConfig, optional
        Default ``ResponseConfig()`` (decodIRT's protocol).
    show_progress : bool
        A tqdm bar with one step per (classifier, fold or final fit), one for the MLP ladder.
    on_progress : callable, optional
        Called as ``on_progress(done, total)`` in those units after every task (:mod:`benchirt.pipeline.progress`).
    test_rows : numpy.ndarray, optional
        Row positions of the test items instead of the stratified draw (every other labelled row trains): how benchirt's
        pool answers the rows that imported runs answered.

    Raises
    ------
    DataError
        When the dataset cannot yield responses (a single class, no usable feature, too few rows).

    Examples
    --------
    >>> from benchirt.data.builtin import load_builtin
    >>> config = ResponseConfig(pool=("gaussian_nb",), cv_folds=2, ladder_epochs=0, artificial=False, n_jobs=1)
    >>> result = respond(load_builtin("iris"), config=config)
    >>> result.responses.shape                   # one classifier x 45 test items (30 % of 150)
    (1, 45)
    >>> sorted(set(result.responses.to_numpy().ravel()) - {0, 1})
    []
    """
    config = config or ResponseConfig()
    prepared = prepare(dataset, config, test_rows=test_rows)
    plan = FitPlan(prepared, resolve_pool(config.pool, extra=config.extra), config)
    run_plan(plan, n_jobs=config.n_jobs, show_progress=show_progress, desc=f"responses {dataset.name}",
             on_progress=on_progress)
    return assemble(plan)


def run_plan(plan: FitPlan, *, n_jobs: int = 1, show_progress: bool = False, desc: str = "fits",
             on_progress: Callable[[int, int], None] | None = None) -> None:
    """Run a dataset's fit units with joblib (``n_jobs`` workers), batch by batch as the plan releases them;
    ``on_progress(done, total)`` is told :meth:`FitPlan.progress` after every unit."""
    init, initargs = initializer()  # loky's workers end with this process, however it ends (benchirt.workers)
    progress = tqdm(total=plan.progress()[1], desc=printable(desc), unit="fit", disable=not show_progress, leave=False)
    shown = 0
    with progress, parallel_config(backend="loky", initializer=init, initargs=initargs):
        parallel = Parallel(n_jobs=n_jobs, return_as="generator")
        while units := plan.take():
            jobs = [delayed(run_unit)(plan.prepared, unit, plan.config) for unit in units]
            for unit, result in zip(units, parallel(jobs)):
                plan.record(unit, result)
                done, total = plan.progress()
                progress.total = total
                progress.update(done - shown)
                shown = done
                if on_progress is not None:
                    on_progress(done, total)


def assemble(plan: FitPlan) -> ResponseResult:
    """The dataset's :class:`ResponseResult` from a finished plan, with the artificial classifiers added. Raises
    :class:`DataError` when no respondent is left (every real classifier failed, no ladder, no artificial
    classifiers)."""
    prepared, config = plan.prepared, plan.config
    rows, outputs = prepared.rows, plan.outputs()
    failed = outputs.failed
    real_names = _fitted(plan.pool, outputs)
    notes = list(rows.notes) + _left_out_notes(outputs)
    predicted = {clf: outputs.test_predictions[clf] for clf in real_names}
    roles = dict.fromkeys(real_names, "real")
    if outputs.ladder is not None:
        if outputs.ladder.epochs_trained < config.ladder_epochs:
            notes.append(f"ladder: the MLP converged after {outputs.ladder.epochs_trained} epochs; later rungs repeat that model")
        rungs = {ladder_name(k + 1): outputs.ladder.predictions[k] for k in range(config.ladder_epochs)}
        predicted.update(rungs)
        roles.update(dict.fromkeys(rungs, "ladder"))
    if config.artificial:
        artificial = artificial_predictions(rows.codes[rows.train], rows.codes[rows.test], seed=config.seed)
        predicted.update(artificial)
        roles.update(dict.fromkeys(artificial, "artificial"))
    if not predicted:
        raise DataError(
            f"dataset {prepared.name!r}: no respondent is left (every real classifier failed, and neither ladder nor "
            f"artificial classifiers are configured): {'; '.join(failed.values())}"
        )

    return _result(
        prepared, predicted, roles, outputs, real_names, notes,
        sizes={"rows": int(rows.labelled), "test_rows": len(rows.test), "train_rows": int(rows.train_rows),
               "train_used": len(rows.train), "cv_rows": len(rows.cv_rows), "max_train": config.max_train,
               "max_cv_train": config.max_cv_train, "time_budget": config.time_budget,
               "skipped_classifiers": dict(outputs.over_budget), "failed_classifiers": dict(failed)},
    )


def respond_more(dataset: Dataset, config: ResponseConfig, classifiers: Sequence[RealClassifier],
                 test_index: np.ndarray) -> ResponseResult:
    """Responses of more classifiers on the split a finished response stage stored (``benchirt add``): rows = the
    ``classifiers`` that could be fitted (role ``real``; ``notes`` names the others).

    The rows are planned exactly as :func:`respond` planned them from ``config`` (the run's response options) and the
    data; only ``classifiers`` are trained (CV accuracy and the final fit), no ladder, no artificial classifiers.
    ``test_index`` is the stored result's ``ResponseResult.test_index``.

    Raises
    ------
    DataError
        The split drawn now differs from the stored one (the data or the options changed since the run)."""
    prepared = prepare(dataset, config)
    rows = prepared.rows
    test_positions = rows.test_positions
    if not np.array_equal(test_positions, np.asarray(test_index)):
        raise DataError(
            f"dataset {dataset.name!r}: its test items drawn now differ from the stored split "
            f"({len(rows.test)} vs {len(test_index)} items); the data or the response options changed since the run"
        )
    plan = FitPlan(prepared, list(classifiers), config, ladder=False)
    run_plan(plan, n_jobs=config.n_jobs, desc=f"add {dataset.name}")
    outputs = plan.outputs()
    names = _fitted(classifiers, outputs)
    predicted = {clf: outputs.test_predictions[clf] for clf in names}
    return _result(prepared, predicted, dict.fromkeys(names, "real"), outputs, names, _left_out_notes(outputs))


def _fitted(classifiers, outputs) -> list[str]:
    """Names of ``classifiers`` that neither failed nor were stopped by the time budget, in their order."""
    return [spec.name for spec in classifiers if spec.name not in outputs.failed and spec.name not in outputs.over_budget]


def _left_out_notes(outputs) -> list[str]:
    """One note per classifier that failed or that the time budget stopped."""
    notes = [f"left out classifier {clf!r}: {error}" for clf, error in outputs.failed.items()]
    return notes + [f"skipped classifier {clf!r}: {why}" for clf, why in outputs.over_budget.items()]


def _result(prepared, predicted: dict, roles: dict, outputs, real_names: list[str], notes: list[str],
            sizes: dict | None = None) -> ResponseResult:
    """The :class:`ResponseResult` of ``predicted`` (respondent -> class codes of the test items, in order)."""
    rows = prepared.rows
    index = pd.Index(list(predicted), name="classifier")
    test_positions = rows.test_positions
    items = pd.Index([str(position) for position in test_positions], name="item")
    codes = np.vstack([predicted[clf] for clf in index]) if predicted else np.zeros((0, len(rows.test)), int)
    responses = pd.DataFrame((codes == rows.codes[rows.test]).astype(np.int8), index=index, columns=items)
    cv_accuracy = {clf: float(np.mean(outputs.fold_accuracy[clf])) for clf in real_names}
    return ResponseResult(
        dataset=prepared.name,
        responses=responses,
        roles=pd.Series([roles[clf] for clf in index], index=index, name="role", dtype="str"),
        predictions=pd.DataFrame(rows.label_names[codes], index=index, columns=items),
        cv_accuracy=pd.Series(cv_accuracy, name="cv_accuracy", dtype=float),
        test_accuracy=responses.mean(axis=1).astype(float).rename("test_accuracy"),
        metadata=prepared.metadata,
        test_index=test_positions,
        notes=notes,
        sizes=sizes if sizes is not None else {},
        test_labels=pd.Series(rows.label_names[rows.codes[rows.test]], index=items, name="label", dtype=str),
    )


def accuracy_matrix(results: Sequence[ResponseResult], *, role: str = "real", which: str = "test",
                    keep_missing: bool = False) -> pd.DataFrame:
    """Datasets × classifiers accuracy table — the input of the AIRT stage (Kandanaarachchi & Smith-Miles 2023).

    Parameters
    ----------
    results : sequence of ResponseResult
        One per dataset; dataset names must be distinct.
    role : str
        Respondents to include: one of ``ROLES`` or ``"all"``.
    which : str
        ``"test"`` (accuracy on the test items) or ``"cv"`` (cross-validation accuracy; real only).
    keep_missing : bool
        Keep the classifiers absent from some dataset, NaN there (e.g. for
        :func:`benchirt.responses.complete_block.largest_complete_block`).

    Returns
    -------
    pandas.DataFrame, shape (n_datasets, n_classifiers)
        Index ``dataset``, columns ``classifier`` in the first result's order, values in [0, 1]. Unless
        ``keep_missing``, a classifier absent from some dataset is dropped with a warning, so the table never holds NaN.
    """
    _check_accuracy_request(results, role, which)
    rows = []
    for result in results:
        accuracy = result.cv_accuracy if which == "cv" else result.test_accuracy
        members = result.roles.index if role == "all" else result.roles.index[result.roles == role]
        rows.append(accuracy.reindex([m for m in members if m in accuracy.index]).rename(result.dataset))
    if not rows:
        return pd.DataFrame(index=pd.Index([], name="dataset"), columns=pd.Index([], name="classifier"), dtype=float)
    table = pd.DataFrame(rows)
    incomplete = table.columns[table.isna().any()].tolist()
    if incomplete and not keep_missing:
        warnings.warn(f"accuracy_matrix: left out classifier(s) missing on some datasets: {incomplete}", stacklevel=2)
        table = table.drop(columns=incomplete)
    table.index.name, table.columns.name = "dataset", "classifier"
    return table.astype(float)


#: The declared constraint of :func:`accuracy_matrix`'s ``which`` and ``role``.
ACCURACY_REQUEST: dict[str, Constraint] = {"which": Choice(choices=("test", "cv")),
                                           "role": Choice(choices=(*ROLES, "all"))}


def _check_accuracy_request(results: Sequence[ResponseResult], role: str, which: str) -> None:
    """The errors of :func:`accuracy_matrix`'s arguments: unknown ``which`` or ``role``, cross-validation accuracy of a
    role other than real, a dataset name given twice."""
    validated("accuracy_matrix", {"which": which, "role": role}, ACCURACY_REQUEST)
    if which == "cv" and role != "real":
        raise ConfigError("accuracy_matrix: cross-validation accuracy exists for role='real' only")
    names = [r.dataset for r in results]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DataError(f"accuracy_matrix: dataset name(s) {duplicates} occur more than once; give each dataset a distinct name")

"""``benchirt add``: put new classifiers into a finished run without retraining the pool or refitting items.

On every dataset of the run (or, with a budget, those :func:`plan_datasets` chooses) each new classifier is trained on
exactly the stored split and preprocessing (:func:`benchirt.responses.respond_more` checks the test items are the stored
ones), its 0/1 responses recorded, and it is scored against the frozen item parameters
(:func:`benchirt.irt.scoring.score_frozen`: θ, SE, True-Score; the IRT artifacts are only read). Each (classifier,
dataset) result is an artifact of stage ``add`` keyed by the classifier's specification and the dataset's stored
results, so a rerun reuses it. Then the run's ``rate`` stage is re-run with the run's own options over the pool plus the
new classifiers and the report rebuilt (:func:`benchirt.pipeline.run.extend_run`); with a budget the unmeasured
True-Scores and the standing are predicted (:mod:`benchirt.placement.predict`) into ``RUN_DIR/added/predicted.csv`` and
``standing.csv``, every row marked measured or predicted.

A later ``benchirt run`` on the same directory rebuilds the pool-only ratings; ``benchirt add`` again (everything
reused) puts the new classifiers back.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from benchirt.errors import ConfigError, DataError
from benchirt.io import atomic_write_csv
from benchirt.results import interval_frame, normal_interval
from benchirt.safe_yaml import safe_load


@dataclass
class AddedResult:
    """One new classifier on one dataset (the stored ``add`` artifact): ``dataset``, ``classifier``; ``responses`` (1,
    n_items) int8, its answers on the stored test items; ``abilities``, one row ``theta, se, true_score`` on the
    frozen items; ``test_accuracy``, ``cv_accuracy``."""

    dataset: str
    classifier: str
    responses: pd.DataFrame
    abilities: pd.DataFrame
    test_accuracy: float
    cv_accuracy: float

    def summary(self) -> str:
        """One line: the classifier's θ ± SE, True-Score and accuracies on the dataset."""
        row = self.abilities.iloc[0]
        return (f"{self.classifier} on {self.dataset}: theta {row['theta']:.3f} (SE {row['se']:.3f}), "
                f"True-Score {row['true_score']:.2f}, test accuracy {self.test_accuracy:.3f}, "
                f"cross-validated accuracy {self.cv_accuracy:.3f}")

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``responses`` (one row) and ``abilities`` (``classifier, theta, se, true_score``)."""
        return {"responses": self.responses.rename_axis("respondent").reset_index(),
                "abilities": self.abilities.assign(classifier=self.classifier).reset_index(drop=True)}

    def conf_int(self, level: float = 0.95) -> pd.DataFrame:
        """θ ± z·SE on the frozen items: ``classifier, se, estimate, low, high`` (as ``DatasetIRT.conf_int``)."""
        low, high = normal_interval(self.abilities["theta"], self.abilities["se"], level=level)
        return interval_frame({"classifier": [self.classifier] * len(self.abilities)}, self.abilities["theta"],
                              low, high, se=self.abilities["se"])


@dataclass
class AddOutcome:
    """What :func:`add_classifiers` did: per classifier the measured and predicted datasets."""

    run_dir: Path
    computed: int = 0
    reused: int = 0
    skipped: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    predicted: pd.DataFrame | None = None
    standing: pd.DataFrame | None = None
    seconds: float = 0.0

    def summary(self) -> str:
        """A few lines: results computed and reused, what was skipped, each classifier's standing, notes."""
        lines = [f"added to {self.run_dir}: {self.computed} results computed, {self.reused} reused "
                 f"({self.seconds:.1f} s)"]
        lines += [f"skipped {name}: {why}" for name, why in self.skipped.items()]
        if self.standing is not None and len(self.standing):
            lines.append(self.standing.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``predicted`` (every dataset's measured or predicted score) and ``standing``, when computed."""
        frames = {"predicted": self.predicted, "standing": self.standing}
        return {name: frame for name, frame in frames.items() if frame is not None}


def add_classifiers(run_dir: str | os.PathLike, classifiers: Sequence, *, budget: int | None = None,
                    show_progress: bool = True, target: str = "suite") -> AddOutcome:
    """Add ``classifiers`` (:class:`benchirt.pool.real.ExtraEstimator`) to the finished run in ``run_dir``.

    With ``budget`` the datasets are those :func:`benchirt.placement.design.plan_datasets` chooses for ``target``
    ("suite": the mean standardised score; "rank": the average rank among the pool). The (classifier, dataset) results
    are the run's ``add`` stage; the ``rate`` and ``report`` stages are then re-run through the pipeline's engine
    (:func:`benchirt.pipeline.run.extend_run`) with the run's own options, the rate stage reading the pool's results
    with the new classifiers folded in (:func:`_folded`). A refusal leaves the run as it was.

    Raises
    ------
    DataError
        Not a run directory, a run without stored splits (response and IRT artifacts), a name that is a pool member or
        was added before with another specification, a budget outside 1..D.
    """
    from benchirt.pipeline.run import extend_run
    from benchirt.pool.real import ExtraEstimator

    start = time.perf_counter()
    outcome = AddOutcome(Path(run_dir))
    with extend_run(run_dir, ("add", "rate", "report"), show_progress=show_progress) as extension:
        config, store = extension.config, extension.run.store
        entries = _stored_datasets(store, extension.stored("respond"), extension.stored("irt"))
        irts = {name: store.load("irt", name, keys["irt"]) for name, keys in entries.items()}
        pool = set().union(*(irt.abilities["respondent"].astype(str) for irt in irts.values()))
        earlier = extension.run.previous.added  # classifiers added by earlier calls
        model = None
        datasets = sorted(entries)
        if budget is not None:
            from benchirt.placement.design import plan_datasets
            from benchirt.placement.model import fit_score_model

            from benchirt.placement.calibration import calibration_costs

            model = fit_score_model(_pool_scores(irts, outcome.notes))
            costs, cost_note = calibration_costs(Path(run_dir), model.datasets)
            outcome.notes.append(cost_note)
            datasets = plan_datasets(model, budget, target=target, costs=costs)["dataset"].tolist()
        allowed = tuple(config.stage_config("respond").allowed_packages)
        # classifiers added by earlier calls stay in the rebuilt results, on the datasets they were measured on
        specs = {name: (ExtraEstimator.from_dict(name, entry["spec"], allowed_packages=allowed), entry["spec"],
                        entry["measured"], (entry.get("budget"), entry.get("plan_target")))
                 for name, entry in earlier.items()}
        for extra in classifiers:
            spec = {"estimator": extra.estimator, "params": dict(extra.params), "scale": bool(extra.scale)}
            if extra.name in pool:
                raise DataError(f"{extra.name!r} is already a member of the run's pool; give the new classifier another name")
            if extra.name in earlier and earlier[extra.name]["spec"] != spec:
                raise DataError(
                    f"{extra.name!r} was added to this run before as {earlier[extra.name]['spec']}; "
                    "give the new classifier another name (the same specification again is reused)"
                )
            specs[extra.name] = (extra, spec, datasets, (budget, target if budget is not None else None))
        added, keys = _measure(extension.run, config, entries, irts, specs, outcome)
        _rebuild(extension, irts, added, keys, specs, model, outcome)
        extension.rerun("report")
        report = extension.run.stage_reports["report"]
        if report.failed or report.skipped:
            outcome.notes.append(f"the report was not rebuilt ({report.note}); `benchirt report {run_dir}` tries again")
    outcome.seconds = time.perf_counter() - start
    return outcome


def _stored_datasets(store, respond: dict[str, str], irt: dict[str, str]) -> dict[str, dict[str, str]]:
    """Dataset -> {"respond": key, "irt": key} for every dataset with both results stored."""
    found = {name: {"respond": respond[name], "irt": key} for name, key in irt.items() if name in respond}
    if not found:
        raise DataError(
            f"{store.root}: the run has no stored splits (no dataset with both response and IRT results); "
            f"`benchirt add` needs a run made by `benchirt run` with the respond and irt stages"
        )
    return found


def _pool_scores(irts: dict, notes: list) -> pd.DataFrame:
    """The pool's datasets × classifiers True-Scores; classifiers missing somewhere are left out (noted)."""
    from benchirt.irt import true_score_table
    from benchirt.rating.scores import score_matrix

    matrix = score_matrix(true_score_table([irts[name] for name in sorted(irts)], roles=("real", "artificial")))
    incomplete = [c for c in matrix.columns if matrix[c].isna().any()]
    if incomplete:
        notes.append(f"left out of the prediction model (not scored on every dataset): {', '.join(incomplete)}")
    return matrix.drop(columns=incomplete)


def measure_classifier(spec, response_config, extra, stored, irt) -> "AddedResult":
    """Train one new classifier on one dataset's stored split and score it on the frozen items (a task).

    ``spec`` is the dataset's :class:`~benchirt.data.DatasetSpec`, ``stored`` its stored
    :class:`~benchirt.responses.ResponseResult` (whose test items the new responses must match), ``irt`` its stored
    :class:`~benchirt.irt.stage.DatasetIRT`. Raises ``DataError`` when the classifier cannot be fitted on the dataset
    (the run records it as skipped, with why).
    """
    from benchirt.irt.scoring import score_frozen
    from benchirt.responses import respond_more

    result = respond_more(spec.load(), response_config, [extra.to_real()], stored.test_index)
    if extra.name not in result.responses.index:
        raise DataError("; ".join(n for n in result.notes if repr(extra.name) in n) or "the classifier could not be fitted")
    row = result.responses.loc[[extra.name]]
    abilities = score_frozen(irt.scorer.items, row, method=irt.scorer.config.ability, config=irt.scorer.config)
    return AddedResult(spec.name, extra.name, row, abilities, float(result.test_accuracy[extra.name]),
                       float(result.cv_accuracy[extra.name]))


def _measure(run, config, entries, irts, specs, outcome: AddOutcome) -> tuple[dict, dict]:
    """Every (classifier, dataset) result through the run engine (stage ``add``: computed, or reused by its
    key); returns {classifier: {dataset: AddedResult}} and {artifact name: key} of those results."""
    from benchirt.pipeline.config import stage_options
    from benchirt.pipeline.runner import stage_parts
    from benchirt.stage_plan import DatasetInput

    store = run.store
    response_config = config.stage_config("respond")
    options = stage_options(response_config)
    current: dict = {}

    def dataset_spec(dataset: str):
        """The suite member the run used for ``dataset``; refused when its data or the response options changed."""
        if not current:
            from benchirt.pipeline.config import resolve_specs

            current.update({spec.name: spec for spec in resolve_specs(config)})
        spec = current.get(dataset)
        recorded = store.marker("respond", dataset, entries[dataset]["respond"]).get("provenance", {})
        expected = stage_parts("respond", options, {"dataset": spec.fingerprint()}) if spec is not None else {}
        if spec is None or any(recorded.get(part) != expected[part] for part in ("inputs", "options")):
            raise DataError(
                f"{store.root}: dataset {dataset!r} is no longer the one the run used (its data or the response "
                "options changed); rerun `benchirt run` on the directory first"
            )
        return spec

    added: dict[str, dict] = {name: {} for name in specs}
    keys: dict[str, str] = {}
    for name, (extra, spec, wanted, _) in specs.items():
        gone = sorted(set(wanted) - set(entries))
        if gone:
            raise DataError(f"{store.root}: dataset {gone[0]!r}, on which a classifier was added before, has no "
                            "stored results any more; rerun `benchirt run` on the directory")
        items = [DatasetInput(_artifact_name(name, dataset), entries[dataset],
                              lambda dataset=dataset, extra=extra: (
                                  dataset_spec(dataset), response_config, extra,
                                  store.load("respond", dataset, entries[dataset]["respond"]), irts[dataset]))
                 for dataset in sorted(wanted)]
        done = run.per_dataset("add", {"classifier": name, **spec}, items, measure_classifier)
        keys.update(done)
        for dataset in sorted(wanted):
            artifact = _artifact_name(name, dataset)
            entry = run.manifest.entry("add", name=artifact)
            outcome.computed += entry["status"] == "computed"
            outcome.reused += entry["status"] == "reused" or bool(entry.get("reused"))
            if artifact in done:
                added[name][dataset] = store.load("add", artifact, done[artifact])
            else:
                outcome.skipped.setdefault(name, {})[dataset] = entry.get("reason")
    return added, keys


def _rebuild(extension, irts, added, keys, specs, model, outcome: AddOutcome) -> None:
    """The run's ``rate`` stage re-run over the pool plus the measured new classifiers (its own plan and
    options, through the engine); predictions with a budget; the ``added`` record of the manifest."""
    from benchirt.placement.predict import predict_new

    measured = pd.DataFrame(
        [{"dataset": d, "classifier": name, "score": float(r.abilities["true_score"].iloc[0])}
         for name, rows in added.items() for d, r in sorted(rows.items())],
        columns=["dataset", "classifier", "score"],
    )
    if measured.empty:
        raise DataError("no new classifier could be fitted on any dataset: " + "; ".join(
            f"{name}: {next(iter(reasons.values()))}" for name, reasons in outcome.skipped.items()))
    if extension.rerun("rate", fold=_folded(added), inputs={"add": keys}) is None:
        raise DataError("the ratings with the new classifiers could not be built: "
                        f"{extension.run.stage_reports['rate'].note}")

    calibration = model
    if calibration is None:
        from benchirt.placement.model import fit_score_model

        calibration = fit_score_model(_pool_scores(irts, outcome.notes))
    outcome.notes += calibration.notes
    observed = measured[measured["dataset"].isin(calibration.datasets)][["classifier", "dataset", "score"]]
    predicted, standing = predict_new(calibration, observed)
    folder = extension.run.store.root / "added"
    atomic_write_csv(folder / "predicted.csv", predicted)
    atomic_write_csv(folder / "standing.csv", standing)
    outcome.predicted, outcome.standing = predicted, standing
    for name, rows in added.items():
        extension.run.manifest.record_added(name, _plain({
            "spec": specs[name][1],
            "budget": specs[name][3][0],
            "plan_target": specs[name][3][1],
            "measured": sorted(rows),
            "predicted": sorted(set(calibration.datasets) - set(rows)),
            "skipped": outcome.skipped.get(name, {}),
            "standing": {k: v for k, v in standing.set_index("classifier").loc[name].items()},
            "notes": list(outcome.notes),
        }))


def _folded(added: dict) -> Callable[[str, dict], dict]:
    """The ``fold`` the rate stage reads the run through (:meth:`RunExtension.rerun
    <benchirt.pipeline.run.RunExtension.rerun>`): each dataset's stored IRT and response results with the new
    classifiers measured there as rows of their own — respondents of role ``real`` that were not calibrated, their θ,
    SE and True-Score joining the abilities and their answers and accuracies the responses, so the rate stage finds
    every score ``rate.score`` may name and tests them beside the pool's real classifiers (Cardoso et al. 2021 §5.3)."""
    by_dataset: dict[str, list[AddedResult]] = {}
    for rows in added.values():
        for dataset, result in rows.items():
            by_dataset.setdefault(dataset, []).append(result)

    def with_added(stage: str, results: dict[str, Any]) -> dict[str, Any]:
        """One upstream stage's ``{dataset: result}`` (``DatasetIRT`` for ``irt``, ``ResponseResult`` for ``respond``)
        with the new classifiers in; any other stage's as it is."""
        if stage == "irt":
            return {name: replace(irt, abilities=pd.concat(
                [irt.abilities, *(r.abilities.reset_index(drop=True).assign(respondent=r.classifier, role="real",
                                                                             calibrated=False)
                                  for r in by_dataset.get(name, []))], ignore_index=True))
                    for name, irt in results.items()}
        if stage == "respond":
            return {name: _responses_with(result, by_dataset.get(name, [])) for name, result in results.items()}
        return results

    return with_added


def _responses_with(result, new: list[AddedResult]):
    """A stored :class:`~benchirt.responses.ResponseResult` with the new classifiers' answers and accuracies."""
    if not new:
        return result
    names = [r.classifier for r in new]
    return replace(
        result,
        responses=pd.concat([result.responses, *(r.responses for r in new)]),
        roles=pd.concat([result.roles, pd.Series("real", index=names, name=result.roles.name)]),
        test_accuracy=pd.concat([result.test_accuracy, pd.Series([r.test_accuracy for r in new], index=names)]),
        cv_accuracy=pd.concat([result.cv_accuracy, pd.Series([r.cv_accuracy for r in new], index=names)]),
    )


def _artifact_name(classifier: str, dataset: str) -> str:
    return f"{classifier}@{dataset}"


def _plain(value):
    """numpy scalars inside the manifest as Python numbers (JSON)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    return value


def run_allowed_packages(run_dir: str | os.PathLike) -> tuple[str, ...]:
    """The packages the run's config allows estimators from (``respond.allowed_packages``)."""
    from benchirt.pipeline.config import load_config
    from benchirt.pipeline.manifest import Manifest

    return tuple(load_config(Manifest.read(run_dir).config).stage_config("respond").allowed_packages)


def classifiers_from_args(pairs: Sequence[str], params: Sequence[str], config_file: str | None,
                          *, allowed_packages: Sequence[str] = ()) -> list:
    """:class:`ExtraEstimator` entries from ``--classifier NAME=DOTTED`` / ``--params JSON`` and a config file.

    ``--params`` pairs with ``--classifier`` by position (one per classifier, or none). The config file is YAML
    ``classifiers: {NAME: {estimator: DOTTED, params: {...}, scale: bool}}`` (the schema of ``respond.extra``). Every
    entry is resolved and checked (:func:`benchirt.pool.estimators.resolve_classifier_class`: allowed packages, a
    classifier class) before anything it names is imported beyond that check or trained.
    """
    from benchirt.pool.real import ExtraEstimator

    entries = _command_line_entries(pairs, params)
    if config_file:
        path = Path(config_file)
        for name, entry in _file_entries(path).items():
            if name in entries:
                raise ConfigError(f"classifier {name!r} is given twice (command line and {path})")
            entries[name] = entry
    if not entries:
        raise ConfigError("no classifier to add; give --classifier NAME=DOTTED.ESTIMATOR or --config FILE")
    return [ExtraEstimator.from_dict(name, entry, allowed_packages=tuple(allowed_packages))
            for name, entry in entries.items()]


def _command_line_entries(pairs: Sequence[str], params: Sequence[str]) -> dict[str, dict]:
    """``{name: {estimator, params}}`` from ``--classifier NAME=DOTTED`` and the ``--params`` JSON at its position."""
    import json

    if params and len(params) != len(pairs):
        raise ConfigError(f"{len(params)} --params for {len(pairs)} --classifier; give one --params per --classifier "
                          "(in the same order) or put them in a --config file")
    entries: dict[str, dict] = {}
    for i, pair in enumerate(pairs):
        name, sep, dotted = pair.partition("=")
        if not sep or not name or not dotted:
            raise ConfigError(f"--classifier {pair!r}: expected NAME=DOTTED.ESTIMATOR, e.g. logreg=sklearn.linear_model.LogisticRegression")
        try:
            given = json.loads(params[i]) if params else {}
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--params {params[i]!r}: not JSON ({exc.msg}); e.g. '{{\"C\": 0.5}}'") from None
        entries[name] = {"estimator": dotted, "params": given}
    return entries


def _file_entries(path: Path) -> dict[str, dict]:
    """The ``classifiers:`` mapping of a YAML classifiers file, names as strings."""
    import yaml

    try:
        document = safe_load(path.read_text(encoding="utf-8"), str(path)) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the classifiers file ({exc})") from None
    if not isinstance(document, dict) or set(document) - {"classifiers"} or not isinstance(document.get("classifiers"), dict):
        raise ConfigError(f"{path}: expected 'classifiers: {{NAME: {{estimator: DOTTED, params: {{...}}}}}}' and nothing else")
    return {str(name): entry for name, entry in document["classifiers"].items()}

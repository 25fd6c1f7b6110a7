"""``run_pipeline``: the stages of :mod:`benchirt.pipeline.registry` (respond → irt → rate → subset → airt →
report) over one run directory.

Usage (not run as a doctest)::

    from benchirt.pipeline import load_config, run_pipeline, load_run
    outcome = run_pipeline(load_config("configs/default.yaml"), out="runs/default")
    results = load_run(outcome.run_dir)          # every stored result, as the stages' objects
    results.rate.ratings.head()

Each stage can be left out (``stages``); a stage that runs reads its inputs from the run directory when their stage
was left out, so ``stages: [rate, report]`` re-rates stored True-Scores without touching the classifiers. Datasets a
stage cannot use are recorded as skipped with the reason and the run goes on with the others.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import yaml

from benchirt.errors import BenchirtError
from benchirt.pipeline import fingerprint, registry
from benchirt.pipeline.config import PipelineConfig, load_config, stage_options, to_plain
from benchirt.pipeline.executors import make_executor
from benchirt.pipeline.manifest import Manifest, ResultEntry
from benchirt.pipeline.results import RunResults, load_run, load_stage_result, load_stage_table
from benchirt.pipeline.runner import Run
from benchirt.pipeline.store import ArtifactStore
from benchirt.stage_plan import DatasetWork, StageContext, SuiteWork, Unavailable

#: Re-exported: the results of a run are read by :mod:`benchirt.pipeline.results`.
__all__ = ["RunOutcome", "RunResults", "default_run_dir", "load_run", "load_stage_result", "load_stage_table",
           "run_pipeline"]


@dataclass
class RunOutcome:
    """What :func:`run_pipeline` returns: where the run is, its manifest and the exit status."""

    run_dir: Path
    manifest: Manifest
    exit_code: int


def default_run_dir(config: PipelineConfig) -> Path:
    """``config.out`` or ``runs/<config file stem>`` (``runs/default`` for the packaged default)."""
    if config.out:
        return Path(config.out)
    stem = Path(config.source).stem if config.source.endswith((".yaml", ".yml")) else "default"
    return Path("runs") / stem


def run_pipeline(config: PipelineConfig, *, out: str | os.PathLike | None = None, force: bool = False,
                 show_progress: bool = True, client=None, retry_failed: bool = False,
                 explain: bool = False, strict: bool | None = None) -> RunOutcome:
    """Run the configured stages, reusing every stored result whose key matches.

    ``out``: the run directory (default :func:`default_run_dir`); ``force``: recompute every selected stage;
    ``show_progress``: bars and skip/failure lines on stderr; ``client``: a Dask client for the per-dataset work
    (overrides ``execution``); ``retry_failed``: run again the results that failed in the previous run of ``out``
    (by default recorded as failed again without running); ``explain``: compute and write nothing, the manifest says
    per (dataset, stage) and for the report whether the stored result would be reused or why recomputed;
    ``strict``: a dataset on which a configured classifier could not be fitted fails (default
    ``config.execution.strict``).

    The outcome's ``exit_code`` is 0 when everything asked for is in the results, 1 when a dataset or stage failed
    after its retries, a configured classifier was left out of a dataset, or a stage has no result at all (skipping
    some datasets, the data's fault, does not count).
    """
    run_dir = Path(out) if out is not None else default_run_dir(config)
    executor = _executor(config, run_dir, client) if not explain else _NoExecutor()
    run = Run(ArtifactStore(run_dir), executor, config=to_plain(config.to_dict()), force=force, show_progress=show_progress,
              retry_failed=retry_failed, explain=explain,
              strict=config.execution.strict if strict is None else strict)
    try:
        with _running(run, config.stages):
            run.manifest.config_source = config.source
            run.manifest.rating_score = config.stage_config("rate").score
            for note in config.notes:
                run.note(note)
            if not explain:
                run.store.write_config(yaml.safe_dump(to_plain(config.to_dict()), sort_keys=False))
            _Pipeline(config, run, executor.parallel).execute()
    finally:
        executor.close()
    incomplete = any(report.failed or report.left_out for report in run.stage_reports.values()) or (
        not explain and bool(run.manifest.stages_without_result()))
    return RunOutcome(run_dir, run.manifest, 1 if incomplete else 0)


@contextmanager
def extend_run(run_dir: str | os.PathLike, stages: Sequence[str], *,
               show_progress: bool = True) -> Iterator["RunExtension"]:
    """Open the finished run in ``run_dir`` for work that extends it (``benchirt add``), inside the engine.

    The run's own config chooses the executor, the previous manifest is carried (``stages`` added), and the block
    runs under :func:`run_pipeline`'s rules: a refusal (:class:`~benchirt.errors.BenchirtError`) puts the previous run
    back, an interruption is recorded, the run is finished when the block ends. BenchirtError when ``run_dir`` is not a
    run directory or a run in progress holds it.
    """
    store = ArtifactStore(run_dir)
    store.ensure_idle()  # a run in progress: "in use", not "not a finished run"
    manifest = store.read_manifest()
    config = load_config(manifest.config)
    executor = _executor(config, store.root, None)
    run = Run(store, executor, config=manifest.config, show_progress=show_progress)
    try:
        with _running(run, stages, carry=True):
            yield RunExtension(config, run, executor.parallel)
    finally:
        executor.close()


def _executor(config: PipelineConfig, run_dir: Path, client):
    """The executor of ``config`` (``client``: a Dask client that overrides it) for the run folder ``run_dir``."""
    if config.execution.backend == "slurm" and client is None:
        from benchirt.pipeline.slurm import slurm_executor

        return slurm_executor(config, run_dir)
    return make_executor(config.execution, client=client)


@contextmanager
def _running(run: Run, stages: Sequence[str], carry: bool = False) -> Iterator[Run]:
    """``run`` started on ``stages`` for the block, then finished; a refusal restores the previous run."""
    try:
        run.start(stages, carry=carry)
        yield run
    except BenchirtError as exc:
        if run.begun and not run.explain:  # refused: the previous run stays what the directory describes
            run.abandon(str(exc))
        raise
    except BaseException:
        if run.begun:  # started: record why it stopped
            run.finish("interrupted")
        raise
    run.finish()


class _NoExecutor:
    """The executor of ``explain=True``: nothing is computed, so no workers are started."""

    parallel = False

    def describe(self) -> str:
        return "none (explain)"

    def close(self) -> None:
        return None


class _Pipeline:
    """One run: every stage of :data:`~benchirt.pipeline.registry.REGISTRY` in order, as its ``plan`` describes it."""

    def __init__(self, config: PipelineConfig, run: Run, outer_parallel: bool) -> None:
        self.config = config
        self.run = run
        self.outer_parallel = outer_parallel
        self.selected = set(config.stages)
        self.options = {name: stage_options(config.stage_config(name)) for name in config.stage_configs}
        self.keys: dict[str, dict[str, str]] = {}

    def execute(self) -> None:
        """Compute the selected stages; adopt the stored results of the others that match this config.

        Stages left out still appear in the manifest (status ``stored``) when their result for exactly these options
        and inputs is stored, so the report shows every matching result and never a stale one. A stage that reads no
        other (the responses) is looked up only when a selected stage needs it, so its suite is not resolved for
        nothing.
        """
        wanted = self._wanted()
        for stage in registry.REGISTRY:
            selected = stage.name in self.selected
            if not selected and not (self._stored(stage.name) and (stage.needs_in(self.config) or stage.name in wanted)):
                continue
            work = registry.resolve(stage.plan)(self._context(stage.name, selected))
            self.keys[stage.name] = self._do(stage.name, selected, work)

    def _wanted(self) -> set[str]:
        """The selected stages and every stage they read, directly or not."""
        wanted, todo = set(), list(self.selected)
        while todo:
            name = todo.pop()
            if name not in wanted:
                wanted.add(name)
                todo.extend(registry.stage(name).needs_in(self.config))
        return wanted

    def _context(self, name: str, selected: bool) -> StageContext:
        return StageContext(stage=name, config=self.config, options=self.options[name], options_of=self.options.get,
                            selected=selected, keys=self.keys, load=self._load, stored=self._stored,
                            run_dir=self.run.store.root, run=self.run, outer_parallel=self.outer_parallel)

    def _do(self, name: str, selected: bool, work) -> dict[str, str]:
        """Run (``selected``) or look up one stage's work; its keys, dataset (or ``all``) -> key."""
        if work is None:
            return {}
        if isinstance(work, Unavailable):
            if selected:
                self.run.skip_stage(name, work.reason)
            return {}
        if isinstance(work, DatasetWork):
            if not selected:
                return self.run.lookup(name, work.options, work.items)
            return self.run.per_dataset(name, work.options, work.items, work.fn, preflight=work.preflight,
                                        progress=work.progress, split=work.split)
        if isinstance(work, SuiteWork):
            key = (self.run.whole(name, work.options, work.inputs, work.fn, work.args) if selected
                   else self.run.adopt(name, work.options, work.inputs))
            return {"all": key} if key else {}
        if selected:  # DocumentWork: files written from the manifest, which must say what this run did
            def write() -> None:
                self.run.store.write_manifest(self.run.manifest)
                work.write()

            self.run.document(name, report_parts(self.run.manifest, work.options, stage=name), write)
        return {}

    def _load(self, stage: str, keys: Mapping[str, str]) -> dict:
        """The stored results of ``stage`` under ``keys``, as this run's config shows them (the record's ``derive``)."""
        record = registry.stage(stage)
        return {name: record.as_configured(self.run.store.load(stage, name, key), self.config)
                for name, key in sorted(keys.items())}

    def _stored(self, stage: str) -> bool:
        return (self.run.store.artifacts / stage).is_dir()


class RunExtension(_Pipeline):
    """A finished run opened by :func:`extend_run`: its stored results, and its stages re-run through the registry;
    ``config`` is the run's own config (from its manifest), ``run`` the engine (e.g. :meth:`Run.per_dataset`)."""

    def __init__(self, config: PipelineConfig, run: Run, outer_parallel: bool) -> None:
        super().__init__(config, run, outer_parallel)
        manifest = run.manifest  # the previous run's results, carried
        self.keys = {stage.name: {name: key for name, key in manifest.result_keys(stage.name).items()
                                  if run.store.has(stage.name, name, key)}
                     for stage in registry.REGISTRY if stage.scope == "dataset"}
        self._fold: Callable[[str, dict], dict] | None = None

    def stored(self, stage: str) -> dict[str, str]:
        """Dataset -> key of every stored result of a per-dataset ``stage`` of the run."""
        return dict(self.keys.get(stage, {}))

    def rerun(self, stage: str, *, fold: Callable[[str, dict], dict] | None = None,
              inputs: Mapping[str, Any] | None = None) -> str | None:
        """Run a suite-wide or document ``stage`` again with the run's own options, through its registered ``plan``.

        ``fold(upstream_stage, results)`` returns the upstream results the stage reads (``{dataset: result}``) with
        the caller's additions; ``inputs`` (identifying those additions) join a suite-wide stage's key, so its result
        is stored beside the plain one, never mistaken for it. Returns the artifact key, or None when the stage skipped
        or failed (see its ``stage_reports`` note) or writes files (the report, rebuilt unless unchanged).
        """
        record = registry.stage(stage)
        if record.scope == "dataset" or (inputs and record.scope != "suite"):
            raise ValueError(f"rerun takes a suite-wide stage (with inputs) or a document; {stage!r} is {record.scope!r}")
        self._fold = fold
        try:
            work = registry.resolve(record.plan)(self._context(stage, True))
            if inputs and isinstance(work, SuiteWork):
                work = replace(work, inputs={**work.inputs, **inputs})
            self.keys[stage] = self._do(stage, True, work)
        finally:
            self._fold = None
        return self.keys[stage].get("all")

    def _load(self, stage: str, keys: Mapping[str, str]) -> dict:
        results = super()._load(stage, keys)
        return self._fold(stage, results) if self._fold is not None else results


def report_parts(manifest: Manifest, options: dict, *, stage: str = "report") -> dict:
    """What the report shows, as digests: the results (every recorded key, status and reason), its options, the code.
    A result counts the same whether computed, reused or adopted, and timings are left out, so an unchanged rerun
    reuses the report it wrote before."""
    def entry(e: ResultEntry) -> list:
        status = "ok" if e.get("status") in ("computed", "reused", "stored") else e.get("status")
        return [status, e.get("key"), e.get("reason")]

    results = {
        "datasets": {name: {stage: entry(e) for stage, e in stages.items()} for name, stages in manifest.datasets.items()},
        "artifacts": {stage: entry(e) for stage, e in manifest.artifacts.items()},
        "stages": {name: [r["status"], r["note"], r["skipped"], r["failed"]] for name, r in manifest.stages.items()
                   if name != stage},
        "config_source": manifest.config_source,
        "versions": manifest.versions,
    }
    code = fingerprint.provenance(stage)
    return {"results": fingerprint.digest(results), "options": fingerprint.digest(options), "code": fingerprint.digest(code)}

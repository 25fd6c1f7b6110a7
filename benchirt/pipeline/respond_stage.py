"""The response stage in a run: load each suite member and record its responses.

The plan (:func:`plan`) lives in the pipeline package, not :mod:`benchirt.responses`, because what it adds to
:func:`benchirt.responses.respond` is the engine's: the memory guard and ETA (:mod:`benchirt.pipeline.preflight`),
(dataset, fit) tasks (:mod:`benchirt.pipeline.fits`) and progress files (:mod:`benchirt.pipeline.progress`). It knows
no result's columns. :func:`respond_dataset` runs on workers, so it is module-level with picklable arguments.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterator

from benchirt.pipeline.config import resolve_specs
from benchirt.stage_plan import DatasetInput, DatasetWork, StageContext

if TYPE_CHECKING:
    from benchirt.pipeline.executors import TaskOutcome


def respond_dataset(spec, config, show_progress=False, progress_file=None):
    """Load one suite member and produce its responses (``benchirt.responses.respond``).

    ``show_progress`` draws a bar over the dataset's (classifier, fit) pairs (when the fits run in the driver's
    process); ``progress_file`` is where a worker writes the same progress for the driver
    (:mod:`benchirt.pipeline.progress`). DataError when the dataset cannot be read or yield responses (the run records
    it as skipped).
    """
    from benchirt.responses import respond

    from benchirt.pipeline.progress import progress_writer

    on_progress = progress_writer(progress_file) if progress_file else None
    return respond(spec.load(), config=config, show_progress=show_progress, on_progress=on_progress)


def imported_dataset(result, spec=None, pool_config=None):
    """The responses of one dataset imported from stored runs (:mod:`benchirt.stored_runs`), already computed;
    with ``spec`` paired with the suite's dataset, and with ``pool_config`` beside benchirt's own pool on the
    same rows (:func:`benchirt.stored_runs.beside.beside_suite`)."""
    if spec is None:
        return result
    from benchirt.stored_runs.beside import beside_suite

    return beside_suite(result, spec, pool_config=pool_config)


def plan(context: StageContext) -> DatasetWork:
    """One task per suite member, keyed by the dataset's content; with the memory guard when computed. With
    ``respond: {source: openml-runs, …}`` the responses are imported from stored runs instead (:func:`imported`)."""
    config = context.config.stage_config("respond")
    if type(config).__name__ == "ImportConfig":
        return imported(context)
    specs = resolve_specs(context.config)
    if context.outer_parallel:
        config = replace(config, n_jobs=1)  # the datasets are already spread over the cores
    run = context.run
    inner = run.show_progress and not context.outer_parallel  # a bar per (classifier, fit) when fits run here
    # in worker processes the fits are counted in files the driver shows beside the stage bar
    folder = run.progress_folder() if run.show_progress and context.outer_parallel else None
    items = [DatasetInput(spec.name, {"dataset": spec.fingerprint()},
                          lambda spec=spec: (spec, config, inner, str(folder / f"{spec.name}.json") if folder else None))
             for spec in specs]
    if not context.selected:
        return DatasetWork(context.options, items, respond_dataset)
    split: Callable[..., Iterator[TaskOutcome]] | None = None
    if context.outer_parallel and context.config.execution.tasks == "fits":
        from benchirt.pipeline.fits import response_fits as split
    return DatasetWork(context.options, items, respond_dataset, preflight=_preflight(context, specs, config),
                       progress=folder, split=split)


def imported(context: StageContext) -> DatasetWork:
    """Responses imported from stored runs (:mod:`benchirt.stored_runs`) instead of trained: read and selected here,
    stored as the respond stage's results, keyed by the runs' source."""
    from benchirt.stored_runs.responses import imported_results, source_fingerprint

    config = context.config.stage_config("respond")
    fingerprint = source_fingerprint(config, base_dir=context.config.base_dir)
    results = imported_results(config, base_dir=context.config.base_dir)
    if not config.paired:
        items = [DatasetInput(name, {"imported": fingerprint}, lambda result=result: (result,))
                 for name, result in sorted(results.items())]
        return DatasetWork(context.options, items, imported_dataset)
    from benchirt.stored_runs.beside import pair_with_suite

    pairs = pair_with_suite(sorted(results), resolve_specs(context.config))
    pool = config.pool_config()
    items = [DatasetInput(name, {"imported": fingerprint, "dataset": pairs[name].fingerprint()},
                          lambda result=result, spec=pairs[name]: (result, spec, pool))
             for name, result in sorted(results.items())]
    return DatasetWork(context.options, items, imported_dataset)


def _preflight(context: StageContext, specs, config):
    """``name -> Preflight`` of :mod:`benchirt.pipeline.preflight` under this run's memory limit."""
    from benchirt.pipeline.estimate import load_cost_model
    from benchirt.pipeline.memory import memory_limit
    from benchirt.pipeline.preflight import checker

    limit, source = memory_limit(context.config.execution, getattr(context.run.executor, "workers", 1))
    return checker(specs, config, limit, load_cost_model(), limit_source=source)

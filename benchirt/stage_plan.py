"""What a pipeline stage hands the run engine: the work of one run, described as plain records.

Every stage of :mod:`benchirt.pipeline.registry` names a ``plan(context)`` function in its own package
(``benchirt/<package>/pipeline_stage.py``); the engine (:mod:`benchirt.pipeline.run`) calls it with a
:class:`StageContext` and runs what it returns: :class:`DatasetWork` (one task per dataset, each result stored under
its key), :class:`SuiteWork` (one task over the suite, in the driver), :class:`DocumentWork` (files written from the
manifest: the report), :class:`Unavailable` (the stage cannot run, with the reason) or ``None`` (nothing to do). This
module imports nothing of the stages nor of the pipeline, so there is no ``pipeline`` ↔ stage import cycle.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping


@dataclass
class DatasetInput:
    """One dataset's input to a per-dataset stage: ``name`` (artifact folder and manifest entry), ``inputs`` (what
    identifies it in the key: the dataset fingerprint or the upstream key) and ``build_args`` (returns the stage
    function's arguments; called only when the result must be computed, so reused datasets are never loaded)."""

    name: str
    inputs: Any
    build_args: Callable[..., tuple]  # called with no argument; "..." admits the `lambda x=x: ...` binding


@dataclass
class DatasetWork:
    """A per-dataset stage's work: ``fn(*item.build_args())`` for every item lacking its result; ``preflight``,
    ``progress`` and ``split`` are the options of :meth:`benchirt.pipeline.runner.Run.per_dataset`."""

    options: dict
    items: list
    fn: Callable
    preflight: Callable | None = None
    progress: Any = None
    split: Callable | None = None


@dataclass
class SuiteWork:
    """A suite-wide stage's work: ``fn(*args())`` once, keyed by ``options`` and ``inputs``."""

    options: dict
    inputs: Any
    fn: Callable
    args: Callable[[], tuple]


@dataclass
class DocumentWork:
    """A stage that writes files from the run's manifest: ``write()`` unless the stored ones match ``options``."""

    options: dict
    write: Callable[[], None]


@dataclass
class Unavailable:
    """The stage cannot run in this run; ``reason`` is recorded when the stage was asked for."""

    reason: str


@dataclass
class StageContext:
    """What a stage's ``plan`` may read about the run.

    Attributes
    ----------
    stage : str
        The stage's registered name.
    config : benchirt.pipeline.PipelineConfig
    options : dict
        The stage's own options as plain data (its config's ``to_dict``): what its key covers.
    options_of, load, stored : callable
        ``options_of(stage)``: another stage's options; ``load(stage, keys)``: {dataset: result} read from the run
        directory; ``stored(stage)``: whether the run directory holds any result of that stage.
    selected : bool
        The stage is computed in this run (else its stored results are only looked up).
    keys : dict
        Upstream stage -> {dataset (``"all"`` for a suite-wide stage): artifact key} of this run.
    run_dir : path
    run : benchirt.pipeline.runner.Run
        The engine (progress folder, executor, memory limit); only the response stage reads it.
    outer_parallel : bool
        The datasets run in parallel workers (a stage should then not spread its own work).
    """

    stage: str
    config: Any
    options: dict
    options_of: Callable[[str], dict | None]
    selected: bool
    keys: Mapping[str, Mapping[str, str]]
    load: Callable[[str, Mapping[str, str]], dict]
    stored: Callable[[str], bool]
    run_dir: Any = None
    run: Any = None
    outer_parallel: bool = False

    def upstream(self, stage: str) -> dict[str, str]:
        """Dataset -> key of ``stage``'s results in this run (empty when it has none)."""
        return dict(self.keys.get(stage) or {})

"""The response stage as (dataset, fit) tasks, so that a large dataset keeps every worker busy.

With ``execution.tasks: fits`` (the default) and a parallel executor, a dataset's response work is several tasks: a
*preparation* on a worker (load, clean, split, subsample and fold: :func:`prepare_responses`, keeping only the rows a
fit uses), then one task per :class:`~benchirt.responses.units.FitUnit` — a (preprocessing kind, fold or final fit)
with every real classifier of that kind, or the MLP epoch ladder — released by the dataset's
:class:`~benchirt.responses.units.FitPlan` (under a ``time_budget``, first folds first), and finally the *assembly* of
its :class:`~benchirt.responses.ResponseResult` in the driver. The prepared rows travel with each unit (no shared
file system needed).

When a worker is free, :class:`ResponseFits` starts a runnable unit of an open dataset, earliest opened first, and
only otherwise prepares the next dataset (:mod:`benchirt.pipeline.handout`, the rule the wall-time estimate follows):
datasets finish (and are stored) as early as their units allow, few prepared datasets are held at once, and while a
dominant dataset occupies some workers the others go on (``benchmarks/speedup.py`` compares with one task per dataset).

Retries and lost workers apply per task (:mod:`benchirt.pipeline.executors`); a dataset's ``attempts`` is the most any
of its tasks took, ``lost_workers``, ``seconds`` and ``cpu_seconds`` their sums. A preparation raising a
:class:`~benchirt.errors.BenchirtError` skips the dataset; a task failing after its retries fails it (units not yet
started are dropped, running ones ignored); a classifier that fails or that the time budget stops is noted in the
result, as in :func:`benchirt.responses.respond`, whose results these are bit for bit.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from benchirt.pipeline.executors import TaskOutcome, attempt
from benchirt.pipeline.handout import UNIT, next_pick
from benchirt.pipeline.progress import progress_writer

if TYPE_CHECKING:
    from benchirt.responses.config import ResponseConfig
    from benchirt.responses.units import FitPlan, FitUnit


@dataclass
class _Open:
    """A dataset whose tasks are under way."""

    name: str
    config: ResponseConfig
    write_progress: Callable[[int, int], None] | None
    plan: FitPlan | None = None                # its FitPlan, once prepared
    ready: deque[FitUnit] = field(default_factory=deque)
    attempts: int = 0
    lost_workers: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    closed: bool = False                       # its outcome was given (later results are ignored)


class ResponseFits:
    """A task source (:func:`benchirt.pipeline.executors.task_source`) of the response stage's fit tasks.

    ``tasks`` are the per-dataset tasks the runner would start, ``(name, args)`` with ``args`` those of
    :func:`benchirt.pipeline.respond_stage.respond_dataset` behind the function itself. Every task handed out has the
    form ``(name, (fn, *args))``: the runner's task body calls ``fn(*args)``.
    """

    def __init__(self, tasks: Sequence[tuple[str, tuple]]) -> None:
        self._waiting = deque(tasks)
        self._open: dict[str, _Open] = {}
        self._tasks: dict[str, tuple[str, FitUnit | None]] = {}  # task name -> (dataset, unit or None for the preparation)

    # -- the task source ---------------------------------------------------------------------------
    def next_task(self) -> tuple[str, tuple] | None:
        """A runnable unit of the earliest open dataset, else the preparation of the next dataset
        (:func:`benchirt.pipeline.handout.next_pick`)."""
        pick = next_pick(self._open.values(), lambda state: bool(state.ready) and not state.closed, bool(self._waiting))
        if pick is None:
            return None
        what, state = pick
        if what == UNIT:
            from benchirt.responses.units import run_unit

            assert state is not None and state.plan is not None  # next_pick gives UNIT with a prepared dataset
            unit = state.ready.popleft()
            name = f"{state.name} · {unit.label}"
            self._tasks[name] = (state.name, unit)
            return name, (run_unit, state.plan.prepared, unit, state.config)
        name, (_, spec, config, _, progress_file) = self._waiting.popleft()
        self._open[name] = _Open(name, config, progress_writer(progress_file) if progress_file else None)
        task = f"{name} · preparation"
        self._tasks[task] = (name, None)
        return task, (prepare_responses, spec, config)

    @property
    def done(self) -> bool:
        return not self._waiting and not self._open

    # -- outcomes --------------------------------------------------------------------------------
    def settle(self, outcome: TaskOutcome) -> TaskOutcome | None:
        """Fold one task's outcome in; the dataset's outcome when this finished it, else None."""
        dataset, unit = self._tasks.pop(outcome.name)
        state = self._open[dataset]
        state.attempts = max(state.attempts, outcome.attempts)
        state.lost_workers += outcome.lost_workers
        state.seconds += outcome.seconds
        state.cpu_seconds += outcome.cpu_seconds
        if state.closed:
            return self._close(state, None) if not self._in_flight(dataset) else None
        if outcome.status != "ok":  # a preparation's message as it is; a fit task's prefixed with the task
            error = outcome.error if unit is None else f"{unit.label}: {outcome.error}"
            return self._close(state, TaskOutcome(dataset, outcome.status, error=error))
        if unit is None:
            from benchirt.pool import resolve_pool
            from benchirt.responses.units import FitPlan

            state.plan = FitPlan(outcome.value, resolve_pool(state.config.pool, extra=state.config.extra), state.config)
        else:
            assert state.plan is not None  # a dataset's units are handed out once it is prepared
            state.plan.record(unit, outcome.value)
        state.ready.extend(state.plan.take())
        if state.write_progress is not None:
            state.write_progress(*state.plan.progress())
        if not state.plan.finished:
            return None
        from benchirt.responses.stage import assemble

        return self._close(state, attempt(assemble, dataset, (state.plan,)))

    def _close(self, state: _Open, outcome: TaskOutcome | None) -> TaskOutcome | None:
        """Give the dataset's outcome (once) and forget the dataset when none of its tasks runs any more."""
        if outcome is not None:
            state.closed, state.ready = True, deque()
            outcome = TaskOutcome(state.name, outcome.status, value=outcome.value, error=outcome.error,
                                  attempts=max(state.attempts, 1), seconds=state.seconds,
                                  lost_workers=state.lost_workers, cpu_seconds=state.cpu_seconds)
        if not self._in_flight(state.name):
            del self._open[state.name]
        return outcome

    def _in_flight(self, dataset: str) -> bool:
        return any(owner == dataset for owner, _ in self._tasks.values())


def prepare_responses(spec, config):
    """Load one suite member and plan its response fits (``benchirt.responses.units.prepare``): the first task of a
    dataset run as (dataset, fit) tasks. DataError when it cannot be read or yield responses (recorded as skipped)."""
    from benchirt.responses.units import prepare

    return prepare(spec.load(), config)


def carried(fn: Callable, *args):
    """Task body of tasks that carry their function: ``fn(*args)``."""
    return fn(*args)


def response_fits(executor, tasks: Sequence[tuple[str, tuple]], *, call: Callable = carried) -> Iterator[TaskOutcome]:
    """Run the response stage's datasets as (dataset, fit) tasks on ``executor``; one outcome per dataset, as they
    finish. ``tasks`` as for :class:`ResponseFits`; ``call(fn, *args)`` is the runner's task body."""
    source = ResponseFits(tasks)
    for outcome in executor.map(call, source):
        finished = source.settle(outcome)
        if finished is not None:
            yield finished

"""Run one function over many datasets, locally (loky processes) or on a Dask cluster, surviving failures.

The tasks are a list, or a source that releases tasks as others finish (:func:`task_source`,
:mod:`benchirt.pipeline.fits`). Both executors yield a :class:`TaskOutcome` per task *as each finishes*, so the driver
stores a result the moment it exists. A task raising :class:`~benchirt.errors.BenchirtError` is the data's fault and
recorded as ``skipped`` at once, with the message as reason; any other exception may be transient and the task is
tried ``retries`` more times before it is recorded as ``failed``. No failure stops the other tasks.

A *lost worker* (out-of-memory killer, ``kill -9``, segfault) surfaces as loky's ``TerminatedWorkerError`` (every
running task fails with it) or Dask's ``KilledWorker``. Which task killed it is unknown when several ran, so a lost
worker is charged to a task only when it ran alone: every task running at the loss is retried *alone*, which
completes or identifies it. A task is tried at most ``retries + 2`` times (one uncharged loss, then ``retries + 1``
charged attempts), so one that keeps killing its worker is recorded as failed while the others finish; attempts and
lost workers are counted per task. Every attempt runs with one thread per native pool
(:func:`benchirt.threads.one_thread`), so a result does not depend on the executor, ``n_jobs`` or the cores.
"""
from __future__ import annotations

import time
import traceback
import uuid
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from benchirt import interrupt
from benchirt.errors import BenchirtError
from benchirt.pipeline.config import ExecutionConfig
from benchirt.threads import one_thread
from benchirt.workers import initializer

Task = tuple[str, tuple]  # (dataset name, positional arguments of the function)


@dataclass
class TaskOutcome:
    """What became of one task.

    Attributes
    ----------
    name : str
        The dataset (task) name.
    status : {"ok", "skipped", "failed"}
    value : object
        The function's return value when ``status == "ok"``.
    error : str or None
        Why it was skipped (the BenchirtError message) or failed (exception type, message, innermost traceback lines).
    attempts, lost_workers : int
        Times the task was started (lost workers included); attempts that ended with the worker process lost.
    seconds, cpu_seconds : float
        Wall time and CPU time (user + system, in the process that ran it) of the last attempt; with one thread per
        fit the CPU time is the task's work, which calibrates the cost model (``benchmarks/scale.py --calibrate-run``).
    """

    name: str
    status: str
    value: Any = None
    error: str | None = None
    attempts: int = 1
    seconds: float = 0.0
    lost_workers: int = 0
    cpu_seconds: float = 0.0


def attempt(fn: Callable, name: str, args: tuple) -> TaskOutcome:
    """Run ``fn(*args)`` once with one thread per native pool; an exception becomes a skipped or failed outcome."""
    start, cpu = time.perf_counter(), time.process_time()

    def timed(outcome: TaskOutcome) -> TaskOutcome:
        outcome.seconds, outcome.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
        return outcome

    try:
        with one_thread():
            value = fn(*args)
    except BenchirtError as exc:
        return timed(TaskOutcome(name, "skipped", error=str(exc)))
    except Exception as exc:  # noqa: BLE001 - any error of one dataset must not stop the run
        return timed(TaskOutcome(name, "failed", error=_describe(exc)))
    return timed(TaskOutcome(name, "ok", value=value))


def attempt_with_retries(fn: Callable, name: str, args: tuple, retries: int) -> TaskOutcome:
    """:func:`attempt`, repeated up to ``retries`` more times while it fails."""
    outcome = attempt(fn, name, args)
    tries = 1
    while outcome.status == "failed" and tries <= retries:
        outcome = attempt(fn, name, args)
        tries += 1
    outcome.attempts = tries
    return outcome


@dataclass
class _Pending:
    """A task's state in :func:`_schedule`."""

    name: str
    args: tuple
    attempts: int = 0
    charged: int = 0       # failures counted against ``retries``
    lost: int = 0          # attempts that lost their worker
    alone: bool = False    # run with nothing else in flight (after a lost worker)


class TaskList:
    """The plain task source: a fixed list of tasks, handed out in order."""

    def __init__(self, tasks: Sequence[Task]) -> None:
        self._tasks = deque(tasks)

    def next_task(self) -> Task | None:
        return self._tasks.popleft() if self._tasks else None

    @property
    def done(self) -> bool:
        return not self._tasks


def task_source(tasks):
    """``tasks`` as a task source: a sequence of ``(name, args)`` becomes a :class:`TaskList`.

    A source has ``next_task()`` (the next task, or None when none can start now) and ``done``. The executors ask it
    whenever a worker is free, *after* the consumer of :meth:`LocalExecutor.map` has handled the outcomes yielded so
    far, so a source releasing tasks as others finish sees every outcome before it is asked.
    """
    return tasks if hasattr(tasks, "next_task") else TaskList(tasks)


def _schedule(fn: Callable, source, retries: int, capacity: Callable[[], int], submit: Callable,
              wait_first: Callable, lost_worker: tuple[type[BaseException], ...]) -> Iterator[TaskOutcome]:
    """The retry and lost-worker policy of the module docstring over any futures API.

    A task to retry starts before the source's next one. ``submit(fn, name, args)`` starts one :func:`attempt` and
    returns its future; ``wait_first(futures)`` returns the done ones; ``lost_worker`` are the exception types of a lost
    worker. At most ``capacity()`` tasks are in flight (asked again as tasks finish: Dask workers may join later).
    """
    retry: deque[_Pending] = deque()
    running: dict[Any, _Pending] = {}
    draining = False  # after a lost worker, start nothing until every running attempt has settled
    try:
        while True:
            draining = draining and bool(running)
            if not draining:
                _start_more(fn, source, retry, running, capacity, submit)
            if not running:
                if retry:
                    continue
                if not source.done:
                    raise RuntimeError("task source has tasks left but none can start while nothing runs")
                return
            for future in wait_first(list(running)):
                interrupt.check()   # an interrupt a finaliser swallowed stops the run here
                task = running.pop(future)
                lost_before = task.lost
                outcome = _settle(future, task, lost_worker)
                draining = draining or task.lost > lost_before
                if outcome.status == "failed" and task.charged <= retries:
                    retry.append(task)
                    continue
                outcome.attempts, outcome.lost_workers = task.attempts, task.lost
                yield outcome
    finally:
        for future in running:
            future.cancel()


def _start_more(fn: Callable, source, retry: deque[_Pending], running: dict[Any, _Pending],
                capacity: Callable[[], int], submit: Callable) -> None:
    """Start tasks, those to retry before the source's next, while fewer than ``capacity()`` run and none runs
    alone; a task to retry alone (its worker was lost) waits until nothing else runs."""
    while not any(p.alone for p in running.values()) and len(running) < capacity():
        if retry:
            if retry[0].alone and running:
                return
            task = retry.popleft()
        else:
            found = source.next_task()
            if found is None:
                return
            task = _Pending(*found)
        task.attempts += 1
        running[submit(fn, task.name, task.args)] = task


def _settle(future, task: _Pending, lost_worker: tuple[type[BaseException], ...]) -> TaskOutcome:
    """The outcome of one finished attempt, updating the task's counters."""
    try:
        outcome = future.result()
    except lost_worker as exc:
        task.lost += 1
        if task.alone:
            task.charged += 1
        task.alone = True
        return TaskOutcome(task.name, "failed", error=f"worker lost ({type(exc).__name__}: {exc}); the process was "
                           "killed or ran out of memory")
    except Exception as exc:  # noqa: BLE001 - the executor itself failed on this task (e.g. pickling)
        task.charged += 1
        return TaskOutcome(task.name, "failed", error=_describe(exc))
    if outcome.status == "failed":
        task.charged += 1
    return outcome


class LocalExecutor:
    """Worker processes on this machine (loky, ``n_jobs`` of them; 1 runs in-process, in order). The pool starts with
    the first parallel :meth:`map` and serves every later one until :meth:`close`, so the stages share one start-up;
    a pool broken by a lost worker, or left early by a ``map``, is replaced."""

    def __init__(self, n_jobs: int = 1, retries: int = 1) -> None:
        self.n_jobs = n_jobs
        self.retries = retries
        self._pool: Any = None

    @property
    def parallel(self) -> bool:
        return self.n_jobs != 1

    @property
    def workers(self) -> int:
        return _cpu_count() if self.n_jobs < 0 else self.n_jobs

    def map(self, fn: Callable, tasks) -> Iterator[TaskOutcome]:
        """``fn(*args)`` of every task (a sequence of ``(name, args)`` or a source, :func:`task_source`)."""
        source = task_source(tasks)
        if not self.parallel or (isinstance(tasks, Sequence) and len(tasks) <= 1):
            while (task := source.next_task()) is not None:
                interrupt.check()
                name, args = task
                yield attempt_with_retries(fn, name, args, self.retries)
            if not source.done:
                raise RuntimeError("task source has tasks left but none can start while nothing runs")
            return
        from concurrent.futures import FIRST_COMPLETED, wait

        from joblib.externals.loky.process_executor import BrokenProcessPool

        def submit(fn, name, args):
            try:
                return self._live_pool().submit(attempt, fn, name, args)
            except BrokenProcessPool:  # a lost worker broke the pool: replace it
                self._discard_pool()
                return self._live_pool().submit(attempt, fn, name, args)

        def wait_first(futures):
            return wait(futures, return_when=FIRST_COMPLETED).done

        try:
            yield from _schedule(fn, source, self.retries, lambda: self.workers, submit, wait_first, (BrokenProcessPool,))
        except BaseException:  # interrupted (Ctrl-C, SIGTERM) or stopped by an error: do not wait for running tasks
            self._discard_pool()
            raise

    def _live_pool(self):
        """The worker pool, started if there is none."""
        if self._pool is None:
            from joblib.externals.loky import ProcessPoolExecutor

            # A pool of our own, not loky's process-wide reusable one: joblib's Parallel (used inside the
            # stages) expects to own that one, and a pool broken by a lost worker must not leak into it.
            # Its workers end when this process does, however it ends (benchirt.workers: SIGKILL included).
            init, initargs = initializer()
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=init, initargs=initargs)
        return self._pool

    def _discard_pool(self) -> None:
        """Kill the pool's workers without waiting for what they run."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, kill_workers=True)
            self._pool = None

    def close(self) -> None:
        """Let the workers finish and end them."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def describe(self) -> str:
        return f"local, n_jobs={self.n_jobs}"


class DaskExecutor:
    """Dask distributed: a running scheduler, a given ``Client``, or a LocalCluster of ``n_workers``.

    benchirt retries tasks itself, so its LocalCluster lets the scheduler re-run nothing
    (``distributed.scheduler.allowed-failures: 0``) and a lost worker reaches benchirt as ``KilledWorker`` at once. A
    scheduler started elsewhere re-runs a task up to its own ``allowed-failures`` times first; :meth:`describe` says
    so. Results come back to the driver (no shared file system needed).
    """

    def __init__(self, scheduler: str | None = None, n_workers: int = 1, retries: int = 1, client=None,
                 connect_timeout: str = "20s") -> None:
        import dask
        from distributed import Client, LocalCluster

        self.retries = retries
        self._cluster = None
        self._own_client = client is None
        if client is not None:
            self.client = client
        elif scheduler:
            try:
                self.client = Client(scheduler, timeout=connect_timeout)
            except OSError as exc:
                raise BenchirtError(
                    f"cannot reach the Dask scheduler at {scheduler} ({exc}); start it with `dask scheduler` "
                    "or drop --scheduler to run locally"
                ) from None
        else:
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                self._cluster = LocalCluster(n_workers=max(1, n_workers), threads_per_worker=1, processes=True,
                                             dashboard_address=None)
            self.client = Client(self._cluster)
        # a lambda travels by value: the scheduler needs no benchirt
        self.scheduler_reruns = int(self.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures))

    @property
    def parallel(self) -> bool:
        return True

    @property
    def workers(self) -> int:
        """Threads over all workers now connected (at least 1): how many tasks run at once."""
        return max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))

    def map(self, fn: Callable, tasks) -> Iterator[TaskOutcome]:
        """``fn(*args)`` of every task (a sequence of ``(name, args)`` or a source, :func:`task_source`)."""
        from distributed import KilledWorker, wait

        def submit(fn, name, args):
            return self.client.submit(attempt, fn, name, args, key=f"benchirt-{_slug(name)}-{uuid.uuid4().hex[:8]}",
                                      pure=False)

        def wait_first(futures):
            return wait(futures, return_when="FIRST_COMPLETED").done

        yield from _schedule(fn, task_source(tasks), self.retries, lambda: self.workers, submit, wait_first, (KilledWorker,))

    def close(self) -> None:
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()

    def describe(self) -> str:
        if self._cluster is not None:
            return f"dask LocalCluster, {len(self._cluster.workers)} workers"
        text = f"dask scheduler {self.client.scheduler.address}"
        link = _dashboard_link(self.client)
        if link:
            text += f", dashboard {link}"
        if self.scheduler_reruns:
            text += (f" (it re-runs a task whose worker died up to {self.scheduler_reruns} times before benchirt "
                     "counts an attempt; start it with DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0 to count every one)")
        return text


def _dashboard_link(client) -> str | None:
    """The scheduler's dashboard address, when it serves one (it needs bokeh)."""
    services = client.scheduler_info().get("services", {})
    return client.dashboard_link if "dashboard" in services else None


def make_executor(execution: ExecutionConfig, *, client=None):
    """The executor an :class:`ExecutionConfig` asks for (``backend: slurm``'s needs the run:
    :func:`benchirt.pipeline.slurm.slurm_executor`)."""
    if execution.backend == "slurm" and client is None:
        raise ValueError("backend slurm: make the executor with benchirt.pipeline.slurm.slurm_executor")
    if client is not None or execution.backend == "dask":
        n_workers = execution.n_jobs if execution.n_jobs > 0 else _cpu_count()
        return DaskExecutor(execution.scheduler, n_workers=n_workers, retries=execution.retries, client=client)
    return LocalExecutor(execution.n_jobs, execution.retries)


def _cpu_count() -> int:
    import os

    return os.cpu_count() or 1


def _describe(exc: BaseException) -> str:
    frames = traceback.format_exception(type(exc), exc, exc.__traceback__)
    tail = "".join(frames[-3:]).strip()
    return f"{type(exc).__name__}: {exc}\n{tail}" if tail else f"{type(exc).__name__}: {exc}"


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)[:40]

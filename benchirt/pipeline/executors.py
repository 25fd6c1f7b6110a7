"""Run one function over many datasets, locally (joblib) or on a Dask cluster, surviving failures.

Both executors yield a :class:`TaskOutcome` per task *as each finishes*, so the driver can store a
dataset's result the moment it exists (a run killed later keeps it). A task that raises a
:class:`~benchirt.errors.BenchirtError` is the data's fault (single-class dataset, unreadable file):
it is recorded as ``skipped`` at once, with the message as reason. Any other exception may be
transient (a lost worker, memory pressure) and the task is tried ``retries`` more times before it is
recorded as ``failed``. No failure stops the other tasks.
"""
from __future__ import annotations

import time
import traceback
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from benchirt.errors import BenchirtError
from benchirt.pipeline.config import ExecutionConfig

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
        Why it was skipped (the BenchirtError message) or failed (exception type, message and the
        innermost traceback lines).
    attempts : int
    seconds : float
        Wall time of the last attempt.
    """

    name: str
    status: str
    value: Any = None
    error: str | None = None
    attempts: int = 1
    seconds: float = 0.0


def attempt(fn: Callable, name: str, args: tuple) -> TaskOutcome:
    """Run ``fn(*args)`` once, turning an exception into a skipped or failed outcome."""
    start = time.perf_counter()
    try:
        value = fn(*args)
    except BenchirtError as exc:
        return TaskOutcome(name, "skipped", error=str(exc), seconds=time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 - any error of one dataset must not stop the run
        return TaskOutcome(name, "failed", error=_describe(exc), seconds=time.perf_counter() - start)
    return TaskOutcome(name, "ok", value=value, seconds=time.perf_counter() - start)


def attempt_with_retries(fn: Callable, name: str, args: tuple, retries: int) -> TaskOutcome:
    """:func:`attempt`, repeated up to ``retries`` more times while it fails."""
    outcome = attempt(fn, name, args)
    tries = 1
    while outcome.status == "failed" and tries <= retries:
        outcome = attempt(fn, name, args)
        tries += 1
    outcome.attempts = tries
    return outcome


class LocalExecutor:
    """joblib processes on this machine (``n_jobs`` of them; 1 runs in-process, in order)."""

    def __init__(self, n_jobs: int = 1, retries: int = 1) -> None:
        self.n_jobs = n_jobs
        self.retries = retries

    @property
    def parallel(self) -> bool:
        return self.n_jobs != 1

    def map(self, fn: Callable, tasks: Sequence[Task]) -> Iterator[TaskOutcome]:
        if not self.parallel or len(tasks) <= 1:
            for name, args in tasks:
                yield attempt_with_retries(fn, name, args, self.retries)
            return
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")
        yield from parallel(delayed(attempt_with_retries)(fn, name, args, self.retries) for name, args in tasks)

    def close(self) -> None:
        """Nothing to release (joblib's worker pool is reused across calls and reaped by joblib)."""

    def describe(self) -> str:
        return f"local, n_jobs={self.n_jobs}"


class DaskExecutor:
    """Dask distributed: a running scheduler, a given ``Client``, or a LocalCluster of ``n_workers``.

    Tasks are submitted with ``retries`` so Dask itself re-runs a task whose attempt raised or whose
    worker died; results come back to the driver (no shared file system needed).
    """

    def __init__(self, scheduler: str | None = None, n_workers: int = 1, retries: int = 1, client=None,
                 connect_timeout: str = "20s") -> None:
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
            self._cluster = LocalCluster(n_workers=max(1, n_workers), threads_per_worker=1, processes=True,
                                         dashboard_address=None)
            self.client = Client(self._cluster)

    @property
    def parallel(self) -> bool:
        return True

    def map(self, fn: Callable, tasks: Sequence[Task]) -> Iterator[TaskOutcome]:
        from distributed import as_completed

        names = {}
        for name, args in tasks:
            future = self.client.submit(_dask_attempt, fn, name, args, key=f"benchirt-{_slug(name)}-{uuid.uuid4().hex[:8]}",
                                        retries=self.retries, pure=False)
            names[future] = name
        for future in as_completed(list(names)):
            name = names.pop(future)
            if future.status == "error":
                yield TaskOutcome(name, "failed", error=_describe(future.exception()), attempts=self.retries + 1)
            else:
                yield future.result()
            future.release()

    def close(self) -> None:
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()

    def describe(self) -> str:
        if self._cluster is not None:
            return f"dask LocalCluster, {len(self._cluster.workers)} workers"
        return f"dask scheduler {self.client.scheduler.address}"


def _dask_attempt(fn: Callable, name: str, args: tuple) -> TaskOutcome:
    """One attempt on a Dask worker: data errors become a skip; other errors propagate so Dask retries."""
    start = time.perf_counter()
    try:
        value = fn(*args)
    except BenchirtError as exc:
        return TaskOutcome(name, "skipped", error=str(exc), seconds=time.perf_counter() - start)
    return TaskOutcome(name, "ok", value=value, seconds=time.perf_counter() - start)


def make_executor(execution: ExecutionConfig, client=None):
    """The executor an :class:`ExecutionConfig` asks for."""
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

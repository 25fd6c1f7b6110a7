"""The run's expected time left, from the cost model at start and from finished datasets as they come.

At the start of the response stage each dataset to compute has the cost model's expected seconds
(:mod:`benchirt.pipeline.preflight`; None where its shape is unknown). As datasets finish, the model is rescaled by
measured / expected over the finished ones, and a dataset without an expectation counts as the mean finished one. The
time left is the schedule of the unfinished datasets on the run's workers — their (dataset, fit) tasks as the executor
hands them out (:func:`benchirt.pipeline.estimate.task_makespan`), else whole datasets
(:func:`benchirt.pipeline.estimate.lpt_makespan`) — plus the model's IRT seconds over the workers (not rescaled). The
suite-wide stages are not in it.
"""
from __future__ import annotations

from benchirt.pipeline.estimate import lpt_makespan, task_makespan


class RunEta:
    """Expected seconds left of a run's response and IRT stages.

    ``expected``: dataset -> cost-model seconds of its response task (None: unknown before loading); ``workers``:
    tasks that run at once; ``irt_seconds``: cost-model seconds of the IRT fits still to do (not rescaled: the
    response times say nothing of the IRT estimator's speed); ``tasks``: dataset -> its expected seconds cut into
    (dataset, fit) tasks, preparation first (None: one task per dataset).
    """

    def __init__(self, expected: dict[str, float | None], workers: int, irt_seconds: float = 0.0,
                 tasks: dict[str, list[float]] | None = None) -> None:
        self.expected = dict(expected)
        self.workers = max(1, workers)
        self.irt_seconds = irt_seconds
        self.tasks = tasks
        self.measured: dict[str, float] = {}

    def finished(self, name: str, seconds: float) -> None:
        """Record that ``name`` finished (computed, skipped or failed) after ``seconds`` of work."""
        self.measured[name] = seconds

    def scale(self) -> float:
        """Measured / expected over the finished datasets that had an expectation (1 before any)."""
        pairs = [(self.measured[n], e) for n, e in self.expected.items() if n in self.measured and e]
        expected = sum(e for _, e in pairs)
        return sum(m for m, _ in pairs) / expected if expected > 0 else 1.0

    def remaining_seconds(self) -> float | None:
        """Seconds left, or None while some dataset has no expectation and none has finished."""
        left = [n for n in self.expected if n not in self.measured]
        scale = self.scale()
        fallback = sum(self.measured.values()) / len(self.measured) if self.measured else None
        times = []  # per dataset left: its tasks (one entry: the whole dataset), in run order
        for name in left:
            if self.expected[name] is not None:
                times.append([t * scale for t in self._tasks_of(name)])
            elif fallback is not None:
                times.append([fallback])
            else:
                return None
        return self._schedule(times) + self.irt_seconds / self.workers

    def _tasks_of(self, name: str) -> list[float]:
        """The model's seconds of dataset ``name`` (known): its tasks, or one entry for the whole dataset."""
        expected = self.expected[name]
        assert expected is not None  # asked of known datasets only
        return (self.tasks or {}).get(name, [expected])

    def _schedule(self, times: list[list[float]]) -> float:
        """Wall seconds of the datasets ``times`` (each its tasks, or one entry) on the run's workers."""
        if self.tasks is not None and self.workers > 1:
            return task_makespan(times, self.workers)
        return lpt_makespan([sum(tasks) for tasks in times], self.workers)

    def describe(self) -> str:
        """One line for the console: the time left and what it rests on."""
        remaining = self.remaining_seconds()
        modelled = sum(1 for e in self.expected.values() if e is not None)
        if remaining is None:
            known = [self._tasks_of(name) for name, e in self.expected.items() if e is not None]
            partial = (f"; the {len(known)} dataset(s) of known shape: about "
                       f"{format_duration(self._schedule(known))} on {self.workers} worker(s)" if known else "")
            return (f"ETA: unknown until a dataset finishes ({len(self.expected) - modelled} of {len(self.expected)} "
                    f"shape(s) are not known before loading){partial}")
        basis = [f"cost model for {modelled} of {len(self.expected)} dataset(s)"] if modelled else []
        if self.measured:
            basis.append(f"{len(self.measured)} finished" + (f", model x {self.scale():.2f}" if modelled else ""))
        return (f"ETA of the response and IRT stages: about {format_duration(remaining)} on {self.workers} worker(s) "
                f"({'; '.join(basis)})")


def format_duration(seconds: float) -> str:
    """``42 s``, ``3.5 min`` or ``1.2 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"

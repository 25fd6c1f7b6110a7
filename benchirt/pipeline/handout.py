"""Which task a free worker of the response stage's (dataset, fit) tasks starts next.

One rule for the executor (:class:`benchirt.pipeline.fits.ResponseFits`) and for the wall-time
estimate (:func:`benchirt.pipeline.estimate.task_schedule`), so the estimate schedules the tasks as a
run hands them out: a runnable fit unit of the earliest opened dataset, otherwise the preparation of
the next dataset, otherwise nothing (the worker waits). A dataset is finished (and stored) as early
as its units allow and few prepared datasets are held at once (:mod:`benchirt.pipeline.fits`).
"""
from __future__ import annotations

from typing import Callable, Iterable, TypeVar

Opened = TypeVar("Opened")

#: :func:`next_pick`'s answer: start a fit unit of the dataset it names.
UNIT = "unit"
#: :func:`next_pick`'s answer: prepare the next dataset.
PREPARE = "prepare"


def next_pick(opened: Iterable[Opened], runnable: Callable[[Opened], bool],
              waiting: bool) -> tuple[str, Opened | None] | None:
    """What a free worker starts: ``(UNIT, dataset)``, ``(PREPARE, None)`` or None (nothing can start).

    Parameters
    ----------
    opened : iterable
        The datasets whose preparation started, in the order it started.
    runnable : callable
        Whether a dataset of ``opened`` has a fit unit that can start now.
    waiting : bool
        Whether a dataset is left to prepare.
    """
    for dataset in opened:
        if runnable(dataset):
            return UNIT, dataset
    return (PREPARE, None) if waiting else None

"""Which task a free worker of the response stage's (dataset, fit) tasks starts next.

One rule for the executor (:class:`benchirt.pipeline.fits.ResponseFits`) and the wall-time estimate
(:func:`benchirt.pipeline.estimate.task_schedule`): a runnable fit unit of the earliest opened dataset, otherwise the
next dataset's preparation, otherwise nothing (the worker waits).
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
    """What a free worker starts: ``(UNIT, dataset)``, ``(PREPARE, None)`` or None. ``opened``: the datasets whose
    preparation started, in that order; ``runnable(dataset)``: whether it has a fit unit that can start now;
    ``waiting``: whether a dataset is left to prepare."""
    for dataset in opened:
        if runnable(dataset):
            return UNIT, dataset
    return (PREPARE, None) if waiting else None

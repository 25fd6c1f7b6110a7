"""The shapes of OpenML-CC18's 72 datasets as recorded, for estimates made without OpenML.

``benchirt run CONFIG --estimate`` prices a dataset from its shape; for OpenML datasets it asks OpenML's qualities
(server or cache), and where neither answers an OpenML-CC18 run falls back on this table, saying so per dataset. It is
package data (``benchirt/data/cc18_shapes.csv``: ``did, name, NumberOfInstances, NumberOfFeatures, NumberOfClasses``
from OpenML's dataset listing, Bischl et al. 2021), where ``NumberOfFeatures`` counts every attribute and the target
but not row identifiers; constant or empty columns count, though benchirt drops them on loading. The datasets of the
offline mirror and wdbc are checked against the data in ``tests/test_data_recorded_shapes.py``.
"""
from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources

#: The packaged table (a resource of :mod:`benchirt.data`).
RECORDED_SHAPES_RESOURCE = "cc18_shapes.csv"
#: OpenML's id of the suite the table describes.
CC18_SUITE_ID = 99
#: What :func:`recorded_specs` and the estimate call a shape taken from this table.
RECORDED_SOURCE = "recorded table (OpenML unreachable)"


@lru_cache(maxsize=1)
def recorded_shapes() -> dict[int, tuple[str, int, int, int]]:
    """``did -> (name, rows, features without the target, classes)`` for the 72 CC18 datasets, in suite order."""
    text = resources.files("benchirt.data").joinpath(RECORDED_SHAPES_RESOURCE).read_text(encoding="utf-8")
    table = {}
    for row in csv.DictReader(text.splitlines()):
        table[int(row["did"])] = (row["name"], int(row["NumberOfInstances"]), int(row["NumberOfFeatures"]) - 1,
                                  int(row["NumberOfClasses"]))
    return table


def recorded_shape(dataset_id: int) -> tuple[int, int, int] | None:
    """(rows, features without the target, classes) of an OpenML dataset of the table, else None."""
    entry = recorded_shapes().get(int(dataset_id))
    return None if entry is None else entry[1:]


def recorded_specs() -> list:
    """The 72 CC18 datasets as OpenML :class:`~benchirt.data.DatasetSpec` (no task ids: enough to estimate, not to run)."""
    from benchirt.data.spec import DatasetSpec

    return [DatasetSpec(name=name, kind="openml", location=str(did), openml_id=did)
            for did, (name, *_shape) in recorded_shapes().items()]

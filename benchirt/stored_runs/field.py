"""How much of a multi-task field each task holds: flows present on some tasks only, counted and said.

A field of stored runs is sparse: a flow ran on some tasks only, so the flows × datasets matrix the rating and AIRT
stages read has holes. This module counts them so that the console, ``import.json`` and the respond stage's notes say
how many flows are on how many tasks and which share each task holds. A flow is its id when known, else its name.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from benchirt.stored_runs.select import SelectionOptions


def percent(share: float) -> str:
    """A share as a percentage with at most one decimal (``69 %``, ``4.5 %``)."""
    value = round(100 * share, 1)
    return f"{value:.0f} %" if value == int(value) else f"{value:.1f} %"


def flow_keys(respondents: pd.DataFrame) -> set[str]:
    """The flows of a selection's respondents: ``id:<flow id>`` when known, else ``name:<flow name>``."""
    ids = respondents["flow_id"].astype("object")
    names = respondents["flow_name"].astype(str)
    return {f"id:{i}" if pd.notna(i) else f"name:{n}" for i, n in zip(ids, names)}


@dataclass(frozen=True)
class FieldCoverage:
    """The flows of each dataset within the field (the union of all datasets' flows); ``flows``: dataset name -> its
    set of flow keys (:func:`flow_keys`)."""

    flows: dict[str, set[str]]

    @property
    def field(self) -> set[str]:
        return set().union(*self.flows.values()) if self.flows else set()

    def share(self, dataset: str) -> float:
        """The share of the field's flows present on ``dataset``."""
        return len(self.flows[dataset]) / max(len(self.field), 1)

    def tasks_per_flow(self) -> Counter:
        """Number of datasets -> number of flows present on exactly that many."""
        on = Counter(flow for flows in self.flows.values() for flow in flows)
        return Counter(on.values())

    def summary(self) -> str:
        """One line: flows, datasets, how many flows on all, at least half, one only."""
        n, counts = len(self.flows), self.tasks_per_flow()
        half = (n + 1) // 2
        at_least_half = sum(c for k, c in counts.items() if k >= half)
        return (f"field: {len(self.field)} flows over {n} datasets; {counts.get(n, 0)} on all {n}, {at_least_half} "
                f"on ≥ {half}, {counts.get(1, 0)} on one only (a flow has no answers on the datasets it did not run "
                "on)")

    def line(self, dataset: str) -> str:
        """One line for ``dataset``: its flows and their share of the field."""
        return (f"{dataset}: {len(self.flows[dataset])} of the field's {len(self.field)} flows "
                f"({percent(self.share(dataset))})")

    def record(self, dataset: str) -> dict:
        """What ``import.json`` keeps about the field and ``dataset``'s share of it."""
        counts = self.tasks_per_flow()
        return {"datasets": len(self.flows), "flows": len(self.field),
                "flows_by_number_of_datasets": {str(k): counts[k] for k in sorted(counts)},
                "flows_here": len(self.flows[dataset]), "share_here": round(self.share(dataset), 4)}


def field_coverage(respondents: dict[str, pd.DataFrame]) -> FieldCoverage | None:
    """The coverage of the field the selections' respondents form (dataset -> respondents frame); None for a
    single dataset (no field to speak of)."""
    if len(respondents) < 2:
        return None
    return FieldCoverage({name: flow_keys(frame) for name, frame in respondents.items()})


def select_field(matrices: list, options: SelectionOptions) -> tuple[list, SelectionOptions, FieldCoverage | None]:
    """Each matrix with its :class:`~benchirt.stored_runs.select.Selection` under ``options``, the options as applied
    (adjusted for a multi-dataset import by :func:`~benchirt.stored_runs.select.across_datasets`, said in each
    selection's notes) and the field's coverage; each selection's notes end with the field's summary and the
    dataset's share of it."""
    from benchirt.stored_runs.select import across_datasets, select

    options, notes = across_datasets(options, len(matrices))
    selected = []
    for matrix in matrices:
        selection = select(matrix, options=options)
        selection.notes.extend(notes)
        selected.append((matrix, selection))
    coverage = field_coverage({matrix.dataset: selection.respondents for matrix, selection in selected})
    if coverage is not None:
        for matrix, selection in selected:
            selection.notes.extend([coverage.summary(), coverage.line(matrix.dataset)])
    return selected, options, coverage

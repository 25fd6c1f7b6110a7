"""The shape of each dataset a stored-runs source holds, without importing it: runs, flows and the items the
IRT stage will see (what ``benchirt run --estimate`` costs a ``respond: {source: openml-runs, …}`` config by).

A matrix file is read for its header (the items) and first column (the names, split into flows by the naming rule),
not its answers; any other source is read as the import reads it
(:func:`benchirt.stored_runs.responses.read_configured_source`). The respondents are the flows unless ``per_flow`` is
``all``; the items the held-out half under ``best-held-out`` when a flow has two runs
(:func:`benchirt.stored_runs.select.select`), then at most ``max_items``. Rows refused later (non-0/1 answers, the
accuracy floor, identical patterns) are counted, so the respondents are an upper bound.
"""
from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchirt.errors import DataError

#: ``StoredShape.source`` of a matrix file read for its header and names column only.
SCANNED = "stored-runs matrix (header and names)"
#: ``StoredShape.source`` of a source read as the import reads it.
READ = "stored runs (read)"
#: The cells the import reads as answers (:mod:`benchirt.stored_runs.matrices`); a row with any other is refused.
ANSWERS = frozenset({"0", "1", "0.0", "1.0"})


@dataclass(kw_only=True, frozen=True)
class StoredShape:
    """One dataset of a stored-runs source: ``runs`` rows, ``flows`` distinct flows, ``cells`` answers stored
    (runs × items in the source), and the ``respondents`` × ``items`` of the response matrix after selection."""

    dataset: str
    runs: int
    flows: int
    cells: int
    respondents: int
    items: int
    source: str


def selected_size(runs: int, flow_runs: Counter, items: int, config) -> tuple[int, int]:
    """Respondents and items after the section's selection (module docstring), from the source's counts."""
    rule = config.per_flow
    several = bool(flow_runs) and max(flow_runs.values()) > 1
    respondents = runs if rule == "all" else len(flow_runs)
    if rule == "best-held-out" and several:
        items = items // 2  # the choosing half is the even folds or a random half: the other half scores
    return respondents, items if config.max_items is None else min(items, config.max_items)


def scan_matrix(path: Path, config) -> StoredShape:
    """One matrix file's :class:`StoredShape` from its header and first column (answer rows only, as the import
    refuses a row with a non-0/1 cell); DataError when it cannot be read as a text CSV or holds no row."""
    naming = config.naming()
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = csv.reader(handle)
            header = next(rows, None) or []
            answered = [row for row in rows if row and ANSWERS.issuperset(cell.strip() for cell in row[1:])]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DataError(f"{path}: cannot be read as a text CSV ({exc}); give respondents x items CSV files") from None
    first = [row[0] for row in answered]
    if not first:
        raise DataError(f"{path}: no row of 0/1 answers; expected a header row of item names and one row of 0/1 "
                        "per respondent")
    named = first[0].strip() not in ("0", "1", "0.0", "1.0")
    items = len(header) - 1 if named else len(header)
    flows: Counter = Counter()
    for number, name in enumerate(first):
        split = naming.split(name) if named else None
        flows[split[0] if split else (name if named else str(number))] += 1
    respondents, used = selected_size(len(first), flows, items, config)
    return StoredShape(dataset=path.stem, runs=len(first), flows=len(flows), cells=len(first) * items,
                       respondents=respondents, items=used, source=SCANNED)


def read_shape(matrix, config) -> StoredShape:
    """A :class:`~benchirt.stored_runs.matrix.RunMatrix`'s :class:`StoredShape` (a source read in full)."""
    from benchirt.stored_runs.select import _flow_keys

    runs, items = matrix.responses.shape
    flows = Counter(_flow_keys(matrix.runs))
    respondents, used = selected_size(runs, flows, items, config)
    return StoredShape(dataset=matrix.dataset, runs=runs, flows=len(flows), cells=runs * items,
                       respondents=respondents, items=used, source=READ)


def stored_shapes(config, *, base_dir: str | Path = ".") -> list[StoredShape]:
    """Every dataset of the section's source (:class:`benchirt.stored_runs.config.ImportConfig`), in source order; a
    matrix file without answer rows is left out, as the import leaves it out. DataError when no matrix file holds
    answers or the source cannot be read (as the import would fail)."""
    from benchirt.stored_runs.matrices import is_matrix_source, matrix_files
    from benchirt.stored_runs.sources import source_paths

    if config.path is not None:
        paths = source_paths(config.path, base_dir=base_dir)
        if len(paths) > 1 or is_matrix_source(paths[0]):
            return _scanned(matrix_files(paths), config)
    from benchirt.stored_runs.responses import read_configured_source

    return [read_shape(matrix, config) for matrix in read_configured_source(config, base_dir=base_dir)]


def _scanned(files: list[Path], config) -> list[StoredShape]:
    """The :class:`StoredShape` of every matrix file with answers (:func:`scan_matrix`)."""
    shapes, refused = [], []
    for path in files:
        try:
            shapes.append(scan_matrix(path, config))
        except DataError as exc:
            refused.append(str(exc))
    if not shapes:
        raise DataError(f"none of the {len(files)} matrix file(s) can be used: " + " | ".join(refused[:3]))
    return shapes

"""Before a dataset is loaded: its shape, its expected cost, and whether it fits in memory.

The response stage loads a whole table before capping the training part, so a dataset too large for the machine kills
its worker only after minutes of reading. The memory guard prices each dataset from its shape *before* loading it —
OpenML's qualities (no download; offline, :mod:`benchirt.data.recorded_shapes`), a local file's header and line count
(parquet: its footer) — with the peak-memory formula of :func:`benchirt.pipeline.estimate.response_cost`; a dataset
projected over the limit is recorded as skipped with the projection and limit as its reason. Builtins (small) are not
priced. The limit (:func:`benchirt.pipeline.memory.memory_limit`) is ``execution.memory_limit_gb``, by default the
available memory divided by the workers that run at once; under an external Dask scheduler there is no default limit
(Dask's nanny restarts a worker over its own; benchirt counts the loss). The same shape gives the expected seconds the
run's ETA starts from (:mod:`benchirt.pipeline.eta`).
"""
from __future__ import annotations

import csv
import gzip
import os
from dataclasses import dataclass
from pathlib import Path

from benchirt.errors import BenchirtError
from benchirt.pipeline.estimate import Shape, irt_cost, response_cost
from benchirt.pipeline.memory import GB


@dataclass(kw_only=True, frozen=True)
class Preflight:
    """What is known of one dataset before loading it.

    Attributes
    ----------
    shape : Shape or None
        None when the shape cannot be had without loading (builtins, an unreadable source).
    expected_seconds, irt_seconds, peak_bytes : float or None
        Seconds of its response task (one thread) and of its IRT fit by the cost model; projected peak memory of its
        response task.
    skip_reason : str or None
        Why it must not be loaded (projected over the memory limit), else None.
    expected_tasks : list of float or None
        ``expected_seconds`` cut as the (dataset, fit) tasks cut it, preparation first
        (:func:`benchirt.pipeline.estimate.response_cost`).
    """

    shape: Shape | None = None
    expected_seconds: float | None = None
    irt_seconds: float | None = None
    peak_bytes: float | None = None
    skip_reason: str | None = None
    expected_tasks: list[float] | None = None


def file_shape(path: str | os.PathLike, *, classes: int = 2) -> Shape:
    """Rows and features (last column the target) of a local data file, without parsing its values: CSV/TSV header
    fields and further lines, ARFF ``@attribute`` and data lines, parquet footer. ``classes`` is not read (it changes
    naive Bayes' time only)."""
    from benchirt.data.files import file_format

    path = Path(path)
    kind = file_format(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(path).metadata
        return Shape(meta.num_rows, max(meta.num_columns - 1, 1), classes, "parquet footer")
    if kind not in ("csv", "tsv", "arff"):
        raise BenchirtError(f"{path}: no shape for format {kind!r}")
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    if kind == "arff":
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as handle:
            return _arff_shape(handle, path, classes)
    with opener(path, "rb") as handle:
        first = handle.readline().decode("utf-8", errors="replace")
        header = next(csv.reader([first], delimiter="\t" if kind == "tsv" else ","), [])
        rows, last = 0, b"\n"
        for chunk in iter(lambda: handle.read(1 << 20), b""):  # newlines counted in bytes: no line objects
            rows += chunk.count(b"\n")
            last = chunk[-1:]
        rows += last != b"\n"  # a last line without its newline
    return Shape(rows, max(len(header) - 1, 1), classes, f"{kind} header and lines")


def _arff_shape(handle, path: Path, classes: int) -> Shape:
    """The attributes of the header (:func:`benchirt.data.arff.read_header`) and the data lines after ``@data``."""
    from benchirt.data.arff import read_header

    attributes = len(read_header(handle, path).attributes)  # the handle is left after @data (or at the end)
    rows = sum(1 for line in handle if (text := line.strip()) and not text.startswith("%"))
    return Shape(rows, max(attributes - 1, 1), classes, "arff header and lines")


def shape_before_loading(spec, *, ask_server: bool = True) -> Shape | None:
    """A suite member's shape without loading its data, or None (builtins; a source that cannot say); OpenML: its
    qualities, else the recorded table (:func:`benchirt.pipeline.estimate.openml_dataset_shape`; the server asked only
    when ``ask_server``)."""
    try:
        if spec.kind == "openml":
            from benchirt.pipeline.estimate import openml_dataset_shape

            return openml_dataset_shape(spec, ask_server=ask_server)
        if spec.kind == "file":
            return file_shape(spec.location)
    except (BenchirtError, OSError, UnicodeError, ValueError):
        return None  # loading it will say what is wrong
    return None


def preflight(spec, response_config, limit_bytes: float | None, model: dict, *, limit_source: str = "",
              ask_server: bool = True) -> Preflight:
    """The shape, expected seconds and projected peak of ``spec``; a skip reason when over ``limit_bytes``."""
    shape = shape_before_loading(spec, ask_server=ask_server)
    if shape is None:
        return Preflight()
    cost = response_cost(shape, response_config, model)
    reason = None
    if limit_bytes is not None and cost["peak_bytes"] > limit_bytes:
        reason = (f"memory guard: {shape.rows} rows x {shape.features} features ({shape.source}) would need about "
                  f"{cost['peak_bytes'] / GB:.1f} GB, over the limit of {limit_bytes / GB:.1f} GB ({limit_source}); "
                  "the whole table is loaded before any cap, so run it where more memory is free or raise "
                  "execution.memory_limit_gb")
    return Preflight(shape=shape, expected_seconds=cost["seconds"], irt_seconds=irt_cost(shape, response_config, model), peak_bytes=cost["peak_bytes"], skip_reason=reason,
                     expected_tasks=cost["tasks"])


def checker(specs, response_config, limit_bytes: float | None, model: dict, *, limit_source: str = ""):
    """``name -> Preflight`` over a suite; once the OpenML server gave no shape it is not asked again (openml's cache
    and the recorded table still are), as openml-python retries an unreachable server on every call."""
    from benchirt.data.recorded_shapes import RECORDED_SOURCE

    by_name = {spec.name: spec for spec in specs}
    openml_answers = [True]

    def check(name: str) -> Preflight:
        spec = by_name[name]
        result = preflight(spec, response_config, limit_bytes, model, limit_source=limit_source,
                           ask_server=openml_answers[0] or spec.kind != "openml")
        if spec.kind == "openml" and (result.shape is None or result.shape.source == RECORDED_SOURCE):
            openml_answers[0] = False
        return result

    return check

"""The calibration: the pool's datasets × classifiers score matrix, from a run or from score files."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

from benchirt.errors import DataError


@dataclass
class Calibration:
    """A complete pool score matrix: ``scores`` (index ``dataset``, one column per pool classifier, higher = better),
    ``source``, ``notes`` (classifiers left out by ``--exclude`` or incomplete rows; printed by the commands) and
    ``costs`` (dataset → training CPU seconds, :func:`calibration_costs`; None when a dataset's shape is unknown)."""

    scores: pd.DataFrame
    source: str
    notes: list[str] = field(default_factory=list)
    costs: pd.Series | None = None


def load_calibration(path: str | os.PathLike, *, exclude: Sequence[str] = ()) -> Calibration:
    """Read the calibration scores.

    ``path``: a benchirt run directory (its pool's True-Scores: real and artificial classifiers), a folder of decodIRT
    dataset folders holding ``true_scores.csv``, or a long CSV ``dataset, classifier, score`` (both read by
    :func:`benchirt.rating.read_scores`). ``exclude``: pool members to leave out (e.g. for leave-one-classifier-out
    checks).

    Raises
    ------
    DataError
        An excluded name that is not in the pool; fewer than two datasets left.
    """
    from benchirt.rating.scores import read_scores, score_matrix

    path = Path(path)
    long = run_true_scores(path) if (path / "manifest.json").is_file() else read_scores(path)
    matrix = score_matrix(long)
    notes = []
    unknown = [name for name in exclude if name not in matrix.columns]
    if unknown:
        raise DataError(f"--exclude {unknown}: not in the calibration pool ({', '.join(map(str, matrix.columns))})")
    if exclude:
        matrix = matrix.drop(columns=list(exclude))
        notes.append(f"excluded from the calibration: {', '.join(exclude)}")
    incomplete = [c for c in matrix.columns if matrix[c].isna().any()]
    if incomplete:
        matrix = matrix.drop(columns=incomplete)
        notes.append(f"left out classifier(s) without a score on every dataset: {', '.join(incomplete)}")
    if len(matrix) < 2:
        raise DataError(f"{path}: the calibration has {len(matrix)} dataset(s); planning and prediction need at least 2")
    costs, cost_note = calibration_costs(path, [str(name) for name in matrix.index])
    return Calibration(matrix.astype(float), str(path), notes + [cost_note], costs)


def calibration_costs(path: Path, datasets: Sequence[str]) -> tuple[pd.Series | None, str]:
    """Each dataset's training CPU seconds (:func:`benchirt.subsets.costs.training_costs`) from its shape, and a
    note saying where the shapes came from: a run's own datasets, else OpenML-CC18's recorded shapes by name
    (:mod:`benchirt.data.recorded_shapes`); None when a dataset has neither (plans then count datasets)."""
    from benchirt.data.recorded_shapes import recorded_shapes
    from benchirt.subsets.costs import training_costs

    shapes: dict[str, dict] = {}
    source = "OpenML-CC18's recorded shapes"
    if (path / "manifest.json").is_file():
        shapes, source = run_shapes(path), "the run's datasets"
    recorded = {name: {"n_instances": rows, "n_features": features, "n_classes": classes}
                for name, rows, features, classes in recorded_shapes().values()}
    missing = [name for name in datasets if name not in shapes and name not in recorded]
    if missing:
        return None, (f"no shape for dataset(s) {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}: "
                      "plans count datasets, not CPU seconds")
    costs = training_costs({name: shapes.get(name) or recorded[name] for name in datasets})
    if costs.isna().any():
        return None, "a dataset's shape is incomplete: plans count datasets, not CPU seconds"
    return costs, f"dataset costs: the shape-based cost model on {source} (CPU seconds of the default protocol)"


def run_shapes(run_dir: Path) -> dict[str, dict]:
    """Dataset → the metadata (rows, features, classes, ...) of a run's stored responses."""
    from benchirt.pipeline.store import ArtifactStore

    store = ArtifactStore(run_dir)
    shapes = {}
    for name, key in store.read_manifest().result_keys("respond").items():
        if store.has("respond", name, key):
            shapes[str(name)] = dict(store.load("respond", name, key).metadata)
    return shapes


def run_true_scores(run_dir: Path) -> pd.DataFrame:
    """Long ``dataset, classifier, score`` True-Scores of a run's real and artificial classifiers, from the IRT results
    the manifest lists as complete."""
    from benchirt.irt import true_score_table
    from benchirt.pipeline.store import ArtifactStore

    store = ArtifactStore(run_dir)
    irts = []
    for name, key in store.read_manifest().result_keys("irt").items():
        if store.has("irt", name, key):
            irts.append(store.load("irt", name, key))
    if not irts:
        raise DataError(f"{run_dir}: the run has no IRT results; finish `benchirt run --out {run_dir}` first")
    return true_score_table(irts, roles=("real", "artificial"))

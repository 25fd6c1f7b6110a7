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
    """A complete pool score matrix.

    Attributes
    ----------
    scores : pandas.DataFrame, index ``dataset``, one column per pool classifier (higher = better)
    source : str
    notes : list of str
        Classifiers left out (``--exclude``, incomplete rows) — printed by the commands.
    """

    scores: pd.DataFrame
    source: str
    notes: list[str] = field(default_factory=list)


def load_calibration(path: str | os.PathLike, exclude: Sequence[str] = ()) -> Calibration:
    """Read the calibration scores.

    Parameters
    ----------
    path : path
        A benchirt run directory (its pool's True-Scores: real and artificial classifiers), a folder
        of decodIRT dataset folders holding ``true_scores.csv`` or a long CSV ``dataset, classifier,
        score`` (both read by :func:`benchirt.rating.read_scores`).
    exclude : sequence of str
        Pool members to leave out (e.g. for leave-one-classifier-out checks).

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
    return Calibration(matrix.astype(float), str(path), notes)


def run_true_scores(run_dir: Path) -> pd.DataFrame:
    """Long ``dataset, classifier, score`` True-Scores of a run's real and artificial classifiers.

    Reads only the run's stored IRT results (those the manifest lists as complete).
    """
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

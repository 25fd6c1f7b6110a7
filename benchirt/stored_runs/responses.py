"""Imported runs as the response stage's results, so ``benchirt run`` carries them through every stage."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.errors import ConfigError
from benchirt.stored_runs.config import ImportConfig
from benchirt.stored_runs.export import openml_links
from benchirt.stored_runs.matrix import RunMatrix
from benchirt.stored_runs.select import Selection

#: ``provenance["source"]`` of a respondent imported from a stored run (benchirt's own: :mod:`benchirt.stored_runs.beside`).
STORED_RUN = "stored run"
#: The note of an import whose source holds no labels (dropped once it is paired with its dataset).
NO_LABELS = ("the source holds no labels: the suspect-label table shows none (pair the import with its dataset: "
             "respond.pair_with_suite)")
#: The note of an import whose items are named (not dataset rows): no labels, and no dataset to pair with.
NAMED_ITEMS = "the source holds no labels and its items are named, not dataset rows: the suspect-label table shows none"


def read_configured_source(config: ImportConfig, *, base_dir: str | Path = ".") -> list[RunMatrix]:
    """The run matrices the section names: its ``path`` (one or a list, relative to ``base_dir``) or its
    OpenML ``tasks``."""
    from benchirt.stored_runs.folder import read_runs_folder
    from benchirt.stored_runs.sources import read_offline

    if config.path is not None:
        return read_offline(config.path, naming=config.naming(), base_dir=base_dir)
    from benchirt.stored_runs.fetch import FetchOptions, fetch_source

    assert config.tasks is not None  # ImportConfig holds a path or tasks
    fetched = fetch_source(config.tasks, options=FetchOptions(top_flows=config.top_flows, max_runs=config.max_runs),
                           cache=config.cache)
    return read_runs_folder(fetched.folder, only={str(r) for r in fetched.run_ids})


def source_fingerprint(config: ImportConfig, *, base_dir: str | Path = ".") -> str:
    """sha256 over the source's files (names, sizes, modification times) and the naming rule: a changed source
    recomputes."""
    from benchirt.stored_runs.sources import source_paths

    if config.path is None:
        return f"openml-tasks:{config.tasks}"
    digest = hashlib.sha256(f"names:{config.respondent_pattern}\n".encode())
    for path in source_paths(config.path, base_dir=base_dir):
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            stat = file.stat()
            digest.update(f"{file.relative_to(path.parent)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def response_result(matrix: RunMatrix, selection: Selection):
    """A :class:`~benchirt.responses.ResponseResult` of imported runs: every respondent ``real``, ``cv_accuracy`` the
    run's accuracy over all rows (OpenML's cross-validated one), ``test_accuracy`` that on the items kept. No
    ``predictions``; ``test_labels`` are read from the task's dataset, else the files' ``correct`` column, and empty
    for a matrix source (said: pair it with its dataset, :mod:`benchirt.stored_runs.beside`)."""
    from benchirt.data.names import METADATA_COLUMNS
    from benchirt.responses import ResponseResult

    responses = selection.responses.copy()
    names = responses.index.astype(str)
    responses.index = pd.Index(names, name="respondent")
    respondents = selection.respondents.set_index("respondent")
    metadata = {key: float("nan") for key in METADATA_COLUMNS}
    metadata.update(n_instances=int(matrix.n_rows) if matrix.n_rows is not None else float("nan"),
                    n_classes=int(len(np.unique(matrix.item_class))) if matrix.item_class is not None else float("nan"))
    provenance = respondents.reset_index()[["respondent", "run_id", "flow_id", "flow_name", "setup_id", "uploader",
                                            "accuracy", "n_identical"]]
    provenance = provenance.astype({c: str for c in ("run_id", "flow_id", "flow_name", "setup_id", "uploader")})
    provenance["openml_url"] = openml_links(respondents["run_id"])
    provenance.insert(1, "source", STORED_RUN)
    labels = matrix.item_labels
    notes = [] if labels is not None else [NO_LABELS if matrix.item_names is None else NAMED_ITEMS]
    test_labels = (pd.Series(pd.Series(labels, index=matrix.items.astype(str)).reindex(responses.columns).to_numpy(),
                             index=responses.columns, name="label", dtype=str)
                   if labels is not None else pd.Series(dtype=str, name="label"))
    return ResponseResult(
        dataset=matrix.dataset, responses=responses,
        roles=pd.Series("real", index=names, name="role"),
        predictions=None,
        cv_accuracy=pd.Series(respondents["accuracy"].to_numpy(), index=names, name="cv_accuracy"),
        test_accuracy=pd.Series(respondents["item_accuracy"].to_numpy(), index=names, name="test_accuracy"),
        metadata=metadata, test_index=_item_positions(matrix, responses.columns),
        notes=[f"imported from {len(matrix.runs)} stored runs ({len(matrix.items)} "
               f"{'rows' if matrix.item_names is None else 'items'} answered by every run)",
               *matrix.notes, *selection.notes, *notes, *(f"skipped: {line}" for line in matrix.skipped),
               *(f"skipped in the source (its dataset unknown): {line}" for line in matrix.source_skipped)],
        provenance=provenance, test_labels=test_labels,
    )


def _item_positions(matrix: RunMatrix, columns: pd.Index) -> np.ndarray:
    """The items' OpenML row ids (``test_index``), or their positions in the file when they are named items."""
    if matrix.item_names is None:
        return np.asarray(columns.astype(np.int64))
    where = {name: i for i, name in enumerate(matrix.item_names)}
    return np.array([where[name] for name in columns], np.int64)


def imported_results(config: ImportConfig, *, base_dir: str | Path = ".") -> dict:
    """Dataset name → ResponseResult of every dataset the section's source holds."""
    from benchirt.stored_runs.field import select_field

    matrices = read_configured_source(config, base_dir=base_dir)
    named = [matrix.dataset for matrix in matrices if matrix.item_names is not None]
    if named and config.paired:
        raise ConfigError(f"respond.pair_with_suite / pool: the items of {', '.join(named[:3])} are named, not "
                          "rows of a dataset, so no dataset can be paired with them; leave pairing and the pool out")
    selected, _, _ = select_field(matrices, config.selection())
    return {matrix.dataset: response_result(matrix, selection) for matrix, selection in selected}

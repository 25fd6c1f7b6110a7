"""Export a run's stored responses as plain CSV files for the other commands and other tools."""
from __future__ import annotations

import os
from pathlib import Path

from benchirt.io import atomic_write_csv, atomic_write_json

#: ``RUN_DIR/irt/<this>``: the IRT thresholds the exported tables were derived under (a dataset's folder name
#: never starts with a dot), so a threshold change writes them again although no fit was recomputed.
THRESHOLDS_FILE = ".thresholds.json"


def export_responses(run_dir: str | os.PathLike) -> list[Path]:
    """Write ``RUN_DIR/responses/<dataset>/{responses,roles,test_accuracy,cv_accuracy}.csv`` (``responses.csv``:
    respondent names first, one 0/1 column per test item, as ``benchirt irt`` reads); the dataset folders written."""
    from benchirt.pipeline.results import load_run
    from benchirt.io import safe_name

    results = load_run(run_dir)
    written = []
    for name, result in sorted(results.respond.items()):
        folder = Path(run_dir) / "responses" / safe_name(name)
        atomic_write_csv(folder / "responses.csv", result.responses.rename_axis("classifier").reset_index())
        atomic_write_csv(folder / "roles.csv", result.roles.rename("role").rename_axis("classifier").reset_index())
        atomic_write_csv(folder / "test_accuracy.csv",
                         result.test_accuracy.rename("accuracy").rename_axis("classifier").reset_index())
        atomic_write_csv(folder / "cv_accuracy.csv",
                         result.cv_accuracy.rename("accuracy").rename_axis("classifier").reset_index())
        written.append(folder)
    return written


def export_irt(run_dir: str | os.PathLike) -> list[Path]:
    """Write ``RUN_DIR/irt/<dataset>/{items,suspect_labels,model_comparison}.csv`` for every dataset with an IRT
    result: item parameters with item fit, the suspect labels (:mod:`benchirt.irt.suspects`, by dataset row) and the
    1PL/2PL/3PL comparison, under the run's thresholds (recorded in :data:`THRESHOLDS_FILE`); the folders written."""
    from benchirt.irt.config import summary_options
    from benchirt.pipeline.results import load_run
    from benchirt.io import safe_name

    results = load_run(run_dir)
    written = []
    for name, irt in sorted(results.irt.items()):
        folder = Path(run_dir) / "irt" / safe_name(name)
        atomic_write_csv(folder / "items.csv", irt.fit.items.join(irt.item_fit).reset_index())
        atomic_write_csv(folder / "suspect_labels.csv", irt.suspect_labels)
        if len(irt.model_comparison):
            atomic_write_csv(folder / "model_comparison.csv", irt.model_comparison)
        written.append(folder)
    if written:
        atomic_write_json(Path(run_dir) / "irt" / THRESHOLDS_FILE, summary_options(results.config.stage_config("irt").to_dict()))
    return written

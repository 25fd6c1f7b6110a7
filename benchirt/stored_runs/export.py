"""Write a selection as ``benchirt respond`` exports responses, with the runs' provenance beside them.

``DIR/responses/<dataset>/``:

* ``responses.csv`` — respondents × items of 0/1, names in the first column (``classifier``), items named by OpenML row
  id: what ``benchirt irt`` reads;
* ``respondents.csv`` — each respondent's provenance (run, flow, setup, uploader, accuracy, …) and OpenML link;
* ``roles.csv`` and ``test_accuracy.csv`` — as ``benchirt respond`` writes them (every run is ``real``);
* ``winners_curse.csv`` — :func:`benchirt.stored_runs.select.winners_curse`;
* ``import.json`` — the source, the rule and its options, every note and skipped run (this dataset's and the
  source's, with the count of folders or files it holds), and over several datasets the field's coverage.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from benchirt.io import atomic_write_csv, atomic_write_json
from benchirt.stored_runs.matrix import RunMatrix
from benchirt.stored_runs.select import Selection, SelectionOptions

OPENML_RUN_URL = "https://www.openml.org/r/{}"


def openml_links(run_ids: pd.Series) -> list[str]:
    """The OpenML page of each numeric run id ('' for runs without one, e.g. rows of a matrix source)."""
    numeric = pd.to_numeric(run_ids, errors="coerce")
    return [OPENML_RUN_URL.format(int(r)) if pd.notna(r) else "" for r in numeric]


def dataset_folder(out: str | Path, dataset: str) -> Path:
    from benchirt.io import safe_name

    return Path(out) / "responses" / safe_name(dataset)


def write_selection(out: str | Path, matrix: RunMatrix, selection: Selection, options: SelectionOptions,
                    source: str, *, field: dict | None = None) -> Path:
    """Write the files listed in the module docstring; returns the dataset's folder. ``field``: the
    multi-dataset field's counts and this dataset's share (:meth:`benchirt.stored_runs.field.FieldCoverage.record`)."""
    folder = dataset_folder(out, matrix.dataset)
    atomic_write_csv(folder / "responses.csv", selection.responses.rename_axis("classifier").reset_index())
    respondents = selection.respondents.copy()
    respondents["openml_url"] = openml_links(respondents["run_id"])
    atomic_write_csv(folder / "respondents.csv", respondents)
    names = selection.responses.index
    atomic_write_csv(folder / "roles.csv", pd.DataFrame({"classifier": names, "role": "real"}))
    atomic_write_csv(folder / "test_accuracy.csv",
                     pd.DataFrame({"classifier": names, "accuracy": respondents["item_accuracy"].to_numpy()}))
    atomic_write_csv(folder / "winners_curse.csv", selection.winners_curse)
    atomic_write_json(folder / "import.json", {
        "source": source, "dataset": matrix.dataset, "task_id": matrix.task_id,
        "options": dataclasses.asdict(options), "rule_applied": selection.rule_applied, "runs_read": int(len(matrix.runs)),
        "runs_skipped": len(matrix.skipped), "respondents": int(selection.responses.shape[0]),
        "items": int(selection.responses.shape[1]), "notes": matrix.notes + selection.notes,
        "skipped": matrix.skipped, "source_found": matrix.source_found, "source_unit": matrix.source_unit,
        "source_skipped": matrix.source_skipped, "field": field,
    })
    return folder

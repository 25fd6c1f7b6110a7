"""The report section on classifiers added to a finished run by ``benchirt add`` (measured vs predicted)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from benchirt.report.config import ReportConfig

if TYPE_CHECKING:
    from benchirt.pipeline.results import RunResults
from benchirt.document.page import Note, Paragraph, Section, Table


def added_classifiers(results: RunResults, config: ReportConfig) -> Section | None:
    """Standing of each added classifier and its score per dataset, every value marked measured or predicted."""
    added = results.manifest.added or {}
    folder = results.run_dir / "added"
    if not added or not (folder / "standing.csv").is_file():
        return None
    section = Section("added", "Added classifiers")
    section.add(Paragraph(
        f"{', '.join(sorted(added))} joined this run after the study (`benchirt add`): trained on the stored splits, "
        "scored on the frozen item parameters (items not refitted, pool not retrained). Their measured True-Scores "
        "are in the ratings and tests above; scores on datasets they were not run on (budget K) are predicted from "
        "the pool with 90 % intervals and are not used by the ratings or tests."
    ))
    standing = pd.read_csv(folder / "standing.csv")
    section.add(Table(standing, "Standing by average rank over all datasets (1 = best) with its 90 % interval; "
                                "n_measured datasets measured, n_predicted predicted."))
    predicted = pd.read_csv(folder / "predicted.csv")
    predicted.insert(3, "value", predicted["observed"].map({True: "measured", False: "predicted"}))
    section.add(Table(predicted.drop(columns=["observed", "sd"]),
                      "True-Score per dataset: measured, or predicted with its 90 % interval (low, high)."))
    for note in sorted({note for entry in added.values() for note in entry.get("notes", [])}):
        section.add(Note(note))
    skipped = {name: reasons for name, entry in added.items() if (reasons := entry.get("skipped"))}
    for name, reasons in skipped.items():
        section.add(Note(f"{name} could not be fitted on: " + "; ".join(f"{d} ({r})" for d, r in reasons.items())))
    return section

"""The report's section on respondents imported from stored runs (:mod:`benchirt.stored_runs`): how they were
chosen, the field over several datasets (the flows present on each and their share of the field), the top of
the field on each dataset with its ability interval, and where every respondent comes from (run, flow, setup,
uploader, OpenML link)."""
from __future__ import annotations

import pandas as pd

from benchirt.report.config import ReportConfig
from benchirt.report.document import Note, Paragraph, Section, Table
from benchirt.stored_runs.field import FieldCoverage
from benchirt.stored_runs.responses import STORED_RUN

#: Respondents per dataset shown in the top-of-the-field table (the full table is folded below it).
TOP = 20
#: How the field's one-line summary starts in each dataset's notes (:meth:`FieldCoverage.summary`).
FIELD_NOTE = "field: "


def stored_field(imported: dict) -> FieldCoverage | None:
    """The flows of stored runs on each imported dataset (by flow name), or None for a single dataset."""
    if len(imported) < 2:
        return None
    flows = {}
    for name, result in imported.items():
        provenance = result.provenance
        stored = provenance["source"] == STORED_RUN if "source" in provenance else pd.Series(True, provenance.index)
        flows[name] = set(provenance.loc[stored, "flow_name"].astype(str))
    return FieldCoverage(flows)


def field_table(field: FieldCoverage) -> Table:
    """Per dataset: the stored flows present and their share of the field's flows (a sparse field: a flow ran on
    some datasets only, and has no answers on the others)."""
    frame = pd.DataFrame({"dataset": list(field.flows),
                          "flows present": [len(flows) for flows in field.flows.values()],
                          "share of the field's flows (%)": [100 * field.share(name) for name in field.flows]})
    return Table(frame, field.summary() + ".", human_headers=False)


def imported_runs(results, config: ReportConfig) -> Section | None:
    """Absent unless some dataset's responses were imported (``ResponseResult.provenance``)."""
    imported = {name: r for name, r in sorted(results.respond.items()) if getattr(r, "provenance", None) is not None}
    if not imported:
        return None
    section = Section("imported-runs", "Respondents from stored runs")
    section.add(Paragraph(
        "These respondents were not trained here: each is a run stored on OpenML, whose out-of-fold prediction "
        "of every row of the task's dataset gives its 0/1 answers (benchirt import-runs, docs/stored-runs.md). "
        "The top of the field per dataset by IRT ability θ with its 95 % interval (θ ± 1.96 SE); the full "
        "provenance table lists every respondent with its OpenML page; 'source' tells a stored run from a "
        "classifier of benchirt's own pool answering the same rows (respond.pool)."))
    field = stored_field(imported)
    if field is not None:
        section.add(field_table(field))
    for name, result in imported.items():
        for note in result.notes:
            if field is None or not note.startswith(FIELD_NOTE):  # the field's summary: the table above
                section.add(Note(f"{name}: {note}"))
        provenance = result.provenance.copy()
        irt = results.irt.get(name)
        if irt is not None:
            abilities = irt.abilities.set_index("respondent")[["theta", "se", "true_score"]]
            provenance = provenance.join(abilities, on="respondent")
            provenance["theta_low"] = provenance["theta"] - 1.96 * provenance["se"]
            provenance["theta_high"] = provenance["theta"] + 1.96 * provenance["se"]
            provenance = provenance.sort_values(["theta", "respondent"], ascending=[False, True], ignore_index=True)
            columns = ["respondent", "source", "theta", "theta_low", "theta_high", "true_score", "accuracy",
                       "n_identical", "flow_name", "run_id", "openml_url"]
            columns = [c for c in columns if c in provenance.columns]
            section.add(Table(provenance[columns].head(TOP),
                              f"{name}: the {min(TOP, len(provenance))} highest abilities of {len(provenance)} "
                              "respondents."))
        section.add(Table(provenance, f"{name}: provenance of every respondent ({len(provenance)})."))
    return section

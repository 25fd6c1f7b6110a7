"""The response stage's report section on respondents imported from stored runs (:mod:`benchirt.stored_runs`): how
they were chosen, the field over several datasets (the flows present on each and their share of the field), the
top of the field on each dataset with its ability interval, and where every respondent comes from (run, flow,
setup, uploader, OpenML link); named by the stage's registry record (:attr:`benchirt.pipeline.registry.Stage.sections`)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from benchirt.document.context import SectionContext
from benchirt.document.page import Note, Paragraph, Section, Table
from benchirt.stored_runs.field import FieldCoverage
from benchirt.stored_runs.responses import STORED_RUN

if TYPE_CHECKING:
    from benchirt.irt.stage import DatasetIRT
    from benchirt.responses.stage import ResponseResult

#: Respondents per dataset shown in the top-of-the-field table (the full table is folded below it).
TOP = 20
#: How the field's one-line summary starts in each dataset's notes (:meth:`FieldCoverage.summary`).
FIELD_NOTE = "field: "


def stored_field(provenances: Mapping[str, pd.DataFrame]) -> FieldCoverage | None:
    """The flows of stored runs on each imported dataset (by flow name) from the datasets' provenance tables
    (``ResponseResult.provenance``), or None for a single dataset."""
    if len(provenances) < 2:
        return None
    flows = {}
    for name, provenance in provenances.items():
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


def imported_runs(responses: Mapping[str, ResponseResult], context: SectionContext) -> Section | None:
    """Absent unless some dataset's responses were imported (``ResponseResult.provenance``); the respondents'
    abilities come from the run's IRT results when it has them."""
    provenances: dict[str, pd.DataFrame] = {name: frame for name, result in sorted(responses.items())
                                            if (frame := getattr(result, "provenance", None)) is not None}
    if not provenances:
        return None
    section = Section("imported-runs", "Respondents from stored runs")
    section.add(Paragraph(
        "These respondents were not trained here: each is a run stored on OpenML, whose out-of-fold prediction "
        "of every row of the task's dataset gives its 0/1 answers (benchirt import-runs, docs/stored-runs.md). "
        "The top of the field per dataset by IRT ability θ with its 95 % interval (θ ± 1.96 SE); the full "
        "provenance table lists every respondent with its OpenML page; 'source' tells a stored run from a "
        "classifier of benchirt's own pool answering the same rows (respond.pool)."))
    irts: Mapping[str, DatasetIRT] = context.of("irt") or {}
    field = stored_field(provenances)
    if field is not None:
        section.add(field_table(field))
    for name, frame in provenances.items():
        for note in responses[name].notes:
            if field is None or not note.startswith(FIELD_NOTE):  # the field's summary: the table above
                section.add(Note(f"{name}: {note}"))
        provenance = frame.copy()
        irt = irts.get(name)
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

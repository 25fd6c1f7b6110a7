"""The report's section on respondents imported from stored runs (:mod:`benchirt.runs`): how they were
chosen, the top of the field on each dataset with its ability interval, and where every respondent comes
from (run, flow, setup, uploader, OpenML link)."""
from __future__ import annotations

from benchirt.report.config import ReportConfig
from benchirt.report.document import Note, Paragraph, Section, Table

#: Respondents per dataset shown in the top-of-the-field table (the full table is folded below it).
TOP = 20


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
    for name, result in imported.items():
        for note in result.notes:
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

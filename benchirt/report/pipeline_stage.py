"""The report stage in a run: ``report.html`` and ``summary.md`` from the run's manifest and results."""
from __future__ import annotations

from benchirt.irt.config import summary_options
from benchirt.stage_plan import DocumentWork, StageContext


def plan(context: StageContext) -> DocumentWork:
    """Write the report of the run directory with the run's ``report`` options.

    The report is rebuilt when they change or when the IRT thresholds do
    (:func:`benchirt.irt.config.summary_options`: its IRT tables read them, the IRT keys leave them out).
    """
    config = context.config.stage_config("report")

    def write() -> None:
        from benchirt.report import build_report

        build_report(context.run_dir, config=config)

    return DocumentWork({**context.options, "irt": summary_options(context.options_of("irt") or {})}, write)

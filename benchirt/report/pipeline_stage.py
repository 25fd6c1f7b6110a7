"""The report stage in a run: ``report.html`` and ``summary.md`` from the run's manifest and results."""
from __future__ import annotations

from benchirt.stage_plan import DocumentWork, StageContext


def plan(context: StageContext) -> DocumentWork:
    """Write the report of the run directory with the run's ``report`` options."""
    config = context.config.stage_config("report")

    def write() -> None:
        from benchirt.report import build_report

        build_report(context.run_dir, config)

    return DocumentWork(context.options, write)

"""The report of a finished run: one self-contained ``report.html`` and a ``summary.md``.

Usage (not run as a doctest)::

    from benchirt.report import build_report
    paths = build_report("runs/default")          # {"html": ..., "markdown": ...}
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from benchirt.io import atomic_write_text
from benchirt.report.config import ReportConfig

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd

    from benchirt.document.page import Section
    from benchirt.pipeline.results import RunResults

__all__ = ["ReportConfig", "build_report", "report_sections", "warnings_section"]

#: Distinct warnings the warnings section quotes; the others are counted.
SHOWN_WARNINGS = 5


def report_sections(results: RunResults, *, config: ReportConfig | None = None) -> list[Section]:
    """The sections of a run's report, in page order (those whose stage did not run are absent;
    :mod:`benchirt.report.page`)."""
    from benchirt.report.page import page_sections  # the stages' sections: imported when a report is drawn

    return page_sections(results, config or ReportConfig())


def warnings_section(caught) -> Section:
    """The warnings raised while the report was drawn (matplotlib's, mostly: a layout not applied, a glyph
    missing from the font), kept off the console and said here: each distinct message once, with its count."""
    from collections import Counter

    from benchirt.document.page import Note, Section

    counts = Counter(f"{w.category.__name__}: {' '.join(str(w.message).split())}" for w in caught)
    shown = [f"{message} (×{n})" if n > 1 else message for message, n in list(counts.items())[:SHOWN_WARNINGS]]
    more = len(counts) - len(shown)
    text = (f"{len(caught)} warning(s) while the figures and tables were drawn, kept off the console: "
            + "; ".join(shown) + (f"; and {more} other distinct warning(s)" if more else ""))
    return Section("warnings", "Warnings while drawing the report", [Note(text)])


def build_report(run_dir: str | os.PathLike, *, config: ReportConfig | None = None,
                 out: str | os.PathLike | None = None) -> dict[str, Path]:
    """Write ``report.html`` and ``summary.md`` for the run in ``run_dir`` (a folder with a ``manifest.json``) into
    ``out`` (default ``run_dir``); ``config`` defaults to the run's own ``report`` options. Returns ``{"html": path,
    "markdown": path}``. Drawing warnings do not reach the console: the last section lists them
    (:func:`warnings_section`)."""
    from benchirt.pipeline.config import source_label
    from benchirt.pipeline.results import load_run
    from benchirt.document.page import render_html, render_markdown

    results = load_run(run_dir)
    config = config or results.config.stage_config("report")
    with warnings.catch_warnings(record=True) as caught:  # matplotlib's layout and glyph warnings, among others
        warnings.simplefilter("always")
        sections = report_sections(results, config=config)
    if caught:
        sections.append(warnings_section(caught))
    manifest = results.manifest
    subtitle = (f"{source_label(manifest.config_source or '?')} · "
                f"benchirt {manifest.versions.get('benchirt', '?')} · updated {manifest.updated or '?'}")
    out = Path(out) if out is not None else Path(run_dir)
    paths = {"html": out / "report.html", "markdown": out / "summary.md"}
    attachments: dict[str, pd.DataFrame] = {}
    page = render_html(config.title, subtitle, sections, attachments=attachments)
    write_attachments(out, attachments)
    atomic_write_text(paths["html"], page)
    atomic_write_text(paths["markdown"], render_markdown(config.title, subtitle, sections))
    return paths


def write_attachments(out: Path, attachments: Mapping[str, pd.DataFrame]) -> None:
    """Write the large tables' CSVs the page links (:func:`benchirt.document.page.render_html`) and remove the ones
    an earlier report of this folder attached and this one does not."""
    from benchirt.document.page import ATTACHMENT_FOLDER
    from benchirt.io import atomic_write_csv

    folder = out / ATTACHMENT_FOLDER
    for name, frame in attachments.items():
        atomic_write_csv(out / name, frame)
    if folder.is_dir():
        for stale in sorted({*folder.glob("*.csv"), *folder.glob("*.csv.gz")} - {out / name for name in attachments}):
            stale.unlink()

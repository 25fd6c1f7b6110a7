"""Options of the report stage (:class:`ReportConfig`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.options import check_integer, check_text, checked_options


@dataclass(frozen=True)
class ReportConfig:
    """What :func:`benchirt.report.build_report` puts on the page.

    Attributes
    ----------
    title : str
        Heading of ``report.html`` and ``summary.md``.
    max_dataset_plots : int
        Datasets that get their own item (ICC) and classifier (CCC) characteristic-curve figures: the
        most and least difficult ones, up to this many in all (every dataset stays in the tables).
    dpi : int
        Resolution of the embedded PNG figures (their size is what makes the page heavy).
    top_classifiers : int
        Rows of the rating table shown in the end-of-run summary on the terminal.
    """

    title: str = "benchirt report"
    max_dataset_plots: int = 4
    dpi: int = 80
    top_classifiers: int = 5

    def __post_init__(self) -> None:
        check_text("report", "title", self.title, empty=True)
        check_integer("report", "max_dataset_plots", self.max_dataset_plots, 0)
        check_integer("report", "dpi", self.dpi, 20)
        check_integer("report", "top_classifiers", self.top_classifiers, 0)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ReportConfig":
        """Build from the ``report:`` section of a YAML config; unknown keys are an error."""
        return cls(**checked_options("report", d, cls))

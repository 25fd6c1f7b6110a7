"""Options of the report stage (:class:`ReportConfig`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import Constraint, Integer, Text, checked_options, validate_fields


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

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "title": Text(empty=True),
        "max_dataset_plots": Integer(minimum=0),
        "dpi": Integer(minimum=20),
        "top_classifiers": Integer(minimum=0),
    }

    def __post_init__(self) -> None:
        validate_fields("report", self, self.OPTIONS)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ReportConfig":
        """Build from the ``report:`` section of a YAML config; unknown keys are an error."""
        return cls(**checked_options("report", d, cls))

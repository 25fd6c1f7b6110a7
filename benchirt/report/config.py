"""Options of the report stage (:class:`ReportConfig`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import Constraint, Integer, Text, checked_options, validate_fields


@dataclass(frozen=True)
class ReportConfig:
    """What :func:`benchirt.report.build_report` puts on the page: ``title`` (heading of both files),
    ``max_dataset_plots`` (datasets with their own ICC and CCC figures: the most and least difficult, up to this many;
    every dataset stays in the tables), ``dpi`` (of the embedded PNGs, which make the page heavy) and
    ``top_classifiers`` (rows of the rating table in the end-of-run terminal summary)."""

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

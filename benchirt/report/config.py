"""Options of the report stage (:class:`ReportConfig`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.errors import ConfigError
from benchirt.options import checked_options


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
        for name in ("max_dataset_plots", "dpi", "top_classifiers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < (20 if name == "dpi" else 0):
                raise ConfigError(f"report.{name} must be an integer >= {20 if name == 'dpi' else 0}, got {value!r}")
        if not isinstance(self.title, str):
            raise ConfigError(f"report.title must be text, got {self.title!r}")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ReportConfig":
        """Build from the ``report:`` section of a YAML config; unknown keys are an error."""
        d = checked_options("report", d, cls)
        return cls(**d)

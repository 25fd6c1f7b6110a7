"""What a stage's report sections read beside their stage's own result (:class:`SectionContext`).

A stage's registry record names the functions that add its sections
(:attr:`benchirt.pipeline.registry.Stage.sections`); the report calls each with the stage's result — a
``{dataset: result}`` mapping for a per-dataset stage, the one result for a suite-wide stage — and this context.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


class StageConfigs(Protocol):
    """The run's config as a section reads it (:class:`benchirt.pipeline.PipelineConfig`)."""

    def stage_config(self, name: str) -> Any: ...


@dataclass(frozen=True)
class SectionContext:
    """The run around one stage's result, as its sections read it.

    Attributes
    ----------
    config : StageConfigs
        The run's config: ``config.stage_config(name)`` is a stage's options (the IRT thresholds, the rated score).
    dpi : int
        Resolution of the embedded figures (the report's ``dpi``).
    max_dataset_plots : int
        Datasets that get their own characteristic-curve figures (the report's ``max_dataset_plots``).
    results : mapping
        Stage name -> that stage's results in the run (``{dataset: result}`` or one result, None when absent):
        what a section reads of another stage (:meth:`of`).
    """

    config: StageConfigs
    dpi: int = 80
    max_dataset_plots: int = 4
    results: Mapping[str, Any] = field(default_factory=dict)

    def of(self, stage: str) -> Any:
        """Another stage's results in the run: ``{dataset: result}`` (empty when absent) for a per-dataset stage,
        its one result (None when absent) for a suite-wide one."""
        return self.results.get(stage)

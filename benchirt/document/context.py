"""What a stage's report sections read beside their stage's own result (:class:`SectionContext`).

A stage's registry record names its section functions (:attr:`benchirt.pipeline.registry.Stage.sections`); the report
calls each with the stage's result (``{dataset: result}`` per dataset, else the one result) and this context.
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
    """The run around one stage's result, as its sections read it: ``config`` (``config.stage_config(name)`` is a
    stage's options), ``dpi`` and ``max_dataset_plots`` (the report's options: figure resolution, datasets with their
    own characteristic curves) and ``results`` (stage -> its results in the run, ``{dataset: result}`` or one result,
    None when absent; read through :meth:`of`)."""

    config: StageConfigs
    dpi: int = 80
    max_dataset_plots: int = 4
    results: Mapping[str, Any] = field(default_factory=dict)

    def of(self, stage: str) -> Any:
        """Another stage's results in the run: ``{dataset: result}`` (empty when absent) for a per-dataset stage,
        its one result (None when absent) for a suite-wide one."""
        return self.results.get(stage)

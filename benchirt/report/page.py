"""The report's page: its cross-stage sections and every stage's own, built and placed in page order.

A stage's sections are named by its registry record (:attr:`benchirt.pipeline.registry.Stage.sections`) and built with a
:class:`benchirt.document.context.SectionContext`; the report's own (:mod:`benchirt.report.sections`,
:mod:`benchirt.report.added`) read the whole run. :data:`PAGE_ORDER` places them; an unlisted section follows in the
registry's order, so a new stage needs no edit here. A stage without a result adds none.
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from benchirt.document.context import SectionContext
from benchirt.pipeline import registry
from benchirt.report.added import added_classifiers
from benchirt.report.config import ReportConfig
from benchirt.report.sections import conclusions, overview

if TYPE_CHECKING:
    from benchirt.document.page import Section
    from benchirt.pipeline.results import RunResults

#: The page's sections in order, each by the ``module:function`` that builds it (a stage's record names its own).
PAGE_ORDER: tuple[str, ...] = (
    "benchirt.report.sections:conclusions",
    "benchirt.rating.report_sections:leaderboard",
    "benchirt.stored_runs.report_sections:imported_runs",
    "benchirt.rating.report_sections:ratings",
    "benchirt.report.added:added_classifiers",
    "benchirt.rating.report_sections:statistics",
    "benchirt.report.sections:overview",
    "benchirt.responses.report_sections:size_policy",
    "benchirt.irt.report_sections:datasets",
    "benchirt.irt.report_sections:model_fit",
    "benchirt.irt.report_sections:suspect_labels",
    "benchirt.irt.report_sections:item_curves",
    "benchirt.irt.report_sections:true_scores",
    "benchirt.subsets.report_sections:subsets",
    "benchirt.airt.report_sections:airt",
)

#: The report's own sections, which read the whole run (every stage's results, the manifest, ``benchirt add``'s files).
CROSS_STAGE: tuple[Callable[[RunResults, ReportConfig], Section | None], ...] = (conclusions, added_classifiers,
                                                                                  overview)

#: A section to build: its builder's ``module:function`` name, and the call that builds it (None: nothing to show).
Builder = tuple[str, Callable[[], "Section | None"]]


def page_sections(results: RunResults, config: ReportConfig) -> list[Section]:
    """The sections of a run's report in page order, built in that order (those with nothing to show are absent)."""
    builders = sorted([*_cross_stage(results, config), *_stage_builders(results, config)],
                      key=lambda builder: PAGE_ORDER.index(builder[0]) if builder[0] in PAGE_ORDER else len(PAGE_ORDER))
    return [section for _, build in builders if (section := build()) is not None]


def _cross_stage(results: RunResults, config: ReportConfig) -> list[Builder]:
    """The report's own sections (:data:`CROSS_STAGE`), each named as :data:`PAGE_ORDER` names it."""
    return [(f"{make.__module__}:{make.__name__}", partial(make, results, config)) for make in CROSS_STAGE]


def _stage_builders(results: RunResults, config: ReportConfig) -> list[Builder]:
    """Each stage's sections (its record's :attr:`~benchirt.pipeline.registry.Stage.sections`), walking the registry
    in its order; a stage without a result (None, or no dataset) has none."""
    found = {stage.name: getattr(results, stage.name) for stage in registry.REGISTRY}
    context = SectionContext(results.config, dpi=config.dpi, max_dataset_plots=config.max_dataset_plots,
                             results=found)
    builders: list[Builder] = []
    for stage in registry.REGISTRY:
        result = found[stage.name]
        if result is None or (isinstance(result, Mapping) and not result):
            continue
        builders += [(name, partial(_stage_section, name, result, context)) for name in stage.sections]
    return builders


def _stage_section(name: str, result: Any, context: SectionContext) -> Section | None:
    """The section the stage's function ``name`` (``module:function``) builds from its result."""
    return registry.resolve(name)(result, context)

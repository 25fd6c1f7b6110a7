"""The stages of a run, each declared once: every list the pipeline, the store, the CLI and the report use is derived here.

A :class:`Stage` names a stage once (its ``stages:`` entry, config section, artifact folder, results attribute and
CLI verb) and says how its options are validated, what plans its work (:mod:`benchirt.stage_plan`), where its result
types live, what it reads, its scope, the source its keys depend on, and its report title and sections.
:data:`REGISTRY` lists them in execution order. Adding a stage is its own package plus one record here
(docs/DESIGN.md, "Adding a stage"). Names only: this module imports no stage (``benchirt --help`` and config
validation stay light); :func:`resolve` resolves the names and refuses anything outside ``benchirt``.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from benchirt.errors import ConfigError

#: How a stage runs: one task per dataset, one task over the suite, or files written from the manifest.
SCOPES = ("dataset", "suite", "document")


@dataclass(frozen=True)
class Stage:
    """One pipeline stage, declared once.

    Attributes
    ----------
    name : str
        The stage's one name: ``stages:`` entry, config section, artifact folder, manifest entry,
        :class:`~benchirt.pipeline.results.RunResults` attribute.
    config, plan : str
        ``module:Class`` whose ``from_dict`` validates the config section; ``module:function`` that turns a
        :class:`~benchirt.stage_plan.StageContext` into the stage's work.
    results : tuple of str
        Modules whose dataclasses the stage stores (:mod:`benchirt.pipeline.artifact_types`).
    needs : tuple of str
        Stages whose results it reads (earlier in :data:`REGISTRY`).
    scope : {"dataset", "suite", "document"}
    code : tuple of str
        Sub-packages and modules (relative to ``benchirt/``) whose source its results depend on, beside
        :data:`benchirt.pipeline.fingerprint.COMMON_CODE`; None: the whole package.
    command, help, title : str
        Module of the stage's CLI command (``register(subparsers)``, verb ``name``); its ``benchirt --help`` line;
        what the report calls its results.
    aliases : tuple of str
        Former names, still accepted in configs and ``--stages`` (with a note).
    needs_for : str or None
        ``module:function`` giving the stages it reads under a :class:`~benchirt.pipeline.PipelineConfig` when that
        depends on its options (AIRT reads the responses only for ``airt.input: accuracy``).
    derive : str or None
        ``module:function`` that fits a stored result to the run's options (``derive(result, stage_config)``) when its
        key leaves some out; every load of a run applies it (the IRT stage re-derives the threshold tables from the
        stored fit). A stage that reads those options' tables adds them to its key.
    sections : tuple of str
        ``module:function`` of each report section (``benchirt/<package>/report_sections.py``), called as
        ``function(result, context)`` with the stage's result (``{dataset: result}`` per dataset) and a
        :class:`benchirt.document.context.SectionContext`; returns a :class:`benchirt.document.page.Section` or None.
        The report calls them for the stages with results (:func:`benchirt.report.page.page_sections`).
    """

    name: str
    config: str
    plan: str
    results: tuple[str, ...]
    needs: tuple[str, ...]
    scope: str
    code: tuple[str, ...] | None
    command: str
    help: str
    title: str
    aliases: tuple[str, ...] = ()
    needs_for: str | None = None
    derive: str | None = None
    sections: tuple[str, ...] = ()

    def needs_in(self, config) -> tuple[str, ...]:
        """The stages this one reads under ``config``."""
        return tuple(resolve(self.needs_for)(config)) if self.needs_for else self.needs

    def as_configured(self, result, config):
        """A stored result as ``config`` (a :class:`~benchirt.pipeline.PipelineConfig`) shows it: :attr:`derive` of it
        under the stage's config, or the result itself."""
        return resolve(self.derive)(result, config.stage_config(self.name)) if self.derive else result


REGISTRY: tuple[Stage, ...] = (
    Stage("respond", config="benchirt.responses.config:ResponseConfig",
          plan="benchirt.pipeline.respond_stage:plan",
          results=("benchirt.responses.stage",), needs=(), scope="dataset",
          code=("data", "pool", "responses", "preprocess.py", "sniff.py", "lazy.py", "pipeline/respond_stage.py",
                "pipeline/fits.py", "pipeline/progress.py", "stored_runs"),
          command="benchirt.pipeline.command", help="response matrices of the classifier pool on a suite",
          title="responses", aliases=("responses",),
          sections=("benchirt.stored_runs.report_sections:imported_runs",
                    "benchirt.responses.report_sections:size_policy")),
    Stage("irt", config="benchirt.irt.config:IRTConfig", plan="benchirt.irt.pipeline_stage:plan",
          results=("benchirt.irt.config", "benchirt.irt.fit", "benchirt.irt.stage"), needs=("respond",),
          scope="dataset", code=("irt", "lazy.py"),
          command="benchirt.irt.command", help="fit a 1PL/2PL/3PL model to a response matrix",
          title="item response theory", aliases=("irts",), derive="benchirt.irt.pipeline_stage:derive",
          sections=("benchirt.irt.report_sections:datasets", "benchirt.irt.report_sections:model_fit",
                    "benchirt.irt.report_sections:suspect_labels", "benchirt.irt.report_sections:item_curves",
                    "benchirt.irt.report_sections:true_scores")),
    Stage("rate", config="benchirt.rating.config:RatingConfig", plan="benchirt.rating.pipeline_stage:plan",
          results=("benchirt.rating.config", "benchirt.rating.glicko", "benchirt.rating.permutation",
                   "benchirt.rating.statistics", "benchirt.rating.stage", "benchirt.rating.leaderboard",
                   "benchirt.rating.bradley_terry"),
          needs=("respond", "irt"), scope="suite",
          code=("rating", "irt", "pool", "responses/suite.py", "sniff.py", "lazy.py", "humanize.py"),
          command="benchirt.rating.command",
          help="leaderboard with intervals, pairwise tests, Glicko-2 ratings, Friedman/Nemenyi",
          title="ratings and significance tests", aliases=("rating",),
          sections=("benchirt.rating.report_sections:leaderboard", "benchirt.rating.report_sections:ratings",
                    "benchirt.rating.report_sections:statistics")),
    Stage("subset", config="benchirt.subsets.config:SubsetConfig", plan="benchirt.subsets.pipeline_stage:plan",
          results=("benchirt.subsets.config", "benchirt.subsets.evaluation"), needs=("respond", "irt"),
          scope="suite",
          code=("subsets", "rating", "irt", "pool", "data", "responses/suite.py", "sniff.py", "lazy.py", "humanize.py",
                "pipeline/estimate.py", "pipeline/cost_model.json", "responses/config.py"),
          command="benchirt.subsets.command",
          help="IRT-filtered benchmark subsets: build, evaluate against chance, export/publish",
          title="benchmark subsets", aliases=("subsets",), sections=("benchirt.subsets.report_sections:subsets",)),
    Stage("airt", config="benchirt.airt.config:AIRTConfig", plan="benchirt.airt.pipeline_stage:plan",
          results=("benchirt.airt.config", "benchirt.airt.analysis", "benchirt.airt.continuous",
                   "benchirt.airt.goodness", "benchirt.airt.latent", "benchirt.airt.compat",
                   "benchirt.airt.polytomous"),
          needs=("respond",), scope="suite",
          code=("airt", "responses", "pool", "data", "preprocess.py", "sniff.py", "lazy.py"),
          command="benchirt.airt.command", help="AIRT: evaluate a portfolio of algorithms over many datasets",
          title="AIRT (algorithm portfolio)", needs_for="benchirt.airt.pipeline_stage:needs",
          sections=("benchirt.airt.report_sections:airt",)),
    Stage("report", config="benchirt.report.config:ReportConfig", plan="benchirt.report.pipeline_stage:plan",
          results=(), needs=("respond", "irt", "rate", "subset", "airt"), scope="document", code=None,
          command="benchirt.report.command", help="HTML report and Markdown summary of a finished run",
          title="report"),
)

#: The result modules of work outside the pipeline's stages (``benchirt add``).
OTHER_RESULT_MODULES: tuple[str, ...] = ("benchirt.placement.add",)

#: The code of work outside the pipeline's stages: ``benchirt add`` measures and scores new classifiers.
OTHER_CODE: dict[str, tuple[str, ...]] = {
    "add": ("placement", "responses", "pool", "irt", "data", "preprocess.py", "sniff.py", "lazy.py"),
}

#: Modules that decide how, when and where a stage's work runs — never what it computes — so they are
#: part of no stage's code (a scheduling change does not recompute a suite): the config and this
#: registry, the executors and their worker processes (SLURM jobs included), the cost model and the memory guard.
ENGINE_CODE: tuple[str, ...] = ("pipeline/config.py", "pipeline/registry.py", "pipeline/executors.py",
                                "pipeline/handout.py", "workers.py", "bars.py",
                                "pipeline/estimate.py", "pipeline/memory.py", "pipeline/preflight.py",
                                "pipeline/slurm.py", "pipeline/slurm_options.py", "pipeline/slurm_dry_run.py")

#: Stage name -> its record.
BY_NAME: dict[str, Stage] = {stage.name: stage for stage in REGISTRY}

#: Pipeline stages in execution order.
STAGES: tuple[str, ...] = tuple(BY_NAME)

#: Former name -> the stage's name.
ALIASES: dict[str, str] = {alias: stage.name for stage in REGISTRY for alias in stage.aliases}

#: Config section -> ``module:Class`` whose ``from_dict`` validates it (one section per stage, named as it).
STAGE_SECTIONS: dict[str, str] = {stage.name: stage.config for stage in REGISTRY}

#: Modules whose dataclasses may be stored in artifacts.
RESULT_MODULES: tuple[str, ...] = tuple(dict.fromkeys(
    module for stage in REGISTRY for module in stage.results)) + OTHER_RESULT_MODULES

#: Stage -> the sources its results depend on (stages declared with ``code=None`` depend on the whole package).
STAGE_CODE: dict[str, tuple[str, ...]] = {
    **{stage.name: stage.code for stage in REGISTRY if stage.code is not None}, **OTHER_CODE}

#: CLI verb -> (module whose ``register`` adds it, help line), for the stages.
STAGE_COMMANDS: dict[str, tuple[str, str]] = {stage.name: (stage.command, stage.help) for stage in REGISTRY}


def stage(name: str) -> Stage:
    """The record of ``name`` (a stage name or a former one).

    Examples
    --------
    >>> record = stage("irt")
    >>> record.needs, record.scope
    (('respond',), 'dataset')
    >>> stage("irts").name                   # a former name finds the same record
    'irt'
    """
    return BY_NAME[canonical(name)]


def canonical(name: str) -> str:
    """The stage name for ``name`` (former spellings map to it; an unknown name is returned as is): the one place
    former names are read (:func:`benchirt.pipeline.config.current_names`,
    :class:`benchirt.pipeline.results.RunResults`), which say so in a note or a :class:`FutureWarning`."""
    return ALIASES.get(name, name)


def alias_note(old: str, where: str) -> str:
    """The note a former name gets wherever it is read."""
    return f"{where}: {old!r} is the former name of the {canonical(old)!r} stage; read as {canonical(old)!r}"


def resolve(target: str) -> Any:
    """The object a registry entry names (``module:attribute``: a function or a class); only ``benchirt``
    modules are imported."""
    module_name, _, attribute = target.partition(":")
    if not module_name.startswith("benchirt.") or not attribute.isidentifier():
        raise ConfigError(f"registry entry {target!r} is not a benchirt 'module:attribute'")
    return getattr(importlib.import_module(module_name), attribute)

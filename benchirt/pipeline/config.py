"""The pipeline configuration: one YAML file composed of the stages' own option sections.

A configuration has these top-level keys (every one optional)::

    suite:      builtin            # any spec benchirt.data.resolve_suite accepts
    stages:     [respond, irt, rate, subset, airt, report]
    respond:    {...}              # benchirt.responses.ResponseConfig
    irt:        {...}              # benchirt.irt.IRTConfig
    rate:       {...}              # benchirt.rating.RatingConfig
    subset:     {...}              # benchirt.subsets.SubsetConfig
    airt:       {...}              # benchirt.airt.AIRTConfig, plus `input` / `aslib` (see AIRT_PIPELINE_KEYS)
    report:     {...}              # benchirt.report.ReportConfig
    execution:  {n_jobs: 1, backend: local, scheduler: null, retries: 1, memory_limit_gb: null, tasks: fits,
                 strict: false, slurm: null}      # slurm: benchirt.pipeline.slurm_options.SlurmOptions
    out:        runs/default       # run directory

Each stage's section carries the stage's name (:mod:`benchirt.pipeline.registry`); the former section names
``responses``, ``rating``, ``subsets`` and ``irts``, and former names in ``stages``, are still read here only, with a
note (:attr:`PipelineConfig.notes`, :func:`current_names`): a loaded config speaks the stages' names.

Paths: an *input* named inside a config file (``suite`` folders and files, ``airt.aslib``) is relative to the config
file's folder, so a config and its data move together; ``out`` and every path on the command line (``--out``,
``SOURCE``) are relative to the current folder. A missing input folder is an error naming the path tried; so is an
empty config file (``benchirt run`` without CONFIG runs the packaged default).

Every value is checked by :func:`benchirt.options.validated`: each stage section by its ``XConfig.from_dict``, the
top level (:data:`TOP_LEVEL_OPTIONS`), the pipeline's ``airt`` keys (:data:`AIRT_PIPELINE_OPTIONS`) and a run's
``rate.score`` (:data:`benchirt.rating.config.RUN_SCORE`) here. Validation imports only the stages' ``config``
modules (:mod:`benchirt.lazy`). YAML syntax errors become a :class:`~benchirt.errors.ConfigError` naming the file,
line and column.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import asdict, dataclass, field, is_dataclass
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Mapping

import yaml

from benchirt.errors import ConfigError, DataError
from benchirt.options import (
    Boolean, Choice, Constraint, Integer, Names, Number, Text, checked_options, require, validate_fields, validated,
)
from benchirt.pipeline import registry
from benchirt.pipeline.slurm_options import SlurmBlock, SlurmOptions
from benchirt.rating.config import RUN_SCORE
from benchirt.safe_yaml import safe_load

#: Pipeline stages in execution order (declared in :mod:`benchirt.pipeline.registry`).
STAGES: tuple[str, ...] = registry.STAGES

#: Config section (the stage's name) -> ``module:Class`` whose ``from_dict`` validates it.
STAGE_SECTIONS: dict[str, str] = registry.STAGE_SECTIONS

#: The class of a ``respond`` section with ``source: openml-runs``: responses imported from stored runs
#: (``benchirt.stored_runs``) instead of trained; the suite is then the datasets of those runs.
IMPORTED_RESPONSES = "benchirt.stored_runs.config:ImportConfig"

#: ``PipelineConfig.source`` of the packaged default config (``load_config()``).
DEFAULT_CONFIG_SOURCE = "<default config>"
#: ``PipelineConfig.source`` of a config given as a mapping.
DICT_CONFIG_SOURCE = "<dict>"


def source_label(source: str) -> str:
    """How user text names a config's origin: its path, or words for the packaged default and a mapping."""
    return {DEFAULT_CONFIG_SOURCE: "the packaged default config",
            DICT_CONFIG_SOURCE: "a config given in code"}.get(source, f"config {source}")


AIRT_INPUTS = ("accuracy", "aslib")
#: The declared constraint of every key of the ``airt`` section that the pipeline (not ``AIRTConfig``) reads.
AIRT_PIPELINE_OPTIONS: dict[str, Constraint] = {
    "input": Choice(choices=AIRT_INPUTS),
    "aslib": Text(what="the ASlib scenario folder", optional=True),
    "which": Choice(choices=("test", "cv")),
}
#: Keys of the ``airt`` section that the pipeline (not ``AIRTConfig``) reads.
AIRT_PIPELINE_KEYS = tuple(AIRT_PIPELINE_OPTIONS)


@dataclass(frozen=True, kw_only=True)
class SuiteSpec(Constraint):
    """``suite``: anything :func:`benchirt.data.resolve_suite` reads; here only an empty one is refused."""

    def expected(self) -> str:
        return "a suite (embedded, builtin, cc18-offline, OpenML-CC18, a folder) or a list of datasets"

    def accepts(self, value: Any) -> bool:
        return value not in ("", [])

    def invalid_values(self) -> tuple[Any, ...]:
        return ("", [])


@dataclass(frozen=True, kw_only=True)
class FolderPath(Constraint):
    """``out``: a folder path (text or a path object)."""

    def expected(self) -> str:
        return "a folder path"

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (str, os.PathLike))

    def invalid_values(self) -> tuple[Any, ...]:
        return (3, ["runs"])


#: The declared constraint of every top-level key but the sections (each stage's, and ``execution``).
TOP_LEVEL_OPTIONS: dict[str, Constraint] = {
    "suite": SuiteSpec(),
    "stages": Names(what="stages", single=True),
    "out": FolderPath(optional=True),
}
BACKENDS = ("local", "dask", "slurm")
#: How the response stage is cut into tasks on several workers (``execution.tasks``).
TASK_GRAINS = ("fits", "datasets")

#: The configuration ``benchirt run`` uses when given none (a copy of configs/default.yaml).
DEFAULT_CONFIG_RESOURCE = "default.yaml"


@dataclass(frozen=True)
class ExecutionConfig:
    """How the per-dataset work is spread.

    Attributes
    ----------
    n_jobs : int
        Local worker processes (joblib), or the workers of the local Dask cluster with ``backend: dask`` and no
        scheduler; ``-1``: every core.
    backend : {"local", "dask", "slurm"}
        ``local``: joblib. ``dask``: Dask distributed (``scheduler`` or a LocalCluster). ``slurm``: Dask workers
        started as SLURM jobs by dask-jobqueue (:mod:`benchirt.pipeline.slurm`; jobs planned from the cost model,
        ``n_jobs`` not read).
    scheduler : str or None
        Address of a running Dask scheduler, e.g. ``tcp://10.0.0.5:8786`` (implies ``backend: dask``).
    retries : int
        Retries of a dataset whose task raised an unexpected error before it is recorded as failed (errors that are
        the data's fault are recorded as skipped at once).
    memory_limit_gb : float or None
        The most memory one dataset's response task may need by the estimate from its shape, before loading
        (:mod:`benchirt.pipeline.preflight`); a dataset over it is skipped. None: available memory divided by the
        concurrent workers (no limit under an external Dask scheduler, whose workers' memory is unknown).
    tasks : {"fits", "datasets"}
        How the response stage is cut on several workers. ``fits``: per dataset a preparation task, then one task
        per (preprocessing kind, fold or final fit) and one for the MLP ladder (:mod:`benchirt.pipeline.fits`).
        ``datasets``: one task per dataset. The results are identical bit for bit; only the wall time differs.
    strict : bool
        A ``respond.pool`` or ``respond.extra`` classifier whose fit fails fails that dataset's response stage instead
        of being left out (reported, exit status 1 either way). ``benchirt run --strict`` sets it.
    slurm : SlurmOptions or None
        The SLURM jobs of ``backend: slurm`` (:class:`benchirt.pipeline.slurm_options.SlurmOptions`, its defaults
        when left out); refused with another backend, which would not read it.
    """

    n_jobs: int = 1
    backend: str = "local"
    scheduler: str | None = None
    retries: int = 1
    memory_limit_gb: float | None = None
    tasks: str = "fits"
    strict: bool = False
    slurm: SlurmOptions | None = None

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "n_jobs": Integer(minimum=1, also=(-1,)),
        "backend": Choice(choices=BACKENDS),
        "scheduler": Text(what="an address such as tcp://host:8786", optional=True),
        "retries": Integer(minimum=0),
        "memory_limit_gb": Number(above=0, unit="GB", optional=True),
        "tasks": Choice(choices=TASK_GRAINS),
        "strict": Boolean(),
        "slurm": SlurmBlock(optional=True),
    }

    def __post_init__(self) -> None:
        validate_fields("execution", self, self.OPTIONS)
        slurm = self.backend == "slurm"
        require(not (slurm and self.scheduler is not None), "execution", "scheduler", self.scheduler,
                "null when execution.backend is slurm (the run starts its own scheduler)")
        require(self.slurm is None or slurm, "execution", "backend", self.backend,
                "'slurm' when execution.slurm is given (the block is read by that backend only)")
        if self.scheduler is not None:
            object.__setattr__(self, "backend", "dask")
        if slurm and self.slurm is None:
            object.__setattr__(self, "slurm", SlurmOptions())

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ExecutionConfig":
        return cls(**checked_options("execution", d, cls))


@dataclass(frozen=True)
class PipelineConfig:
    """A validated pipeline configuration.

    Attributes
    ----------
    sections : dict
        The raw option dict of every stage section as written; these feed the artifact keys, so that changing a
        stage's options recomputes that stage and what follows.
    stage_configs : dict
        Section name -> the stage's config object built by its ``from_dict``.
    notes : tuple of str
        What was read under a former name (shown by ``benchirt run`` and kept in the manifest).
    """

    suite: Any = "builtin"
    stages: tuple[str, ...] = STAGES
    sections: dict = field(default_factory=dict)
    stage_configs: dict = field(default_factory=dict)
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    out: str | None = None
    source: str = DICT_CONFIG_SOURCE
    base_dir: str = "."
    notes: tuple[str, ...] = ()

    def section(self, name: str) -> dict:
        """The raw option dict of stage ``name``'s section (empty when the file omits it)."""
        return dict(self.sections.get(_stage_name(name)) or {})

    def stage_config(self, name: str):
        """The config object of stage ``name`` (the stage's name: former ones are read by the loader only)."""
        return self.stage_configs[_stage_name(name)]

    def to_dict(self) -> dict:
        """Plain-data form (what ``config.yaml`` of a run holds); round-trips through :func:`load_config`."""
        out = {"suite": self.suite, "stages": list(self.stages), "execution": asdict(self.execution)}
        out.update({name: dict(values) for name, values in self.sections.items()})
        if self.out is not None:
            out["out"] = self.out
        return out


def _stage_name(name: str) -> str:
    """``name`` when it is a stage's; anything else (a former name included) is a KeyError listing the stages."""
    if name not in registry.BY_NAME:
        raise KeyError(f"{name!r} is not a stage; the stages are {', '.join(registry.STAGES)}")
    return name


def load_config(source: str | os.PathLike | Mapping | None = None, **overrides: Any) -> PipelineConfig:
    """Read and validate a pipeline configuration.

    ``source``: a YAML file, a parsed mapping, or None for the packaged default; ``overrides`` replace top-level
    keys (e.g. ``stages=[...]``, ``out=...``). Raises ConfigError on malformed YAML (with line and column), unknown
    keys or stage names, invalid values.

    Examples
    --------
    >>> load_config().stages                      # the packaged default runs every stage
    ('respond', 'irt', 'rate', 'subset', 'airt', 'report')
    >>> load_config({"suite": "builtin", "stages": ["respond", "irt"]}).stages
    ('respond', 'irt')
    """
    if source is None:
        text = resources.files("benchirt.pipeline").joinpath(DEFAULT_CONFIG_RESOURCE).read_text(encoding="utf-8")
        raw, origin, base_dir = parse_yaml(text, DEFAULT_CONFIG_SOURCE), DEFAULT_CONFIG_SOURCE, "."
    elif isinstance(source, Mapping):
        raw, origin, base_dir = dict(source), DICT_CONFIG_SOURCE, "."
    else:
        path = Path(source)
        if not path.is_file():
            raise ConfigError(f"config file {path} not found; give the path of a YAML file such as configs/default.yaml")
        text = path.read_text(encoding="utf-8")
        raw = parse_yaml(text, str(path))
        if not raw:
            raise ConfigError(f"config file {path} is empty; write the sections to run (e.g. `suite: builtin`), or run "
                              "`benchirt run` without a CONFIG for the packaged default")
        origin, base_dir = str(path), str(path.resolve().parent)
    raw.update({k: v for k, v in overrides.items() if v is not None})
    return _validate(raw, origin, base_dir)


def parse_yaml(text: str, origin: str) -> dict:
    """Parse YAML text into a mapping; syntax errors become a ConfigError with line and column."""
    try:
        data = safe_load(text, origin)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{origin}: malformed YAML{where}: {problem}; fix the syntax there (indentation, colons, quotes)") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: a config must be a mapping of sections (suite:, stages:, ...), got a {type(data).__name__}")
    return data


def _validate(raw: dict, origin: str, base_dir: str) -> PipelineConfig:
    try:
        return _validated(raw, origin, base_dir)
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {exc}") from None


def _validated(raw: dict, origin: str, base_dir: str) -> PipelineConfig:
    raw, notes = _former_sections(raw)
    checked_options("top-level", raw, ("suite", "stages", "execution", "out", *registry.STAGE_SECTIONS))
    top = validated("", {"suite": "builtin", "stages": registry.STAGES, "out": None, **raw}, TOP_LEVEL_OPTIONS)
    named, renamed = current_names(top["stages"], "stages")
    stages = _ordered_stages(named)
    notes += renamed
    sections: dict[str, dict] = {}
    stage_configs: dict[str, Any] = {}
    for name in registry.STAGE_SECTIONS:
        values = checked_options(name, raw.get(name), _section_keys(name, raw.get(name)))
        sections[name] = values
        stage_configs[name] = _stage_config(name, values)
    RUN_SCORE.check("rate", "score", stage_configs["rate"].score)
    execution = ExecutionConfig.from_dict(raw.get("execution"))
    suite, out = top["suite"], top["out"]
    return PipelineConfig(
        suite=suite, stages=stages, sections=sections, stage_configs=stage_configs, execution=execution,
        out=None if out is None else os.fspath(out), source=origin, base_dir=base_dir, notes=tuple(notes),
    )


def current_names(names, where: str) -> tuple[list, list[str]]:
    """``names`` with every former stage name replaced (:func:`benchirt.pipeline.registry.canonical`), and a note
    per replacement. Config sections, ``stages:``, ``--stages`` and ``--skip`` all come through here, so everything
    past the loader sees the stages' names only."""
    notes = [registry.alias_note(name, where) for name in names if registry.canonical(name) != name]
    return [registry.canonical(name) for name in names], notes


def _former_sections(raw: dict) -> tuple[dict, list[str]]:
    """``raw`` with former section names renamed, and a note per renaming; ConfigError for a section given under
    both names."""
    keys, notes = current_names(list(raw), "section")
    for key, name in zip(raw, keys):
        if name != key and name in raw:
            raise ConfigError(f"sections {key!r} and {name!r} are the same stage's; keep {name!r} only")
    return dict(zip(keys, raw.values())), notes


def select_stages(stages, *, skip=(), origin: str = "command line", notes: list[str] | None = None) -> tuple[str, ...]:
    """Validate stage names and return them in pipeline order, minus ``skip``; former names are read
    (:func:`current_names`), with a note appended to ``notes`` when it is a list."""
    (stages, stage_notes), (skip, skip_notes) = current_names(stages, "stages"), current_names(skip, "skip")
    if notes is not None:
        notes += stage_notes + skip_notes
    try:
        return _ordered_stages(stages, skip)
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {exc}") from None


def _ordered_stages(stages, skip=()) -> tuple[str, ...]:
    """The stages (today's names) in pipeline order, minus ``skip``."""
    stage_name = Choice(choices=registry.STAGES)
    for key, names in (("stages", stages), ("skip", skip)):
        for name in names:
            stage_name.check("", key, name)
    chosen = set(stages) - set(skip)
    return tuple(s for s in registry.STAGES if s in chosen)


def _section_keys(section: str, values: Any = None) -> tuple[str, ...]:
    """Valid keys of a stage section: its config class's fields (plus the pipeline's own airt keys)."""
    fields = tuple(f.name for f in dataclasses.fields(_config_class(section, values)))
    return fields + AIRT_PIPELINE_KEYS if section == "airt" else fields


def _config_class(section: str, values: Any = None) -> type[Any]:
    """The section's config class; a ``respond`` section with a ``source`` key imports stored runs."""
    if section == "respond" and isinstance(values, Mapping) and "source" in values:
        return registry.resolve(IMPORTED_RESPONSES)
    return registry.resolve(registry.STAGE_SECTIONS[section])


def _stage_config(section: str, values: dict):
    own = {k: v for k, v in values.items() if not (section == "airt" and k in AIRT_PIPELINE_KEYS)}
    try:
        if section == "airt":
            _validate_airt_pipeline_keys(values)
        return _config_class(section, values).from_dict(own)
    except ConfigError as exc:
        raise ConfigError(f"section {section!r}: {exc}") from None


def _validate_airt_pipeline_keys(values: dict) -> None:
    """The pipeline's own ``airt`` keys, as declared (:data:`AIRT_PIPELINE_OPTIONS`), and the scenario folder
    that ``input: aslib`` needs (a rule between them)."""
    source = values.get("input", "aslib" if values.get("aslib") else "accuracy")
    validated("airt", {**values, "input": source}, AIRT_PIPELINE_OPTIONS)
    require(source != "aslib" or bool(values.get("aslib")), "airt", "aslib", values.get("aslib"),
            "the ASlib scenario folder when airt.input is aslib")


def resolve_specs(config: PipelineConfig) -> list:
    """The suite's :class:`~benchirt.data.DatasetSpec` list (relative paths: beside the config file)."""
    from benchirt.data import resolve_suite

    specs = resolve_suite(config.suite, base=config.base_dir)
    if not specs:
        raise DataError(f"{config.source}: suite {config.suite!r} has no dataset")
    return specs


def stage_options(stage_config) -> dict:
    """The canonical option dict of a stage config (its ``to_dict`` when it has one): the key's input."""
    if hasattr(stage_config, "to_dict"):
        return to_plain(stage_config.to_dict())
    return to_plain(stage_config)


def to_plain(value: Any) -> Any:
    """A dataclass or nested container as plain JSON-able data (tuples become lists)."""
    if is_dataclass(value) and not isinstance(value, type):
        return to_plain(asdict(value))
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value

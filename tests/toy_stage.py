"""A toy stage, registered for a test only: what adding a stage takes, and that the engine and the tests accept it.

The stage is a config class with its declared options (:class:`ToyConfig`), a result dataclass
(:class:`ToyResult`), a ``plan`` returning :class:`benchirt.stage_plan.SuiteWork`, a ``register`` for its
command-line verb, a report section (:func:`report_section`) and one :class:`benchirt.pipeline.registry.Stage`
record (:data:`TOY`) that names them. :func:`install`
adds the record to the registry for one test (``monkeypatch``: the registry, the lists derived from it
and the command table of :mod:`benchirt.cli` are restored after it); ``BENCHIRT_TEST_TOY_STAGE=1`` makes ``tests/conftest.py``
install it around every test, so a test run shows which tests a new stage would break
(``tests/test_toy_stage.py``).

The stage's modules live here, outside ``benchirt``, so :func:`install` also lets
:func:`benchirt.pipeline.registry.resolve` (which imports ``benchirt`` modules only) find this module's
names, and lets the artifact store hold this module's dataclasses.
"""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import pandas as pd

from benchirt.document.context import SectionContext
from benchirt.document.page import Paragraph, Section, Table
from benchirt.options import Boolean, Choice, Constraint, Integer, Number, Numbers, checked_options, validate_fields
from benchirt.pipeline import artifact_types, registry
from benchirt.stage_plan import StageContext, SuiteWork

NAME = "toy"


@dataclass(frozen=True)
class ToyConfig:
    """Options of the toy stage: the sum (or the largest) of ``n`` terms ``scale * k`` (k = 1..n), plus ``offset``."""

    n: int = 3
    scale: float = 1.0
    mode: str = "sum"
    squared: bool = False
    offset: tuple[float, ...] = (0.0,)

    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "n": Integer(minimum=1),
        "scale": Number(above=0, at_most=10),
        "mode": Choice(choices=("sum", "max")),
        "squared": Boolean(),
        "offset": Numbers(at_least=-5, at_most=5),
    }

    def __post_init__(self) -> None:
        validate_fields(NAME, self, self.OPTIONS)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ToyConfig":
        return cls(**checked_options(NAME, d, cls))


@dataclass
class ToyResult:
    """The toy stage's result (the result protocol of :mod:`benchirt.results`)."""

    value: float
    terms: pd.DataFrame

    def summary(self) -> str:
        return f"toy: {self.value:g} from {len(self.terms)} terms"

    def to_frames(self) -> dict[str, pd.DataFrame]:
        return {"terms": self.terms}


def compute(config: ToyConfig) -> ToyResult:
    terms = pd.DataFrame({"k": range(1, config.n + 1)})
    terms["term"] = config.scale * terms["k"] ** (2 if config.squared else 1)
    total = terms["term"].sum() if config.mode == "sum" else terms["term"].max()
    return ToyResult(value=float(total) + sum(config.offset), terms=terms)


def plan(context: StageContext) -> SuiteWork:
    """One task over the suite, from the options alone (it reads no other stage)."""
    return SuiteWork(options=context.options, inputs={}, fn=compute,
                     args=lambda: (context.config.stage_config(NAME),))


def report_section(result: ToyResult, context: SectionContext) -> Section:
    """The toy's report section: its value and its terms, built with :mod:`benchirt.document` only."""
    return Section("toy", "Toy stage", [Paragraph(result.summary()), Table(result.terms, "The toy's terms.")])


def register(subparsers) -> None:
    parser = subparsers.add_parser(NAME, help=TOY.help)
    parser.set_defaults(func=lambda args: 0)


TOY = registry.Stage(NAME, config=f"{__name__}:ToyConfig", plan=f"{__name__}:plan", results=(__name__,), needs=(),
                     scope="suite", code=None, command=__name__, help="a toy stage (tests only)", title="toy",
                     aliases=("toys",), sections=(f"{__name__}:report_section",))


def install(monkeypatch) -> None:
    """Register :data:`TOY` after the other stages until the test ends (every list derived from the registry too)."""
    from benchirt import cli

    stages = (*registry.REGISTRY, TOY)
    derived = {
        "REGISTRY": stages,
        "BY_NAME": {stage.name: stage for stage in stages},
        "STAGES": tuple(stage.name for stage in stages),
        "ALIASES": {alias: stage.name for stage in stages for alias in stage.aliases},
        "STAGE_SECTIONS": {stage.name: stage.config for stage in stages},
        "RESULT_MODULES": (*registry.RESULT_MODULES, __name__),
        "STAGE_COMMANDS": {**registry.STAGE_COMMANDS, NAME: (TOY.command, TOY.help)},
    }
    for attribute, value in derived.items():
        monkeypatch.setattr(registry, attribute, value)
    monkeypatch.setattr(artifact_types, "RESULT_MODULES", derived["RESULT_MODULES"])
    # the command table as benchirt.cli derives it from the registry: `run` names the stages, then their verbs
    run_module = cli.COMMANDS["run"][0]
    commands = {"run": (run_module, f"the whole pipeline: {', '.join(derived['STAGES'])}"), **derived["STAGE_COMMANDS"],
                **{name: entry for name, entry in cli.COMMANDS.items() if name not in ("run", *derived["STAGES"])}}
    monkeypatch.setattr(cli, "COMMANDS", commands)
    monkeypatch.setattr(cli, "COMMAND_MODULES", tuple(dict.fromkeys(module for module, _ in commands.values())))
    resolve = registry.resolve
    monkeypatch.setattr(registry, "resolve", lambda target: (
        getattr(sys.modules[__name__], target.partition(":")[2]) if target.partition(":")[0] == __name__
        else resolve(target)))


def default_options() -> dict:
    """The toy config's options as plain data."""
    return dataclasses.asdict(ToyConfig())

"""Every declared option of every stage refuses what its declaration refuses, in the declared words (generated).

The cases are generated from the declarations (:mod:`benchirt.options`), as scikit-learn's tests generate
invalid parameters from ``_parameter_constraints``: for every stage of
:data:`benchirt.pipeline.registry.REGISTRY`, every field of its config class's ``OPTIONS`` table, and every
value the field's constraint refuses (:meth:`~benchirt.options.Constraint.invalid_values`: a wrong type,
out of range, not a choice), a config holding that one value is loaded and its message pinned::

    <dict>: section '<stage>': <stage>.<option>: got <value>, expected <what the declaration allows>

and checked to name the valid choices or the range's bounds (read from the declaration's fields, not from
its wording). Beside the stages: the responses imported from stored runs (``respond: {source:
openml-runs}``), the entries of ``respond.extra``, the pipeline's own ``airt`` keys, ``execution`` and its
``slurm`` block, the
top level of a config, the polytomous model's options and the run selection's. A new stage or option is
covered without editing this file; a field without a declaration fails
(:func:`benchirt.options.validate_fields`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from benchirt.airt.polytomous import GRMConfig
from benchirt.errors import ConfigError
from benchirt.options import AnyOf, Choice, Constraint, Integer, Number, Numbers
from benchirt.pipeline import registry
from benchirt.pipeline.config import (
    AIRT_PIPELINE_OPTIONS, IMPORTED_RESPONSES, TOP_LEVEL_OPTIONS, ExecutionConfig, load_config,
)
from benchirt.pipeline.slurm_options import SlurmOptions
from benchirt.pool.real import ENTRY_OPTIONS
from benchirt.stored_runs.select import SelectionOptions

EXTRA = "sklearn.linear_model.LogisticRegression"


@dataclass(frozen=True)
class Case:
    """One invalid value of one declared option: how to give it, and the message it must raise."""

    owner: str                      # the config class (or table) that declares the option
    key: str
    constraint: Constraint
    value: Any
    build: Callable[[Any], Any]     # gives the value; raises the ConfigError
    prefix: str                     # what the message says before ``got``

    @property
    def id(self) -> str:
        return f"{self.owner}.{self.key}={self.value!r}"


def _section(stage: str, key: str, base: dict | None = None) -> Callable[[Any], Any]:
    return lambda value: load_config({stage: {**(base or {}), key: value}})


def stage_cases(stages=None) -> list[Case]:
    """Every invalid value of every declared option of the registered stages' config classes."""
    cases = []
    for stage in registry.REGISTRY if stages is None else stages:
        cls = registry.resolve(stage.config)
        for key, constraint in cls.OPTIONS.items():
            cases += [Case(cls.__name__, key, constraint, value, _section(stage.name, key),
                           f"<dict>: section '{stage.name}': {stage.name}.{key}: ")
                      for value in constraint.invalid_values()]
    return cases


def other_cases() -> list[Case]:
    """The declared options that are not a registered stage config's own fields."""
    imported = registry.resolve(IMPORTED_RESPONSES)
    entry = {"estimator": EXTRA}
    tables = [
        (imported.__name__, imported.OPTIONS, lambda key: _section("respond", key, {"source": "openml-runs",
                                                                                    "path": "runs/"}),
         lambda key: f"<dict>: section 'respond': respond.{key}: "),
        ("respond.extra", ENTRY_OPTIONS,
         lambda key: lambda value: load_config({"respond": {"extra": {"lr": {**entry, key: value}}}}),
         lambda key: f"<dict>: section 'respond': respond.extra.lr.{key}: "),
        ("airt (pipeline keys)", AIRT_PIPELINE_OPTIONS, lambda key: _section("airt", key),
         lambda key: f"<dict>: section 'airt': airt.{key}: "),
        (ExecutionConfig.__name__, ExecutionConfig.OPTIONS,
         lambda key: lambda value: load_config({"execution": {key: value}}),
         lambda key: f"<dict>: execution.{key}: "),
        (SlurmOptions.__name__, SlurmOptions.OPTIONS,
         lambda key: lambda value: load_config({"execution": {"backend": "slurm", "slurm": {key: value}}}),
         lambda key: f"<dict>: execution.slurm.{key}: "),
        ("top level", TOP_LEVEL_OPTIONS, lambda key: lambda value: load_config({key: value}),
         lambda key: f"<dict>: {key}: "),
        (GRMConfig.__name__, GRMConfig.OPTIONS, lambda key: lambda value: GRMConfig.from_dict({key: value}),
         lambda key: f"GRM.{key}: "),
        (SelectionOptions.__name__, SelectionOptions.OPTIONS, lambda key: lambda value: SelectionOptions(**{key: value}),
         lambda key: f"selection.{key}: "),
    ]
    return [Case(owner, key, constraint, value, build(key), prefix(key))
            for owner, table, build, prefix in tables for key, constraint in table.items()
            for value in constraint.invalid_values()]


def rule_words(constraint: Constraint) -> list[str]:
    """What a message must name, read from the declaration's fields: the choices, the bounds."""
    if isinstance(constraint, AnyOf):
        return [word for member in constraint.members for word in rule_words(member)]
    if isinstance(constraint, Choice):
        return list(constraint.choices)
    if isinstance(constraint, Integer):
        return [str(bound) for bound in (constraint.minimum, *constraint.also) if bound is not None]
    if isinstance(constraint, (Number, Numbers)):
        bounds = [getattr(constraint, name, None) for name in ("above", "at_least", "below", "at_most")]
        return [f"{bound:g}" for bound in bounds if bound is not None] + list(getattr(constraint, "positive", ()))
    return []


def check_case(case: Case) -> str:
    """The message ``case`` raises, after checking its form and that it names the option and the rule."""
    with pytest.raises(ConfigError) as info:
        case.build(case.value)
    message = str(info.value)
    assert message == f"{case.prefix}got {case.value!r}, expected {case.constraint.describe()}"
    rule = message.partition(", expected ")[2]
    assert all(word in rule for word in rule_words(case.constraint)), (message, rule_words(case.constraint))
    return message


STAGE_CASES = stage_cases()
OTHER_CASES = other_cases()


@pytest.mark.parametrize("case", STAGE_CASES, ids=lambda case: case.id)
def test_every_declared_option_of_every_stage_refuses_its_invalid_values_in_its_words(case):
    check_case(case)


@pytest.mark.parametrize("case", OTHER_CASES, ids=lambda case: case.id)
def test_every_other_declared_option_refuses_its_invalid_values_in_its_words(case):
    check_case(case)


def test_every_field_of_every_stage_config_is_declared_and_covered(capsys):
    """The count: every field of every registered config class has a declaration and generated cases."""
    fields = {(registry.resolve(stage.config).__name__, field.name)
              for stage in registry.REGISTRY for field in dataclasses.fields(registry.resolve(stage.config))}
    covered = {(case.owner, case.key) for case in STAGE_CASES}
    assert covered == fields
    others = {(case.owner, case.key) for case in OTHER_CASES}
    with capsys.disabled():
        print(f"\n{len(covered)} of {len(fields)} stage config fields ({len(registry.REGISTRY)} stages) covered by "
              f"{len(STAGE_CASES)} generated invalid values; {len(others)} further declared options by "
              f"{len(OTHER_CASES)}")


@pytest.mark.parametrize("cls", [ExecutionConfig, SlurmOptions, GRMConfig, SelectionOptions, registry.resolve(IMPORTED_RESPONSES),
                                 *(registry.resolve(stage.config) for stage in registry.REGISTRY)],
                         ids=lambda cls: cls.__name__)
def test_each_config_class_declares_exactly_its_fields(cls):
    assert list(cls.OPTIONS) == [field.name for field in dataclasses.fields(cls)]
    default = cls(**({"path": "runs/"} if cls.__name__ == "ImportConfig" else {}))
    assert all(constraint.check("x", key, getattr(default, key)) == getattr(default, key)
               for key, constraint in cls.OPTIONS.items())  # the defaults are valid and kept in their normal form


@pytest.mark.parametrize("constraint, text, value", [
    (Integer(minimum=1), "12", 12), (Integer(minimum=1), "2.5", 2.5), (Integer(), "x", "x"),
    (Number(above=0), "0.25", 0.25), (Numbers(), "0,0.01, 0.05", [0.0, 0.01, 0.05]),
    (AnyOf(members=(Choice(choices=("auto",)), Integer(minimum=1))), "auto", "auto"),
    (AnyOf(members=(Choice(choices=("auto",)), Integer(minimum=1))), "0", 0),
    (AnyOf(members=(Choice(choices=("auto",)), Integer(minimum=1))), "two", "two"),
])
def test_command_line_text_is_read_as_the_declaration_says(constraint, text, value):
    """What a command-line option's text stands for (then checked as any value): numbers where the field
    takes numbers, the text itself otherwise, so the message shows what was typed."""
    assert constraint.from_text(text) == value


def test_accepted_values_are_kept_in_their_normal_form():
    """Lists become tuples (of floats for numbers), task ids one text, cut texts numbers; nothing else changes."""
    from benchirt.irt.config import IRTConfig
    from benchirt.responses.config import ResponseConfig
    from benchirt.subsets.config import SubsetConfig

    imported = registry.resolve(IMPORTED_RESPONSES)
    assert IRTConfig(prior_guessing=[2, 6], calibration_roles="real").prior_guessing == (2.0, 6.0)
    assert IRTConfig(calibration_roles="real").calibration_roles == ("real",)  # one name is a list of one
    assert ResponseConfig(pool=["knn_3"], artificial=False).pool == ("knn_3",)
    assert imported(tasks=[3, 6]).tasks == "3,6" and imported(tasks=3).tasks == "3"
    assert SubsetConfig(cuts="30%, 50").cuts == (30.0, 50.0) and SubsetConfig(cuts=70).cuts == (70.0,)
    assert ExecutionConfig(memory_limit_gb=None, n_jobs=-1).n_jobs == -1


def test_a_field_without_a_declaration_is_a_bug_not_a_user_error():
    from benchirt.options import validate_fields

    @dataclass(frozen=True)
    class Undeclared:
        n: int = 1
        m: int = 2

    with pytest.raises(TypeError, match="^Undeclared: no declared constraint for m$"):
        validate_fields("x", Undeclared(), {"n": Integer()})


def test_rules_between_fields_are_named_checks_beside_the_tables():
    """A value each declaration accepts can still break a rule between fields: said in the same form."""
    with pytest.raises(ConfigError, match=r"^<dict>: section 'airt': airt.compat_range: got 'data', expected unit "
                                          r"\(the default\) unless compat is airt-r$"):
        load_config({"airt": {"compat_range": "data"}})
    with pytest.raises(ConfigError, match=r"^<dict>: section 'subset': subset.cuts: got \[30, 30.0\], expected each "
                                          r"percentage once$"):
        load_config({"subset": {"cuts": [30, 30.0]}})

"""A command-line option backed by a declared option refuses a bad value in the declaration's words, exit status 2.

Generated from the parsers and the declarations (:mod:`benchirt.options`): for every sub-command of
:data:`benchirt.cli.COMMANDS`, every option whose ``dest`` is a field of a table the command reads
(:data:`TABLES`), and every value the field's constraint refuses
(:meth:`~benchirt.options.Constraint.invalid_values`) that can be written on a command line, ``benchirt
<command> … --option=<text>`` must exit with 2 and print the one line::

    benchirt <command>: error: <section>.<field>: got <value>, expected <what the declaration allows>

— the message the config class gives for that value, not argparse's ("invalid int value"), and before any input
is read (the inputs named here do not exist). The options that keep argparse's own check, because no declared
field backs them, are pinned in :data:`ARGPARSE_CHECKED`; a new ``type=int`` or ``choices=`` option fails
:func:`test_only_options_without_a_field_keep_argparse_checks` until it is read through a declaration or
listed there.
"""
from __future__ import annotations

import argparse
import importlib
import math
from dataclasses import dataclass
from typing import Any

import pytest

from benchirt.airt.config import AIRTConfig
from benchirt.cli import COMMANDS, main
from benchirt.irt.config import IRTConfig
from benchirt.options import Constraint
from benchirt.pipeline.config import ExecutionConfig
from benchirt.placement.model import MODEL_OPTIONS
from benchirt.rating.config import RatingConfig
from benchirt.report.config import ReportConfig
from benchirt.stored_runs.config import ImportConfig
from benchirt.subsets.config import SubsetConfig

#: Command -> the (section, table) pairs its options are read through, first match wins.
TABLES: dict[str, tuple[tuple[str, dict[str, Constraint]], ...]] = {
    "run": (("execution", ExecutionConfig.OPTIONS),),
    "respond": (("execution", ExecutionConfig.OPTIONS),),
    "irt": (("irt", IRTConfig.OPTIONS),),
    "rate": (("rate", RatingConfig.OPTIONS),),
    "subset": (("subset", SubsetConfig.OPTIONS), ("rate", RatingConfig.OPTIONS)),
    "airt": (("airt", AIRTConfig.OPTIONS),),
    "report": (("report", ReportConfig.OPTIONS),),
    "import-runs": (("respond", ImportConfig.OPTIONS),),
    "plan": (("placement", MODEL_OPTIONS),),
    "predict": (("placement", MODEL_OPTIONS),),
    "datasets": (),
    "add": (),
}

#: Options checked by argparse (``type=`` or ``choices=``) because no declared field backs them.
ARGPARSE_CHECKED = {
    ("irt", "--compat"),        # a switch to model_family=decodirt, not a value of it
    ("airt", "--transform"),    # how the input is read (load_performance), not an AIRTConfig field
    ("subset", "--format"),     # the suite files' format
    ("plan", "--budget"), ("plan", "--target"), ("plan", "--per"),  # plan_datasets' arguments, not declared options
    ("add", "--budget"), ("add", "--target"),
}


def _arguments(command: str, tmp) -> list[str]:
    """The positional and required arguments of ``command``, naming inputs that do not exist."""
    missing, out = str(tmp / "missing"), str(tmp / "out")
    return {
        "run": ["--explain", "--out", out],
        "respond": [missing, "--out", out],
        "irt": [missing, "--out", out],
        "rate": [missing, "--out", out],
        "subset": [missing, missing, "--out", out],
        "airt": [missing, "--out", out],
        "report": [missing],
        "import-runs": [missing, "--out", out],
        "plan": [missing, "--out", out, "--budget", "3"],
        "predict": [missing, "--out", out, "--observed", missing],
    }[command]


def sub_parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchirt")
    subparsers = parser.add_subparsers()
    importlib.import_module(COMMANDS[command][0]).register(subparsers)
    return subparsers.choices[command]


def value_options(command: str) -> list[argparse.Action]:
    """The options of ``command`` that take a value (not flags, not positionals)."""
    return [action for action in sub_parser(command)._actions if action.option_strings and action.nargs != 0]


def declared(command: str, dest: str) -> tuple[str, Constraint] | None:
    return next(((section, table[dest]) for section, table in TABLES[command] if dest in table), None)


def as_text(value: Any) -> str | None:
    """How ``value`` is written on a command line (lists comma-separated); None: it cannot be."""
    if isinstance(value, (list, tuple)):
        texts = [as_text(v) for v in value]
        return None if None in texts else ",".join(texts)  # type: ignore[arg-type]
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


@dataclass(frozen=True)
class Case:
    command: str
    flag: str
    text: str
    message: str

    @property
    def id(self) -> str:
        return f"{self.command} {self.flag}={self.text!r}"


def cases() -> list[Case]:
    """Every refused text of every option read through a declaration, with the declaration's message."""
    found = []
    for command in TABLES:
        for action in value_options(command):
            backing = declared(command, action.dest)
            if backing is None:
                continue
            section, constraint = backing
            texts = [as_text(value) for value in constraint.invalid_values()]
            for text in dict.fromkeys(text for text in texts if text is not None):
                value = constraint.from_text(text)
                if constraint.accepts(value):
                    continue  # written as text it is a valid value (5 for a text option)
                found.append(Case(command, action.option_strings[-1], text,
                                  f"{section}.{action.dest}: got {value!r}, expected {constraint.describe()}"))
    return found


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_refused_value_exits_2_with_the_declared_message(case, tmp_path, capsys):
    assert main([case.command, *_arguments(case.command, tmp_path), f"{case.flag}={case.text}"]) == 2
    err = capsys.readouterr().err
    assert err == f"benchirt {case.command}: error: {case.message}\n"
    assert not (tmp_path / "out").exists()


def test_every_command_option_backed_by_a_field_is_covered():
    """Every option read through a declaration has refused values here (none is skipped silently)."""
    covered = {(case.command, case.flag) for case in CASES}
    backed = {(command, action.option_strings[-1]) for command in TABLES for action in value_options(command)
              if declared(command, action.dest) is not None}
    text_only = {("report", "--title")}  # any text is a title: nothing to refuse
    assert backed - covered == text_only
    assert {command for command, _ in covered} == set(TABLES) - {"report", "datasets", "add"}


def test_only_options_without_a_field_keep_argparse_checks():
    checked = {(command, action.option_strings[-1]) for command in TABLES for action in value_options(command)
               if action.type in (int, float) or action.choices is not None}
    assert checked == ARGPARSE_CHECKED
    assert all(declared(command, sub_parser(command)._option_string_actions[flag].dest) is None
               for command, flag in ARGPARSE_CHECKED)


def test_every_command_is_listed():
    assert set(TABLES) == set(COMMANDS)


@pytest.mark.parametrize("argv, message", [
    (["rate", "--alpha", "1.5"], "rate.alpha: got 1.5, expected a number in (0, 1)"),
    (["rate", "--permutations", "1"], "rate.n_permutations: got 1, expected an integer >= 2 or 0"),
    (["rate", "--glicko", "glicko1"], "rate.glicko: got 'glicko1', expected one of glickman, decodirt"),
    (["rate", "--tie-tolerance=-0.1"], "rate.tie_tolerance: got -0.1, expected a number >= 0"),
    (["subset", "--random", "ten"], "subset.n_random: got 'ten', expected an integer >= 2 or 0"),
    (["subset", "--rule", "best"],
     "subset.rule: got 'best', expected one of budget, decodirt, discrimination, difficulty, guessing"),
    (["airt", "--epsilons", "0.1,x"], "airt.epsilons: got [0.1, 'x'], expected a non-empty list of numbers, "
                                      "each in [0, 1]"),
    (["airt", "--polytomous", "pcm"], "airt.polytomous: got 'pcm', expected null or one of grm, gpcm"),
    (["airt", "--logit-epsilon", "0.5"], "airt.logit_epsilon: got 0.5, expected a number in (0, 0.5)"),
    (["plan", "--rank", "0"], "placement.rank: got 0, expected null or an integer >= 1"),
    (["import-runs", "--max-items", "1"], "respond.max_items: got 1, expected null or an integer >= 2"),
    (["import-runs", "--per-flow", "last"],
     "respond.per_flow: got 'last', expected one of best-held-out, all, best, median, first"),
])
def test_pinned_messages(argv, message, tmp_path, capsys):
    """A few messages written out by hand (the generated ones are computed from the declarations)."""
    command, option = argv[0], argv[1:]
    assert main([command, *_arguments(command, tmp_path), *option]) == 2
    assert capsys.readouterr().err == f"benchirt {command}: error: {message}\n"


def test_help_lists_the_choices_of_options_read_through_declarations(capsys):
    """argparse no longer lists the choices (no ``choices=``): the metavar does."""
    for command, fragment in (("rate", "--glicko {glickman,decodirt}"), ("rate", "--verdict {stepdown,holm,range}"),
                              ("subset", "--rule {budget,decodirt,discrimination,difficulty,guessing}"),
                              ("airt", "--compat-range {unit,data}"), ("plan", "--prior {mixture,gaussian}"),
                              ("import-runs", "--per-flow {best-held-out,all,best,median,first}")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert fragment in capsys.readouterr().out, (command, fragment)


def test_a_valid_value_is_read_in_its_declared_type():
    """What the declarations read from text is what the config keeps (no string reaches a numeric field)."""
    from benchirt.options import from_arguments

    read = from_arguments(RatingConfig.OPTIONS, {"alpha": "0.1", "n_permutations": "0", "seed": "-3",
                                                 "glicko": "decodirt", "rope": None})
    config = RatingConfig(**read)
    assert (config.alpha, config.n_permutations, config.seed, config.glicko, config.rope) == (0.1, 0, -3, "decodirt",
                                                                                               RatingConfig.rope)
    assert math.isclose(AIRTConfig(**from_arguments(AIRTConfig.OPTIONS, {"epsilons": "0,0.5"})).epsilons[1], 0.5)

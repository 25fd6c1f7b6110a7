"""The rule that maps a respondent's name in a matrix file to its flow and run.

A respondents × items matrix names each row; when several rows are runs of one learner (its settings, its
checkpoints) the name says which flow and which run. The flow is what is compared across datasets (the same
flow is the same respondent on every task), the run is what ``--per-flow`` chooses among. Rules:

* default: ``<flow>||<run>`` — the flow is the name up to the first ``||``, the run the rest (the naming of
  ``cv-fold0``: ``weka.J48(1)||-C 0.25 -M 2``); a name without ``||`` is a flow of its own (so the rows of
  ``iris-matrices``, named by their learner only, are runs of that learner);
* a regular expression with the named groups ``flow`` (required) and ``run`` (optional) that must match the
  whole name, e.g. ``(?P<flow>.+)_(?P<run>best|\\d+)$`` for checkpoints ``bert_best``, ``bert_3``. A name it
  does not match is a flow of its own, and counted in the notes.

Two rows of one flow with the same (or no) run are told apart by their row number in the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from benchirt.errors import ConfigError

#: The separator of the default rule.
SEPARATOR = "||"


@dataclass(frozen=True)
class RespondentNaming:
    """``pattern``: None for the default ``<flow>||<run>`` rule, else a regular expression (module docstring)."""

    pattern: str | None = None

    def __post_init__(self) -> None:
        if self.pattern is None:
            return
        try:
            compiled = re.compile(self.pattern)
        except re.error as exc:
            raise ConfigError(f"respondent pattern {self.pattern!r} is not a regular expression ({exc})") from None
        if "flow" not in compiled.groupindex:
            raise ConfigError(f"respondent pattern {self.pattern!r} has no group named 'flow'; write it as "
                              "(?P<flow>...) and, for the run, (?P<run>...)")

    def split(self, name: str) -> tuple[str, str] | None:
        """``(flow, run)`` of ``name`` ('' when no run is given); None when the pattern does not match it."""
        if self.pattern is None:
            flow, separator, run = name.partition(SEPARATOR)
            return (flow, run) if separator and flow else (name, "")
        match = re.fullmatch(self.pattern, name)
        if match is None or not match.group("flow"):
            return None
        return match.group("flow"), (match.groupdict().get("run") or "")

    def describe(self) -> str:
        """The rule in words, for notes."""
        return "flow||run" if self.pattern is None else f"the pattern {self.pattern!r}"

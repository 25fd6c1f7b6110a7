"""The rule that maps a respondent's name in a matrix file to its flow and run.

When several rows of a matrix are runs of one learner (settings, checkpoints) the name says which flow and run. The
flow is compared across datasets (the same respondent on every task), the run is what ``--per-flow`` chooses among:

* default: ``<flow>||<run>`` — the flow up to the first ``||``, the run the rest (e.g. ``weka.J48(1)||-C 0.25 -M
  2``); a name without ``||`` is a flow of its own;
* a regular expression with the named groups ``flow`` (required) and ``run`` (optional) matching the whole name, e.g.
  ``(?P<flow>.+)_(?P<run>best|\\d+)$`` for checkpoints ``bert_best``, ``bert_3``; an unmatched name is a flow of its
  own, counted in the notes.

Two rows of one flow with the same (or no) run are told apart by their row number.
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

"""Options of the subset stage (Cardoso et al. 2021 §4.6, §5.4)."""
from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import Choice, Constraint, Integer, checked_options, require, validate_fields

#: The selection rules :func:`benchirt.subsets.build_subsets` knows.
#: ``budget`` (the default) is :func:`benchirt.subsets.budget.budget_subsets`, its cuts shares of the suite's CPU;
#: the others are decodIRT's (Cardoso et al. 2021 §4.6, §5.4), their cuts shares of the datasets.
RULES: tuple[str, ...] = ("budget", "decodirt", "discrimination", "difficulty", "guessing")
#: The cuts of Cardoso et al. 2021 §5.4.
DEFAULT_CUTS: tuple[float, ...] = (30.0, 50.0, 70.0)


@dataclass(frozen=True, kw_only=True)
class Percentages(Constraint):
    """``subset.cuts``: percentages of the suite to keep, each in (0, 100]; one number, a list, or a text
    ``30,50,70``; a ``%`` sign is allowed. Kept as a tuple of floats."""

    def expected(self) -> str:
        return ("percentages of the suite to keep (of its CPU for the budget rule, of its datasets for decodIRT's), "
                "each in (0, 100], e.g. 30,50,70")

    def accepts(self, value: Any) -> bool:
        values = _percentages(value)
        return bool(values) and all(0.0 < number <= 100.0 for number in values)

    def normal(self, value: Any) -> Any:
        return tuple(_percentages(value))

    def invalid_values(self) -> tuple[Any, ...]:
        return ([0], [150], "x", [], [True])



def _percentages(cuts: Any) -> list[float]:
    """The numbers ``cuts`` gives (NaN for an entry that is none; a bare number is a list of one, a text is
    split at its commas)."""
    listed = [cuts] if isinstance(cuts, numbers.Real) else cuts
    if isinstance(listed, str):
        listed = [cut for cut in listed.split(",") if cut.strip()]
    if not isinstance(listed, (list, tuple)):
        return [math.nan]
    values = []
    for cut in listed:
        if isinstance(cut, numbers.Real) and not isinstance(cut, bool):
            values.append(float(cut))
            continue
        try:
            values.append(float(str(cut).strip().rstrip("%")) if not isinstance(cut, bool) else math.nan)
        except ValueError:
            values.append(math.nan)  # not a number: refused as outside (0, 100]
    return values


def validate_cuts(cuts: Any) -> tuple[float, ...]:
    """Check a list of cut percentages (:class:`Percentages`), each in (0, 100] and given once; returns them as a tuple
    in the given order.

    Raises
    ------
    ConfigError
        A cut that is not a number, lies outside (0, 100], or is repeated; an empty list.
    """
    return SubsetConfig(cuts=cuts).cuts


def validate_rule(rule: str) -> str:
    """Return ``rule`` if it is one of :data:`RULES`, else raise :class:`ConfigError`."""
    return SubsetConfig.OPTIONS["rule"].check("subset", "rule", rule)


@dataclass(frozen=True)
class SubsetConfig:
    """Options of :mod:`benchirt.subsets`.

    Attributes
    ----------
    cuts : tuple of float
        Percentages of the suite each subset keeps, each in (0, 100] (Cardoso et al. 2021 §5.4: 30, 50, 70): of its CPU
        for the ``budget`` rule, of its datasets for decodIRT's rules.
    rule : {"budget", "decodirt", "discrimination", "difficulty", "guessing"}
        ``budget``: the cheapest datasets that keep the full suite's verdict
        (:func:`benchirt.subsets.budget.budget_subsets`); ``decodirt``: decodIRT's combined rule, and the three
        single-parameter rules (:func:`benchirt.subsets.build_subsets`).
    n_random : int
        Random subsets of each subset's size drawn to place its fidelity against chance (0 = off).
    seed : int
        Seed of the random subsets and of the rating-order permutations.
    n_permutations : int
        Random dataset orders of the order-robust ranking of every subset (0 = off, else ≥ 2).
    """

    cuts: tuple[float, ...] = DEFAULT_CUTS
    rule: str = "budget"
    n_random: int = 200
    seed: int = 0
    n_permutations: int = 200

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "cuts": Percentages(),
        "rule": Choice(choices=RULES),
        "n_random": Integer(minimum=2, also=(0,)),
        "seed": Integer(minimum=0),
        "n_permutations": Integer(minimum=2, also=(0,)),
    }

    def __post_init__(self) -> None:
        given = self.cuts
        validate_fields("subset", self, self.OPTIONS)
        require(len(set(self.cuts)) == len(self.cuts), "subset", "cuts", given, "each percentage once")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "SubsetConfig":
        """Build from a mapping (the ``subsets:`` section of a YAML config); unknown keys are an error."""
        return cls(**checked_options("subset", d, cls))

    def to_dict(self) -> dict[str, Any]:
        """The options as plain YAML/JSON values."""
        return {**dataclasses.asdict(self), "cuts": list(self.cuts)}

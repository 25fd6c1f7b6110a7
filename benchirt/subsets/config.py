"""Options of the subset stage (Cardoso et al. 2021 §4.6, §5.4)."""
from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.options import check_choice, check_integer, checked_options, require

#: The selection rules :func:`benchirt.subsets.build_subsets` knows.
RULES: tuple[str, ...] = ("combined", "discrimination", "difficulty", "guessing")
#: The cuts of Cardoso et al. 2021 §5.4.
DEFAULT_CUTS: tuple[float, ...] = (30.0, 50.0, 70.0)


def validate_cuts(cuts: Iterable[float | str] | float | str) -> tuple[float, ...]:
    """Check a list of cut percentages.

    Parameters
    ----------
    cuts : iterable of float, or one number
        Percentages of the suite to keep, each in (0, 100].

    Returns
    -------
    tuple of float
        The cuts in the given order.

    Raises
    ------
    ConfigError
        A cut that is not a number, lies outside (0, 100], or is repeated; an empty list.
    """
    given = cuts
    listed: Iterable[object] = [cuts] if isinstance(cuts, (int, float, numbers.Real, str)) else cuts
    expected = "percentages of the suite's datasets to keep, each in (0, 100], e.g. 30,50,70"
    values: list[float] = []
    for cut in listed:
        if isinstance(cut, numbers.Real) and not isinstance(cut, bool):
            number = float(cut)
        else:
            try:
                number = float(str(cut).strip().rstrip("%"))
            except ValueError:
                number = math.nan  # not a number: refused as outside (0, 100] below
        require(0.0 < number <= 100.0, "subset", "cuts", given, expected)
        require(number not in values, "subset", "cuts", given, "each percentage once")
        values.append(number)
    require(bool(values), "subset", "cuts", given, expected)
    return tuple(values)


def validate_rule(rule: str) -> str:
    """Return ``rule`` if it is one of :data:`RULES`, else raise :class:`ConfigError`."""
    check_choice("subset", "rule", rule, RULES)
    return rule


@dataclass(frozen=True)
class SubsetConfig:
    """Options of :mod:`benchirt.subsets`.

    Attributes
    ----------
    cuts : tuple of float
        Percentages of the suite each subset keeps, each in (0, 100] (Cardoso et al. 2021 §5.4: 30, 50, 70).
    rule : {"combined", "discrimination", "difficulty", "guessing"}
        How datasets are chosen, see :func:`benchirt.subsets.build_subsets`.
    n_random : int
        Random subsets of each subset's size drawn to place its fidelity against chance (0 = off).
    seed : int
        Seed of the random subsets and of the rating-order permutations.
    n_permutations : int
        Random dataset orders of the order-robust ranking of every subset (0 = off, else ≥ 2).
    """

    cuts: tuple[float, ...] = DEFAULT_CUTS
    rule: str = "combined"
    n_random: int = 200
    seed: int = 0
    n_permutations: int = 200

    def __post_init__(self) -> None:
        object.__setattr__(self, "cuts", validate_cuts(self.cuts))
        validate_rule(self.rule)
        check_integer("subset", "n_random", self.n_random, 2, also=(0,))
        check_integer("subset", "seed", self.seed, 0)
        check_integer("subset", "n_permutations", self.n_permutations, 2, also=(0,))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "SubsetConfig":
        """Build from a mapping (the ``subsets:`` section of a YAML config); unknown keys are an error."""
        d = checked_options("subset", d, cls)
        if "cuts" in d and isinstance(d["cuts"], str):
            d["cuts"] = [c for c in d["cuts"].split(",") if c.strip()]
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """The options as plain YAML/JSON values."""
        return {**dataclasses.asdict(self), "cuts": list(self.cuts)}

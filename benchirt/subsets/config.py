"""Options of the subset stage (Cardoso et al. 2021 §4.6, §5.4)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.options import check_integer, checked_options
from benchirt.subsets.selection import DEFAULT_CUTS, validate_cuts, validate_rule


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
        check_integer("subsets", "n_random", self.n_random, 2, also=(0,))
        check_integer("subsets", "seed", self.seed, 0)
        check_integer("subsets", "n_permutations", self.n_permutations, 2, also=(0,))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "SubsetConfig":
        """Build from a mapping (the ``subsets:`` section of a YAML config); unknown keys are an error."""
        d = checked_options("subsets", d, cls)
        if "cuts" in d and isinstance(d["cuts"], str):
            d["cuts"] = [c for c in d["cuts"].split(",") if c.strip()]
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """The options as plain YAML/JSON values."""
        return {**dataclasses.asdict(self), "cuts": list(self.cuts)}

"""The start search's last phase, where the starts ended in more than one optimum: EM climbs again from the best optimum
with one item flipped to its other mode, and from uniform crossovers of the best optimum with the next best (Syswerda
1989). The optima of decodIRT's pools differ in groups of items, so recombining them reaches optima no independent
start reached (docs/irt.md, "Starts"). Hand-written: a few lines of bookkeeping around
:func:`benchirt.irt.climb.climb_and_file`."""
from __future__ import annotations

import numpy as np

from benchirt.irt.climb import climb_and_file, grid_gains
from benchirt.irt.problem import Problem, symmetric
from benchirt.irt.search import Run

#: The last phase (:func:`recombine`): the items flipped one at a time (:func:`mode_flips`, 3PL) and the crossovers
#: in a row (:class:`Crossovers`) that may fail to raise the best optimum; at most :data:`RECOMBINE_BUDGET` climbs.
_FLIPS = 30
_CROSS_PATIENCE = 6
_CROSS_PARTNERS = 3
RECOMBINE_BUDGET = 60
_FLIP_PREFIX = "flip_"  # the flips' names: flip_1, flip_2, ...


def recombine(problem: Problem, runs: list[Run], optima: list[dict]) -> None:
    """The search's last phase, a local search among the optima found: EM climbs from the best optimum with one item
    moved to its other mode (:func:`mode_flips`, 3PL), then from crossovers (:class:`Crossovers`); whenever a climb
    raises the best optimum the flips start again from it. Stops when all flips and :data:`_CROSS_PATIENCE`
    crossovers in a row fail, or after :data:`RECOMBINE_BUDGET` climbs."""
    crossovers = Crossovers(problem)
    end = len(runs) + RECOMBINE_BUDGET
    flip_count = 0
    while len(runs) < end:
        best = optima[0]["params"]
        flips = mode_flips(best, problem) if problem.estimates_guessing else []
        gained = False
        for item, value in flips:
            if len(runs) >= end:
                return
            start = best.copy()
            start[item] = value
            flip_count += 1
            if climb_and_file(start, f"{_FLIP_PREFIX}{flip_count}", problem, runs, optima):
                gained = True
                break
        for _ in range(0 if gained else _CROSS_PATIENCE):
            if len(runs) >= end:
                return
            if climb_and_file(*crossovers.next(optima), problem, runs, optima):
                gained = True
                break
        if not gained:
            return


def mode_flips(params: np.ndarray, problem: Problem) -> list[tuple[int, np.ndarray]]:
    """The :data:`_FLIPS` items whose M-step objective (at the E-step of ``params``) comes closest to its value in
    another mode (:func:`benchirt.irt.modes.other_mode`), closest first, each with the best grid point of that mode:
    the flip lowers that item's objective, but EM re-adjusts the others and can end higher."""
    gains, values = grid_gains(params, problem, other_mode=True)
    order = np.argsort(-gains, kind="stable")[:_FLIPS]
    return [(int(j), values[j]) for j in order if np.isfinite(gains[j])]


class Crossovers:
    """Starts that recombine the best optimum with the next best (uniform crossover, Syswerda 1989): each item takes,
    with probability 1/2 (seeded), the partner's value. The partners are the 2nd to :data:`_CROSS_PARTNERS` + 1st
    best optima in turn, each turned to the best's orientation (a mirror image is the same optimum)."""

    PREFIX = "cross_"

    def __init__(self, problem: Problem):
        self.problem = problem
        self.rng = np.random.default_rng(1)
        self.count = 0

    def next(self, optima: list[dict]) -> tuple[np.ndarray, str]:
        """The next crossover's starting parameters and name (``optima``: at least two, best first)."""
        best = optima[0]["params"]
        partner = optima[1 + self.count % min(_CROSS_PARTNERS, len(optima) - 1)]["params"]
        if symmetric(self.problem.config) and np.sum(self.problem.multiplicity * best[:, 0] * partner[:, 0]) < 0:
            partner = partner.copy()
            partner[:, :2] *= -1
        self.count += 1
        start = best.copy()
        pick = self.rng.random(len(best)) < 0.5
        start[pick] = partner[pick]
        return start, f"{self.PREFIX}{self.count}"

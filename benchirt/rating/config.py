"""Options of the rating stage (Glicko-2 tournament, order permutations, statistical tests)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.errors import ConfigError
from benchirt.options import checked_options

#: The two ways :func:`benchirt.rating.friedman_nemenyi` can compare classifiers.
STATS_MODES = ("blocks", "decodirt")
#: The two Glicko-2 variants: Glickman's algorithm, or the ``glicko2`` package decodIRT used.
GLICKO_MODES = ("glickman", "decodirt")


@dataclass(frozen=True)
class RatingConfig:
    """Options of :mod:`benchirt.rating`.

    Attributes
    ----------
    score : str
        Which score decides the matches: a column of a long scores frame (``"true_score"``,
        ``"test_accuracy"``, ...), or the name of what the ``score`` column of a plain
        ``dataset, classifier, score`` frame holds; a frame with other score columns but not this
        one is refused (:func:`benchirt.rating.scores.score_column`). In a run: one of
        ``benchirt.pipeline.stages.RUN_SCORES``.
        For decodIRT folders it picks the file (``true_score`` → ``true_scores.csv``,
        ``test_accuracy``/``accuracy`` → ``test_accuracy.csv``, ``cv_accuracy`` → ``cv_accuracy.csv``).
    initial : (float, float, float)
        Initial rating, rating deviation and volatility of every classifier (seed 003 §2.6: 1500, 350, 0.06).
    n_permutations : int
        Random dataset orders of the permutation analysis (0 switches it off).
    seed : int
        Seed of the random orders.
    order : str or None
        Order of the rating periods: ``None``/``"sorted"`` (dataset names sorted), ``"given"`` (first
        appearance in the input), ``"random:SEED"``, or the path of a text file with one dataset per line.
    stats : {"blocks", "decodirt"}
        ``"blocks"``: Friedman with datasets as blocks + Nemenyi for Friedman (Demšar 2006).
        ``"decodirt"``: decodIRT's procedure on rating trajectories (compatibility only, see docs/rating.md).
    alpha : float
        Significance level of the critical difference and of the significance matrices.
    tie_tolerance : float
        Scores closer than this are a draw (0.5 each). 0 = exact equality, as decodIRT.
    glicko : {"glickman", "decodirt"}
        ``"glickman"``: Glicko-2 exactly as Glickman's "Example of the Glicko-2 system" (step 5 with φ²).
        ``"decodirt"``: the ``glicko2`` package's arithmetic (μ² in step 5), which reproduces decodIRT.
    n_bootstrap : int
        Bootstrap replicates over datasets for the Bradley–Terry intervals (0 switches them off).
    rope : float
        Half-width of the region of practical equivalence of the Bayesian pairwise comparison, in
        units of the score (0.01 = one accuracy point for True-Scores/accuracies).
    """

    score: str = "true_score"
    initial: tuple[float, float, float] = (1500.0, 350.0, 0.06)
    n_permutations: int = 200
    seed: int = 0
    order: str | None = None
    stats: str = "blocks"
    alpha: float = 0.05
    tie_tolerance: float = 0.0
    glicko: str = "glickman"
    n_bootstrap: int = 1000
    rope: float = 0.01

    def __post_init__(self) -> None:
        initial = tuple(float(v) for v in self.initial) if _is_triple(self.initial) else None
        if initial is None or not (initial[1] > 0 and initial[2] > 0):
            raise ConfigError(
                f"rating.initial must be three numbers (rating, RD > 0, volatility > 0), got {self.initial!r}"
            )
        object.__setattr__(self, "initial", initial)
        if not isinstance(self.n_permutations, int) or self.n_permutations < 0:
            raise ConfigError(f"rating.n_permutations must be an integer >= 0, got {self.n_permutations!r}")
        if self.n_permutations == 1:
            raise ConfigError("rating.n_permutations must be 0 (off) or at least 2 to measure a spread")
        if not isinstance(self.seed, int):
            raise ConfigError(f"rating.seed must be an integer, got {self.seed!r}")
        if self.stats not in STATS_MODES:
            raise ConfigError(f"rating.stats must be one of {', '.join(STATS_MODES)}, got {self.stats!r}")
        if not 0.0 < float(self.alpha) < 1.0:
            raise ConfigError(f"rating.alpha must lie in (0, 1), got {self.alpha!r}")
        if float(self.tie_tolerance) < 0:
            raise ConfigError(f"rating.tie_tolerance must be >= 0, got {self.tie_tolerance!r}")
        if self.glicko not in GLICKO_MODES:
            raise ConfigError(f"rating.glicko must be one of {', '.join(GLICKO_MODES)}, got {self.glicko!r}")
        if isinstance(self.n_bootstrap, bool) or not isinstance(self.n_bootstrap, int) or self.n_bootstrap < 0:
            raise ConfigError(f"rating.n_bootstrap must be an integer >= 0, got {self.n_bootstrap!r}")
        if self.n_bootstrap == 1:
            raise ConfigError("rating.n_bootstrap must be 0 (off) or at least 2 to give an interval")
        if isinstance(self.rope, bool) or not isinstance(self.rope, (int, float)) or not 0 <= self.rope < math.inf:
            raise ConfigError(f"rating.rope must be a number >= 0 (score units), got {self.rope!r}")
        if not isinstance(self.score, str) or not self.score:
            raise ConfigError(f"rating.score must be a column or score name, got {self.score!r}")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "RatingConfig":
        """Build from a mapping (the ``rating:`` section of a YAML config); unknown keys are an error."""
        d = checked_options("rating", d, cls)
        if "initial" in d and isinstance(d["initial"], list):
            d["initial"] = tuple(d["initial"])
        return cls(**d)


def _is_triple(value: Any) -> bool:
    """Three finite numbers."""
    try:
        return len(value) == 3 and all(math.isfinite(float(v)) for v in value)
    except (TypeError, ValueError):
        return False

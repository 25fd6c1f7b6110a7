"""Options of the rating stage (Glicko-2 tournament, order permutations, statistical tests)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import Choice, Constraint, Integer, Number, Numbers, Text, checked_options, validate_fields

#: The two ways :func:`benchirt.rating.friedman_nemenyi` can compare classifiers.
STATS_MODES = ("blocks", "decodirt")
#: The two Glicko-2 variants: Glickman's algorithm, or the ``glicko2`` package decodIRT used.
GLICKO_MODES = ("glickman", "decodirt")
#: How the primary verdict separates classifiers: step-down max-T on the pairs' signed-rank statistics
#: (:mod:`benchirt.rating.stepdown`, default), each pair's Wilcoxon signed-rank test with Holm's correction
#: (:mod:`benchirt.rating.wilcoxon_holm`: valid whatever the spreads, but with few datasets it cannot reject), or the
#: single-step range test on the Bradley–Terry ratings (:mod:`benchirt.rating.separation`).
VERDICT_METHODS = ("stepdown", "holm", "range")
#: How the step-down max-T resamples under the null: reflecting each dataset's scores with a random sign (default; exact
#: for classifiers of any spreads whose noise is symmetric), or shuffling the classifiers within each dataset (exact
#: only for exchangeable classifiers).
RESAMPLING_MODES = ("reflection", "shuffle")
#: ``rate.pairwise_up_to``'s default: fields of up to this many tested entrants are decided pair by pair, larger ones by
#: one simultaneous interval per entrant (:mod:`benchirt.rating.simultaneous`).
PAIRWISE_UP_TO = 1000
#: The scores a run has for every (dataset, classifier), any of which can decide the ratings of a run
#: (``rate.score``; the table: :func:`benchirt.rating.run_scores.run_scores`).
RUN_SCORES = ("true_score", "theta", "test_accuracy", "cv_accuracy")
#: In a run, ``rate.score`` names a score every run has (:attr:`RatingConfig.OPTIONS`' own ``score`` admits any column).
RUN_SCORE = Choice(choices=RUN_SCORES)


@dataclass(frozen=True)
class RatingConfig:
    """Options of :mod:`benchirt.rating`.

    Attributes
    ----------
    score : str
        Which score decides the matches: a column of a long scores frame (``"true_score"``, ``"test_accuracy"``, ...),
        or the name of what the ``score`` column of a plain ``dataset, classifier, score`` frame holds; a frame with
        other score columns but not this one is refused (:func:`benchirt.rating.scores.score_column`). In a run: one of
        :data:`RUN_SCORES`. For decodIRT folders it picks the file (``true_score`` → ``true_scores.csv``,
        ``test_accuracy``/``accuracy`` → ``test_accuracy.csv``, ``cv_accuracy`` → ``cv_accuracy.csv``).
    initial : (float, float, float)
        Initial rating, rating deviation and volatility of every classifier (Cardoso et al. 2021 §2.6: 1500, 350, 0.06).
    n_permutations, seed : int
        Random dataset orders of the permutation analysis (0 switches it off), and their seed.
    order : str or None
        Order of the rating periods: ``None``/``"sorted"`` (dataset names sorted), ``"given"`` (first appearance),
        ``"random:SEED"``, or the path of a text file with one dataset per line.
    stats : {"blocks", "decodirt"}
        ``"blocks"``: Friedman with datasets as blocks + Nemenyi (Demšar 2006). ``"decodirt"``: decodIRT's procedure on
        rating trajectories (compatibility only, see docs/rating.md).
    alpha : float
        Significance level of the critical difference and the significance matrices, and the family-wise error rate of
        the primary verdict over all pairs (its rank intervals hold jointly at 1 − alpha).
    tie_tolerance : float
        Scores closer than this are a draw (0.5 each). 0 = exact equality, as decodIRT.
    glicko : {"glickman", "decodirt"}
        ``"glickman"``: Glicko-2 exactly as Glickman's "Example of the Glicko-2 system" (step 5 with φ²).
        ``"decodirt"``: the ``glicko2`` package's arithmetic (μ² in step 5), which reproduces decodIRT.
    n_bootstrap : int
        Bootstrap replicates over datasets for the Bradley–Terry intervals, and resampled tables for the primary verdict
        (0 switches both off).
    rope : float
        Half-width of the region of practical equivalence of the Bayesian pairwise comparison, in score units (0.01 =
        one accuracy point).
    verdict : {"stepdown", "holm", "range"}
        Method of the primary verdict (:data:`VERDICT_METHODS`, :mod:`benchirt.rating.decisions`): step-down max-T on
        resampled tables (``resampling``), Wilcoxon–Holm, or the range test on the Bradley–Terry ratings.
    resampling : {"reflection", "shuffle"}
        How ``verdict: stepdown`` draws its null tables (:data:`RESAMPLING_MODES`): random sign per dataset (all 2^D
        patterns when ``n_bootstrap`` ≥ 2^D; valid for unequal spreads), or shuffles within datasets (assumes
        exchangeable classifiers).
    max_pairwise : int or None
        The agreement checks (Wilcoxon–Holm, the Bayesian sign test) and ``verdict: holm`` compare only the
        ``max_pairwise`` best-rated classifiers, every pair of them; with ``holm`` the others' rank intervals are the
        untested 1..k (said in the verdict). The step-down tests every pair regardless. None: every pair.
    pairwise_up_to : int
        Fields of up to this many tested entrants are decided pair by pair (both verdicts); larger ones by one
        simultaneous interval per entrant (:mod:`benchirt.rating.simultaneous`, more cautious), and ``pairwise.csv``
        lists the contenders' pairs only.
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
    verdict: str = "stepdown"
    resampling: str = "reflection"
    max_pairwise: int | None = 50
    pairwise_up_to: int = PAIRWISE_UP_TO

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "score": Text(),
        "initial": Numbers(entries=("rating", "RD", "volatility"), positive=("RD", "volatility")),
        "n_permutations": Integer(minimum=2, also=(0,)),
        "seed": Integer(),
        "order": Text(what="sorted, given, random:SEED or the path of a file of dataset names", optional=True),
        "stats": Choice(choices=STATS_MODES),
        "alpha": Number(above=0, below=1),
        "tie_tolerance": Number(at_least=0),
        "glicko": Choice(choices=GLICKO_MODES),
        "n_bootstrap": Integer(minimum=2, also=(0,)),
        "rope": Number(at_least=0),
        "verdict": Choice(choices=VERDICT_METHODS),
        "resampling": Choice(choices=RESAMPLING_MODES),
        "max_pairwise": Integer(minimum=2, optional=True),
        "pairwise_up_to": Integer(minimum=2),
    }

    def __post_init__(self) -> None:
        validate_fields("rate", self, self.OPTIONS)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "RatingConfig":
        """Build from a mapping (the ``rating:`` section of a YAML config); unknown keys are an error."""
        return cls(**checked_options("rate", d, cls))

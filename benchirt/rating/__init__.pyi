"""Type stub of :mod:`benchirt.rating`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from benchirt.rating.config import RatingConfig as RatingConfig
from benchirt.rating.glicko import Tournament as Tournament
from benchirt.rating.glicko import glicko_tournament as glicko_tournament
from benchirt.rating.batch import match_outcomes as match_outcomes
from benchirt.rating.leaderboard import Leaderboard as Leaderboard
from benchirt.rating.leaderboard import LeaderboardError as LeaderboardError
from benchirt.rating.leaderboard import leaderboard as leaderboard
from benchirt.rating.pairwise import pairwise_comparisons as pairwise_comparisons
from benchirt.rating.permutation import PermutationAnalysis as PermutationAnalysis
from benchirt.rating.permutation import permutation_analysis as permutation_analysis
from benchirt.rating.scores import decodirt_to_benchirt_names as decodirt_to_benchirt_names
from benchirt.rating.scores import read_scores as read_scores
from benchirt.rating.scores import resolve_order as resolve_order
from benchirt.rating.scores import validate_scores as validate_scores
from benchirt.rating.stage import RatingResult as RatingResult
from benchirt.rating.stage import rate as rate
from benchirt.rating.statistics import StatisticalComparison as StatisticalComparison
from benchirt.rating.statistics import critical_difference as critical_difference
from benchirt.rating.statistics import friedman_nemenyi as friedman_nemenyi
from benchirt.rating.verdict import leaderboard_verdict as leaderboard_verdict

__all__ = [
    "Leaderboard",
    "LeaderboardError",
    "PermutationAnalysis",
    "RatingConfig",
    "RatingResult",
    "StatisticalComparison",
    "Tournament",
    "critical_difference",
    "decodirt_to_benchirt_names",
    "friedman_nemenyi",
    "glicko_tournament",
    "leaderboard",
    "leaderboard_verdict",
    "match_outcomes",
    "pairwise_comparisons",
    "permutation_analysis",
    "rate",
    "read_scores",
    "resolve_order",
    "validate_scores",
]

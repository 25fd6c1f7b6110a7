"""Glicko-2 ratings of classifiers over benchmark datasets, their order robustness, the order-free
Bradley–Terry leaderboard with bootstrap intervals and tiers, pairwise Wilcoxon/Holm and Bayesian
comparisons, and Friedman/Nemenyi tests (seed 003 §2.6, §4.7, §5.3). See docs/rating.md."""
from benchirt.rating.config import RatingConfig
from benchirt.rating.glicko import Tournament, glicko_tournament, match_outcomes
from benchirt.rating.leaderboard import Leaderboard, LeaderboardError, leaderboard, leaderboard_verdict
from benchirt.rating.pairwise import pairwise_comparisons
from benchirt.rating.permutation import PermutationAnalysis, permutation_analysis
from benchirt.rating.scores import decodirt_to_benchirt_names, read_scores, resolve_order, validate_scores
from benchirt.rating.stage import RatingResult, rate
from benchirt.rating.statistics import StatisticalComparison, critical_difference, friedman_nemenyi

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

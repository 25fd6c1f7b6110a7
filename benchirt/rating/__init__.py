"""Glicko-2 ratings of classifiers over benchmark datasets, their order robustness, the order-free
Bradley–Terry leaderboard with bootstrap intervals, its primary verdict (step-down max-T, Westfall & Young
1993; or Wilcoxon signed-rank tests with Holm's correction) with joint rank intervals and tiers, pairwise Wilcoxon/Holm and Bayesian comparisons, and
Friedman/Nemenyi tests (Cardoso et al. 2021 §2.6, §4.7, §5.3). See docs/rating.md."""
from benchirt.lazy import lazy_exports

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

lazy_exports(__name__, {
    "Leaderboard": "benchirt.rating.leaderboard",
    "LeaderboardError": "benchirt.rating.leaderboard",
    "PermutationAnalysis": "benchirt.rating.permutation",
    "RatingConfig": "benchirt.rating.config",
    "RatingResult": "benchirt.rating.stage",
    "StatisticalComparison": "benchirt.rating.statistics",
    "Tournament": "benchirt.rating.glicko",
    "critical_difference": "benchirt.rating.statistics",
    "decodirt_to_benchirt_names": "benchirt.rating.scores",
    "friedman_nemenyi": "benchirt.rating.statistics",
    "glicko_tournament": "benchirt.rating.glicko",
    "leaderboard": "benchirt.rating.leaderboard",
    "leaderboard_verdict": "benchirt.rating.verdict",
    "match_outcomes": "benchirt.rating.glicko",
    "pairwise_comparisons": "benchirt.rating.pairwise",
    "permutation_analysis": "benchirt.rating.permutation",
    "rate": "benchirt.rating.stage",
    "read_scores": "benchirt.rating.scores",
    "resolve_order": "benchirt.rating.scores",
    "validate_scores": "benchirt.rating.scores",
})

"""Glicko-2 ratings of classifiers over benchmark datasets, their order robustness, the order-free Bradley–Terry
leaderboard with bootstrap intervals, its primary verdict (step-down max-T, Westfall & Young 1993; or Wilcoxon
signed-rank tests with Holm's correction) with joint rank intervals and tiers, pairwise Wilcoxon/Holm and Bayesian
comparisons, and Friedman/Nemenyi tests (Cardoso et al. 2021 §2.6, §4.7, §5.3). See docs/rating.md."""
from benchirt.lazy import attach_stub

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)

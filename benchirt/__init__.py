"""benchirt: IRT and Glicko-2 for machine-learning benchmarks."""
__version__ = "0.1.0"

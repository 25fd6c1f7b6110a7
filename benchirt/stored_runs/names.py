"""The selection rules of stored runs, importable without numpy or pandas (``benchirt import-runs --help``)."""
from __future__ import annotations

RULES = ("best-held-out", "all", "best", "median", "first")
DEFAULT_RULE = "best-held-out"

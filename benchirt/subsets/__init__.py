"""IRT-filtered benchmark subsets: choose, evaluate, characterise, export (Cardoso et al. 2021 §4.6, §4.9, §5.4–5.6).

Typical use (``summaries``: the IRT stage's per-dataset summaries; ``scores``: the long True-Score
table; ``roles``: classifier -> "real"/"artificial")::

    subsets = build_subsets(summaries, cuts=(30, 50, 70), rule="decodirt")
    evaluation = evaluate_subsets(subsets, scores, summaries, metadata, roles)
    print(evaluation)            # fidelity vs chance, Table 5, innate-ability verdict

See docs/subsets.md.
"""
from benchirt.lazy import lazy_exports

__all__ = [
    "FULL",
    "PARAMETER_COLUMNS",
    "RULES",
    "SubsetConfig",
    "SubsetEvaluation",
    "build_subsets",
    "evaluate_subsets",
    "subset_size",
]

lazy_exports(__name__, {
    "FULL": "benchirt.subsets.evaluation",
    "PARAMETER_COLUMNS": "benchirt.subsets.selection",
    "RULES": "benchirt.subsets.config",
    "SubsetConfig": "benchirt.subsets.config",
    "SubsetEvaluation": "benchirt.subsets.evaluation",
    "build_subsets": "benchirt.subsets.selection",
    "evaluate_subsets": "benchirt.subsets.evaluation",
    "subset_size": "benchirt.subsets.selection",
})

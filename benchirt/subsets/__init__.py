"""IRT-filtered benchmark subsets: choose, evaluate, characterise, export (Cardoso et al. 2021 §4.6, §4.9, §5.4–5.6).

Typical use (``summaries``: the IRT stage's per-dataset summaries; ``scores``: the long True-Score
table; ``roles``: classifier -> "real"/"artificial")::

    subsets = build_subsets(summaries, cuts=(30, 50, 70), rule="decodirt")
    evaluation = evaluate_subsets(subsets, scores, summaries, metadata=metadata, roles=roles)
    print(evaluation)            # fidelity vs chance, Table 5, innate-ability verdict

See docs/subsets.md.
"""
from benchirt.lazy import attach_stub

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)

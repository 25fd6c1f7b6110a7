"""Which datasets are worth running: each dataset's decisions among the top contenders per CPU-hour.

A dataset is worth running when it tells apart the classifiers a reader chooses between — the strongest real ones — and
says something the others do not, for what it costs. One row per dataset, columns:

* ``top_pairs_separated``: pairs of top contenders (the ``top_k`` real classifiers with the highest mean score) the
  dataset's own test rows tell apart: McNemar's exact test (McNemar 1947) at p < 0.05 per pair on the raw answers
  (:func:`benchirt.irt.mcnemar.mcnemar_separated`).
* ``saturation``: the share of its test rows every top contender answers correctly (a saturated dataset separates nobody
  at the top).
* ``top_information``: the scoring model's test information at the top contenders' median ability, Σ_j a_j² (Q_j / P_j)
  ((P_j − c_j) / (1 − c_j))² (Birnbaum 1968, the 3PL item information; 0 without an IRT result).
* ``separations_depending``: pairs of top contenders the primary verdict across datasets separates with the full suite
  and not without this dataset (leave one out; :func:`benchirt.rating.stepdown.step_down`).
* ``n_items``: its test rows.
* ``redundancy``: the largest squared Pearson correlation with another dataset of the real classifiers' scores (1 for a
  duplicate; 0 when no other dataset shares three classifiers).
* ``cost_cpu_s``: training CPU seconds under decodIRT's protocol from the shape-based cost model
  (:func:`benchirt.pipeline.estimate.response_cost`), also for stored runs trained elsewhere; 0 everywhere when a
  dataset has no shape, ``cost_source`` saying the value then counts per dataset.
* ``value`` — what the report ranks by: ``top_pairs_separated`` per CPU-hour. Redundancy is shown, not multiplied in
  (docs/subsets.md says why).

Hand-written: no library computes these from a benchmark's answers.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchirt.irt.mcnemar import PAIR_ALPHA, mcnemar_separated

#: Columns of ``dataset_value.csv``, most worth running first.
VALUE_COLUMNS = ("dataset", "value", "cost_cpu_s", "top_pairs_separated", "n_top_pairs", "saturation",
                 "top_information", "separations_depending", "n_items", "redundancy", "cost_source")
#: Top contenders: the real classifiers with the highest mean score, this many at most.
TOP_K = 10


def top_contenders(scores: pd.DataFrame, real: Sequence[str], *, top_k: int = TOP_K) -> list[str]:
    """The ``top_k`` real classifiers with the highest mean score over the datasets they are on (ties by name)."""
    means = scores[scores["classifier"].isin(set(map(str, real)))].groupby("classifier")["score"].mean()
    ordered = means.reset_index().sort_values(["score", "classifier"], ascending=[False, True])
    return ordered["classifier"].astype(str).head(top_k).tolist()


def redundancy(matrix: pd.DataFrame, *, min_shared: int = 3) -> pd.Series:
    """Per dataset (column of the classifiers × datasets ``matrix``), the largest squared Pearson correlation of
    its scores with another dataset's over the classifiers both have (at least ``min_shared``); 0 without any."""
    out = {}
    for name in matrix.columns:
        best = 0.0
        for other in matrix.columns.drop(name):
            both = matrix[[name, other]].dropna()
            if len(both) >= min_shared and both[name].std() > 0 and both[other].std() > 0:
                best = max(best, float(np.corrcoef(both[name], both[other])[0, 1] ** 2))
        out[name] = best
    return pd.Series(out, dtype=float)


def information(theta: float, items: pd.DataFrame) -> float:
    """Test information of a 3PL (a 1PL or 2PL has c = 0) at ``theta`` (Birnbaum 1968):
    Σ_j a_j² (Q_j / P_j) ((P_j − c_j) / (1 − c_j))², with P_j = c_j + (1 − c_j) / (1 + exp(−a_j (θ − b_j)))."""
    a = items["discrimination"].to_numpy(float)
    b = items["difficulty"].to_numpy(float)
    c = items["guessing"].to_numpy(float) if "guessing" in items else np.zeros_like(a)
    rising = 1.0 / (1.0 + np.exp(-a * (theta - b)))
    p = c + (1.0 - c) * rising
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = a * a * ((1.0 - p) / p) * rising ** 2
    return float(np.nansum(terms))


def dataset_value(scores: pd.DataFrame, rows: Mapping[str, pd.DataFrame], real: Sequence[str],
                  cost: Mapping[str, float], *, scorers: Mapping[str, tuple[pd.DataFrame, pd.Series]] | None = None,
                  top_k: int = TOP_K, n_tables: int = 1000, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """The dataset-value table (module docstring), most worth running first: columns :data:`VALUE_COLUMNS`, sorted by
    ``value`` (then name).

    ``scores``: long ``dataset, classifier, score`` table (the rated score); ``rows``: dataset → answers on its test
    rows (respondents × rows, 1 correct); ``real``: the real classifiers (artificial ones are never contenders);
    ``cost``: dataset → training CPU seconds; ``scorers`` (optional): dataset → the scoring model's item table
    (``discrimination, difficulty, guessing``) and abilities (respondent → theta), for ``top_information`` (0 without);
    ``top_k``, ``n_tables``, ``alpha``, ``seed``: top contenders, and the leave-one-out step-down's tables, level and
    seed.
    """
    contenders = top_contenders(scores, real, top_k=top_k)
    matrix = scores.pivot_table(index="classifier", columns="dataset", values="score", aggfunc="mean")
    depending = separations_depending(matrix.reindex(contenders), n_tables, alpha, seed)
    predicted = redundancy(matrix.reindex([name for name in matrix.index if name in set(map(str, real))]))
    table = []
    for name in matrix.columns:
        answers = rows[name].reindex([c for c in contenders if c in rows[name].index]).to_numpy(float)
        n_top = len(answers)
        separated = int(np.triu(mcnemar_separated(answers)).sum()) if n_top >= 2 else 0
        items_theta = (scorers or {}).get(name)
        top_info = 0.0
        if items_theta is not None and n_top:
            theta = items_theta[1].reindex(contenders).dropna()
            top_info = information(float(theta.median()), items_theta[0]) if len(theta) else 0.0
        seconds = float(cost.get(name, np.nan))
        table.append({"dataset": name, "cost_cpu_s": seconds, "top_pairs_separated": separated,
                      "n_top_pairs": n_top * (n_top - 1) // 2,
                      "saturation": float(answers.all(axis=0).mean()) if n_top and answers.shape[1] else 0.0,
                      "top_information": top_info, "separations_depending": int(depending.get(name, 0)),
                      "n_items": int(rows[name].shape[1]), "redundancy": float(predicted.get(name, 0.0)),
                      "cost_source": "shape-based cost model of decodIRT's protocol"})
    frame = pd.DataFrame(table)
    if frame["cost_cpu_s"].isna().any():   # a dataset without a shape: no cost to divide by, for any of them
        frame["cost_cpu_s"] = 0.0
        frame["cost_source"] = ("unknown: a dataset has no shape (a matrix imported without its dataset); value "
                                "counts top pairs separated per dataset, not per CPU-hour")
        frame["value"] = frame["top_pairs_separated"].astype(float)
    else:
        frame["value"] = frame["top_pairs_separated"] / (np.maximum(frame["cost_cpu_s"].to_numpy(float), 1.0) / 3600.0)
    frame = frame.sort_values(["value", "dataset"], ascending=[False, True]).reset_index(drop=True)
    return frame[list(VALUE_COLUMNS)]


def separations_depending(matrix: pd.DataFrame, n_tables: int, alpha: float, seed: int) -> pd.Series:
    """Per dataset (column of the contenders × datasets ``matrix``): the pairs the step-down across datasets
    separates with every dataset and not without this one (0 with fewer than 2 contenders or 3 datasets)."""
    from benchirt.rating.stepdown import step_down

    values = matrix.to_numpy(float).T                         # datasets × contenders
    if values.shape[1] < 2 or values.shape[0] < 3 or n_tables < 2:
        return pd.Series(0, index=matrix.columns)
    full = step_down(values, n_tables, alpha=alpha, seed=seed).better
    lost = {}
    for d, name in enumerate(matrix.columns):
        without = step_down(np.delete(values, d, axis=0), n_tables, alpha=alpha, seed=seed).better
        lost[name] = int((full & ~without).sum())
    return pd.Series(lost)


def value_sentence(table: pd.DataFrame, *, top: int = 3) -> str:
    """The conclusions' sentence: the datasets most worth running and why, and those that separate no top
    contender on their own test rows, from :func:`dataset_value`'s table."""
    if table is None or table.empty:
        return ""
    n_pairs = int(table["n_top_pairs"].max())
    useful = table[table["value"] > 0]
    costed = not str(table["cost_source"].iloc[0]).startswith("unknown")
    lead = ", ".join(f"{row.dataset} ({row.top_pairs_separated} of {row.n_top_pairs} top pairs, redundancy "
                     f"{row.redundancy:.2f}" + (f", ~{row.cost_cpu_s:.0f} CPU-s)" if costed else ")")
                     for row in useful.head(top).itertuples())
    idle = table.loc[table["top_pairs_separated"] == 0, "dataset"].astype(str).tolist()
    text = (f"Which datasets are worth running — {'per CPU-hour' if costed else 'per dataset (no costs: no shapes)'}, "
            "those whose own test rows separate the most pairs of "
            f"the top contenders ({n_pairs} pairs of the strongest real classifiers, McNemar p < {PAIR_ALPHA:g}): "
            + (lead or "none separates any"))
    if idle:
        text += f"; {len(idle)} separate none of them on their own rows: {', '.join(idle[:6])}" + \
            (f" and {len(idle) - 6} more" if len(idle) > 6 else "")
    return text + (" (dataset_value.csv; costs from the shape-based cost model; on decodIRT's pools this separation "
                   "power predicts held-out strong classifiers' separations ahead of the number of items and the top-10 "
                   "spread, not by a margin its interval confirms: docs/subsets.md).")

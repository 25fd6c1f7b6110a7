"""Choosing benchmark subsets from the IRT item summaries of each dataset (Cardoso et al. 2021 §4.6, §5.4).

Every dataset carries the percentage of its test instances whose discrimination, difficulty or guessing lies above a
threshold (``pct_discrimination_gt``, ``pct_difficulty_gt``, ``pct_guessing_gt``; §4.5). A subset keeps the datasets
ranking highest on one of them, or — decodIRT's combined rule (§5.4) — half from the most discriminating and half from
the most difficult.

Rules fixed here (decodIRT leaves them implicit):

* **Size.** A cut of ``p`` % of ``N`` datasets keeps ``ceil(p·N/100)`` (at least one); decodIRT rounds, which can give
  an empty subset.
* **Ranking.** By the percentage, highest first, ties by dataset name ascending, so the input row order does not matter.
* **Combined rule.** ``ceil(n/2)`` datasets from the discrimination ranking, then filled up to ``n`` with the most
  difficult not yet chosen. decodIRT's ``splitBenchmark`` takes the union of the two top-``n/2`` lists, smaller than
  ``p`` % whenever a dataset is in both; filling keeps the size the cut promises (as the paper's 50 % subset of 60
  datasets had 30 members, Table 8).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from benchirt.errors import ConfigError, DataError
from benchirt.subsets.config import DEFAULT_CUTS, validate_cuts, validate_rule

#: Which summary column each single-parameter rule ranks by (highest percentage first).
PARAMETER_COLUMNS: dict[str, str] = {
    "discrimination": "pct_discrimination_gt",
    "difficulty": "pct_difficulty_gt",
    "guessing": "pct_guessing_gt",
}
def subset_size(n_datasets: int, cut: float) -> int:
    """Number of datasets a cut of ``cut`` % keeps out of ``n_datasets``: ``ceil(cut·N/100)``, ≥ 1; the product is
    rounded to 9 decimals first, so 70 % of 10 is 7, not 8."""
    return max(1, math.ceil(round(cut * n_datasets / 100.0, 9)))


def subset_name(rule: str, cut: float) -> str:
    """The name of a subset, e.g. ``decodirt-50`` or ``difficulty-12.5``."""
    return f"{rule}-{cut:g}"


def ranking(summaries: pd.DataFrame, column: str) -> list[str]:
    """Dataset names ordered by ``column`` (a percentage column of ``summaries`` as :func:`normalize_summaries` returns
    them), highest first, ties by name ascending."""
    frame = pd.DataFrame({"name": summaries.index.astype(str), "value": summaries[column].to_numpy()})
    frame = frame.sort_values(["value", "name"], ascending=[False, True], kind="mergesort")
    return frame["name"].tolist()


def normalize_summaries(summaries: pd.DataFrame, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Index the IRT summaries by dataset name (str) and check the percentage columns.

    ``summaries`` has one row per dataset, indexed by name or with a ``dataset`` column, and the percentage columns of
    :data:`PARAMETER_COLUMNS` (values in [0, 100]); ``columns`` are the ones that must be present (default
    discrimination and difficulty).

    Raises
    ------
    DataError
        Missing column, non-numeric, missing or out-of-range value, duplicate or empty dataset list.
    """
    columns = list(columns or (PARAMETER_COLUMNS["discrimination"], PARAMETER_COLUMNS["difficulty"]))
    frame = summaries.copy()
    if "dataset" in frame.columns:
        frame = frame.set_index("dataset")
    frame.index = frame.index.map(str)
    frame.index.name = "dataset"
    if frame.empty:
        raise DataError("the IRT summaries hold no dataset; run the IRT stage on at least one dataset first")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"the IRT summaries lack column(s) {', '.join(missing)} (found: {', '.join(map(str, frame.columns))}); "
            "they come from the IRT stage's per-dataset summary (benchirt irt / the pipeline's irt summaries)"
        )
    duplicated = frame.index[frame.index.duplicated()].unique().tolist()
    if duplicated:
        raise DataError(f"the IRT summaries list dataset(s) {', '.join(duplicated)} more than once; keep one row each")
    for column in columns:
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = frame.index[~np.isfinite(values.to_numpy(dtype=float)) | (values < 0) | (values > 100)].tolist()
        if bad:
            raise DataError(
                f"IRT summary column {column} is missing, non-numeric or outside [0, 100] for dataset(s) "
                f"{', '.join(bad)}; it must hold percentages of items"
            )
        frame[column] = values.astype(float)
    return frame


def build_subsets(
    summaries: pd.DataFrame,
    *, cuts: Iterable[float] | float = DEFAULT_CUTS,
    rule: str = "decodirt",
) -> dict[str, list[str]]:
    """Choose one dataset subset per cut (Cardoso et al. 2021 §4.6 single-parameter cuts, §5.4 combined rule).

    Parameters
    ----------
    summaries : DataFrame, one row per dataset
        Indexed by dataset name (or with a ``dataset`` column), with the percentage columns the rule needs:
        ``pct_discrimination_gt`` and ``pct_difficulty_gt`` for ``decodirt``, the one of :data:`PARAMETER_COLUMNS`
        otherwise.
    cuts : iterable of float
        Percentages of the suite to keep, each in (0, 100]; default 30, 50, 70.
    rule : {"decodirt", "discrimination", "difficulty", "guessing"}
        ``decodirt``: the combined rule (module docstring); otherwise the ``n`` datasets with the highest percentage of
        items above the parameter's threshold.

    Returns
    -------
    dict
        ``{"<rule>-<cut>": [dataset, ...]}`` in the order of ``cuts``; each list in selection order (``decodirt``: the
        discriminating part first).

    Raises
    ------
    ConfigError
        Unknown rule, cut outside (0, 100].
    DataError
        Summaries without the needed columns or with invalid values.

    Examples
    --------
    >>> import pandas as pd
    >>> summaries = pd.DataFrame({"pct_discrimination_gt": [90, 10, 50, 30],
    ...                           "pct_difficulty_gt": [5, 80, 40, 60]}, index=["d1", "d2", "d3", "d4"])
    >>> build_subsets(summaries, cuts=[50, 100])      # half: 1 most discriminating + 1 most difficult
    {'decodirt-50': ['d1', 'd2'], 'decodirt-100': ['d1', 'd3', 'd2', 'd4']}
    """
    rule = validate_rule(rule)
    cuts = validate_cuts(cuts)
    if rule == "budget":
        raise ConfigError("the budget rule reads scores and costs: choose with benchirt.subsets.budget.budget_subsets")
    if rule == "decodirt":
        needed = [PARAMETER_COLUMNS["discrimination"], PARAMETER_COLUMNS["difficulty"]]
    else:
        needed = [PARAMETER_COLUMNS[rule]]
    frame = normalize_summaries(summaries, columns=needed)
    orders = {column: ranking(frame, column) for column in needed}
    subsets: dict[str, list[str]] = {}
    for cut in cuts:
        n = subset_size(len(frame), cut)
        if rule == "decodirt":
            chosen = orders[needed[0]][: math.ceil(n / 2)]
            taken = set(chosen)
            chosen += [name for name in orders[needed[1]] if name not in taken][: n - len(chosen)]
        else:
            chosen = orders[needed[0]][:n]
        subsets[subset_name(rule, cut)] = chosen
    return subsets

"""Which datasets tell the real classifiers apart: dataset usefulness measured on the classifiers that matter.

Cardoso et al. 2020 (§4.5) rank datasets by the share of items whose discrimination (or difficulty) exceeds a threshold.
Those parameters are calibrated on every respondent, the artificial ones included, which alone can make many items of an
easy dataset look discriminating; a spread of the real classifiers' abilities is made large by one failing classifier.
So this module measures, per dataset and over the real classifiers only:

* ``pairs_separated``: the share (%) of pairs of real classifiers the test items tell apart by McNemar's exact test
  (McNemar 1947; two-sided binomial test on the items exactly one of the two got right) at p < 0.05 per pair,
  uncorrected, on the raw answers. The ranking measure (ties broken by ``ability_sd``).
* ``ability_sd`` (SD of their IRT abilities) and ``accuracy_range`` (range of their test accuracies, percentage points):
  shown, not ranked on.
* ``n_real``: how many real classifiers were measured.

The artificial respondents keep their role: they anchor the calibration and the True-Score scale."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from scipy.stats import spearmanr

from benchirt.humanize import short_name
from benchirt.irt.mcnemar import PAIR_ALPHA, mcnemar_separated

if TYPE_CHECKING:
    from benchirt.irt.stage import DatasetIRT
    from benchirt.responses.stage import ResponseResult

USEFULNESS_COLUMNS = ("dataset", "n_real", "pairs_separated", "ability_sd", "accuracy_range", "rank")


def real_classifier_spread(irts: Sequence[DatasetIRT], responses: Mapping[str, ResponseResult]) -> pd.DataFrame:
    """Per dataset, how well its test items tell the real classifiers apart (module docstring).

    Parameters
    ----------
    irts : sequence of DatasetIRT
        ``abilities`` with ``respondent, role, theta``.
    responses : mapping of dataset name to ResponseResult
        ``responses`` (0/1, respondents x test items) and ``test_accuracy``; a dataset without them is left out.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`USEFULNESS_COLUMNS`, most useful first (rank 1 = most pairs separated, then the largest ability
        spread; ties share the best rank); datasets with fewer than 2 real classifiers are left out."""
    rows = []
    for irt in irts:
        result = responses.get(irt.dataset)
        real = irt.abilities[irt.abilities["role"] == "real"]
        answers = getattr(result, "responses", None)
        if answers is None or len(real) < 2:
            continue
        names = [name for name in real["respondent"] if name in answers.index]
        matrix = answers.loc[names].to_numpy(dtype=np.int8)
        rows.append({"dataset": irt.dataset, "n_real": len(names),
                     "pairs_separated": mcnemar_share(matrix),
                     "ability_sd": float(np.std(real["theta"].astype(float), ddof=1)),
                     "accuracy_range": float(100 * np.ptp(matrix.mean(axis=1))) if len(names) >= 2 else np.nan})
    table = pd.DataFrame(rows, columns=USEFULNESS_COLUMNS[:-1])
    keys = list(zip(table["pairs_separated"].round(9), table["ability_sd"].round(9)))
    table["rank"] = [1 + sum(other > key for other in keys) for key in keys]   # ties share the best rank
    return table.sort_values(["rank", "dataset"]).reset_index(drop=True)


def mcnemar_share(answers: np.ndarray, *, alpha: float = PAIR_ALPHA, block: int = 512) -> float:
    """Share (%) of pairs of rows (respondents) whose 0/1 answers differ by McNemar's exact test at ``alpha``
    (:func:`benchirt.irt.mcnemar.mcnemar_separated`, ``block`` rows at a time); NaN for fewer than two rows."""
    answers = np.asarray(answers, dtype=np.float64)
    n = len(answers)
    if n < 2:
        return np.nan
    return float(100 * np.triu(mcnemar_separated(answers, alpha=alpha, block=block)).sum() / (n * (n - 1) / 2))


def usefulness_sentence(spread: pd.DataFrame, *, share_rankings: pd.DataFrame | None = None, top: int = 3) -> str:
    """The conclusions' sentence on the most informative datasets, measured on the real classifiers; ``share_rankings``
    (:func:`benchirt.irt.dataset_rankings`) gives the item-parameter measure, whose leaders and Spearman correlation
    with this one are named for comparison."""
    if spread.empty:
        return ""
    n_real = int(spread["n_real"].max())
    lead = spread.head(top)
    last = spread.tail(min(2, max(len(spread) - top, 0)))
    whom = (f"the {n_real} real classifiers" if spread["n_real"].nunique() == 1
            else f"the real classifiers each ran (up to {n_real} on a dataset)")
    text = (f"Most informative datasets — the ones whose test items tell {whom} apart "
            "(share of their pairs McNemar's exact test separates at p < 0.05; artificial respondents left out): "
            + ", ".join(_entry(row) for row in lead.itertuples(index=False)))
    if len(last):
        text += "; least: " + ", ".join(_entry(row) for row in last.itertuples(index=False))
    if len(spread) >= 3:
        text += (". Ordered by the spread (SD) of the real classifiers' IRT abilities instead, the datasets keep this "
                 "order with " + _rank_agreement(spread["pairs_separated"], spread["ability_sd"]))
    if share_rankings is not None and "pct_discrimination_gt" in share_rankings and len(spread) >= 3:
        share = share_rankings["pct_discrimination_gt"].astype(float).reindex(spread["dataset"])
        leaders = share.sort_values(ascending=False, kind="mergesort").head(top)
        text += ("; the share of highly discriminating items (calibrated with the artificial respondents too) "
                 "would pick " + ", ".join(f"{short_name(str(name))} ({value:.0f} %)" for name, value in leaders.items())
                 + f" ({_rank_agreement(spread['pairs_separated'], share.to_numpy())})")
    return text + "."


def _rank_agreement(x, y) -> str:
    """"Spearman r", or why there is none: a measure equal on every dataset has no ranking to compare."""
    if np.unique(np.asarray(x, dtype=float)).size < 2 or np.unique(np.asarray(y, dtype=float)).size < 2:
        return "no Spearman correlation (one measure is the same on every dataset)"
    return f"Spearman {spearmanr(x, y).statistic:.2f}"


def _entry(row) -> str:
    return f"{short_name(str(row.dataset))} ({row.pairs_separated:.0f} % of pairs, ability SD {row.ability_sd:.2f})"

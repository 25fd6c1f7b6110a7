"""Friedman and Nemenyi tests for comparing classifiers over datasets.

Default (``mode="blocks"``), after Demšar (2006): datasets are the blocks, classifiers the treatments. Within each
dataset the classifiers are ranked (1 = best, ties share the average rank); Friedman's test
(``scipy.stats.friedmanchisquare``, tie-corrected) asks whether the average ranks differ more than chance allows; the
Nemenyi post-hoc test (:func:`nemenyi_friedman_p_values`) compares every pair, two classifiers differing at level α when
their average ranks differ by more than CD = q_α · sqrt(k(k+1) / (6N)), q_α the studentized range quantile / √2.

``mode="decodirt"`` reproduces Cardoso et al. 2021 §5.3 for comparison only: Friedman's test with the Glicko-2 rating
*trajectories* as samples (periods as blocks) and the independent-samples Nemenyi test
(``scikit_posthocs.posthoc_nemenyi``). A trajectory's values are neither independent nor exchangeable, so the p-values
shrink with the number of periods whatever the data say (docs/rating.md).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
import scikit_posthocs as sp
from scipy.stats import friedmanchisquare, rankdata, studentized_range

from benchirt.errors import ConfigError, DataError
from benchirt.humanize import short_name
from benchirt.rating.config import RatingConfig
from benchirt.rating.glicko import glicko_tournament
from benchirt.rating.scores import CheckedScores, checked_scores, score_matrix

#: What each mode computes, as written into results and reports.
MODE_LABELS = {
    "blocks": "Friedman test (datasets as blocks, classifiers as treatments) + Nemenyi post-hoc for Friedman",
    "decodirt": (
        "decodIRT compatibility: Friedman test on Glicko-2 rating trajectories (periods as blocks) + "
        "independent-samples Nemenyi; the trajectories are autocorrelated, so these p-values are not valid "
        "tests of a difference between classifiers (see docs/rating.md)"
    ),
}


@dataclass(repr=False)
class StatisticalComparison:
    """Result of :func:`friedman_nemenyi`.

    Attributes
    ----------
    mode, description, score : str
        ``"blocks"`` or ``"decodirt"``; what was tested (:data:`MODE_LABELS`); the compared score.
    statistic, p_value : float
        Friedman's χ²_F and its p-value (χ² with k − 1 degrees of freedom).
    n_blocks : int
        Datasets (``blocks``) or rating periods (``decodirt``) used.
    average_ranks : pandas.Series, shape (k,)
        Mean within-block rank per classifier, 1 = best, sorted ascending.
    p_values : pandas.DataFrame, shape (k, k)
        Pairwise Nemenyi p-values (1 on the diagonal), in ``average_ranks`` order.
    critical_difference : float or None
        Nemenyi CD at ``alpha`` in average-rank units (``blocks`` only).
    alpha : float
    dropped_datasets : list of str
        Datasets left out because a compared classifier has no score there (``blocks``).
    """

    mode: str
    description: str
    statistic: float
    p_value: float
    n_blocks: int
    average_ranks: pd.Series
    p_values: pd.DataFrame
    critical_difference: float | None
    alpha: float
    dropped_datasets: list[str] = field(default_factory=list)
    score: str = "score"

    @property
    def n_classifiers(self) -> int:
        return int(self.average_ranks.size)

    def __repr__(self) -> str:
        return (f"StatisticalComparison(mode={self.mode!r}, score={self.score!r}, statistic={self.statistic:.4g}, "
                f"p_value={self.p_value:.3g}, classifiers={self.n_classifiers}, blocks={self.n_blocks})")

    def significant(self) -> pd.DataFrame:
        """Boolean k × k matrix: pairs whose Nemenyi p-value is below ``alpha``."""
        return self.p_values < self.alpha

    def to_dict(self) -> dict:
        """JSON-ready summary (the command's ``friedman.json``)."""
        return {
            "mode": self.mode,
            "description": self.description,
            "score": self.score,
            "statistic": float(self.statistic),
            "df": self.n_classifiers - 1,
            "p_value": float(self.p_value),
            "n_blocks": self.n_blocks,
            "n_classifiers": self.n_classifiers,
            "alpha": self.alpha,
            "critical_difference": self.critical_difference,
            "average_ranks": [
                {"classifier": str(name), "average_rank": float(rank)} for name, rank in self.average_ranks.items()
            ],
            "dropped_datasets": list(self.dropped_datasets),
        }

    def __str__(self) -> str:
        lines = [
            self.description,
            f"chi2_F = {self.statistic:.4g} (df {self.n_classifiers - 1}), p = {self.p_value:.3g}, "
            f"{self.n_blocks} blocks, {self.n_classifiers} classifiers"
            + (f", CD(alpha={self.alpha}) = {self.critical_difference:.3f}" if self.critical_difference else ""),
            "average ranks (1 = best):",
            self.average_ranks.round(3).rename(lambda name: short_name(str(name))).to_string(),
        ]
        return "\n".join(lines)


def critical_difference(n_classifiers: int, n_datasets: int, *, alpha: float = 0.05) -> float:
    """Nemenyi critical difference CD = q_α · sqrt(k(k+1) / (6N)) (Demšar 2006, §3.2.2), q_α the upper α quantile of the
    studentized range for k groups and infinite degrees of freedom divided by √2 (Demšar's Table 5: 2.343 for k = 3
    at α = 0.05)."""
    q_alpha = studentized_range.ppf(1.0 - alpha, n_classifiers, np.inf) / math.sqrt(2.0)
    return float(q_alpha * math.sqrt(n_classifiers * (n_classifiers + 1) / (6.0 * n_datasets)))


def friedman_nemenyi(
    scores: pd.DataFrame | CheckedScores,
    *, mode: str | None = None,
    alpha: float | None = None,
    classifiers: Sequence[str] | None = None,
    config: RatingConfig | None = None,
    order: str | os.PathLike | Sequence[str] | None = None,
) -> StatisticalComparison:
    """Friedman test and Nemenyi post-hoc comparison of classifiers (:class:`StatisticalComparison`).

    ``scores``: long table ``dataset, classifier, score`` (higher = better). ``mode`` (default ``config.stats``, module
    docstring) and ``alpha``, the level of the critical difference (default ``config.alpha``). ``classifiers``: compare
    only these (e.g. the real ones, as Cardoso et al. 2021 §5.3); in ``decodirt`` mode all still play the tournament, in
    the rating-period ``order`` given.

    Raises
    ------
    DataError
        Fewer than 3 classifiers or 2 datasets (periods), or no difference at all to test.
    ConfigError
        An unknown mode, an alpha outside (0, 1), or a compared classifier without scores.
    """
    config = config or RatingConfig()
    mode = RatingConfig.OPTIONS["stats"].check("rate", "stats", mode or config.stats)
    alpha = RatingConfig.OPTIONS["alpha"].check("rate", "alpha", config.alpha if alpha is None else alpha)
    clean = checked_scores(scores, score=config.score).table
    if classifiers is not None:
        unknown = sorted(set(classifiers) - set(clean["classifier"]))
        if unknown:
            raise ConfigError(f"classifier(s) {', '.join(unknown)} have no scores; known: "
                            f"{', '.join(sorted(clean['classifier'].unique()))}")
    if mode == "blocks":
        if classifiers is not None:
            clean = clean[clean["classifier"].isin(list(classifiers))]
        return _friedman_blocks(clean, alpha, config.score)
    return _friedman_decodirt(clean, alpha, config.score, config, order, classifiers)


def _friedman_blocks(clean: pd.DataFrame, alpha: float, score: str) -> StatisticalComparison:
    matrix = score_matrix(clean)
    _require_classifiers(matrix.shape[1])
    complete = matrix.notna().all(axis=1)
    dropped = matrix.index[~complete].tolist()
    matrix = matrix[complete]
    if matrix.shape[0] < 2:
        reason = (
            f"; {len(dropped)} dataset(s) were left out because a compared classifier has no score there "
            f"({', '.join(dropped[:5])}) — compare fewer classifiers with classifiers=..."
            if dropped else ""
        )
        raise DataError(
            "the Friedman test needs at least 2 datasets on which every compared classifier has a score; "
            f"found {matrix.shape[0]}{reason}"
        )
    statistic, p_value, p_values, ranks = _friedman_and_nemenyi_for_blocks(matrix.to_numpy(), list(matrix.columns))
    return StatisticalComparison(
        mode="blocks",
        description=MODE_LABELS["blocks"],
        statistic=statistic,
        p_value=p_value,
        n_blocks=int(matrix.shape[0]),
        average_ranks=ranks,
        p_values=p_values,
        critical_difference=critical_difference(matrix.shape[1], matrix.shape[0], alpha=alpha),
        alpha=alpha,
        dropped_datasets=dropped,
        score=score,
    )


def _friedman_and_nemenyi_for_blocks(values: np.ndarray, names: list[str]):
    """χ²_F, p, Nemenyi p-values and average ranks (1 = best) of a complete (N, k) block matrix."""
    if np.all(values == values[:, :1]):
        raise DataError(
            "all compared classifiers tie on every dataset: the Friedman test has nothing to compare"
        )
    statistic, p_value = friedmanchisquare(*values.T)
    ranks = pd.Series(rankdata(-values, axis=1, method="average").mean(axis=0), index=names, name="average_rank")
    ranks = ranks.sort_values(kind="stable")
    p_values = nemenyi_friedman_p_values(values, names).loc[ranks.index, ranks.index]
    return float(statistic), float(p_value), p_values, ranks


def nemenyi_friedman_p_values(values: np.ndarray, names: list[str]) -> pd.DataFrame:
    """Nemenyi's p-values of every pair of columns of a complete (N, k) block matrix (Demšar 2006, §3.2.2).

    p_ij = P(Q > √2 |R̄_i − R̄_j| / sqrt(k(k+1)/(6N))), Q the studentized range of k groups with infinite degrees of
    freedom, R̄ the average ranks: the numbers of ``scikit_posthocs.posthoc_nemenyi_friedman`` (tested equal). Written
    here because the library integrates that survival function once per pair; the differences of average ranks are
    multiples of 1 / (2N), so each distinct value is integrated once.
    """
    n, k = values.shape
    mean_ranks = rankdata(values, axis=1, method="average").mean(axis=0)
    upper = np.triu_indices(k, 1)
    q_values = np.abs(mean_ranks[upper[0]] - mean_ranks[upper[1]]) / np.sqrt(k * (k + 1.0) / (6.0 * n)) * np.sqrt(2.0)
    distinct, position = np.unique(q_values, return_inverse=True)
    p_values = np.ones((k, k))
    p_values[upper] = studentized_range.sf(distinct, k, np.inf)[position]
    p_values.T[upper] = p_values[upper]
    return pd.DataFrame(p_values, index=names, columns=names)


def _friedman_decodirt(clean, alpha, score, config, order, classifiers) -> StatisticalComparison:
    # As Cardoso et al. 2021 §5.3: everybody plays the tournament; only the compared classifiers' trajectories are tested.
    tournament = glicko_tournament(CheckedScores(clean), order=order, config=config)
    trajectories = tournament.rating_matrix("rating")
    if classifiers is not None:
        trajectories = trajectories[[name for name in trajectories.columns if name in set(classifiers)]]
    _require_classifiers(trajectories.shape[1])
    if trajectories.shape[0] < 2:
        raise DataError(
            f"the decodIRT-mode Friedman test needs at least 2 rating periods (datasets); found {trajectories.shape[0]}"
        )
    values = trajectories.to_numpy()
    names = list(trajectories.columns)
    if np.all(values == values[:, :1]):
        raise DataError("all rating trajectories are identical: the Friedman test has nothing to compare")
    statistic, p_value = friedmanchisquare(*values.T)
    ranks = pd.Series(rankdata(-values, axis=1, method="average").mean(axis=0), index=names, name="average_rank")
    ranks = ranks.sort_values(kind="stable")
    p_values = sp.posthoc_nemenyi([values[:, j] for j in range(values.shape[1])])
    p_values.index = p_values.columns = names
    p_values = p_values.loc[ranks.index, ranks.index]
    return StatisticalComparison(
        mode="decodirt",
        description=MODE_LABELS["decodirt"],
        statistic=float(statistic),
        p_value=float(p_value),
        n_blocks=int(values.shape[0]),
        average_ranks=ranks,
        p_values=p_values,
        critical_difference=None,
        alpha=alpha,
        dropped_datasets=[],
        score=score,
    )


def _require_classifiers(k: int) -> None:
    if k < 3:
        raise DataError(
            f"the Friedman and Nemenyi tests need at least 3 classifiers, found {k}; with two classifiers "
            "use a paired test such as the Wilcoxon signed-rank test over datasets (scipy.stats.wilcoxon)"
        )

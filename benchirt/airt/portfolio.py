"""Algorithm portfolios: airt vs Shapley-value vs topset, by cross-validated mean performance gap (Kandanaarachchi &
Smith-Miles 2023 §5.1.4).

For a portfolio S and a test instance i, the performance gap is ``b_i - b_{S,i}``: the best performance on i over all
algorithms minus the best over S (Bischl et al.'s misclassification penalty). A portfolio of n algorithms is chosen on
the training folds by each method:

* **airt** — the first n of the airt portfolio A(eps) (§4.3) of a continuous AIRT model fitted to the training folds,
  ordered by latent trait occupancy LTO(j, eps);
* **Shapley** — the n largest Shapley values (Fréchette et al. 2016) of the game ``v(S) = mean_i max_{j in S} y_ij``;
* **topset** — the n algorithms best on the most training instances, ties broken by mean performance.

Gaps are measured on the held-out fold; the mean performance gap (MPG) is the mean over folds, its standard error the SD
over folds / sqrt(number of folds) (Fig. 23, Table 6). The folds are the scenario's own (ASlib ``cv.arff``) when given,
else seeded random. A selector is any callable
``training performance (DataFrame) -> ranking (algorithm names, best first)``, so other rules plug in."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold
from benchirt.bars import tqdm

from benchirt.errors import BenchirtError, DataError

#: A portfolio rule: training performance (instances x algorithms, higher is better) -> algorithms, best first.
Selector = Callable[[pd.DataFrame], Sequence[str]]


# ----------------------------------------------------------------------------------------------------------
# the three rankings
# ----------------------------------------------------------------------------------------------------------
def shapley_values(perf: pd.DataFrame) -> pd.Series:
    """Exact Shapley values of the best-in-portfolio game ``v(S) = mean_i max_{j in S} y_ij``, ``v({}) = 0``, per
    algorithm (index = columns of ``perf``, non-negative, higher is better).

    The game averages per-instance maximum games, each a sum of "any member of the top set" games: with an instance's
    values sorted ascending ``x_(1) <= ... <= x_(k)`` and ``x_(0) = 0``,
    ``max_{j in S} x_j = sum_m (x_(m) - x_(m-1)) [S contains one of the players ranked m..k]``. Each such game splits
    its worth equally among its k - m + 1 players, so the player ranked r gets
    ``phi_(r) = sum_{m <= r} (x_(m) - x_(m-1)) / (k - m + 1)`` — exact in O(N k log k), no sampling. Tied values give
    equal shares; the values sum to v(all algorithms)."""
    values = perf.to_numpy(dtype=float)
    if values.size == 0:
        raise DataError("Shapley values need at least one instance and one algorithm")
    if (values < 0).any():
        raise DataError("Shapley values of the best-in-portfolio game need non-negative performance "
                        "(higher is better, e.g. in [0, 1])")
    n_inst, k = values.shape
    order = np.argsort(values, axis=1, kind="stable")
    ranked = np.take_along_axis(values, order, axis=1)
    steps = np.diff(np.concatenate([np.zeros((n_inst, 1)), ranked], axis=1), axis=1)
    shares = np.cumsum(steps / (k - np.arange(k))[None, :], axis=1)
    phi = np.empty_like(values)
    np.put_along_axis(phi, order, shares, axis=1)
    return pd.Series(phi.mean(axis=0), index=perf.columns, name="shapley")


def shapley_ranking(perf: pd.DataFrame) -> list[str]:
    """Algorithms by decreasing Shapley value (:func:`shapley_values`), ties by name."""
    phi = shapley_values(perf)
    return sorted(phi.index, key=lambda j: (-phi[j], str(j)))


def topset_ranking(perf: pd.DataFrame) -> list[str]:
    """Algorithms by the number of instances on which they are best (Kandanaarachchi & Smith-Miles 2023 §5.1.4 topset):
    t algorithms tied for the best count 1/t each; remaining ties by mean performance, then name. Every algorithm
    appears."""
    values = perf.to_numpy(dtype=float)
    best = values >= values.max(axis=1, keepdims=True)
    wins = (best / best.sum(axis=1, keepdims=True)).sum(axis=0)
    means = values.mean(axis=0)
    keys = {j: (-wins[i], -means[i], str(j)) for i, j in enumerate(perf.columns)}
    return sorted(perf.columns, key=keys.__getitem__)


def airt_ranking(perf: pd.DataFrame, *, epsilon: float = 0.05, extend: bool = True,
                 config=None) -> list[str]:
    """The airt portfolio A(epsilon) of a continuous AIRT model fitted to ``perf`` (Kandanaarachchi & Smith-Miles 2023
    §4.3, §5.1.4): :func:`benchirt.airt.fit_airt`'s members of A(epsilon) by decreasing latent trait occupancy, as
    ``benchirt airt`` reports them.

    Parameters
    ----------
    perf : pd.DataFrame, shape (N, k)
        Training performance in [0, 1], higher is better (N >= 5).
    epsilon : float
        The epsilon of A(epsilon) (Appendix A uses 0 and 0.05).
    extend : bool
        Let the other algorithms follow, ordered by the smallest epsilon at which they would join A(epsilon)
        (``min_delta (h_*(delta) - h_j(delta))``), so that the first n are A(epsilon_n) for the smallest epsilon_n
        admitting n. Without it only A(epsilon) is returned (the paper's limit on n).
    config : AIRTConfig, optional
        Options of the AIRT model."""
    from benchirt.airt import AIRTConfig, fit_airt

    analysis = fit_airt(perf, config=AIRTConfig() if config is None else config).latent
    ranking = list(analysis.portfolio(epsilon))
    if extend:
        curves = analysis.curves.to_numpy()
        distance = (curves.max(axis=1, keepdims=True) - curves).min(axis=0)
        rest = [j for j in perf.columns if j not in ranking]
        position = {j: i for i, j in enumerate(perf.columns)}
        ranking += sorted(rest, key=lambda j: (distance[position[j]], str(j)))
    return ranking


def airt_selector(epsilon: float = 0.05, *, extend: bool = True, config=None) -> Selector:
    """A :data:`Selector` running :func:`airt_ranking` with fixed options on each training fold."""
    def select(perf: pd.DataFrame) -> list[str]:
        return airt_ranking(perf, epsilon=epsilon, extend=extend, config=config)

    select.__name__ = f"airt(epsilon={epsilon:g})"
    return select


def default_selectors(epsilon: float = 0.05, *, config=None) -> dict[str, Selector]:
    """``{"airt": ..., "shapley": ..., "topset": ...}`` — the three portfolios of Kandanaarachchi & Smith-Miles 2023 §5.1.4."""
    return {"airt": airt_selector(epsilon, config=config), "shapley": shapley_ranking, "topset": topset_ranking}


# ----------------------------------------------------------------------------------------------------------
# gaps and cross-validation
# ----------------------------------------------------------------------------------------------------------
def performance_gap(perf: pd.DataFrame, portfolio: Sequence[str], *, maximize: bool = True) -> pd.Series:
    """Per-instance performance gap ``b_i - b_{S,i}`` (non-negative) of a portfolio S (Kandanaarachchi & Smith-Miles
    2023 §5.1.4): ``portfolio`` a non-empty subset of the columns of ``perf`` (any units); with ``maximize`` False
    (runtimes/PAR10) the gap is ``min_S - min_all``."""
    portfolio = list(portfolio)
    unknown = [j for j in portfolio if j not in perf.columns]
    if not portfolio or unknown:
        raise DataError(f"portfolio must be a non-empty subset of the algorithms; unknown: {unknown}")
    signed = perf if maximize else -perf
    return (signed.max(axis=1) - signed[portfolio].max(axis=1)).rename("gap")


@dataclass
class PortfolioComparison:
    """Cross-validated comparison of portfolio rules.

    Attributes
    ----------
    per_fold : pd.DataFrame
        One row per (fold, method, n): ``fold, method, n, gap`` (mean gap on the held-out instances, [0, 1] scale),
        ``raw_gap`` (raw units, when raw performance was given), ``n_test``.
    rankings : pd.DataFrame
        ``fold, method, rank, algorithm``: each method's ranking on each training fold.
    summary : pd.DataFrame
        One row per (method, n) reached in at least 2 folds: ``method, n, mpg, se, raw_mpg, raw_se, n_folds``; ``raw_*``
        only with raw performance.
    failures : pd.DataFrame
        ``fold, method, error``: folds on which a method could not rank; that method is left out of those folds.
    methods : list[str]"""

    per_fold: pd.DataFrame
    rankings: pd.DataFrame
    summary: pd.DataFrame
    failures: pd.DataFrame
    methods: list[str] = field(default_factory=list)

    def gap_curves(self, *, raw: bool = False) -> pd.DataFrame:
        """``summary`` in the long form of :func:`benchirt.airt.plots.plot_portfolio_gap` (Kandanaarachchi & Smith-Miles
        2023 Fig. 23): ``method, n_algorithms, mean_gap, se`` (raw units when ``raw`` and available)."""
        use_raw = raw and "raw_mpg" in self.summary.columns
        mean, se = ("raw_mpg", "raw_se") if use_raw else ("mpg", "se")
        return self.summary.rename(columns={"n": "n_algorithms", mean: "mean_gap", se: "se"})[
            ["method", "n_algorithms", "mean_gap", "se"]]

    def table(self, n: int = 5, *, raw: bool = True) -> pd.Series:
        """MPG of each method with portfolios of ``n`` algorithms (one row of Kandanaarachchi & Smith-Miles 2023 Table
        6), indexed by method: raw units when available and ``raw``, else [0, 1]. Methods that did not reach n
        algorithms in at least 2 folds are missing."""
        rows = self.summary[self.summary["n"] == n].set_index("method")
        column = "raw_mpg" if raw and "raw_mpg" in rows.columns else "mpg"
        return rows[column].reindex([m for m in self.methods if m in rows.index])


def _resolve_folds(perf: pd.DataFrame, folds, n_folds: int, seed: int) -> pd.Series:
    if folds is not None:
        folds = pd.Series(folds, index=perf.index) if not isinstance(folds, pd.Series) else folds
        folds = folds.reindex(perf.index)
        if folds.isna().any():
            missing = list(folds.index[folds.isna()][:3])
            raise DataError(f"portfolio comparison: no fold for instance(s) {missing}; give a fold for every row")
        if folds.nunique() < 2:
            raise DataError("portfolio comparison: the folds must hold at least 2 distinct values")
        return folds
    if n_folds < 2:
        raise DataError(f"portfolio comparison: n_folds must be >= 2, got {n_folds}")
    if len(perf) < n_folds:
        raise DataError(f"portfolio comparison: {len(perf)} instance(s) cannot be split into {n_folds} folds; "
                        "lower n_folds or add instances")
    labels = np.empty(len(perf), dtype=int)
    for fold, (_, test) in enumerate(KFold(n_folds, shuffle=True, random_state=seed).split(perf), start=1):
        labels[test] = fold
    return pd.Series(labels, index=perf.index, name="fold")


def compare_portfolios(perf: pd.DataFrame, *, selectors: Mapping[str, Selector] | None = None,
                       folds: pd.Series | None = None, n_folds: int = 10, max_size: int | None = None,
                       raw: pd.DataFrame | None = None, maximize: bool = True, seed: int = 0,
                       show_progress: bool = False) -> PortfolioComparison:
    """Compare portfolio rules by cross-validated mean performance gap (Kandanaarachchi & Smith-Miles 2023 §5.1.4, Fig.
    23, Table 6).

    Parameters
    ----------
    perf : pd.DataFrame, shape (N, k)
        Performance in [0, 1], higher is better (the AIRT input).
    selectors : mapping name -> Selector, optional
        Default :func:`default_selectors` (airt with epsilon = 0.05, Shapley, topset).
    folds : pd.Series, optional
        Fold label per instance (aligned with ``perf``), e.g. ``ASlibScenario.folds``; default ``n_folds`` seeded random
        folds.
    max_size : int, optional
        Largest portfolio size n (default k, the number of algorithms).
    raw, maximize : pd.DataFrame, bool
        The same matrix in raw units and its direction (e.g. ``ASlibScenario.raw_performance``), to report gaps in
        seconds/PAR10 as Table 6 does.
    seed : int
        Seed of the random folds.

    Returns
    -------
    PortfolioComparison"""
    from benchirt.airt.aslib import check_performance

    perf = check_performance(perf, where="portfolio comparison")
    raw = None if raw is None else _aligned_raw(raw, perf)
    selectors = default_selectors() if selectors is None else dict(selectors)
    if not selectors:
        raise DataError("portfolio comparison: no selector given")
    k = perf.shape[1]
    max_size = k if max_size is None else int(max_size)
    if not 1 <= max_size <= k:
        raise DataError(f"portfolio comparison: max_size must lie in 1..{k}, got {max_size}")
    fold_labels = _resolve_folds(perf, None if folds is None else folds.rename(index=str), n_folds, seed)

    gap_rows, rank_rows, failure_rows = [], [], []
    for fold in tqdm(sorted(fold_labels.unique()), desc="portfolio folds", disable=not show_progress):
        gaps, ranks, failed = _fold_rows(fold, (fold_labels == fold).to_numpy(), perf, raw, selectors, max_size,
                                         maximize)
        gap_rows += gaps
        rank_rows += ranks
        failure_rows += failed

    per_fold = pd.DataFrame(gap_rows, columns=["fold", "method", "n", "gap", "raw_gap", "n_test"])
    rankings = pd.DataFrame(rank_rows, columns=["fold", "method", "rank", "algorithm"])
    failures = pd.DataFrame(failure_rows, columns=["fold", "method", "error"])
    summary = _gap_summary(per_fold, list(selectors))
    if raw is None:
        summary = summary.drop(columns=["raw_mpg", "raw_se"])
        per_fold = per_fold.drop(columns="raw_gap")
    return PortfolioComparison(per_fold=per_fold, rankings=rankings, summary=summary,
                               failures=failures, methods=list(selectors))


def _aligned_raw(raw: pd.DataFrame, perf: pd.DataFrame) -> pd.DataFrame:
    """``raw`` with text labels, in ``perf``'s instance and algorithm order; refused unless it has the same ones."""
    raw = raw.copy()
    raw.index, raw.columns = raw.index.map(str), raw.columns.map(str)
    if set(raw.columns) != set(perf.columns) or not raw.index.isin(perf.index).all() \
            or len(raw) != len(perf):
        raise DataError("portfolio comparison: raw performance must have the same instances and algorithms "
                        "as perf")
    return raw.loc[perf.index, perf.columns]


def _fold_rows(fold, test_mask: np.ndarray, perf: pd.DataFrame, raw: pd.DataFrame | None,
               selectors: Mapping[str, Selector], max_size: int, maximize: bool) -> tuple[list, list, list]:
    """One fold: each selector ranks the algorithms on the other folds and the gap of its top-n portfolio (n =
    1..``max_size``) is measured on this one. Returns the gap rows, the ranking rows and the selectors that failed
    (with their error)."""
    train, test = perf[~test_mask], perf[test_mask]
    test_raw = None if raw is None else raw[test_mask]
    gap_rows, rank_rows, failure_rows = [], [], []
    for method, select in selectors.items():
        try:
            ranking = [str(j) for j in select(train)]
        except BenchirtError as exc:
            failure_rows.append((fold, method, str(exc)))
            continue
        unknown = [j for j in ranking if j not in perf.columns]
        if unknown or len(set(ranking)) != len(ranking):
            raise DataError(f"portfolio selector {method!r} returned unknown or repeated algorithms "
                            f"{unknown or ranking}")
        rank_rows += [(fold, method, r, j) for r, j in enumerate(ranking, start=1)]
        for n in range(1, min(max_size, len(ranking)) + 1):
            members = ranking[:n]
            gap = float(performance_gap(test, members).mean())
            raw_gap = (float(performance_gap(test_raw, members, maximize=maximize).mean())
                       if test_raw is not None else np.nan)
            gap_rows.append((fold, method, n, gap, raw_gap, int(test_mask.sum())))
    return gap_rows, rank_rows, failure_rows


def _gap_summary(per_fold: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """Mean gap and its standard error over folds per (method, n), for those seen on ≥ 2 folds, in ``methods``' order."""
    grouped = per_fold.groupby(["method", "n"], sort=False)
    summary = grouped.agg(mpg=("gap", "mean"), sd=("gap", "std"), raw_mpg=("raw_gap", "mean"),
                          raw_sd=("raw_gap", "std"), n_folds=("fold", "nunique")).reset_index()
    summary = summary[summary["n_folds"] >= 2].copy()
    root = np.sqrt(summary["n_folds"])
    summary["se"] = summary.pop("sd") / root
    summary["raw_se"] = summary.pop("raw_sd") / root
    summary = summary[["method", "n", "mpg", "se", "raw_mpg", "raw_se", "n_folds"]]
    order = {m: i for i, m in enumerate(methods)}
    summary = summary.sort_values(["method", "n"], key=lambda s: s.map(order) if s.name == "method" else s)
    return summary.reset_index(drop=True)

"""Latent trait analysis: performance against dataset difficulty (Kandanaarachchi & Smith-Miles 2023 §4.1-4.3, Algorithm
1 stage 3).

For every algorithm j a cubic smoothing spline h_j(delta) is fitted to the points (delta_i, y_ij), minimising
``sum_i (y_ij - h_j(delta_i))^2 + lambda * integral h_j''(t)^2 dt`` (§4.1), by
``scipy.interpolate.make_smoothing_spline``. Where the paper picks lambda by a closed-form leave-one-out criterion,
lambda is picked here per algorithm by generalised cross-validation (its rotation-invariant form, R's ``smooth.spline``
default) among curves of at most 10 effective degrees of freedom, as flexible as the curves of the R package airt
(:func:`_gcv_lam`), unless fixed. Many distinct difficulties are binned (:func:`_spline_points`). Curves are clipped to
the range of the observed performances (a spline can overshoot a bounded scale).

Strengths and weaknesses (§4.2), with h_*(delta) = max_j h_j(delta) and h_#(delta) = min_j h_j(delta):

    strengths(j, eps)  = {delta : |h_j(delta) - h_*(delta)| <= eps}
    weaknesses(j, eps) = {delta : |h_j(delta) - h_#(delta)| <= eps}

Latent trait occupancy LTO(j, eps) = |{i : delta_i in strengths(j, eps)}| / N (§4.2); the weakness occupancy is its
counterpart. The airt portfolio A(eps) = {j : strengths(j, eps) != empty} (§4.3)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.interpolate import make_smoothing_spline

from benchirt.errors import DataError

#: make_smoothing_spline needs at least this many distinct abscissas.
MIN_DISTINCT_DIFFICULTIES = 5
#: Curves within this distance count as tied (spline evaluation rounding), on top of epsilon.
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class LatentTraitAnalysis:
    """Latent trait curves of a portfolio and what follows from them: ``performance`` (N, n), y_ij on [0, 1], higher is
    better, index datasets, columns algorithms; ``difficulty`` (N,), delta_i on the same index; ``grid`` (M,),
    increasing difficulties from the easiest to the hardest dataset (an even grid plus every delta_i); ``curves`` (M,
    n), h_j on ``grid`` (index named ``difficulty``); ``fitted`` (N, n), h_j(delta_i); ``lam`` (n,), every
    algorithm's smoothing parameter (GCV unless fixed; NaN for a constant one)."""

    performance: pd.DataFrame
    difficulty: pd.Series
    grid: np.ndarray
    curves: pd.DataFrame
    fitted: pd.DataFrame
    lam: pd.Series

    @property
    def algorithms(self) -> list[str]:
        return list(self.performance.columns)

    def strengths(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Boolean (M, n) frame: delta on the grid lies in strengths(j, epsilon)."""
        values = self.curves.to_numpy()
        mask = values >= values.max(axis=1, keepdims=True) - epsilon - TIE_TOLERANCE
        return pd.DataFrame(mask, index=self.curves.index, columns=self.curves.columns)

    def weaknesses(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Boolean (M, n) frame: delta on the grid lies in weaknesses(j, epsilon)."""
        values = self.curves.to_numpy()
        mask = values <= values.min(axis=1, keepdims=True) + epsilon + TIE_TOLERANCE
        return pd.DataFrame(mask, index=self.curves.index, columns=self.curves.columns)

    def occupancy(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Latent trait occupancy LTO(j, epsilon) and its weakness counterpart at the datasets: columns
        ``algorithm, lto_strength, lto_weakness``, each in [0, 1]. With epsilon = 0 and no exactly tied curves the
        strength column sums to 1; with epsilon > 0 it may exceed 1."""
        values = self.fitted.to_numpy()
        strong = values >= values.max(axis=1, keepdims=True) - epsilon - TIE_TOLERANCE
        weak = values <= values.min(axis=1, keepdims=True) + epsilon + TIE_TOLERANCE
        return pd.DataFrame({"algorithm": self.algorithms,
                             "lto_strength": strong.mean(axis=0), "lto_weakness": weak.mean(axis=0)})

    def intervals(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Contiguous difficulty ranges of every strength and weakness on the grid: columns ``epsilon, kind``
        ("strength" | "weakness"), ``algorithm, start, end`` (first and last grid point of the run); by kind, then
        algorithm (column order), then start."""
        rows = []
        for kind, mask in (("strength", self.strengths(epsilon)), ("weakness", self.weaknesses(epsilon))):
            for algorithm in mask.columns:
                on = mask[algorithm].to_numpy()
                edges = np.diff(np.concatenate([[0], on.astype(np.int8), [0]]))
                for first, stop in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
                    rows.append((float(epsilon), kind, algorithm, float(self.grid[first]), float(self.grid[stop - 1])))
        return pd.DataFrame(rows, columns=["epsilon", "kind", "algorithm", "start", "end"])

    def portfolio(self, epsilon: float = 0.0) -> list[str]:
        """The airt portfolio A(epsilon) = {j : strengths(j, epsilon) non-empty} (Kandanaarachchi & Smith-Miles 2023
        §4.3): its algorithms by decreasing LTO(j, epsilon), then by the share of the grid they are strong on, then
        by name; the first n form the airt portfolio of size n."""
        strong = self.strengths(epsilon)
        members = strong.columns[strong.any(axis=0).to_numpy()]
        lto = self.occupancy(epsilon).set_index("algorithm")["lto_strength"]
        share = strong.mean(axis=0)
        order = sorted(members, key=lambda j: (-lto[j], -share[j], j))
        return list(order)

    def portfolio_table(self, epsilons) -> pd.DataFrame:
        """A(epsilon) for several epsilons: columns ``epsilon, rank, algorithm, lto`` (rank 1 = largest LTO)."""
        rows = []
        for eps in epsilons:
            lto = self.occupancy(eps).set_index("algorithm")["lto_strength"]
            rows += [(float(eps), rank, j, float(lto[j])) for rank, j in enumerate(self.portfolio(eps), start=1)]
        return pd.DataFrame(rows, columns=["epsilon", "rank", "algorithm", "lto"])

    def curves_long(self) -> pd.DataFrame:
        """``curves`` in long form: columns ``difficulty, algorithm, performance``."""
        long = self.curves.rename_axis("difficulty").reset_index().melt(
            id_vars="difficulty", var_name="algorithm", value_name="performance")
        return long


def _spline_points(delta: np.ndarray, y: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points a spline is fitted to, ``(x (K,) strictly increasing, means (K, n), weights (K,))``: distinct
    difficulties, or ``max_points`` equal-width bins beyond that.

    Datasets with equal difficulty, or in one bin, become one point at their mean difficulty and mean performance,
    weighted by their number: the weighted residual sum of squares then differs from the one over the datasets only by
    the within-group sum of squares. Binning follows the practice the paper cites (§4.6) and bounds the hat matrix
    :func:`_gcv_lam` builds."""
    keys = np.round(delta, 10)
    if np.unique(keys).size > max_points:
        width = np.ptp(delta) / max_points
        keys = np.minimum(np.floor((delta - delta.min()) / width), max_points - 1)
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    x = np.bincount(inverse, weights=delta) / counts
    sums = np.zeros((counts.size, y.shape[1]))
    np.add.at(sums, inverse, y)
    return x, sums / counts[:, None], counts.astype(float)


def _gcv_lam(x: np.ndarray, means: np.ndarray, weights: np.ndarray, max_df: float) -> np.ndarray:
    """Per-column smoothing parameter minimising the generalised cross-validation score over a log grid.

    The criterion of R's ``smooth.spline`` on its K distinct points, weights w normalised to mean 1 and H(lambda) the
    hat matrix of the weighted fit:

        GCV(lambda) = (sum_k w_k (y_k - h(x_k))^2 / K) / (1 - tr H(lambda) / K)^2        (Wahba 1990).

    Candidates have at most ``max_df`` effective degrees of freedom (tr H), as the R package airt draws its curves with
    mgcv's spline of 10 basis functions; without that limit GCV chases the 0/1 pattern of timeouts. Lambdas whose
    computed tr H falls below 2 are numerically broken and skipped. Counting distinct points, not datasets, keeps
    identical results from looking like agreeing replicates that drive GCV to interpolation. H does not depend on y, so
    its trace is computed once per lambda by smoothing the identity; all columns are fitted in one banded solve (scipy's
    own GCV search is far slower). The grid spans ``K * range(x)^3 * 10^[-10, 2]`` in steps of 10^0.25; without any
    lambda within ``max_df`` the smoothest well-posed one is returned."""
    k = x.size
    w = weights * k / weights.sum()
    identity = np.eye(k)
    best_lam = np.full(means.shape[1], np.nan)
    best_score = np.full(means.shape[1], np.inf)
    smoothest_lam, smoothest_df = np.nan, np.inf
    for lam in k * np.ptp(x) ** 3 * np.logspace(-10, 2, 49):
        try:  # one banded solve smooths the identity (the hat matrix's columns) and the data together
            smoothed = make_smoothing_spline(x, np.hstack([identity, means]), w=w, lam=lam)(x)
            df, fits = np.trace(smoothed[:, :k]), smoothed[:, k:]
        except (ValueError, np.linalg.LinAlgError):
            continue
        if df >= k - 1e-6 or df < 2.0 - 1e-3:
            continue
        if df < smoothest_df:
            smoothest_lam, smoothest_df = lam, df
        if df > max_df:
            continue
        score = (w[:, None] * (means - fits) ** 2).sum(axis=0) / k / (1.0 - df / k) ** 2
        better = score < best_score
        best_lam[better], best_score[better] = lam, score[better]
    # no lambda within max_df on the grid: the smoothest well-posed one
    best_lam[np.isnan(best_lam)] = smoothest_lam
    return best_lam


def _group_curves(delta: np.ndarray, y: np.ndarray, names: pd.Index, *, lam: float | None, max_points: int,
                  max_df: float) -> list[tuple[Any, float]]:
    """The curve and smoothing parameter of every algorithm of a group observed on the same datasets (``delta`` (K,),
    ``y`` (K, m)): a smoothing spline and its lambda, or for a constant algorithm its constant (a float) and NaN."""
    x, means, weights = _spline_points(delta, y, max_points)
    if x.size < MIN_DISTINCT_DIFFICULTIES:
        shown = ", ".join(map(str, names[:5])) + (" …" if len(names) > 5 else "")
        raise DataError(f"latent trait analysis: only {x.size} distinct dataset difficulties among the datasets of "
                        f"{shown}; smoothing splines need at least {MIN_DISTINCT_DIFFICULTIES} (add datasets that "
                        "the algorithms rank differently)")
    lams = np.full(y.shape[1], lam, dtype=float) if lam is not None else _gcv_lam(x, means, weights, max_df)
    out: list[tuple[Any, float]] = []
    for j, algorithm in enumerate(names):
        if np.ptp(y[:, j]) == 0:
            out.append((float(y[0, j]), np.nan))
            continue
        if not np.isfinite(lams[j]):
            raise DataError(f"latent trait curve of algorithm {algorithm!r}: no smoothing parameter gave a "
                            "well-posed spline; set a fixed one (AIRT option spline_lam, e.g. 1.0)")
        out.append((make_smoothing_spline(x, means[:, j], w=weights, lam=lams[j]), float(lams[j])))
    return out


def latent_trait_analysis(performance: pd.DataFrame, difficulty: pd.Series | np.ndarray, *,
                          lam: float | None = None, grid_size: int = 500, max_points: int = 100,
                          max_df: float = 10.0) -> LatentTraitAnalysis:
    """Fit the latent trait curves h_j(delta) of every algorithm (Kandanaarachchi & Smith-Miles 2023 §4.1, Algorithm 1
    step 8), for any AIRT model that yields a dataset difficulty.

    Parameters
    ----------
    performance : pd.DataFrame, shape (N, n)
        y_ij on a common scale (higher is better); index datasets, columns algorithms. A missing cell (NaN) is left out
        of that algorithm's curve, which is fitted to the datasets it ran on and evaluated at every difficulty
        (extrapolated beyond their range).
    difficulty : pd.Series or array, shape (N,)
        delta_i in the row order of ``performance`` (a Series is aligned on the index).
    lam : float, optional
        Fixed smoothing parameter; ``None`` = chosen per algorithm by GCV (:func:`_gcv_lam`).
    grid_size : int
        Evenly spaced difficulties between the easiest and the hardest dataset (every delta_i is added).
    max_points : int
        With more distinct difficulties, the splines are fitted to this many bins (:func:`_spline_points`); still
        evaluated at every delta_i.
    max_df : float
        Most effective degrees of freedom a GCV-chosen curve may use.

    Notes
    -----
    The curves are clipped to the range of the observed performances; curves closer than :data:`TIE_TOLERANCE` count as
    tied.

    Raises
    ------
    DataError
        When fewer than 5 distinct difficulties exist (a smoothing spline needs 5), or on a length mismatch."""
    if isinstance(difficulty, pd.Series):
        delta = difficulty.reindex(performance.index).to_numpy(dtype=float)
    else:
        delta = np.asarray(difficulty, dtype=float)
    if delta.shape != (performance.shape[0],) or not np.isfinite(delta).all():
        raise DataError(f"latent trait analysis: need one finite difficulty per dataset ({performance.shape[0]}), "
                        f"got shape {delta.shape}")
    y = performance.to_numpy(dtype=float)
    grid = np.union1d(np.linspace(delta.min(), delta.max(), grid_size), delta)
    low, high = np.nanmin(y), np.nanmax(y)  # a spline may overshoot a bounded scale (e.g. above accuracy 1)
    curves = np.empty((grid.size, y.shape[1]))
    fitted = np.empty_like(y)
    lams = np.empty(y.shape[1])
    # algorithms observed on the same datasets share their spline points (a complete matrix: one group)
    patterns, group = np.unique(~np.isnan(y).T, axis=0, return_inverse=True)
    for k, rows in enumerate(patterns):
        cols = np.flatnonzero(group.ravel() == k)
        for j, (curve, lam_j) in zip(cols, _group_curves(delta[rows], y[np.ix_(rows, cols)], performance.columns[cols],
                                                         lam=lam, max_points=max_points, max_df=max_df)):
            lams[j] = lam_j
            if isinstance(curve, float):  # a constant algorithm: its curve is that constant
                curves[:, j], fitted[:, j] = curve, curve
            else:
                curves[:, j] = np.clip(curve(grid), low, high)
                fitted[:, j] = np.clip(curve(delta), low, high)
    columns = performance.columns
    return LatentTraitAnalysis(
        performance=performance,
        difficulty=pd.Series(delta, index=performance.index, name="difficulty"),
        grid=grid,
        curves=pd.DataFrame(curves, index=pd.Index(grid, name="difficulty"), columns=columns),
        fitted=pd.DataFrame(fitted, index=performance.index, columns=columns),
        lam=pd.Series(lams, index=performance.columns, name="lam"),
    )

"""Latent trait analysis: performance against dataset difficulty (seed 000 §4.1-4.3, Algorithm 1 stage 3).

For every algorithm j a cubic smoothing spline h_j(delta) is fitted to the points (delta_i, y_ij), minimising
``sum_i (y_ij - h_j(delta_i))^2 + lambda * integral h_j''(t)^2 dt`` (§4.1). The paper picks lambda by a
closed-form leave-one-out criterion; here ``scipy.interpolate.make_smoothing_spline`` picks it by generalised
cross-validation (GCV, the rotation-invariant version of the same leave-one-out criterion and R's
``smooth.spline`` default), one lambda per algorithm, unless a fixed lambda is given.

Strengths and weaknesses (§4.2), with h_*(delta) = max_j h_j(delta) and h_#(delta) = min_j h_j(delta):

    strengths(j, eps)  = {delta : |h_j(delta) - h_*(delta)| <= eps}
    weaknesses(j, eps) = {delta : |h_j(delta) - h_#(delta)| <= eps}

Latent trait occupancy LTO(j, eps) = |{i : delta_i in strengths(j, eps)}| / N: the share of datasets lying in
the strengths of j (§4.2); the weakness occupancy is its counterpart for the weaknesses. The airt portfolio
A(eps) = {j : strengths(j, eps) != empty} (§4.3).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.interpolate import make_smoothing_spline

from benchirt.errors import DataError

#: make_smoothing_spline needs at least this many distinct abscissas.
MIN_DISTINCT_DIFFICULTIES = 5


@dataclass(frozen=True)
class LatentTraitAnalysis:
    """Latent trait curves of a portfolio and what follows from them.

    Attributes
    ----------
    performance : pd.DataFrame, shape (N, n)
        y_ij, higher is better, on [0, 1]; index datasets, columns algorithms.
    difficulty : pd.Series, shape (N,)
        delta_i, same index as ``performance``.
    grid : np.ndarray, shape (M,)
        Increasing difficulties from the easiest to the hardest dataset (an even grid plus every delta_i).
    curves : pd.DataFrame, shape (M, n)
        h_j on ``grid`` (index ``grid``, name ``difficulty``).
    fitted : pd.DataFrame, shape (N, n)
        h_j(delta_i), same index as ``performance``.
    lam : float or None
        The fixed smoothing parameter, or ``None`` when GCV chose one per algorithm.
    """

    performance: pd.DataFrame
    difficulty: pd.Series
    grid: np.ndarray
    curves: pd.DataFrame
    fitted: pd.DataFrame
    lam: float | None

    @property
    def algorithms(self) -> list[str]:
        return list(self.performance.columns)

    def strengths(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Boolean (M, n) frame: delta on the grid lies in strengths(j, epsilon)."""
        values = self.curves.to_numpy()
        mask = values >= values.max(axis=1, keepdims=True) - epsilon
        return pd.DataFrame(mask, index=self.curves.index, columns=self.curves.columns)

    def weaknesses(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Boolean (M, n) frame: delta on the grid lies in weaknesses(j, epsilon)."""
        values = self.curves.to_numpy()
        mask = values <= values.min(axis=1, keepdims=True) + epsilon
        return pd.DataFrame(mask, index=self.curves.index, columns=self.curves.columns)

    def occupancy(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Latent trait occupancy LTO(j, epsilon) and its weakness counterpart, evaluated at the datasets.

        Returns
        -------
        pd.DataFrame, n rows
            Columns ``algorithm, lto_strength, lto_weakness``; each in [0, 1]. With epsilon = 0 and no
            exactly tied curves the strength column sums to 1; with epsilon > 0 it may exceed 1.
        """
        values = self.fitted.to_numpy()
        strong = values >= values.max(axis=1, keepdims=True) - epsilon
        weak = values <= values.min(axis=1, keepdims=True) + epsilon
        return pd.DataFrame({"algorithm": self.algorithms,
                             "lto_strength": strong.mean(axis=0), "lto_weakness": weak.mean(axis=0)})

    def intervals(self, epsilon: float = 0.0) -> pd.DataFrame:
        """Contiguous difficulty ranges of every strength and weakness on the grid.

        Returns
        -------
        pd.DataFrame
            Columns ``epsilon, kind`` ("strength" | "weakness"), ``algorithm, start, end`` (difficulties of
            the first and last grid points of the run), sorted by kind, algorithm, start.
        """
        rows = []
        for kind, mask in (("strength", self.strengths(epsilon)), ("weakness", self.weaknesses(epsilon))):
            for algorithm in mask.columns:
                on = mask[algorithm].to_numpy()
                edges = np.diff(np.concatenate([[0], on.astype(np.int8), [0]]))
                for first, stop in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
                    rows.append((float(epsilon), kind, algorithm, float(self.grid[first]), float(self.grid[stop - 1])))
        return pd.DataFrame(rows, columns=["epsilon", "kind", "algorithm", "start", "end"])

    def portfolio(self, epsilon: float = 0.0) -> list[str]:
        """The airt portfolio A(epsilon) = {j : strengths(j, epsilon) non-empty} (seed 000 §4.3).

        Returns
        -------
        list of str
            Its algorithms ordered by decreasing LTO(j, epsilon), then by the share of the grid they are
            strong on, then by name; the first n form the airt portfolio of size n.
        """
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


def _fit_spline(x: np.ndarray, y: np.ndarray, w: np.ndarray, lam: float | None, algorithm: str):
    try:
        return make_smoothing_spline(x, y, w=w, lam=lam)
    except (ValueError, np.linalg.LinAlgError) as exc:
        raise DataError(f"latent trait curve of algorithm {algorithm!r}: the smoothing spline could not be fitted "
                        f"({exc}); set a fixed smoothing parameter (AIRT option spline_lam, e.g. 1.0)") from None


def latent_trait_analysis(performance: pd.DataFrame, difficulty: pd.Series | np.ndarray, *,
                          lam: float | None = None, grid_size: int = 500) -> LatentTraitAnalysis:
    """Fit the latent trait curves h_j(delta) of every algorithm (seed 000 §4.1, Algorithm 1 step 8).

    Works for any AIRT model that yields a dataset difficulty (continuous or polytomous).

    Parameters
    ----------
    performance : pd.DataFrame, shape (N, n)
        y_ij on a common scale (higher is better); index datasets, columns algorithms.
    difficulty : pd.Series or array, shape (N,)
        delta_i in the row order of ``performance`` (a Series is aligned on the index).
    lam : float, optional
        Fixed smoothing parameter; ``None`` = GCV per algorithm.
    grid_size : int
        Number of evenly spaced difficulties between the easiest and the hardest dataset (every delta_i is
        added to them).

    Returns
    -------
    LatentTraitAnalysis

    Raises
    ------
    DataError
        When fewer than 5 distinct difficulties exist (a smoothing spline needs 5), or on a length mismatch.
    """
    if isinstance(difficulty, pd.Series):
        delta = difficulty.reindex(performance.index).to_numpy(dtype=float)
    else:
        delta = np.asarray(difficulty, dtype=float)
    if delta.shape != (performance.shape[0],) or not np.isfinite(delta).all():
        raise DataError(f"latent trait analysis: need one finite difficulty per dataset ({performance.shape[0]}), "
                        f"got shape {delta.shape}")
    y = performance.to_numpy(dtype=float)
    # datasets with equal difficulty (e.g. identical rows) become one point weighted by their number
    keys, inverse, counts = np.unique(np.round(delta, 10), return_inverse=True, return_counts=True)
    if keys.size < MIN_DISTINCT_DIFFICULTIES:
        raise DataError(f"latent trait analysis: only {keys.size} distinct dataset difficulties; smoothing splines "
                        f"need at least {MIN_DISTINCT_DIFFICULTIES} (add datasets that the algorithms rank differently)")
    sums = np.zeros((keys.size, y.shape[1]))
    np.add.at(sums, inverse, y)
    means = sums / counts[:, None]
    weights = counts.astype(float)

    grid = np.union1d(np.linspace(keys[0], keys[-1], grid_size), keys)
    curves = np.empty((grid.size, y.shape[1]))
    fitted = np.empty_like(y)
    for j, algorithm in enumerate(performance.columns):
        spline = _fit_spline(keys, means[:, j], weights, lam, str(algorithm))
        curves[:, j] = spline(grid)
        fitted[:, j] = spline(keys)[inverse]
    columns = performance.columns
    return LatentTraitAnalysis(
        performance=performance,
        difficulty=pd.Series(delta, index=performance.index, name="difficulty"),
        grid=grid,
        curves=pd.DataFrame(curves, index=pd.Index(grid, name="difficulty"), columns=columns),
        fitted=pd.DataFrame(fitted, index=performance.index, columns=columns),
        lam=lam,
    )

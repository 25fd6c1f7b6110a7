"""AIRT model goodness: residual CDFs, MSE, AUCDF, effectiveness curves, AUAEC, AUPEC (Kandanaarachchi & Smith-Miles
2023 §4.4-4.5).

Both the continuous model (performances on [0, 1]) and the polytomous one (categories 0..C-1, appendix A; the airt
vignette, Kandanaarachchi 2023) are covered; the model only provides the predicted response x_hat_ij, the most likely
result at the fitted dataset trait theta_i.

Continuous (``levels=None``), with e_ij = x_ij - x_hat_ij on the [0, 1] scale:

* scaled absolute residual rho_ij = |e_ij| (c = 1: the scale has unit range); MSE_j = mean_i e_ij^2;
* residual CDF F_j(rho) = P(rho_j <= rho) (eq. 12) and AUCDF_j = integral_0^1 F_j = 1 - mean_i rho_ij (the exact area of
  the step CDF; airt's trapezoid on 100 points approximates it);
* actual effectiveness curve Fbar_j(l) = P(t_j <= l) with t_ij = 1 - x_ij, the distance to the top of the scale (§4.5),
  AUAEC_j = mean_i x_ij; predicted effectiveness uses x_hat, AUPEC_j = mean_i x_hat_ij. The top of the scale (1) is used
  rather than the per-algorithm maximum, as in Table 3 and airt's ``algo_effectiveness_crm``.

Polytomous (``levels=C``), categories coded 0..C-1, step Delta = 1/(C-1):

* e_ij in category steps, MSE_j = mean e_ij^2 (appendix A: one level apart counts 1);
* rho_ij = |e_ij| / (C-1); the residual CDF at rho = k Delta, k = 0..C-1, and AUCDF by the trapezoid rule over those C
  points (as the airt vignette computes it);
* effectiveness curve through the points (k Delta, P(x_ij >= C-1-k)), k = 0..C-1 (§4.5), AUAEC and AUPEC by the
  trapezoid rule."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.integrate import trapezoid

from benchirt.errors import DataError

GOODNESS_COLUMNS = ("algorithm", "mse", "aucdf", "auaec", "aupec", "effectiveness_gap")


@dataclass(frozen=True)
class ModelGoodness:
    """Goodness of an AIRT model, per algorithm.

    Attributes
    ----------
    table : pd.DataFrame, n rows
        Columns :data:`GOODNESS_COLUMNS`; ``effectiveness_gap = |AUAEC - AUPEC|``.
    residual_cdf : pd.DataFrame, shape (K, n)
        F_j(rho) on the grid of rho values (index ``rho``).
    actual_effectiveness, predicted_effectiveness : pd.DataFrame, shape (K, n)
        Fbar_j(l) on the grid of tolerances (index ``tolerance``).
    residuals : pd.DataFrame, shape (N, n)
        e_ij = x_ij - x_hat_ij (NaN where x_ij is missing).
    """

    table: pd.DataFrame
    residual_cdf: pd.DataFrame
    actual_effectiveness: pd.DataFrame
    predicted_effectiveness: pd.DataFrame
    residuals: pd.DataFrame


def _step_cdf(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """P(v <= g) per column for every grid value g, over the column's observed (non-NaN) values: shape (len(grid), n)."""
    ordered = np.sort(values, axis=0)  # NaN sorts last, above every grid value
    counts = (~np.isnan(values)).sum(axis=0) if np.isnan(values).any() else values.shape[0]
    return np.stack([np.searchsorted(ordered[:, j], grid, side="right") for j in range(values.shape[1])],
                    axis=1) / counts


def _column_mean(values: np.ndarray) -> np.ndarray:
    """Mean of every column over its observed (non-NaN) cells."""
    return np.nanmean(values, axis=0) if np.isnan(values).any() else values.mean(axis=0)


@dataclass(frozen=True)
class _Curves:
    """The curves on their grid (one column per algorithm) and their areas."""

    grid: np.ndarray
    residual_cdf: np.ndarray
    actual_eff: np.ndarray
    predicted_eff: np.ndarray
    aucdf: np.ndarray
    auaec: np.ndarray
    aupec: np.ndarray


def _continuous_curves(x: np.ndarray, x_hat: np.ndarray, grid_size: int) -> _Curves:
    """The continuous model's curves on ``grid_size`` points of [0, 1], their areas exact (the means: §4.4)."""
    if np.nanmin(x) < 0 or np.nanmax(x) > 1 or np.nanmin(x_hat) < 0 or np.nanmax(x_hat) > 1:
        raise DataError("model goodness: continuous responses must lie in [0, 1]")
    rho = np.abs(x - x_hat)
    grid = np.linspace(0.0, 1.0, grid_size)
    return _Curves(grid=grid, residual_cdf=_step_cdf(rho, grid), actual_eff=_step_cdf(1.0 - x, grid),
                   predicted_eff=_step_cdf(1.0 - x_hat, grid), aucdf=1.0 - _column_mean(rho),
                   auaec=_column_mean(x), aupec=_column_mean(x_hat))


def _polytomous_curves(x: np.ndarray, x_hat: np.ndarray, levels: int) -> _Curves:
    """A polytomous model's curves at the ``levels`` category steps scaled to [0, 1], their areas by the trapezoid rule."""
    if int(levels) != levels or levels < 2:
        raise DataError(f"model goodness: levels must be an integer >= 2, got {levels!r}")
    top = levels - 1
    for name, codes in (("actual", x), ("predicted", x_hat)):
        if not (np.all(codes == np.round(codes)) and codes.min() >= 0 and codes.max() <= top):
            raise DataError(f"model goodness: {name} responses must be category codes 0..{top}")
    steps = np.arange(levels).astype(float)
    grid = steps / top
    cdf = _step_cdf(np.abs(x - x_hat), steps)
    # point k of the effectiveness curve: P(x >= C-1-k) = P(C-1-x <= k)
    actual_eff = _step_cdf(top - x, steps)
    predicted_eff = _step_cdf(top - x_hat, steps)
    return _Curves(grid=grid, residual_cdf=cdf, actual_eff=actual_eff, predicted_eff=predicted_eff,
                   aucdf=trapezoid(cdf, grid, axis=0), auaec=trapezoid(actual_eff, grid, axis=0),
                   aupec=trapezoid(predicted_eff, grid, axis=0))


def model_goodness(actual: pd.DataFrame, predicted: pd.DataFrame, *, levels: int | None = None,
                   grid_size: int = 101) -> ModelGoodness:
    """MSE, AUCDF, AUAEC and AUPEC of every algorithm, with the curves behind them (Kandanaarachchi & Smith-Miles 2023
    §4.4-4.5).

    Parameters
    ----------
    actual, predicted : pd.DataFrame, shape (N, n)
        x_ij and x_hat_ij; same index and columns. Continuous: values in [0, 1]. Polytomous: integer category codes
        0..levels-1. A missing actual value (NaN, a cell AIRT did not observe) leaves that cell out of every measure of
        the algorithm, its prediction included.
    levels : int, optional
        Number of categories C >= 2 of a polytomous model; ``None`` for the continuous model.
    grid_size : int
        Points of the continuous curves on [0, 1] (the areas are exact and do not depend on it).

    Returns
    -------
    ModelGoodness"""
    if actual.shape != predicted.shape or not (actual.columns.equals(predicted.columns)
                                               and actual.index.equals(predicted.index)):
        raise DataError("model goodness: actual and predicted responses must have the same datasets and algorithms")
    x = actual.to_numpy(dtype=float)
    observed = ~np.isnan(x)
    if not (np.isfinite(x[observed]).all() and np.isfinite(predicted.to_numpy(dtype=float)).all()
            and observed.any(axis=0).all()):
        raise DataError("model goodness: predicted responses must be finite, actual ones finite or missing (NaN), "
                        "with at least one actual response per algorithm")
    x_hat = np.where(observed, predicted.to_numpy(dtype=float), np.nan)  # compared on the observed cells only
    e = x - x_hat
    mse = _column_mean(e**2)
    c = _continuous_curves(x, x_hat, grid_size) if levels is None else _polytomous_curves(x, x_hat, levels)
    grid, cdf, actual_eff, predicted_eff = c.grid, c.residual_cdf, c.actual_eff, c.predicted_eff
    aucdf, auaec, aupec = c.aucdf, c.auaec, c.aupec
    columns = actual.columns
    table = pd.DataFrame({"algorithm": list(map(str, columns)), "mse": mse, "aucdf": aucdf, "auaec": auaec,
                          "aupec": aupec, "effectiveness_gap": np.abs(auaec - aupec)})
    return ModelGoodness(
        table=table,
        residual_cdf=pd.DataFrame(cdf, index=pd.Index(grid, name="rho"), columns=columns),
        actual_effectiveness=pd.DataFrame(actual_eff, index=pd.Index(grid, name="tolerance"), columns=columns),
        predicted_effectiveness=pd.DataFrame(predicted_eff, index=pd.Index(grid, name="tolerance"), columns=columns),
        residuals=pd.DataFrame(e, index=actual.index, columns=columns),
    )

"""Figures of an AIRT analysis (Kandanaarachchi & Smith-Miles 2023 Figures 3-4, 10, 14-18, 20-23), each a Figure. Latent
trait plots accept an :class:`~benchirt.airt.analysis.AIRTResult` or a
:class:`~benchirt.airt.latent.LatentTraitAnalysis`; goodness plots an ``AIRTResult`` or a
:class:`~benchirt.airt.goodness.ModelGoodness` (so a polytomous model can use them too)."""
from __future__ import annotations

import math
from typing import Callable, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from benchirt.airt.continuous import logit  # noqa: E402
from benchirt.airt.goodness import ModelGoodness  # noqa: E402
from benchirt.airt.latent import LatentTraitAnalysis  # noqa: E402
from benchirt.plotstyle import place_point_labels  # noqa: E402

_LINESTYLES = ("-", "--", ":", "-.")


def _style(k: int) -> dict:
    """Distinct colour/line style for the k-th algorithm (tab10 colours x 4 line styles)."""
    return {"color": plt.get_cmap("tab10")(k % 10), "linestyle": _LINESTYLES[(k // 10) % len(_LINESTYLES)]}


def _latent(result) -> LatentTraitAnalysis:
    return result if isinstance(result, LatentTraitAnalysis) else result.latent


def _goodness(result) -> ModelGoodness:
    return result if isinstance(result, ModelGoodness) else result.model_goodness


def _drawn(every: Sequence[str], chosen: Sequence[str] | None) -> list[str]:
    """The algorithms a figure draws: ``chosen`` (in the analysis' order) or every one."""
    return list(every) if chosen is None else [a for a in every if a in set(chosen)]


def _legend(ax, n: int) -> None:
    ax.legend(fontsize="x-small", ncol=max(1, math.ceil(n / 12)), loc="best", frameon=False)


def _panel_grid(n: int, ncols: int, size: float = 2.6) -> tuple[Figure, np.ndarray]:
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols, size * nrows), squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def plot_heatmaps(result, *, algorithms: Sequence[str] | None = None, ncols: int = 5,
                  resolution: int = 120) -> Figure:
    """Heatmaps of the fitted density f(z | theta) per algorithm (Kandanaarachchi & Smith-Miles 2023 eq. 3, Figures 4
    and 10): ``algorithms`` (default all), ``ncols`` panels per row, ``resolution`` grid points along theta and z."""
    names = list(result.performance.columns)
    chosen = names if algorithms is None else list(algorithms)
    fit = result.fit
    z_obs = logit(result.performance.to_numpy(), epsilon=result.config.logit_epsilon)
    theta = np.linspace(min(fit.theta.min(), -3.0), max(fit.theta.max(), 3.0), resolution)
    z = np.linspace(z_obs.min(), z_obs.max(), resolution)
    anomalous = set(result.algorithms.loc[result.algorithms["anomalous"], "algorithm"])
    fig, axes = _panel_grid(len(chosen), ncols)
    for ax, name in zip(axes, chosen):
        j = names.index(name)
        dens = fit.density(z[:, None], theta[None, :], j)
        ax.imshow(dens, origin="lower", aspect="auto", cmap="viridis",
                  extent=(theta[0], theta[-1], z[0], z[-1]))
        ax.set_title(name + (" (anomalous)" if name in anomalous else "")
                     + ("" if fit.informative[j] else " (constant)"), fontsize="small")
        ax.set_xlabel("θ (dataset easiness)", fontsize="x-small")
        ax.set_ylabel("z", fontsize="x-small")
        ax.tick_params(labelsize="x-small")
    fig.suptitle("Continuous IRT model: density f(z | θ) per algorithm")
    fig.tight_layout()
    return fig


def plot_trace_lines(result, *, algorithms: Sequence[str] | None = None, z_values: Sequence[float] = (-2.0, 0.0, 1.0),
                     ncols: int = 5) -> Figure:
    """Trace lines f(z | theta) against theta for a few normalised scores z (Kandanaarachchi & Smith-Miles 2023 Figure 3)."""
    names = list(result.performance.columns)
    chosen = names if algorithms is None else list(algorithms)
    fit = result.fit
    theta = np.linspace(min(fit.theta.min(), -3.0), max(fit.theta.max(), 3.0), 300)
    fig, axes = _panel_grid(len(chosen), ncols)
    for ax, name in zip(axes, chosen):
        j = names.index(name)
        for k, z in enumerate(z_values):
            ax.plot(theta, fit.density(z, theta, j), label=f"z = {z:g}", **_style(k))
        ax.set_title(name + ("" if fit.informative[j] else " (constant)"), fontsize="small")
        ax.set_xlabel("θ (dataset easiness)", fontsize="x-small")
        ax.tick_params(labelsize="x-small")
    axes[0].legend(fontsize="x-small", frameon=False)
    fig.suptitle("Trace lines f(z | θ)")
    fig.tight_layout()
    return fig


def plot_latent_curves(result, *, dashed: Sequence[str] = (), algorithms: Sequence[str] | None = None) -> Figure:
    """Performance against dataset difficulty and the latent trait curves h_j (Kandanaarachchi & Smith-Miles 2023
    Figures 14 and 20); ``dashed`` algorithms are drawn dashed (e.g. the weak ones, as in Figure 20), and only
    ``algorithms`` when given."""
    latent = _latent(result)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    delta = latent.difficulty.to_numpy()
    drawn = _drawn(latent.algorithms, algorithms)
    for k, name in enumerate(drawn):
        style = _style(k)
        left.scatter(delta, latent.performance[name], s=8, color=style["color"], label=name)
        if name in dashed:
            style["linestyle"] = "--"
        right.plot(latent.grid, latent.curves[name], label=name, **style)
    left.set_title("Performance against dataset difficulty")
    right.set_title("Latent trait curves h_j(δ) (smoothing splines)")
    for ax in (left, right):
        ax.set_xlabel("dataset difficulty δ")
    left.set_ylabel("performance")
    _legend(right, len(drawn))
    fig.tight_layout()
    return fig


def plot_strengths_weaknesses(result, *, epsilon: float | None = None,
                              algorithms: Sequence[str] | None = None) -> Figure:
    """Horizontal bars of the strengths and weaknesses on the difficulty axis (Kandanaarachchi & Smith-Miles 2023
    Figures 15 and 21); of ``algorithms`` only when given."""
    latent = _latent(result)
    drawn = _drawn(latent.algorithms, algorithms)
    if epsilon is None:
        epsilon = result.config.epsilon if hasattr(result, "config") else 0.0
    intervals = latent.intervals(epsilon)
    half_step = np.diff(latent.grid).min() / 2 if latent.grid.size > 1 else 0.01
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.35 * len(drawn) + 1.5), sharex=True)
    for ax, kind, title in zip(axes, ("strength", "weakness"), ("Strengths", "Weaknesses")):
        part = intervals[intervals["kind"] == kind]
        names = [a for a in drawn if a in set(part["algorithm"])]
        for row, name in enumerate(names):
            k = latent.algorithms.index(name)
            spans = [(s - half_step, e - s + 2 * half_step) for s, e in
                     part.loc[part["algorithm"] == name, ["start", "end"]].to_numpy()]
            ax.broken_barh(spans, (row - 0.4, 0.8), color=_style(k)["color"])
        ax.set_yticks(range(len(names)), names, fontsize="small")
        ax.set_xlabel("dataset difficulty δ")
        ax.set_title(f"{title} (ε = {epsilon:g})")
        ax.set_xlim(latent.grid[0] - half_step, latent.grid[-1] + half_step)
    fig.tight_layout()
    return fig


def plot_effectiveness(result) -> Figure:
    """Actual and predicted effectiveness curves (Kandanaarachchi & Smith-Miles 2023 §4.5, Figure 18 top row)."""
    goodness = _goodness(result)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, curves, title in ((axes[0], goodness.actual_effectiveness, "Actual effectiveness"),
                              (axes[1], goodness.predicted_effectiveness, "Predicted effectiveness")):
        for k, name in enumerate(curves.columns):
            ax.plot(curves.index, curves[name], label=str(name), **_style(k))
        ax.set_title(title)
        ax.set_xlabel("tolerance ℓ")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
    axes[0].set_ylabel("P(t ≤ ℓ)")
    _legend(axes[1], goodness.actual_effectiveness.shape[1])
    fig.tight_layout()
    return fig


def plot_residual_cdf(result) -> Figure:
    """Empirical CDFs F(rho_j) of the scaled absolute residuals (Kandanaarachchi & Smith-Miles 2023 eq. 12, Figure 18 bottom left)."""
    goodness = _goodness(result)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for k, name in enumerate(goodness.residual_cdf.columns):
        ax.plot(goodness.residual_cdf.index, goodness.residual_cdf[name], label=str(name), **_style(k))
    ax.set_xlabel("scaled absolute residual ρ")
    ax.set_ylabel("F(ρ)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title("Model goodness: CDF of the residuals")
    _legend(ax, goodness.residual_cdf.shape[1])
    fig.tight_layout()
    return fig


def plot_auaec_aupec(result, *, algorithms: Sequence[str] | None = None) -> Figure:
    """AUAEC against AUPEC per algorithm (of ``algorithms`` only when given) with the line AUAEC = AUPEC
    (Kandanaarachchi & Smith-Miles 2023 Figure 18 bottom right)."""
    table = _goodness(result).table
    if algorithms is not None:
        table = table[table["algorithm"].isin(list(algorithms))].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7, 7))
    colors = [_style(k)["color"] for k in range(len(table))]
    ax.scatter(table["auaec"], table["aupec"], color=colors, s=25)
    ax.plot([0, 1], [0, 1], linestyle=":", color="grey")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("AUAEC (actual effectiveness)")
    ax.set_ylabel("AUPEC (predicted effectiveness)")
    ax.set_title("Actual vs predicted effectiveness")
    fig.tight_layout()
    place_point_labels(ax, table["auaec"].to_numpy(), table["aupec"].to_numpy(), table["algorithm"].tolist(),
                       fontsize=10, colors=colors)
    return fig


def plot_portfolio_gap(gaps: pd.DataFrame) -> Figure:
    """Mean performance gap of portfolios against their size (Kandanaarachchi & Smith-Miles 2023 §5.1.4, Figure 23).

    ``gaps``: long form with columns ``method`` (e.g. "airt", "shapley", "topset"), ``n_algorithms``, ``mean_gap`` and
    optionally ``se`` (error bars; NaN draws none) and ``epsilon`` (one panel per value) — the portfolio comparison's
    gap table."""
    required = {"method", "n_algorithms", "mean_gap"}
    missing = required - set(gaps.columns)
    if missing:
        raise ValueError(f"plot_portfolio_gap: missing column(s) {sorted(missing)}")
    panels = sorted(gaps["epsilon"].unique()) if "epsilon" in gaps.columns else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False, sharey=True)
    for ax, eps in zip(axes[0], panels):
        part = gaps if eps is None else gaps[gaps["epsilon"] == eps]
        for k, (method, rows) in enumerate(part.groupby("method", sort=True)):
            rows = rows.sort_values("n_algorithms")
            se = np.nan_to_num(rows["se"].to_numpy(dtype=float)) if "se" in rows.columns else None
            ax.errorbar(rows["n_algorithms"], rows["mean_gap"], yerr=se, marker="o", capsize=3,
                        label=str(method), color=_style(k)["color"])
        ax.set_xlabel("number of algorithms n")
        ax.set_title("Portfolio performance gap" + ("" if eps is None else f" (ε = {eps:g})"))
        ax.legend(frameon=False)
    axes[0][0].set_ylabel("mean performance gap")
    fig.tight_layout()
    return fig


#: The figures ``benchirt airt --plots`` writes: file stem -> function of an AIRTResult.
STANDARD_PLOTS: dict[str, Callable[..., Figure]] = {
    "heatmaps": plot_heatmaps,
    "trace_lines": plot_trace_lines,
    "latent_curves": plot_latent_curves,
    "strengths_weaknesses": plot_strengths_weaknesses,
    "effectiveness": plot_effectiveness,
    "residual_cdf": plot_residual_cdf,
    "auaec_aupec": plot_auaec_aupec,
}

"""Figures of a fitted IRT model: item and classifier characteristic curves and parameter histograms (Cardoso et al.
2021 §2.5, §5.1), each a matplotlib Figure."""
from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from benchirt.errors import DataError  # noqa: E402
from benchirt.irt.fit import IRTFit, falling_measure  # noqa: E402


def plot_item_curves(fit: IRTFit, *, items: Sequence[str] | None = None, n_items: int = 8) -> Figure:
    """Item characteristic curves ``P_j(theta)`` (Cardoso et al. 2021 eq. 1) of ``items``; by default ``n_items``
    estimated items spread over the range of difficulty, plus the one whose answers fall most with ability, if any
    (:func:`benchirt.irt.fit.falling_measure`)."""
    table = fit.items
    if items is None:
        estimated = table[fit.informative].sort_values("difficulty")
        if estimated.empty:
            raise DataError("item curves: the fit has no estimated item to draw")
        picks = np.unique(np.linspace(0, len(estimated) - 1, min(n_items, len(estimated))).round().astype(int))
        items = list(estimated.index[picks])
        falling = falling_measure(estimated, fit.config)
        if (falling < 0).any() and falling.idxmin() not in items:
            items.append(falling.idxmin())
    unknown = [i for i in items if i not in table.index]
    if unknown:
        raise DataError(f"item curves: unknown items {unknown[:5]}")
    theta = np.linspace(-fit.config.theta_max, fit.config.theta_max, 241)
    prob = pd.DataFrame(fit.probability(theta), columns=table.index)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for item in items:
        row = table.loc[item]
        slope = f" slope={row.ability_slope:.2f}" if "ability_slope" in row.index else ""
        ax.plot(theta, prob[item],
                label=f"{item}: a={row.discrimination:.2f} b={row.difficulty:.2f} c={row.guessing:.2f}{slope}")
    ax.set_xlabel("ability θ")
    ax.set_ylabel("P(correct)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Item characteristic curves ({fit.model})")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def plot_classifier_curves(
    fit: IRTFit,
    responses: pd.DataFrame,
    *, by: str = "difficulty",
    bins: int = 10,
    respondents: Sequence[str] | None = None,
    roles: Mapping[str, str] | None = None,
) -> Figure:
    """Classifier characteristic curves: accuracy of each classifier per bin of item difficulty (or discrimination).

    Parameters
    ----------
    fit : IRTFit
    responses : pandas.DataFrame, shape (n_respondents, n_items)
        0/1 answers on the fit's items (columns = item names).
    by : {"difficulty", "discrimination"}
        Item parameter that defines the bins (equal-count bins of estimated items).
    bins : int
    respondents : sequence of str, optional
        Rows to draw (default: 12 spread over the range of total scores).
    roles : mapping, optional
        Respondent → ``real`` / ``artificial`` / ``ladder``: real classifiers get distinct solid lines, artificial ones
        grey dashes (:mod:`benchirt.plotstyle`); default guessed from the names. Lines are labelled at their right end,
        no legend."""
    if by not in ("difficulty", "discrimination"):
        raise DataError(f"classifier curves: 'by' must be difficulty or discrimination, got {by!r}")
    estimated = fit.items[fit.informative]
    missing = [i for i in estimated.index if i not in responses.columns]
    if missing:
        raise DataError(f"classifier curves: responses lack items {missing[:5]}")
    n_bins = max(1, min(bins, len(estimated)))
    codes = pd.qcut(estimated[by].rank(method="first"), n_bins, labels=False)
    centres = estimated[by].groupby(codes).median()
    if respondents is None:  # up to 12 respondents spread over the range of total scores
        order = responses[estimated.index].sum(axis=1).sort_values(kind="stable").index
        picks = np.unique(np.linspace(0, len(order) - 1, min(12, len(order))).round().astype(int))
        rows = list(order[picks])
    else:
        rows = list(respondents)
        unknown = [r for r in rows if r not in responses.index]
        if unknown:
            raise DataError(f"classifier curves: unknown respondents {unknown[:5]}")
    answers = responses.loc[rows, estimated.index].astype(float)
    accuracy = answers.T.groupby(codes.to_numpy()).mean()
    from benchirt.plotstyle import classifier_styles, label_line_ends

    styles = classifier_styles([str(r) for r in rows], roles=roles)
    fig, ax = plt.subplots(figsize=(8, 5))
    x = centres.to_numpy()
    for name in rows:
        ax.plot(x, accuracy[name].to_numpy(), marker="o", ms=2.5, label=str(name), **styles[str(name)])
    ax.set_xlabel(f"item {by} (median of bin)")
    ax.set_ylabel("accuracy in bin")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Classifier characteristic curves by {by} ({n_bins} bins)")
    label_line_ends(ax, x[-1], {str(n): accuracy[n].iloc[-1] for n in rows}, styles)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def plot_parameter_histograms(fit: IRTFit, *, bins: int = 30) -> Figure:
    """Histograms of discrimination, difficulty and guessing of the estimated items, with the summary thresholds of
    Cardoso et al. 2021 §4.5 marked."""
    estimated = fit.items[fit.informative]
    config = fit.config
    panels = [
        ("discrimination", config.discrimination_threshold),
        ("difficulty", config.difficulty_threshold),
        ("guessing", config.guessing_threshold),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.5))
    for ax, (name, threshold) in zip(axes, panels):
        ax.hist(estimated[name], bins=bins, color="#4477aa")
        ax.axvline(threshold, color="#cc3311", ls="--", lw=1, label=f"threshold {threshold:g}")
        ax.set_xlabel(name)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("items")
    n_flag = int((~fit.informative).sum())
    fig.suptitle(f"{fit.model} item parameters ({len(estimated)} estimated, {n_flag} flagged without information)")
    fig.tight_layout()
    return fig

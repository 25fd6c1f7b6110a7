"""Figures of a :class:`~benchirt.subsets.SubsetEvaluation` (matplotlib, Agg; never shown): every function takes the
evaluation and returns a :class:`matplotlib.figure.Figure`."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from benchirt.plotstyle import classifier_styles, label_line_ends
from benchirt.subsets.evaluation import FULL, SubsetEvaluation

_STAT_LABELS = {
    "kendall_tau": "Kendall τ with the full suite (real classifiers)",
    "separation": "separation: lowest real − highest baseline rating",
}


def plot_fidelity(evaluation: SubsetEvaluation) -> Figure:
    """Per subset and statistic: the random subsets' histogram with the IRT subset marked."""
    stats = [s for s in _STAT_LABELS if s in evaluation.random_draws.columns]
    subsets = evaluation.fidelity["subset"].tolist()
    figure = Figure(figsize=(3.6 * max(len(subsets), 1), 2.8 * max(len(stats), 1)), layout="constrained")
    axes = figure.subplots(max(len(stats), 1), max(len(subsets), 1), squeeze=False)
    for row, stat in enumerate(stats):
        for col, name in enumerate(subsets):
            ax = axes[row][col]
            record = evaluation.fidelity.set_index("subset").loc[name]
            draws = evaluation.random_draws
            values = draws.loc[draws["n_datasets"] == record["n_datasets"], stat]
            if len(values):
                ax.hist(values, bins=20, color="0.75", edgecolor="0.5")
            ax.axvline(record[stat], color="tab:red", linewidth=2, label=name)
            title = f"{name} (n={int(record['n_datasets'])})"
            if f"{stat}_percentile" in record.index:
                title += f"\npercentile {record[f'{stat}_percentile']:.0f}, p={record[f'{stat}_p_value']:.2f}"
            ax.set_title(title, fontsize=9)
            ax.set_xlabel(_STAT_LABELS[stat], fontsize=8)
    figure.suptitle("IRT subsets against random subsets of the same size")
    return figure


def plot_subset_ratings(evaluation: SubsetEvaluation, *, top: int | None = None) -> Figure:
    """Ratings (R ± 2RD) of every classifier (the ``top`` best on the full suite only) on the full suite and on each
    subset."""
    ratings = evaluation.ratings
    order = ratings[ratings["subset"] == FULL].sort_values("rating")["classifier"].tolist()
    order = order[-top:] if top else order
    scenarios = list(dict.fromkeys(ratings["subset"]))
    figure = Figure(figsize=(8, 0.35 * len(order) + 1.5), layout="constrained")
    ax = figure.subplots()
    offsets = np.linspace(-0.3, 0.3, len(scenarios)) if len(scenarios) > 1 else [0.0]
    for offset, name in zip(offsets, scenarios):
        frame = ratings[ratings["subset"] == name].set_index("classifier").reindex(order)
        y = np.arange(len(order)) + offset
        ax.errorbar(frame["rating"], y, xerr=2 * frame["rd"], fmt="o", markersize=4, capsize=2, label=name)
    ax.set_yticks(range(len(order)), order, fontsize=8)
    ax.set_xlabel("Glicko-2 rating (R ± 2RD)")
    ax.legend(fontsize=8)
    ax.set_title("Ratings on the full suite and on each subset")
    return figure


def plot_parameter_balance(evaluation: SubsetEvaluation) -> Figure:
    """Cardoso et al. 2021 Table 5 as bars: mean ± sd of the percentages of discriminating/difficult items."""
    table = evaluation.parameters
    labels = [c.removesuffix("_mean") for c in table.columns if c.endswith("_mean")]
    figure = Figure(figsize=(7, 3.5), layout="constrained")
    ax = figure.subplots()
    width = 0.8 / len(labels)
    x = np.arange(len(table))
    for i, label in enumerate(labels):
        ax.bar(x + i * width, table[f"{label}_mean"], width, yerr=table[f"{label}_sd"], capsize=3, label=label)
    ax.set_xticks(x + width * (len(labels) - 1) / 2, table["subset"])
    ax.set_ylabel("% of items above threshold (mean ± sd)")
    ax.legend(fontsize=8)
    ax.set_title("Item-parameter balance of each suite (Cardoso et al. 2021 Table 5)")
    return figure


def plot_innate(evaluation: SubsetEvaluation, *, top: int | None = None) -> Figure:
    """Rank of every real classifier (the ``top`` best on the full suite only) among the real ones, across the full
    suite and the subsets."""
    table = evaluation.innate
    scenarios = list(dict.fromkeys(table["subset"]))
    if top:
        best = table[table["subset"] == scenarios[0]].nsmallest(top, "real_rank")["classifier"]
        table = table[table["classifier"].isin(best)]
    figure = Figure(figsize=(1.6 * len(scenarios) + 4, 4.5), layout="constrained")
    ax = figure.subplots()
    x = np.arange(len(scenarios))
    # best on the full suite first, so the leaders get the most distinct colours (benchirt.plotstyle)
    names = table[table["subset"] == scenarios[0]].sort_values("real_rank")["classifier"].tolist()
    names += sorted(set(table["classifier"]) - set(names))
    styles = classifier_styles(names, roles=dict.fromkeys(names, "real"))
    ends = {}
    for name in names:
        ranks = table[table["classifier"] == name].set_index("subset").reindex(scenarios)["real_rank"]
        ax.plot(x, ranks, marker="o", label=name, **styles[name])
        ends[name] = ranks.iloc[-1]
    ax.set_xticks(x, scenarios)
    ax.invert_yaxis()
    ax.set_ylabel("rank among real classifiers (1 = best)")
    label_line_ends(ax, x[-1], ends, styles)
    ax.set_title("Innate ability: is the lead consistent across suites?")
    return figure


def all_figures(evaluation: SubsetEvaluation) -> dict[str, Figure]:
    """Every figure by file stem: ``fidelity``, ``ratings``, ``parameter_balance``, ``innate``."""
    figures = {
        "ratings": plot_subset_ratings(evaluation),
        "parameter_balance": plot_parameter_balance(evaluation),
        "innate": plot_innate(evaluation),
    }
    if len(evaluation.random_draws):
        figures["fidelity"] = plot_fidelity(evaluation)
    return figures

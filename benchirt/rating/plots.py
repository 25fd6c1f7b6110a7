"""Figures of the rating stage. Each function takes a result object and returns a Figure."""
from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import scikit_posthocs as sp
from matplotlib.figure import Figure

from benchirt.humanize import human_value
from benchirt.rating.glicko import Tournament
from benchirt.rating.permutation import PermutationAnalysis
from benchirt.rating.statistics import StatisticalComparison
from benchirt.rating.verdict import measured


def _figure(width: float, height: float):
    """A figure outside pyplot's global state (no backend switch, nothing to close)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


#: Longest classifier name a figure prints whole (OpenML flow names of pipelines run to hundreds of characters;
#: the tables keep them whole).
LABEL_CHARS = 60


def _label(name: str) -> str:
    name = str(name)
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def _title_top(shown: int, total: int) -> str:
    return f" — the best {shown} of {total}" if shown < total else ""


#: Artificial references closer than this share of the rating axis share one label (:func:`plot_leaderboard`).
REFERENCE_GAP = 0.04
#: Characters of a reference line's label.
REFERENCE_CHARS = 10


def plot_leaderboard(leaderboard: pd.DataFrame, *, top: int | None = None) -> Figure:
    """Forest plot of the Bradley–Terry leaderboard: rating and 95 % bootstrap interval, best at the top.

    ``leaderboard`` is ``Leaderboard.table`` (best first; ``classifier, bt_rating, bt_low, bt_high, tier, rank_low,
    rank_high``). Each label carries the joint rank interval of the primary verdict; with more than one tier, rows of a
    tier share a shaded band and the labels carry the tier. Without intervals (one dataset) only the points are drawn.
    ``top``: only the first ``top`` rows. Artificial classifiers are dashed vertical reference lines at their ratings,
    named at the top; entrants placed by a model have no rating and are not drawn.
    """
    leaderboard = measured(leaderboard)
    artificial = leaderboard["role"].astype(str).eq("artificial") if "role" in leaderboard else \
        pd.Series(False, index=leaderboard.index)
    references, leaderboard = leaderboard[artificial], leaderboard[~artificial]
    table = leaderboard.head(top) if top else leaderboard
    table = table.iloc[::-1].reset_index(drop=True)
    y = np.arange(len(table))
    fig, ax = _figure(8, 0.32 * len(table) + 1.6)
    tiers = table["tier"].to_numpy()
    several = leaderboard["tier"].nunique() > 1
    shade = False
    for tier in dict.fromkeys(tiers[::-1]) if several else ():
        rows = y[tiers == tier]
        if shade:
            ax.axhspan(rows.min() - 0.5, rows.max() + 0.5, color="tab:gray", alpha=0.15, lw=0)
        shade = not shade
    has_interval = table["bt_low"].notna() & table["bt_high"].notna()
    ax.hlines(y[has_interval], table.loc[has_interval, "bt_low"], table.loc[has_interval, "bt_high"],
              colors="tab:blue", lw=2, label="95 % bootstrap interval over datasets")
    ax.scatter(table["bt_rating"], y, color="tab:blue", zorder=3, label="Bradley–Terry rating")

    def label(name, tier, lo, hi):
        parts = ([f"tier {tier}"] if several else []) + ([f"rank {int(lo)}–{int(hi)}"] if pd.notna(lo) and pd.notna(hi) else [])
        return _label(name) + (f"  ({', '.join(parts)})" if parts else "")

    ax.set_yticks(y, [label(*row) for row in zip(table["classifier"], table["tier"], table["rank_low"],
                                                  table["rank_high"])], fontsize="small")
    ax.set_ylim(-0.5, len(table) - 0.5)
    _reference_lines(ax, references)
    ax.set_xlabel("Bradley–Terry rating (+400 points = 10:1 odds)")
    ax.set_title("Leaderboard (labels: joint rank intervals" + ("; shaded bands: tiers" if several else "")
                 + ("; dashed: artificial references)" if len(references) else ")")
                 + _title_top(len(table), len(leaderboard)))
    fig.legend(loc="outside lower center", ncols=2, fontsize="small")
    return fig


def _reference_lines(ax, references: pd.DataFrame) -> None:
    """Each artificial classifier as a dashed vertical line at its rating; the names at the top of the axes, one
    label for the lines closer than :data:`REFERENCE_GAP` of the axis to each other ("random1 +3", so no two labels
    overlap; the leaderboard table names every one)."""
    ordered = references.sort_values("bt_rating")
    for rating in ordered["bt_rating"]:
        ax.axvline(rating, color="tab:gray", ls="--", lw=1)
    low, high = ax.get_xlim()
    groups: list[list[tuple[str, float]]] = []
    for name, rating in zip(ordered["classifier"].astype(str), ordered["bt_rating"]):
        if groups and rating - groups[-1][-1][1] < REFERENCE_GAP * (high - low):
            groups[-1].append((name, rating))
        else:
            groups.append([(name, rating)])
    for group in groups:   # "random1 +3": a short label stays inside the axes whatever their height
        more = f" +{len(group) - 1}" if len(group) > 1 else ""
        ax.annotate(_label(group[0][0])[:REFERENCE_CHARS] + more, (group[-1][1], 1.0),
                    xycoords=("data", "axes fraction"), rotation=90, ha="right", va="top", fontsize="small",
                    color="tab:gray")


def plot_ratings(tournament: Tournament, *, permutation: PermutationAnalysis | None = None,
                 top: int | None = None) -> Figure:
    """Final ratings with their intervals [R − 2RD, R + 2RD], best at the top; the leader's interval shaded. With
    ``permutation`` a second bar shows the 5-95 % range over random dataset orders; ``top``: the ``top`` best only."""
    table = (tournament.table.head(top) if top else tournament.table).iloc[::-1]
    y = np.arange(len(table))
    fig, ax = _figure(8, 0.35 * len(table) + 1.5)
    leader = tournament.table.iloc[0]
    ax.axvspan(leader["low"], leader["high"], color="tab:blue", alpha=0.08, label="leader's interval")
    colors = np.where(table["separable_from_leader"], "tab:gray", "tab:blue")
    ax.hlines(y, table["low"], table["high"], colors=colors, lw=2, label="R ± 2RD (this order)")
    ax.scatter(table["rating"], y, c=colors, zorder=3)
    if permutation is not None:
        spread = permutation.summary.set_index("classifier").loc[table["classifier"]]
        ax.hlines(y - 0.3, spread["rating_p05"], spread["rating_p95"], colors="tab:orange", lw=4, alpha=0.7,
                  label=f"5-95 % over {permutation.n_permutations} dataset orders")
    ax.set_yticks(y, [_label(name) for name in table["classifier"]])
    ax.set_xlabel("Glicko-2 rating")
    ax.set_title(f"Ratings after {len(tournament.order)} datasets (gray: separable from the leader)"
                 + _title_top(len(table), len(tournament.table)))
    ax.legend(loc="lower right", fontsize="small")
    return fig


def plot_trajectories(tournament: Tournament, *, value: str = "rating", top: int | None = None) -> Figure:
    """Each classifier's ``value`` (rating, rd or volatility) after every rating period (``top``: the best only)."""
    matrix = tournament.rating_matrix(value)
    final_order = tournament.table["classifier"].tolist()[:top]
    fig, ax = _figure(13, 6)
    colors = matplotlib.color_sequences["tab20"]
    for i, name in enumerate(final_order):
        ax.plot(matrix.index, matrix[name], color=colors[i % 20], ls=("-", "--", ":")[i // 20 % 3], lw=1.2,
                label=_label(name))
    if len(tournament.order) <= 60:
        ax.set_xticks(matrix.index, tournament.order, rotation=90, fontsize="x-small")
    ax.set_xlabel("rating period (dataset)")
    ax.set_ylabel(value)
    ax.set_title(f"Glicko-2 {value} over the rating periods" + _title_top(len(final_order), len(tournament.table)))
    ax.legend(fontsize="x-small", ncol=2, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def plot_rank_distribution(permutation: PermutationAnalysis, *, top: int | None = None) -> Figure:
    """Share of random dataset orders in which each classifier reaches each final rank; ``top``: the ``top`` best
    classifiers and ranks 1..``top`` only."""
    every = permutation.summary["classifier"].tolist()
    names = every[:top]
    ranks = permutation.ranks[names].to_numpy()
    k = len(names)
    share = np.stack([(ranks == r).mean(axis=0) for r in range(1, k + 1)], axis=1)
    fig, ax = _figure(0.45 * k + 4, 0.35 * k + 1.5)
    image = ax.imshow(share, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for i, j in zip(*np.nonzero(share)):
        ax.text(j, i, f"{share[i, j]:.2f}".lstrip("0"), ha="center", va="center", fontsize=6,
                color="white" if share[i, j] > 0.6 else "black")
    ax.set_xticks(range(k), range(1, k + 1))
    ax.set_yticks(range(k), [_label(name) for name in names])
    ax.set_xlabel("final rank")
    ax.set_title(f"Rank distribution over {permutation.n_permutations} random dataset orders"
                 + _title_top(k, len(every)))
    fig.colorbar(image, ax=ax, label="share of orders")
    return fig


def plot_nemenyi_heatmap(comparison: StatisticalComparison, *, top: int | None = None) -> Figure:
    """Pairwise Nemenyi p-values, classifiers in average-rank order (``top``: the best only)."""
    p = comparison.p_values.iloc[:top, :top] if top else comparison.p_values
    k = p.shape[0]
    fig, ax = _figure(0.6 * k + 5, 0.6 * k + 4)  # cells wide enough for readable 8-9 pt p-values
    image = ax.imshow(p.to_numpy(), cmap="RdYlGn_r", vmin=0, vmax=1)
    if k <= 25:
        for i in range(k):
            for j in range(k):
                ax.text(j, i, f"{p.iat[i, j]:.2f}", ha="center", va="center", fontsize=9 if k <= 14 else 8)
    ax.set_xticks(range(k), p.columns, rotation=90, fontsize="small")
    ax.set_yticks(range(k), p.index, fontsize="small")
    title = "Nemenyi p-values" if comparison.mode == "blocks" else "Nemenyi p-values — decodIRT compatibility mode"
    ax.set_title(f"{title} ({human_value(comparison.score)})" + _title_top(k, comparison.p_values.shape[0]))
    fig.colorbar(image, ax=ax, label="p-value")
    return fig


def plot_cd_diagram(comparison: StatisticalComparison, *, top: int | None = None) -> Figure:
    """Critical difference diagram: average ranks, bars join classifiers not separated at ``alpha``
    (``top``: the ``top`` best average ranks only)."""
    ranks = comparison.average_ranks.sort_values().head(top) if top else comparison.average_ranks
    fig, ax = _figure(10, 0.25 * len(ranks) + 2)
    sp.critical_difference_diagram(
        ranks, comparison.p_values.loc[ranks.index, ranks.index], alpha=comparison.alpha, ax=ax,
        label_props={"fontsize": "small"},
    )
    cd = comparison.critical_difference
    note = f", CD = {cd:.2f}" if cd is not None else " — decodIRT compatibility mode"
    ax.set_title(f"Average ranks ({human_value(comparison.score)}; 1 = best; α = {comparison.alpha}{note})")
    return fig

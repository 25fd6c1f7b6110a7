"""The AIRT stage's report section, built from the run's :class:`benchirt.airt.analysis.AIRTResult` (Kandanaarachchi &
Smith-Miles 2023) and named by :attr:`benchirt.pipeline.registry.Stage.sections`. Figures come from
:mod:`benchirt.airt.plots`; one that cannot be drawn becomes a note."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from benchirt.document.context import SectionContext
from benchirt.document.figures import add_figure
from benchirt.document.page import Paragraph, Section, Table

if TYPE_CHECKING:
    from benchirt.airt.analysis import AIRTResult

#: Most algorithms an AIRT figure draws (its curves share one legend of distinguishable colours).
AIRT_FIGURE_TOP = 12


def airt(result: AIRTResult, context: SectionContext) -> Section:
    """AIRT: algorithm anomaly/consistency/difficulty limit, dataset difficulty, portfolio, fit (Kandanaarachchi & Smith-Miles 2023)."""
    from benchirt.airt import plots as airt_plots

    section = Section("airt", "AIRT (algorithm portfolio)")
    section.add(Paragraph(
        "The inverted IRT of Kandanaarachchi & Smith-Miles 2023: datasets are the respondents and algorithms the items. An anomalous "
        "algorithm does better on harder datasets; consistency and difficulty limit describe its curve."
    ))
    section.add(Paragraph(result.summary()))
    section.add(Table(result.algorithms, "Algorithms (LTO: latent trait occupancy of strengths/weaknesses)."))
    section.add(Table(result.goodness, "Model goodness per algorithm (Kandanaarachchi & Smith-Miles 2023 §4.4-4.5)."))
    section.add(Table(*airt_dataset_table(result.datasets)))
    drawn = airt_figure_algorithms(result)
    caption = (f" — {len(drawn)} of the {len(result.algorithms)} algorithms: the strongest, the anomalous, then the "
               "best on average; the tables list every one") if drawn is not None else ""
    for title, make in (("Latent trait curves", airt_plots.plot_latent_curves),
                        ("Strengths and weaknesses", airt_plots.plot_strengths_weaknesses),
                        ("AUAEC vs AUPEC", airt_plots.plot_auaec_aupec)):
        add_figure(section, lambda make=make: make(result, algorithms=drawn), title + caption, context.dpi)
    return section


def airt_figure_algorithms(result: AIRTResult) -> list[str] | None:
    """The algorithms AIRT's figures draw in a large field: the strongest (latent trait occupancy of strengths, largest
    first), the anomalous, then the best mean performance, up to :data:`AIRT_FIGURE_TOP`; None (every one) when there
    are no more than that."""
    table = result.algorithms
    if len(table) <= AIRT_FIGURE_TOP:
        return None
    strong = table[table["lto_strength"] > 0].sort_values(["lto_strength", "algorithm"], ascending=[False, True])
    anomalous = table[table["anomalous"].astype(bool)]["algorithm"]
    mean = result.latent.performance.mean().sort_values(ascending=False, kind="stable")
    chosen = list(dict.fromkeys([*strong["algorithm"], *anomalous, *mean.index.astype(str)]))
    return chosen[:AIRT_FIGURE_TOP]


def airt_dataset_table(datasets: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """AIRT's dataset table, hardest first; rows with the same difficulty are collapsed into one row that counts them.
    """
    frame = datasets.sort_values(["difficulty", "dataset"], ascending=[False, True])
    rounded = frame.assign(difficulty=frame["difficulty"].round(3))
    if not rounded["difficulty"].duplicated().any():
        return frame, "Datasets / problem instances by AIRT difficulty (δ = −θ, Kandanaarachchi & Smith-Miles 2023 eq. 11), hardest first."
    groups = rounded.groupby("difficulty", sort=False)["dataset"]
    table = pd.DataFrame({"difficulty": list(groups.groups), "n_datasets": groups.size().to_numpy(),
                          "datasets": [_names(g) for _, g in groups]})
    return table, (f"Datasets / problem instances by AIRT difficulty (δ = −θ, Kandanaarachchi & Smith-Miles 2023 eq. 11), hardest first: "
                   f"{len(frame)} rows with {len(table)} distinct difficulties, each shown once with its count.")


def _names(names: pd.Series, limit: int = 5) -> str:
    """The first ``limit`` names, then how many more."""
    names = list(names)
    return ", ".join(names[:limit]) + (f", … ({len(names) - limit} more)" if len(names) > limit else "")

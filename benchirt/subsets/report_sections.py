"""The subset stage's report section and its sentence for the conclusions, built from
:class:`benchirt.subsets.evaluation.SubsetEvaluation` (Cardoso et al. 2021 §4.6, §5.4-5.6) and named by the stage's
registry record (:attr:`benchirt.pipeline.registry.Stage.sections`). A figure (:mod:`benchirt.subsets.plots`) that
cannot be drawn becomes a note."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from benchirt.document.context import SectionContext
from benchirt.document.figures import add_figure, figure_top, top_caption
from benchirt.document.page import Note, Paragraph, Section, Table
from benchirt.humanize import short_name

if TYPE_CHECKING:
    from benchirt.subsets.evaluation import SubsetEvaluation


def subsets(evaluation: SubsetEvaluation, context: SectionContext) -> Section:
    """IRT-filtered subsets and their fidelity to the full suite (Cardoso et al. 2021 §4.6, §5.4-5.6)."""
    from benchirt.subsets import plots as subset_plots

    section = Section("subsets", "Benchmark subsets")
    members = pd.DataFrame([{"subset": name, "n_datasets": len(names), "datasets": ", ".join(names)}
                            for name, names in evaluation.subsets.items()])
    if evaluation.dataset_value is not None:
        section.add(Paragraph("Which datasets are worth running (dataset_value.csv): per dataset, the pairs of top "
                              "contenders its own test rows separate, its saturation at the top, the information of "
                              "the scoring model at the contenders' ability, the separations across datasets that "
                              "depend on it, its redundancy with the other datasets and its training cost."))
        section.add(Table(evaluation.dataset_value, "Dataset value, most worth running first."))
    section.add(Table(members, f"Subsets chosen by the {evaluation.config.rule!r} rule."))
    if evaluation.rule_comparison is not None:
        section.add(Paragraph(subsets_conclusion(evaluation)))
        section.add(Table(evaluation.rule_comparison,
                          "The budget rule against its baselines at each budget (a share of the suite's CPU), judged "
                          "on the top contenders held out of the choice (two folds): kept = share of the full suite's "
                          "separated pairs the subset separates the same way, reversed = pairs it separates the "
                          "other way, tau = Kendall τ of the mean ranks, overlap = mean Jaccard overlap of the rank "
                          "intervals, p_vs_random = one-sided p against random subsets of equal cost "
                          "(rule_comparison.csv)."))
    section.add(Paragraph(subsets_sentence(evaluation.fidelity, evaluation.config.rule)))
    section.add(Table(evaluation.fidelity, "Fidelity to the full suite's ranking, against "
                                           f"{evaluation.config.n_random} random subsets of equal size.",
                      key=("subset", "n_datasets", "kendall_tau", "kendall_tau_percentile", "kendall_tau_p_value")))
    section.add(Table(evaluation.parameters, "Percentages of very discriminating / difficult items (Cardoso et al. 2021 "
                                             "Table 5)."))
    section.add(Paragraph(evaluation.innate_verdict))
    for note in evaluation.notes:
        section.add(Note(note))
    top = figure_top(evaluation.ratings["classifier"].nunique())
    add_figure(section, lambda: subset_plots.plot_fidelity(evaluation), "Fidelity", context.dpi)
    add_figure(section, lambda: subset_plots.plot_subset_ratings(evaluation, top=top), "Ratings per subset"
               + top_caption(top), context.dpi)
    add_figure(section, lambda: subset_plots.plot_parameter_balance(evaluation), "Parameter balance", context.dpi)
    add_figure(section, lambda: subset_plots.plot_innate(evaluation, top=top), "Innate ability" + top_caption(top),
               context.dpi)
    return section


def subsets_conclusion(evaluation: SubsetEvaluation) -> str:
    """The conclusions' sentence on subsets: which subset to run instead of the full suite, judged on held-out
    contenders (:func:`benchirt.subsets.held_out.recommendation`) when the budget rule chose them, else whether
    decodIRT's subsets beat random subsets of their size (:func:`subsets_sentence`)."""
    if evaluation.rule_comparison is None:
        return subsets_sentence(evaluation.fidelity, evaluation.config.rule)
    from benchirt.subsets.held_out import recommendation

    return "Which subset could replace the full suite? " + recommendation(evaluation.rule_comparison)


def subsets_sentence(fidelity: pd.DataFrame, rule: str, *, alpha: float = 0.05) -> str:
    """Whether the subsets of ``rule`` reproduce the full ranking better than random subsets of equal size."""
    rows = [f"{row.subset} ({row.n_datasets} datasets): τ = {row.kendall_tau:.2f}, percentile "
            f"{row.kendall_tau_percentile:.0f} of random subsets, {_p(row.kendall_tau_p_value)}"
            for row in fidelity.itertuples(index=False)]
    wins = fidelity[fidelity["kendall_tau_p_value"] < alpha]["subset"].tolist()
    if not wins:
        verdict = (f"No: none of the {len(fidelity)} subsets chosen by the {rule!r} rule reproduces the full "
                   f"suite's ranking better than random subsets of the same size (one-sided p < {alpha}), so "
                   "benchirt recommends none of them over a random choice.")
    elif len(wins) == len(fidelity):
        verdict = (f"Yes: every subset chosen by the {rule!r} rule reproduces the full suite's ranking better "
                   f"than random subsets of the same size (p < {alpha}).")
    else:
        verdict = (f"Only {_join(wins)} of the {len(fidelity)} {rule!r} subsets beat random subsets of the same "
                   f"size (p < {alpha}); the others do not.")
    return f"Do the {rule!r} subsets rank like the full suite better than random subsets? {verdict} " \
        "Kendall τ with the full ranking: " + \
        "; ".join(rows) + "."


def _join(names, limit: int | None = None) -> str:
    """Names joined for a sentence ("a, b and c"), each shortened (:func:`benchirt.humanize.short_name`); past
    ``limit`` the rest are counted."""
    names = [short_name(str(n)) for n in names]
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _p(value: float) -> str:
    """``p = 0.137`` / ``p < 0.001``."""
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"

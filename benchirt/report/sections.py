"""The report's sections, each built from a run's results; a section whose stage did not run is absent.

Figures come from the stages' own plot functions (``benchirt.<stage>.plots``); a figure that cannot
be drawn becomes a note in its section rather than stopping the report.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from benchirt.report.config import ReportConfig
from benchirt.report.document import Note, Paragraph, Section, Table, figure_block


def overview(results, config: ReportConfig) -> Section:
    """Run facts: suite, stage timings and counts, skipped/failed datasets with reasons, versions."""
    manifest = results.manifest
    section = Section("overview", "Run overview")
    ran = [name for name in manifest.get("stages", {}) if name != "report"]
    facts = [f"Stages: {', '.join(ran) or 'none'}."]
    if set(ran) & {"respond", "irt", "rate", "subset"} or results.responses:
        facts.append(f"Suite {results.config.suite!r}: {len(results.responses)} dataset(s) with responses, "
                     f"{len(results.irts)} with an IRT model.")
    airt_section = results.config.section("airt")
    if "airt" in ran and airt_section.get("aslib"):
        facts.append(f"AIRT input: ASlib scenario {airt_section['aslib']}.")
    facts.append(f"Executor: {manifest.get('executor', '?')}. Run directory: {results.run_dir}.")
    section.add(Paragraph(" ".join(facts)))
    columns = ["stage", "status", "seconds", "computed", "reused", "skipped", "failed"]
    stages = pd.DataFrame([{"stage": name, **report} for name, report in manifest.get("stages", {}).items()
                           if name != "report"], columns=[*columns, "note"])[columns]
    if len(stages):
        section.add(Table(stages, "Stages: wall time in seconds; results computed in this run, reused from an "
                                  "earlier run, skipped (unusable input) or failed (after retries)."))
    problems = [{"dataset": name, "stage": stage, "reason": reason}
                for name, by_stage in sorted(results.skipped.items()) for stage, reason in by_stage.items()]
    for stage, entry in manifest.get("artifacts", {}).items():
        if entry.get("status") in ("skipped", "failed"):
            problems.append({"dataset": "(all)", "stage": stage, "reason": f"{entry['status']}: {entry.get('reason')}"})
    if problems:
        section.add(Table(pd.DataFrame(problems), "Datasets or stages left out, and why."))
    versions = pd.DataFrame(sorted(manifest.get("versions", {}).items()), columns=["package", "version"])
    section.add(Table(versions, "Versions the results were computed with."))
    return section


def datasets(results, config: ReportConfig) -> Section | None:
    """Dataset difficulty and discrimination rankings (seed 003 §4.5, Table 2-3)."""
    if not results.irts:
        return None
    from benchirt.irt import dataset_rankings, summaries_frame

    summaries = summaries_frame([results.irts[n] for n in sorted(results.irts)])
    section = Section("datasets", "Datasets: difficulty and discrimination")
    section.add(Paragraph(
        "Share of each dataset's test items whose 3PL difficulty, discrimination or guessing exceeds the "
        "thresholds of the IRT configuration (seed 003 §4.5). Datasets with many difficult and "
        "discriminating items separate classifiers best."
    ))
    section.add(Table(dataset_rankings(summaries).reset_index(), "Datasets ranked by the IRT item parameters."))
    _figure(section, lambda: _summary_bars(summaries), "Percentage of difficult / discriminating items per dataset",
            config)
    return section


def model_fit(results, config: ReportConfig) -> Section | None:
    """1PL/2PL/3PL side by side per dataset (AIC, BIC, log-likelihood) and misfitting items."""
    if not results.irts:
        return None
    from benchirt.irt import model_comparison_table

    irts = [results.irts[n] for n in sorted(results.irts)]
    section = Section("model-fit", "IRT model fit")
    comparison = model_comparison_table(irts)
    if len(comparison):
        best = comparison["best_bic"].value_counts()
        section.add(Paragraph(
            "Marginal log-likelihood, AIC and BIC of the 1PL, 2PL and 3PL fitted to each dataset's calibration "
            "responses (lower AIC/BIC is better). BIC prefers "
            + ", ".join(f"the {model} on {count} dataset(s)" for model, count in best.items()) + "."
        ))
        section.add(Table(comparison, "Model comparison per dataset."))
    misfit = pd.DataFrame([{"dataset": irt.dataset, "items": len(irt.fit.items),
                            "misfit": int(irt.summary.get("n_misfit", 0)), "status": irt.fit.status,
                            "local_optima": int(irt.fit.convergence()["n_local_optima"])} for irt in irts])
    section.add(Table(misfit, "Items whose infit or outfit mean square exceeds 1.5 (answers the fitted curve does "
                              "not explain), and the EM report: status of the chosen fit and how many EM starts "
                              "ended in a worse local optimum."))
    return section


#: Rows of the suspect-label table shown on the page (the CSV files hold all).
_MAX_SUSPECTS = 50


def suspect_labels(results, config: ReportConfig) -> Section | None:
    """Test instances whose item discriminates strongly negatively: possibly wrong labels."""
    if not results.irts:
        return None
    from benchirt.irt import suspect_label_table

    table = suspect_label_table([results.irts[n] for n in sorted(results.irts)])
    section = Section("suspect-labels", "Suspect labels")
    section.add(Paragraph(
        f"Test instances that good classifiers get wrong and weak ones get right (discrimination at most "
        f"-{results.config.stage_config('irt').suspect_discrimination:g}), or that no classifier gets right: "
        f"{len(table)} in all. 'row' is the instance's row in the dataset, 'label' the dataset's label and "
        "'consensus' the label most real classifiers predict. Also written to irt/<dataset>/suspect_labels.csv."
    ))
    if len(table):
        shown = table.sort_values("discrimination").head(_MAX_SUSPECTS)
        section.add(Table(shown, f"Suspect labels, most negative discrimination first"
                                 f"{f' (the first {_MAX_SUSPECTS} of {len(table)})' if len(table) > _MAX_SUSPECTS else ''}."))
    return section


def item_curves(results, config: ReportConfig) -> Section | None:
    """Item (ICC) and classifier (CCC) characteristic curves of the hardest and easiest datasets."""
    if not results.irts:
        return None
    from benchirt.irt import plots as irt_plots
    from benchirt.irt import summaries_frame

    summaries = summaries_frame([results.irts[n] for n in sorted(results.irts)])
    order = summaries.sort_values("pct_difficulty_gt", ascending=False).index.tolist()
    half = max(1, config.max_dataset_plots // 2)
    chosen = list(dict.fromkeys(order[:half] + order[::-1][:half]))[: config.max_dataset_plots]
    section = Section("curves", "Item and classifier characteristic curves")
    section.add(Paragraph(
        f"ICC: probability of a correct answer against ability for items spread over the difficulty range "
        f"(seed 003 eq. 1). CCC: each reported classifier's accuracy on bins of items of increasing "
        f"difficulty. Shown for {', '.join(chosen)} (the most and least difficult datasets)."
    ))
    for name in chosen:
        irt = results.irts[name]
        _figure(section, lambda irt=irt: irt_plots.plot_item_curves(irt.fit), f"ICC — {name}", config)
        if name in results.responses:
            response = results.responses[name]
            reported = list(response.roles.index[response.roles.isin(["real", "artificial"])])
            _figure(section, lambda fit=irt.fit, r=response.responses, who=reported:
                    irt_plots.plot_classifier_curves(fit, r, respondents=who), f"CCC — {name}", config)
    return section


def true_scores(results, config: ReportConfig) -> Section | None:
    """True-Score of every reported classifier on every dataset (seed 003 §2.5)."""
    if not results.irts:
        return None
    from benchirt.irt import true_score_table

    scores = true_score_table([results.irts[n] for n in sorted(results.irts)], roles=("real", "artificial"))
    wide = scores.pivot(index="classifier", columns="dataset", values="score")
    wide = wide.loc[wide.mean(axis=1).sort_values(ascending=False).index]
    section = Section("true-scores", "True-Scores")
    section.add(Paragraph("Expected number of correct answers on the dataset's items given the classifier's "
                          "ability (sum of the 3PL probabilities); the score Glicko-2 compares."))
    section.add(Table(wide.reset_index(), "True-Score per classifier (rows, best mean first) and dataset."))
    return section


def ratings(results, config: ReportConfig) -> Section | None:
    """Glicko-2 ratings with intervals and their robustness to the dataset order (seed 003 §4.7)."""
    if results.rating is None:
        return None
    from benchirt.rating import plots as rating_plots

    rating = results.rating
    section = Section("ratings", "Glicko-2 ratings")
    tournament = rating.tournament
    section.add(Paragraph(
        f"One rating period per dataset ({len(tournament.order)} datasets, order: "
        f"{rating.config.order or 'sorted names'}); each pair of classifiers plays one match per dataset, "
        f"won by the higher True-Score. Interval: rating ± 2 RD. Leader: {tournament.leader}."
    ))
    section.add(Table(rating.ratings, "Final ratings; orders_* columns: the same tournament over random "
                                      "dataset orders."))
    _figure(section, lambda: rating_plots.plot_ratings(tournament, rating.permutation),
            "Ratings with intervals (and their spread over dataset orders)", config)
    if rating.permutation is not None:
        _figure(section, lambda: rating_plots.plot_rank_distribution(rating.permutation),
                "Rank distribution over random dataset orders", config)
    _figure(section, lambda: rating_plots.plot_trajectories(tournament), "Rating after each period", config)
    return section


def statistics(results, config: ReportConfig) -> Section | None:
    """Friedman test and Nemenyi post-hoc: heatmap and critical-difference diagram (Demšar 2006)."""
    if results.rating is None:
        return None
    from benchirt.rating import plots as rating_plots
    from benchirt.rating.statistics import MODE_LABELS

    section = Section("statistics", "Friedman / Nemenyi")
    rating = results.rating
    rows = []
    for name, comparison in rating.comparisons.items():
        rows.append({"score": name, "classifiers": len(comparison.average_ranks), "datasets": comparison.n_blocks,
                     "friedman_statistic": comparison.statistic, "p_value": comparison.p_value,
                     "critical_difference": comparison.critical_difference})
    if rows:
        section.add(Table(pd.DataFrame(rows), f"{MODE_LABELS[rating.config.stats]}; α = {rating.config.alpha}."))
    for name, reason in rating.skipped.items():
        section.add(Note(f"{name}: tests not run — {reason}"))
    for name, comparison in rating.comparisons.items():
        _figure(section, lambda c=comparison: rating_plots.plot_nemenyi_heatmap(c), f"Nemenyi p-values ({name})", config)
        _figure(section, lambda c=comparison: rating_plots.plot_cd_diagram(c), f"Critical difference diagram ({name})",
                config)
    return section


def subsets(results, config: ReportConfig) -> Section | None:
    """IRT-filtered subsets and their fidelity to the full suite (seed 003 §4.6, §5.4-5.6)."""
    if results.subsets is None:
        return None
    from benchirt.subsets import plots as subset_plots

    evaluation = results.subsets
    section = Section("subsets", "Benchmark subsets")
    members = pd.DataFrame([{"subset": name, "n_datasets": len(names), "datasets": ", ".join(names)}
                            for name, names in evaluation.subsets.items()])
    section.add(Table(members, f"Subsets chosen by the {evaluation.config.rule!r} rule."))
    section.add(Table(evaluation.fidelity, "Fidelity to the full suite's ranking, against random subsets of "
                                           "equal size."))
    section.add(Table(evaluation.parameters, "Percentages of very discriminating / difficult items (seed 003 "
                                             "Table 5)."))
    section.add(Paragraph(evaluation.innate_verdict))
    for note in evaluation.notes:
        section.add(Note(note))
    for title, make in (("Fidelity", subset_plots.plot_fidelity), ("Ratings per subset", subset_plots.plot_subset_ratings),
                        ("Parameter balance", subset_plots.plot_parameter_balance),
                        ("Innate ability", subset_plots.plot_innate)):
        _figure(section, lambda make=make: make(evaluation), title, config)
    return section


def airt(results, config: ReportConfig) -> Section | None:
    """AIRT: algorithm anomaly/consistency/difficulty limit, dataset difficulty, portfolio, fit (seed 000)."""
    if results.airt is None:
        return None
    from benchirt.airt import plots as airt_plots

    result = results.airt
    section = Section("airt", "AIRT (algorithm portfolio)")
    section.add(Paragraph(
        "The inverted IRT of seed 000: datasets are the respondents and algorithms the items. An anomalous "
        "algorithm does better on harder datasets; consistency and difficulty limit describe its curve."
    ))
    section.add(Paragraph(result.summary()))
    section.add(Table(result.algorithms, "Algorithms (LTO: latent trait occupancy of strengths/weaknesses)."))
    section.add(Table(result.goodness, "Model goodness per algorithm (seed 000 §4.4-4.5)."))
    section.add(Table(result.datasets.sort_values("difficulty", ascending=False),
                      "Datasets / problem instances by AIRT difficulty."))
    for title, make in (("Latent trait curves", airt_plots.plot_latent_curves),
                        ("Strengths and weaknesses", airt_plots.plot_strengths_weaknesses),
                        ("AUAEC vs AUPEC", airt_plots.plot_auaec_aupec)):
        _figure(section, lambda make=make: make(result), title, config)
    return section


#: The report's sections in page order.
SECTIONS: tuple[Callable, ...] = (overview, datasets, model_fit, suspect_labels, item_curves, true_scores, ratings,
                                  statistics, subsets, airt)


def _figure(section: Section, make: Callable, caption: str, config: ReportConfig) -> None:
    """Add a figure, or a note saying why it could not be drawn (the report never stops on a figure)."""
    try:
        section.add(figure_block(make(), caption, dpi=config.dpi))
    except Exception as exc:  # noqa: BLE001 - one failing plot must not lose the whole report
        section.add(Note(f"figure '{caption}' could not be drawn: {type(exc).__name__}: {exc}"))


def _summary_bars(summaries: pd.DataFrame):
    """Grouped bars of the item-parameter percentages per dataset, most difficult first."""
    from matplotlib.figure import Figure

    columns = [c for c in ("pct_difficulty_gt", "pct_discrimination_gt", "pct_guessing_gt") if c in summaries]
    frame = summaries[columns].astype(float).sort_values(columns[0], ascending=False)
    fig = Figure(figsize=(max(6.0, 0.35 * len(frame) + 2), 4), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(frame))
    width = 0.8 / len(columns)
    for i, column in enumerate(columns):
        ax.bar(x + i * width, frame[column], width, label=column.replace("pct_", "% ").replace("_gt", " > threshold"))
    ax.set_xticks(x + 0.4 - width / 2, frame.index, rotation=90, fontsize="small")
    ax.set_ylabel("% of test items")
    ax.legend(fontsize="small")
    return fig

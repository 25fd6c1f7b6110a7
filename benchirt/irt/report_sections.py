"""The IRT stage's report sections: dataset difficulty and discrimination, model fit, suspect labels, characteristic
curves and True-Scores (Cardoso et al. 2021 §2.5, §4.5), each built from the run's ``{dataset: DatasetIRT}`` and
named by :attr:`benchirt.pipeline.registry.Stage.sections`. Figures come from :mod:`benchirt.irt.plots`; one that
cannot be drawn becomes a note."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import pandas as pd

from benchirt.document.context import SectionContext
from benchirt.document.figures import add_figure, figure_names, figure_top
from benchirt.document.page import Paragraph, Section, Table
from benchirt.humanize import short_name
from benchirt.irt.score_checks import RANK_MARGIN, rank_disagreements
from benchirt.irt.usefulness import real_classifier_spread

if TYPE_CHECKING:
    from benchirt.irt.stage import DatasetIRT
    from benchirt.responses.stage import ResponseResult

#: Rows of the suspect-label table shown on the page (the CSV files hold all).
MAX_SUSPECTS = 50


def _sorted(irts: Mapping[str, DatasetIRT]) -> list[DatasetIRT]:
    """The datasets' IRT results by dataset name."""
    return [irts[name] for name in sorted(irts)]


def _responses(context: SectionContext) -> Mapping[str, ResponseResult]:
    """The run's response results by dataset (empty without them)."""
    return context.of("respond") or {}


def datasets(irts: Mapping[str, DatasetIRT], context: SectionContext) -> Section:
    """Dataset difficulty and discrimination rankings (Cardoso et al. 2021 §4.5, Table 2-3)."""
    from benchirt.irt import dataset_rankings, summaries_frame

    summaries = summaries_frame(_sorted(irts))
    irt_config = context.config.stage_config("irt")
    rankings = dataset_rankings(summaries)
    constant = [name for name in ("guessing", "negative_discrimination")
                if rankings[f"rank_{name}"].nunique() == 1 and len(rankings) > 1]
    rankings = rankings.drop(columns=[c for name in constant for c in rankings.columns if c.endswith(name + "_gt")
                                      or c in (f"rank_{name}", f"pct_{name}")])
    section = Section("datasets", "Datasets: difficulty and discrimination")
    section.add(Paragraph(
        f"Share of each dataset's test items whose {irt_config.model} difficulty exceeds "
        f"{irt_config.difficulty_threshold:g}, discrimination exceeds {irt_config.discrimination_threshold:g}"
        + (f" or guessing exceeds {irt_config.guessing_threshold:g}" if "rank_guessing" in rankings else "")
        + " (the thresholds of the IRT configuration; Cardoso et al. 2021 §4.5). Datasets with many difficult and "
        "discriminating items separate classifiers best; rank 1 = the largest share, ties share a rank."
        + (f" Not ranked, equal on every dataset: {', '.join(n.replace('_', ' ') for n in constant)}."
           if constant else "")
    ))
    section.add(Table(rankings.reset_index(), "Datasets ranked by the IRT item parameters."))
    spread = real_classifier_spread(_sorted(irts), _responses(context))
    if len(spread):
        section.add(Paragraph(
            "Which datasets tell the real classifiers apart: the item parameters above are calibrated with the "
            "artificial respondents too (random, majority, minority, …), which alone can make the items of an easy "
            "dataset look discriminating. Below, per dataset, the share of pairs of real classifiers that McNemar's "
            "exact test on the test items separates (p < 0.05 per pair, uncorrected; McNemar 1947), the standard "
            "deviation of their IRT abilities and the range of their accuracies. The spread alone misleads: one "
            "failing classifier makes it large. The conclusions' 'most informative datasets' are ranked by the "
            "share of pairs."))
        section.add(Table(spread, "Datasets by the share of real-classifier pairs their test items separate "
                                  "(rank 1 = most; ties broken by the ability spread); accuracy range in "
                                  "percentage points.",
                          key=("rank", "dataset", "pairs_separated", "ability_sd", "accuracy_range", "n_real")))
    return section


def model_fit(irts: Mapping[str, DatasetIRT], context: SectionContext) -> Section:
    """1PL/2PL/3PL side by side per dataset (AIC, BIC, log-likelihood) and misfitting items."""
    from benchirt.irt import model_comparison_table

    fitted = _sorted(irts)
    section = Section("model-fit", "IRT model fit")
    comparison = model_comparison_table(fitted)
    if len(comparison):
        best = comparison["best_bic"].value_counts()
        section.add(Paragraph(
            "Marginal log-likelihood, AIC and BIC of the 1PL, 2PL and 3PL fitted to each dataset's calibration "
            "responses (lower AIC/BIC is better). BIC prefers "
            + ", ".join(f"the {model} on {count} dataset(s)" for model, count in best.items()) + "."
        ))
        section.add(Table(comparison, "Model comparison per dataset."))
    misfit = pd.DataFrame([{"dataset": irt.dataset, "items": len(irt.fit.items),
                            "misfit": int(irt.statistics.get("n_misfit", 0)), "status": irt.fit.status,
                            "local_optima": int(irt.fit.convergence()["n_local_optima"]),
                            "quadrature_nodes": irt.fit.quadrature_nodes,
                            "quadrature_error": round(irt.fit.quadrature_error, 3)} for irt in fitted])
    section.add(Table(misfit, "Items whose infit or outfit mean square exceeds 1.5 (answers the fitted curve does "
                              "not explain), and the EM report: status of the chosen fit, how many EM starts "
                              "ended in a worse local optimum, the ability grid the fit ran on and how much "
                              "doubling its nodes still changes the log posterior at the optimum (the grid is "
                              "refined until that is at most 0.05 at the first start's optimum)."))
    warnings = default_model_warnings(fitted)
    if warnings:
        section.add(Paragraph("\n".join(f"• {line}" for line in warnings)))
    return section


def default_model_warnings(irts: Iterable[DatasetIRT]) -> list[str]:
    """One line per dataset whose items the default monotone model does not fit
    (:meth:`benchirt.irt.stage.DatasetIRT.default_model_warning`), its name cut in the middle."""
    return [f"{short_name(str(irt.dataset))}: {warning}" for irt in irts
            if (warning := irt.default_model_warning()) is not None]


def suspect_labels(irts: Mapping[str, DatasetIRT], context: SectionContext) -> Section:
    """Test instances whose label is probably wrong (:mod:`benchirt.irt.suspects`)."""
    from benchirt.irt import suspect_label_table

    table = suspect_label_table(_sorted(irts))
    irt_config = context.config.stage_config("irt")
    section = Section("suspect-labels", "Suspect labels")
    section.add(Paragraph(
        f"Test instances that at least {irt_config.suspect_agreement:.0%} of the real classifiers get wrong, "
        "except those that the ablest of them get right (the classifiers right on it abler than those wrong, "
        f"one-sided Mann-Whitney p <= {irt_config.suspect_rising_alpha:g}: a hard instance, not a wrong label): "
        f"{len(table)} in all. 'row' is the instance's row in the dataset, 'label' the "
        "dataset's label and 'consensus' the label most real classifiers predict. Also written to "
        "irt/<dataset>/suspect_labels.csv."
    ))
    if len(table):
        shown = table.head(MAX_SUSPECTS)
        more = f" (the first {MAX_SUSPECTS} of {len(table)})" if len(table) > MAX_SUSPECTS else ""
        section.add(Table(shown, f"Suspect labels, the most widely missed first{more}."))
    return section


def item_curves(irts: Mapping[str, DatasetIRT], context: SectionContext) -> Section:
    """Item (ICC) and classifier (CCC) characteristic curves of the hardest and easiest datasets."""
    from benchirt.irt import plots as irt_plots
    from benchirt.irt import summaries_frame

    summaries = summaries_frame(_sorted(irts))
    order = summaries.sort_values("pct_difficulty_gt", ascending=False).index.tolist()
    half = max(1, context.max_dataset_plots // 2)
    chosen = list(dict.fromkeys(order[:half] + order[::-1][:half]))[: context.max_dataset_plots]
    section = Section("curves", "Item and classifier characteristic curves")
    which = (f"the {half} most and {len(chosen) - half} least difficult of the {len(order)} datasets"
             if len(chosen) < len(order) else "the only dataset" if len(order) == 1 else f"all {len(order)} datasets")
    section.add(Paragraph(
        f"ICC: probability of a correct answer against ability for items spread over the difficulty range "
        f"(Cardoso et al. 2021 eq. 1). CCC: each reported classifier's accuracy on bins of items of increasing "
        f"difficulty. Shown for {', '.join(map(short_name, chosen))} ({which}, by share of difficult items)."
    ))
    responses = _responses(context)
    for name in chosen:
        irt = irts[name]
        add_figure(section, lambda irt=irt: irt_plots.plot_item_curves(irt.fit), f"ICC — {short_name(name)}",
                   context.dpi)
        if name in responses:
            _classifier_curves(section, name, irt, responses[name], context.dpi)
    return section


def _classifier_curves(section: Section, name: str, irt: DatasetIRT, response: ResponseResult, dpi: int) -> None:
    """The CCC figure of one dataset: every reported classifier, or the highest abilities in a large field."""
    from benchirt.irt import plots as irt_plots

    reported = list(response.roles.index[response.roles.isin(["real", "artificial"])])
    top = figure_top(len(reported))
    if top:  # the highest abilities: one curve and legend entry per classifier
        ranked = irt.abilities.set_index("respondent")["theta"].reindex(reported)
        reported = ranked.sort_values(ascending=False, kind="stable").index[:top].tolist()
    label = figure_names(reported)   # long names would shrink the figure's text below legibility
    add_figure(section, lambda fit=irt.fit, r=response.responses.rename(index=label), who=[label[n] for n in reported],
               roles={label.get(k, k): v for k, v in response.roles.to_dict().items()}:
               irt_plots.plot_classifier_curves(fit, r, respondents=who, roles=roles),
               f"CCC — {short_name(name)}" + (f" — the {top} highest abilities only" if top else ""), dpi)


def true_scores(irts: Mapping[str, DatasetIRT], context: SectionContext) -> Section:
    """True-Score of every reported classifier on every dataset (Cardoso et al. 2021 §2.5)."""
    from benchirt.irt import true_score_table

    scores = true_score_table(_sorted(irts), roles=("real", "artificial"))
    wide = scores.pivot(index="classifier", columns="dataset", values="score")
    wide = wide.loc[wide.mean(axis=1).sort_values(ascending=False).index].rename_axis(index="classifier",
                                                                                   columns=None)
    model = context.config.stage_config("irt").model
    section = Section("true-scores", "True-Scores")
    score = context.config.stage_config("rate").score
    compared = ("the score the ratings compare" if score == "true_score"
                else f"the ratings of this run compare {score.replace('_', ' ')} instead (rate.score)")
    section.add(Paragraph("Expected number of correct answers on the dataset's items given the classifier's "
                          f"ability (sum of the {model} probabilities); {compared}."))
    section.add(Table(wide.reset_index().rename(columns={"classifier": "Classifier"}),
                      "True-Score (expected correct test items) per classifier (rows, best mean first) and "
                      "dataset (columns).", human_headers=False))
    flagged = rank_disagreements(_sorted(irts), _responses(context))
    section.add(Paragraph(
        "A True-Score is what the model expects at the classifier's ability, not the number it got right. Items "
        "that every calibration classifier answered right (or wrong) carry no information: the model counts them "
        "as right (or wrong) for every classifier, whatever it answered, and estimates the ability from the other "
        "items only. A classifier that misses those items, or is right on exactly the hard items and wrong on "
        "the easy ones (the 'minority' respondent), can score far above its accuracy. "
        + (f"{len(flagged)} classifier–dataset pair(s) rank more than {RANK_MARGIN} places apart by True-Score "
           "and by test accuracy; read their True-Scores with care:" if len(flagged) else
           f"No classifier ranks more than {RANK_MARGIN} places apart by True-Score and by test accuracy.")))
    if len(flagged):
        section.add(Table(flagged, "True-Score rank against test-accuracy rank (among the reported classifiers; "
                                   "a range when accuracies tie), largest disagreement first; 'no information "
                                   "missed': items without information the classifier answered otherwise than "
                                   "the model assumes for all."))
    return section

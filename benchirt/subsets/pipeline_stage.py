"""The subset stage in a run: the subsets of the suite (by cost or by decodIRT's rules), each measured against the full suite."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from benchirt.irt.config import summary_options
from benchirt.stage_plan import StageContext, SuiteWork, Unavailable

if TYPE_CHECKING:
    import pandas as pd

    from benchirt.irt.stage import DatasetIRT
    from benchirt.rating.config import RatingConfig
    from benchirt.responses.suite import DatasetResponses
    from benchirt.subsets.config import SubsetConfig
    from benchirt.subsets.evaluation import SubsetEvaluation


def subset_suite(irts: Mapping[str, DatasetIRT], responses: Mapping[str, DatasetResponses], config: SubsetConfig,
                 rating_config: RatingConfig) -> SubsetEvaluation:
    """Build the subsets and measure each against the full suite (Cardoso et al. 2021 §4.6, §5.4-5.6), every rule
    against its baselines on held-out contenders when the rule is ``budget``
    (:func:`benchirt.subsets.held_out.compare_rules`), and each dataset's value
    (:func:`benchirt.subsets.value.dataset_value`). The subsets are rated with the run's ``rate.score``; the costs
    come from the shape-based cost model (:func:`benchirt.subsets.costs.training_costs`)."""
    from benchirt.irt import summaries_frame
    from benchirt.rating.run_scores import run_scores
    from benchirt.responses.suite import suite_metadata, suite_roles
    from benchirt.subsets import build_subsets, evaluate_subsets
    from benchirt.subsets.budget import budget_subsets, real_matrix
    from benchirt.subsets.costs import training_costs
    from benchirt.subsets.held_out import compare_rules

    summaries = summaries_frame([irts[name] for name in sorted(irts)])
    scores = run_scores(irts, responses, rating_config.score)
    used = {name: responses[name] for name in irts}
    roles = suite_roles(used)
    costs = training_costs({name: result.metadata for name, result in used.items()})
    real = roles.index[roles == "real"].astype(str).tolist()
    matrix = real_matrix(scores, real)
    notes: list[str] = []
    if config.rule == "budget":
        subsets, notes = budget_subsets(matrix, costs, config.cuts, n_tables=rating_config.n_bootstrap,
                                        alpha=rating_config.alpha, seed=rating_config.seed)
    else:
        subsets = build_subsets(summaries, cuts=config.cuts, rule=config.rule)
    evaluation = evaluate_subsets(subsets, scores, summaries, metadata=suite_metadata(used), roles=roles, config=config,
                                  rating_config=rating_config)
    evaluation.notes.extend(notes)
    if config.rule == "budget":
        import pandas as pd

        n_items = pd.Series({name: result.responses.shape[1] for name, result in used.items()})
        evaluation.rule_comparison = compare_rules(
            matrix, costs, n_items, [cut / 100.0 for cut in config.cuts], n_random=config.n_random,
            n_tables=rating_config.n_bootstrap, alpha=rating_config.alpha, seed=rating_config.seed)
    evaluation.dataset_value = run_dataset_value(irts, used, scores, costs, real, rating_config)
    return evaluation


def run_dataset_value(irts: Mapping[str, DatasetIRT], responses: Mapping[str, DatasetResponses], scores,
                      costs: pd.Series, real: list[str], rating_config: RatingConfig):
    """The dataset-value table of a run (:func:`benchirt.subsets.value.dataset_value`) from the answers on each
    dataset's test rows, the scoring model's items and abilities, and the training costs (none for a matrix imported
    without its dataset)."""
    from benchirt.subsets.value import dataset_value

    scorers = {name: (irt.scorer.items, irt.abilities.set_index(irt.abilities["respondent"].astype(str))["theta"])
               for name, irt in irts.items()}
    return dataset_value(scores, {name: result.responses for name, result in responses.items()}, real,
                         costs.dropna().to_dict(), scorers=scorers, n_tables=rating_config.n_bootstrap,
                         alpha=rating_config.alpha, seed=rating_config.seed)


def plan(context: StageContext) -> SuiteWork | Unavailable:
    """The subsets of the datasets with an IRT result (at least 2), keyed by their options and the rating's. The key's
    option names (``subsets``, ``rating``) are the sections' former names, so stored results keep their keys; ``irt``
    holds the IRT thresholds the subsets read (:func:`benchirt.irt.config.summary_options`)."""
    irts = context.upstream("irt")
    if len(irts) < 2:
        return Unavailable(f"subsets need at least 2 datasets with IRT results, have {len(irts)}")
    responses = context.upstream("respond")
    used = {name: responses[name] for name in irts if name in responses}
    config, rating_config = context.config.stage_config("subset"), context.config.stage_config("rate")
    options = {"subsets": context.options, "rating": context.options_of("rate"),
               "irt": summary_options(context.options_of("irt") or {})}
    return SuiteWork(options, {"irt": irts, "respond": used}, subset_suite,
                     lambda: (context.load("irt", irts), context.load("respond", used), config, rating_config))

"""The subset stage in a run: IRT-filtered subsets of the suite, each measured against the full suite."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from benchirt.irt.config import summary_options
from benchirt.stage_plan import StageContext, SuiteWork, Unavailable

if TYPE_CHECKING:
    from benchirt.irt.stage import DatasetIRT
    from benchirt.rating.config import RatingConfig
    from benchirt.responses.suite import DatasetResponses
    from benchirt.subsets.config import SubsetConfig
    from benchirt.subsets.evaluation import SubsetEvaluation


def subset_suite(irts: Mapping[str, DatasetIRT], responses: Mapping[str, DatasetResponses], config: SubsetConfig,
                 rating_config: RatingConfig) -> SubsetEvaluation:
    """Build the IRT-filtered subsets and measure each against the full suite (Cardoso et al. 2021 §4.6, §5.4-5.6).

    The subsets are rated with the run's ``rate.score``, as the full suite is.
    """
    from benchirt.irt import summaries_frame
    from benchirt.rating.run_scores import run_scores
    from benchirt.responses.suite import suite_metadata, suite_roles
    from benchirt.subsets import build_subsets, evaluate_subsets

    summaries = summaries_frame([irts[name] for name in sorted(irts)])
    subsets = build_subsets(summaries, cuts=config.cuts, rule=config.rule)
    scores = run_scores(irts, responses, rating_config.score)
    used = {name: responses[name] for name in irts}
    roles = suite_roles(used)
    evaluation = evaluate_subsets(subsets, scores, summaries, suite_metadata(used), roles, config, rating_config)
    evaluation.dataset_value = run_dataset_value(irts, used, scores, roles, rating_config)
    return evaluation


def run_dataset_value(irts: Mapping[str, DatasetIRT], responses: Mapping[str, DatasetResponses], scores,
                      roles, rating_config: RatingConfig):
    """The dataset-value table of a run (:func:`benchirt.subsets.value.dataset_value`): the answers on each
    dataset's test rows, the scoring model's items and abilities, and each dataset's training cost from the
    packaged shape-based cost model of the run's protocol defaults (none for a matrix imported without its
    dataset: :func:`benchirt.subsets.value.dataset_value` then counts per dataset)."""
    import numpy as np

    from benchirt.pipeline.estimate import Shape, load_cost_model, response_cost
    from benchirt.responses import ResponseConfig
    from benchirt.subsets.value import dataset_value

    model, protocol = load_cost_model(), ResponseConfig()
    cost = {}
    for name, result in responses.items():
        rows, features, classes = (np.nan if result.metadata.get(key) is None else float(result.metadata[key])
                                   for key in ("n_instances", "n_features", "n_classes"))
        if not np.isnan([rows, features, classes]).any():
            shape = Shape(rows=int(rows), features=int(features), classes=int(classes), source="file")
            cost[name] = response_cost(shape, protocol, model)["seconds"]
    scorers = {name: (irt.scorer.items, irt.abilities.set_index(irt.abilities["respondent"].astype(str))["theta"])
               for name, irt in irts.items()}
    real = roles.index[roles == "real"].astype(str).tolist()
    return dataset_value(scores, {name: result.responses for name, result in responses.items()}, real, cost,
                         scorers=scorers, n_tables=rating_config.n_bootstrap, alpha=rating_config.alpha,
                         seed=rating_config.seed)


def plan(context: StageContext) -> SuiteWork | Unavailable:
    """The subsets of the datasets with an IRT result (at least 2), keyed by their options and the rating's.

    The key's option names (``subsets``, ``rating``) are the sections' former names, kept so that
    results stored before the stages were renamed keep their keys; ``irt`` holds the IRT thresholds the
    subsets read (:func:`benchirt.irt.config.summary_options`: the IRT keys leave them out).
    """
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

"""The rating stage in a run: Glicko-2, leaderboard, order permutations and tests over the suite."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from benchirt.stage_plan import StageContext, SuiteWork, Unavailable

if TYPE_CHECKING:
    from benchirt.irt.stage import DatasetIRT
    from benchirt.rating.config import RatingConfig
    from benchirt.rating.stage import RatingResult
    from benchirt.responses.suite import DatasetResponses


def rate_suite(irts: Mapping[str, DatasetIRT], responses: Mapping[str, DatasetResponses],
               config: RatingConfig) -> RatingResult:
    """Glicko-2 tournament, leaderboard, order permutations and tests over the suite (Cardoso et al. 2021 §4.7, §5.3).

    ``config.score`` (True-Score by default) of the real and artificial classifiers decides the matches, their answers
    on the test rows give the verdict on this suite, and the Friedman/Nemenyi tests compare the real classifiers (as
    Cardoso et al. 2021 §5.3) on that score and on True-Score or test accuracy.
    """
    from benchirt.rating import rate
    from benchirt.rating.run_scores import run_scores
    from benchirt.responses.suite import suite_roles

    scores = run_scores(irts, responses, config.score)
    roles = suite_roles({name: responses[name] for name in irts})
    real = sorted(set(roles.index[roles == "real"]) & set(scores["classifier"]))
    other = "test_accuracy" if config.score != "test_accuracy" else "true_score"
    rated = set(scores["classifier"])
    rows = {name: responses[name].responses.loc[lambda frame: frame.index.astype(str).isin(rated)]
            for name in sorted(irts)}
    result = rate(scores, config=config, other_scores={other: run_scores(irts, responses, other)}, compare=real or None,
                  rows=rows, roles={name: str(role) for name, role in roles.items() if name in rated})
    if config.score == "cv_accuracy":
        result.notes.append("cv_accuracy exists for the real classifiers only: the artificial ones are not rated")
    return result


def plan(context: StageContext) -> SuiteWork | Unavailable:
    """The ratings over every dataset with an IRT result, keyed by the IRT and response keys."""
    irts = context.upstream("irt")
    if not irts:
        return Unavailable("no dataset has an IRT result (run the respond and irt stages)")
    stored = context.upstream("respond")
    responses = {name: stored[name] for name in irts if name in stored}
    config = context.config.stage_config("rate")
    return SuiteWork(context.options, {"irt": irts, "respond": responses}, rate_suite,
                     lambda: (context.load("irt", irts), context.load("respond", responses), config))

"""The stage functions the pipeline runs: thin adapters from stored inputs to the stages' public calls.

Per-dataset functions (:func:`respond_dataset`, :func:`irt_dataset`) run on workers, so they are
module-level and take only picklable arguments. Suite-wide functions take the per-dataset results
the driver read back from the store. None of them knows about files: that is :mod:`runner`'s job.
"""
from __future__ import annotations

from typing import Mapping

import pandas as pd

from benchirt.errors import ConfigError, DataError


def respond_dataset(spec, config, show_progress=False, progress_file=None):
    """Load one suite member and produce its responses (``benchirt.responses.respond``).

    Parameters
    ----------
    spec : benchirt.data.DatasetSpec
    config : benchirt.responses.ResponseConfig
    show_progress : bool
        A bar over the dataset's (classifier, fit) pairs (the pipeline asks for it when the fits run
        in its own process, where the bar can be drawn under the stage's).
    progress_file : str, optional
        Where a worker process writes the same progress for the driver (:mod:`benchirt.pipeline.progress`).

    Raises
    ------
    DataError
        The dataset cannot be read or cannot yield responses (the run records it as skipped).
    """
    from benchirt.responses import respond

    from benchirt.pipeline.progress import progress_writer

    on_progress = progress_writer(progress_file) if progress_file else None
    return respond(spec.load(), config, show_progress=show_progress, on_progress=on_progress)


def imported_dataset(result):
    """The responses of one dataset imported from stored runs (:mod:`benchirt.runs`), already computed."""
    return result


def prepare_responses(spec, config):
    """Load one suite member and plan its response fits (``benchirt.responses.units.prepare``).

    The first task of a dataset when the response stage runs as (dataset, fit) tasks
    (:mod:`benchirt.pipeline.fits`).

    Raises
    ------
    DataError
        The dataset cannot be read or cannot yield responses (the run records it as skipped).
    """
    from benchirt.responses.units import prepare

    return prepare(spec.load(), config)


def irt_dataset(result, config):
    """Fit the IRT model of one dataset's responses (``benchirt.irt.irt_for_responses``)."""
    from benchirt.irt import irt_for_responses

    return irt_for_responses(result, config)


def accuracy_scores(responses: Mapping[str, object], roles=("real", "artificial")) -> pd.DataFrame:
    """Long ``dataset, classifier, score`` table of test accuracies (a second score for the tests)."""
    rows = []
    for name, result in responses.items():
        keep = result.roles.index[result.roles.isin(roles)]
        accuracy = result.test_accuracy.reindex(keep).dropna()
        rows.append(pd.DataFrame({"dataset": name, "classifier": accuracy.index.astype(str), "score": accuracy.to_numpy()}))
    if not rows:
        raise DataError("no dataset has responses; nothing to rate")
    return pd.concat(rows, ignore_index=True)


def suite_roles(responses: Mapping[str, object]) -> pd.Series:
    """Classifier -> role over every dataset (a classifier keeps the role its responses give it)."""
    roles = pd.concat([result.roles for result in responses.values()])
    return roles[~roles.index.duplicated()].rename("role")


def suite_metadata(responses: Mapping[str, object]) -> pd.DataFrame:
    """One row per dataset of :meth:`benchirt.data.Dataset.metadata` (index ``dataset``)."""
    return pd.DataFrame({name: result.metadata for name, result in responses.items()}).T.rename_axis("dataset")


#: The scores a run has for every (dataset, classifier), any of which can decide the ratings (``rating.score``).
RUN_SCORES = ("true_score", "theta", "test_accuracy", "cv_accuracy")


def run_scores(irts: Mapping[str, object], responses: Mapping[str, object], score: str) -> pd.DataFrame:
    """Long ``dataset, classifier, score`` table of one of the run's :data:`RUN_SCORES`.

    ``true_score`` and ``theta`` come from the IRT abilities, ``test_accuracy`` and ``cv_accuracy``
    from the responses, for the real and artificial classifiers (``cv_accuracy`` exists for the real
    ones only: the artificial classifiers are not cross-validated).

    Raises
    ------
    ConfigError
        For a name outside :data:`RUN_SCORES`, listing them.
    """
    if score not in RUN_SCORES:
        raise ConfigError(f"rating.score {score!r} is not a score of a run; choose one of {', '.join(RUN_SCORES)}")
    names = sorted(irts)
    if score in ("true_score", "theta"):
        rows = []
        for name in names:
            table = irts[name].abilities
            table = table[table["role"].isin(("real", "artificial"))]
            rows.append(pd.DataFrame({"dataset": name, "classifier": table["respondent"].astype(str),
                                      "score": table[score].to_numpy()}))
        return pd.concat(rows, ignore_index=True)
    if score == "test_accuracy":
        return accuracy_scores({name: responses[name] for name in names})
    rows = [pd.DataFrame({"dataset": name, "classifier": responses[name].cv_accuracy.index.astype(str),
                          "score": responses[name].cv_accuracy.to_numpy()}) for name in names]
    return pd.concat(rows, ignore_index=True).dropna(subset=["score"])


def rate_suite(irts: Mapping[str, object], responses: Mapping[str, object], config):
    """Glicko-2 tournament, leaderboard, order permutations and tests over the suite (Cardoso et al. 2021 §4.7, §5.3).

    ``config.score`` (True-Score by default) of the real and artificial classifiers decides the matches;
    the Friedman/Nemenyi tests compare the real classifiers (as Cardoso et al. 2021 §5.3 does), on that score and on
    True-Score or test accuracy beside it.
    """
    from benchirt.rating import rate

    scores = run_scores(irts, responses, config.score)
    roles = suite_roles({name: responses[name] for name in irts})
    real = sorted(set(roles.index[roles == "real"]) & set(scores["classifier"]))
    other = "test_accuracy" if config.score != "test_accuracy" else "true_score"
    result = rate(scores, config, other_scores={other: run_scores(irts, responses, other)}, compare=real or None)
    if config.score == "cv_accuracy":
        result.notes.append("cv_accuracy exists for the real classifiers only: the artificial ones are not rated")
    return result


def subset_suite(irts: Mapping[str, object], responses: Mapping[str, object], config, rating_config):
    """Build the IRT-filtered subsets and measure each against the full suite (Cardoso et al. 2021 §4.6, §5.4-5.6).

    The subsets are rated with the run's ``rating.score``, as the full suite is.
    """
    from benchirt.irt import summaries_frame
    from benchirt.subsets import build_subsets, evaluate_subsets

    summaries = summaries_frame([irts[name] for name in sorted(irts)])
    subsets = build_subsets(summaries, cuts=config.cuts, rule=config.rule)
    scores = run_scores(irts, responses, rating_config.score)
    used = {name: responses[name] for name in irts}
    return evaluate_subsets(subsets, scores, summaries, suite_metadata(used), suite_roles(used), config, rating_config)


def airt_from_accuracy(responses: Mapping[str, object], config, which: str = "test"):
    """AIRT (Kandanaarachchi & Smith-Miles 2023) on the datasets × real classifiers accuracy matrix of the run."""
    from benchirt.airt import fit_airt
    from benchirt.responses import accuracy_matrix

    perf = accuracy_matrix([responses[name] for name in sorted(responses)], role="real", which=which)
    return fit_airt(perf, config)


def airt_from_aslib(directory: str, config):
    """AIRT (Kandanaarachchi & Smith-Miles 2023 §5.2) on an ASlib scenario's performance, mapped to higher-is-better in [0, 1]."""
    from benchirt.airt import fit_airt
    from benchirt.airt.aslib import load_aslib

    return fit_airt(load_aslib(directory).performance, config)

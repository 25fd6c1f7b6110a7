"""The stage functions the pipeline runs: thin adapters from stored inputs to the stages' public calls.

Per-dataset functions (:func:`respond_dataset`, :func:`irt_dataset`) run on workers, so they are
module-level and take only picklable arguments. Suite-wide functions take the per-dataset results
the driver read back from the store. None of them knows about files: that is :mod:`runner`'s job.
"""
from __future__ import annotations

from typing import Mapping

import pandas as pd

from benchirt.errors import DataError


def respond_dataset(spec, config):
    """Load one suite member and produce its responses (``benchirt.responses.respond``).

    Parameters
    ----------
    spec : benchirt.data.DatasetSpec
    config : benchirt.responses.ResponseConfig

    Raises
    ------
    DataError
        The dataset cannot be read or cannot yield responses (the run records it as skipped).
    """
    from benchirt.responses import respond

    return respond(spec.load(), config)


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


def rate_suite(irts: Mapping[str, object], responses: Mapping[str, object], config):
    """Glicko-2 tournament, order permutations and Friedman/Nemenyi over the suite (seed 003 §4.7, §5.3).

    The True-Scores of the real and artificial classifiers decide the matches; the tests compare the
    real classifiers (as seed 003 §5.3 does), on True-Score and on test accuracy.
    """
    from benchirt.irt import true_score_table
    from benchirt.rating import rate

    scores = true_score_table([irts[name] for name in sorted(irts)], roles=("real", "artificial"))
    roles = suite_roles({name: responses[name] for name in irts})
    real = sorted(set(roles.index[roles == "real"]) & set(scores["classifier"]))
    accuracy = accuracy_scores({name: responses[name] for name in irts})
    return rate(scores, config, other_scores={"test_accuracy": accuracy}, compare=real or None)


def subset_suite(irts: Mapping[str, object], responses: Mapping[str, object], config, rating_config):
    """Build the IRT-filtered subsets and measure each against the full suite (seed 003 §4.6, §5.4-5.6)."""
    from benchirt.irt import summaries_frame, true_score_table
    from benchirt.subsets import build_subsets, evaluate_subsets

    summaries = summaries_frame([irts[name] for name in sorted(irts)])
    subsets = build_subsets(summaries, cuts=config.cuts, rule=config.rule)
    scores = true_score_table([irts[name] for name in sorted(irts)], roles=("real", "artificial"))
    used = {name: responses[name] for name in irts}
    return evaluate_subsets(subsets, scores, summaries, suite_metadata(used), suite_roles(used), config, rating_config)


def airt_from_accuracy(responses: Mapping[str, object], config, which: str = "test"):
    """AIRT (seed 000) on the datasets × real classifiers accuracy matrix of the run."""
    from benchirt.airt import fit_airt
    from benchirt.responses import accuracy_matrix

    perf = accuracy_matrix([responses[name] for name in sorted(responses)], role="real", which=which)
    return fit_airt(perf, config)


def airt_from_aslib(directory: str, config):
    """AIRT (seed 000 §5.2) on an ASlib scenario's performance, mapped to higher-is-better in [0, 1]."""
    from benchirt.airt import fit_airt
    from benchirt.airt.aslib import load_aslib

    return fit_airt(load_aslib(directory).performance, config)

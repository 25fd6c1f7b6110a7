"""Codes the results carry as values (flags, roles, score names), as a reader says them.

Names of classifiers and datasets are data and are never translated; only the exact codes below are. A long name
may be shortened for the screen (:func:`short_name`), its full text kept wherever it is stored.
"""
from __future__ import annotations

#: Code -> words.
HUMAN_VALUES = {
    "negative_discrimination": "negative discrimination", "all_wrong": "all answers wrong",
    "all_correct": "all answers right", "right_not_ablest": "right answers not from the ablest",
    "at_bound": "at bound", "true_score": "True-Score", "test_accuracy": "test accuracy",
    "cv_accuracy": "cross-validated accuracy", "not_converged": "not converged",
}


def human_value(value):
    """The reader's form of a code (:data:`HUMAN_VALUES`); anything else unchanged."""
    return HUMAN_VALUES.get(value, value) if isinstance(value, str) else value


#: Longest respondent name shown whole in the report's tables and the console (longer ones: :func:`short_name`).
NAME_CHARS = 44


def short_name(name: str, *, limit: int = NAME_CHARS) -> str:
    """``name`` cut in the middle to at most ``limit`` characters: its first third and its end, where a pipeline's
    estimator and a flow's setup and run are; shorter names as they are.

    >>> short_name("sklearn.pipeline.Pipeline(imputation=SimpleImputer,estimator=RandomForestClassifier)(2)", limit=30)
    'sklearn.pi…orestClassifier)(2)'
    """
    if len(name) <= limit:
        return name
    head = limit // 3
    return name[:head] + "…" + name[len(name) - (limit - 1 - head):]

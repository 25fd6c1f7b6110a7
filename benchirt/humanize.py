"""Codes the results carry as values (flags, roles, score names), as a reader says them.

Names of classifiers and datasets are data and are never translated; only the exact codes below are.
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

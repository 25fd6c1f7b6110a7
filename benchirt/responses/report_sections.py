"""The response stage's size-policy section of the report: what each dataset was trained and cross-validated on, and
what the time budget left out (``ResponseResult.sizes``, ``docs/scale.md``); named by
:attr:`benchirt.pipeline.registry.Stage.sections`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from benchirt.document.context import SectionContext
from benchirt.document.page import Paragraph, Section, Table

if TYPE_CHECKING:
    from benchirt.responses.stage import ResponseResult


def size_policy(responses: Mapping[str, ResponseResult], context: SectionContext) -> Section | None:
    """One row per dataset whose training part was capped or whose classifiers the time budget left out; absent when the
    run set no cap and no budget and no dataset was reduced."""
    rows = []
    policy = {}
    for name, result in sorted(responses.items()):
        sizes = getattr(result, "sizes", None) or {}
        if not sizes:
            continue
        policy = {key: sizes.get(key) for key in ("max_train", "max_cv_train", "time_budget")}
        row = _reduced_row(name, sizes)
        if row is not None:
            rows.append(row)
    if not rows and not any(value is not None for value in policy.values()):
        return None
    section = Section("size-policy", "Size policy")
    section.add(Paragraph(_policy_sentence(policy) + (f"{len(rows)} dataset(s) were reduced; the others used the "
                                                      "full protocol." if rows else "No dataset needed a reduction.")))
    if rows:
        section.add(Table(pd.DataFrame(rows), "Datasets trained on a stratified subsample, or whose classifiers the "
                          "time budget left out."))
    return section


def _reduced_row(name: str, sizes: dict) -> dict | None:
    """The table's row of a dataset trained on a subsample or with classifiers left out by the time budget (None: the
    full protocol)."""
    reduced = sizes["train_used"] < sizes["train_rows"] or sizes["cv_rows"] < sizes["train_used"]
    skipped = sizes.get("skipped_classifiers") or {}
    if not (reduced or skipped):
        return None
    return {"dataset": name, "rows": sizes["rows"], "test_items": sizes["test_rows"],
            "training_rows": sizes["train_rows"], "trained_on": sizes["train_used"],
            "cross_validated_on": sizes["cv_rows"], "skipped_by_time_budget": ", ".join(sorted(skipped)) or "-"}


def _policy_sentence(policy: dict) -> str:
    """The caps and the time budget the run set, in words."""
    budget = policy.get("time_budget")
    return (f"Training part capped at {policy.get('max_train') or 'no cap'} rows, cross-validation at "
            f"{policy.get('max_cv_train') or 'no cap'} rows (stratified subsamples); time budget per classifier and "
            f"dataset: {str(budget) + ' s' if budget else 'none'}. ")

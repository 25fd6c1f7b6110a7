"""The report's size-policy section: what each dataset was trained and cross-validated on, and what the
time budget left out (``ResponseResult.sizes``, see ``docs/scale.md``)."""
from __future__ import annotations

import pandas as pd

from benchirt.report.config import ReportConfig
from benchirt.report.document import Paragraph, Section, Table


def size_policy(results, config: ReportConfig) -> Section | None:
    """One row per dataset whose training part was capped or whose classifiers the time budget left out.

    Absent when the run set no cap and no budget and no dataset was reduced.
    """
    rows = []
    policy = {}
    for name, result in sorted(results.respond.items()):
        sizes = getattr(result, "sizes", None) or {}
        if not sizes:
            continue
        policy = {key: sizes.get(key) for key in ("max_train", "max_cv_train", "time_budget")}
        reduced = sizes["train_used"] < sizes["train_rows"] or sizes["cv_rows"] < sizes["train_used"]
        skipped = sizes.get("skipped_classifiers") or {}
        if reduced or skipped:
            rows.append({"dataset": name, "rows": sizes["rows"], "test_items": sizes["test_rows"],
                         "training_rows": sizes["train_rows"], "trained_on": sizes["train_used"],
                         "cross_validated_on": sizes["cv_rows"],
                         "skipped_by_time_budget": ", ".join(sorted(skipped)) or "-"})
    if not rows and not any(value is not None for value in policy.values()):
        return None
    section = Section("size-policy", "Size policy")
    section.add(Paragraph(
        f"Training part capped at {policy.get('max_train') or 'no cap'} rows, cross-validation at "
        f"{policy.get('max_cv_train') or 'no cap'} rows (stratified subsamples); time budget per classifier and "
        f"dataset: {str(policy.get('time_budget')) + ' s' if policy.get('time_budget') else 'none'}. "
        + (f"{len(rows)} dataset(s) were reduced; the others used the full protocol."
           if rows else "No dataset needed a reduction.")))
    if rows:
        section.add(Table(pd.DataFrame(rows), "Datasets trained on a stratified subsample, or whose classifiers the "
                          "time budget left out."))
    return section

"""The size-policy section of the report: the caps and the time budget as applied per dataset."""
from __future__ import annotations

from types import SimpleNamespace

from benchirt.document.context import SectionContext
from benchirt.responses.report_sections import size_policy


def _sizes(rows, train_used, cv_rows, skipped=None, max_train=10000, max_cv_train=5000, budget=600):
    test = min(500, rows * 3 // 10)
    return SimpleNamespace(sizes={"rows": rows, "test_rows": test, "train_rows": rows - test, "train_used": train_used,
                                  "cv_rows": cv_rows, "max_train": max_train, "max_cv_train": max_cv_train,
                                  "time_budget": budget, "skipped_classifiers": skipped or {}})


def test_lists_only_the_reduced_datasets_with_the_policy():
    responses = {
        "small": _sizes(1000, 700, 700),
        "mnist": _sizes(70000, 10000, 5000),
        "mid": _sizes(8000, 7500, 5000, skipped={"svc": "time budget: ..."}),
    }
    section = size_policy(responses, SectionContext(None))
    text, table = section.blocks[0].text, section.blocks[1].frame
    assert "capped at 10000 rows, cross-validation at 5000" in text and "600 s" in text
    assert "2 dataset(s) were reduced" in text
    assert table["dataset"].tolist() == ["mid", "mnist"]
    assert table.set_index("dataset").loc["mid", "skipped_by_time_budget"] == "svc"
    assert table.set_index("dataset").loc["mnist", "trained_on"] == 10000


def test_absent_without_policy_or_reduction():
    responses = {"small": _sizes(1000, 700, 700, max_train=None, max_cv_train=None, budget=None)}
    assert size_policy(responses, SectionContext(None)) is None

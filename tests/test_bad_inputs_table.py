"""docs/bad-inputs.md stays true: every test it names exists, and every case of ../shared/docs/BAD_INPUTS.md has a row."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "bad-inputs.md"


def _named_tests() -> list[tuple[str, str]]:
    return re.findall(r"`(tests/test_\w+\.py)::(test_\w+)`", TABLE.read_text(encoding="utf-8"))


def test_every_test_the_table_names_exists():
    named = _named_tests()
    assert len(named) >= 60
    missing = [f"{file}::{name}" for file, name in named
               if not re.search(rf"^def {name}\(", (ROOT / file).read_text(encoding="utf-8"), re.MULTILINE)]
    assert missing == []


def test_every_case_of_bad_inputs_md_has_a_row(shared_data):
    cases_file = shared_data.parent / "docs" / "BAD_INPUTS.md"
    if not cases_file.is_file():
        pytest.skip(f"{cases_file} not found")
    table = TABLE.read_text(encoding="utf-8")
    cases = [line[2:].strip() for line in cases_file.read_text(encoding="utf-8").splitlines() if line.startswith("- ")]
    assert len(cases) >= 18
    assert [case for case in cases if case[:60] not in table] == []

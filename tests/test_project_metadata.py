"""The project's declared metadata matches its files: the licence in pyproject.toml and LICENSE."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_file_matches_the_declared_licence():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]["text"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert declared == "BSD-3-Clause" and text.startswith("BSD 3-Clause License\n")
    assert "Copyright (c) 2026, benchirt developers" in text
    # the three clauses: source, binary, no endorsement
    assert text.count("\n1. ") == text.count("\n2. ") == text.count("\n3. ") == 1
    assert "Neither the name of the copyright holder" in text

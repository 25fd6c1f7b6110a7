"""README.md states no measurement that docs/benchmarks.md lacks, and every block there names a real command.

The rules are those of ``benchmarks/documented_numbers.py`` (stdlib only: the check reads two Markdown files and
parses the benchmark scripts' source, running nothing). The checker itself is tested on small hand-written
documents, so that each rule is seen to fail when broken.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import documented_numbers as documented  # noqa: E402  (a script of benchmarks/, not a package)

#: The front page's limit (issue 35: 12 KB, 3-12x the size of comparable projects' READMEs at most).
README_LIMIT_BYTES = 12 * 1024


def test_the_project_documents_hold():
    found = documented.problems()
    assert found == [], "\n".join(found)


def test_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) <= README_LIMIT_BYTES
    # CI (.ci/run) installs and tests exactly as these two lines say; they open the README.
    first_block = text.split("```")[1]
    assert 'pip install -e ".[dev]" && benchirt run' in first_block
    assert 'pip install -e ".[dev]" && python -m pytest -q' in first_block
    for section in ("## In Python", "## On the command line", "## Commands", "## How to cite", "## Licence"):
        assert section in text
    assert "BSD-3-Clause" in text and "BSD 3-Clause" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_readme_lists_every_command_once():
    from benchirt.cli import COMMANDS

    rows = re.findall(r"^\| `benchirt ([\w-]+)", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert sorted(rows) == sorted(COMMANDS)


def test_numbers_are_found_as_written():
    assert documented.numbers("1st to 11th, 31-62 points, 1,055 MiB, 0.2–1.1 s") == \
        ["1", "11", "31", "62", "1055", "0.2", "1.1"]
    # names, code spans and comments carry no stated number
    assert documented.numbers("3PL python3 x86_64 Glicko-2 `--part 5` <!-- 7 -->") == []


def _write(tmp_path: Path, readme: str, doc: str) -> tuple[Path, Path, Path]:
    scripts = tmp_path / "benchmarks"
    scripts.mkdir()
    (scripts / "fit.py").write_text(
        'PARTS = ("cost", "size")\n'
        'parser.add_argument("--part", choices=(*PARTS, "all"))\n'
        'parser.add_argument("--jobs", type=int)\n')
    (scripts / "plain.py").write_text('if sys.argv[1:2] == ["--quick"]:\n    pass\n')
    (tmp_path / "README.md").write_text(readme)
    (tmp_path / "benchmarks.md").write_text(doc)
    return tmp_path / "README.md", tmp_path / "benchmarks.md", scripts


GOOD_DOC = """# Measurements

Prose without numbers.

<!-- benchmark: python benchmarks/fit.py --part cost --jobs 2 -->
It takes 0.75× the CPU, 5.0 units above, on 62 pools.
<!-- /benchmark -->

<!-- benchmark: python benchmarks/plain.py --quick -->
About 3 s.
<!-- /benchmark -->
"""


def test_a_consistent_pair_passes(tmp_path):
    readme = ("A fit costs 0.75× the CPU (`python benchmarks/fit.py --part cost --jobs 2`).\n\n"
              "It runs in about 3 s.\n\n"
              "<!-- example output -->\n```console\n$ benchirt irt x.csv\nconverged in 92 EM steps (1.06 s)\n```\n")
    assert documented.problems(*_write(tmp_path, readme, GOOD_DOC)) == []


@pytest.mark.parametrize("readme, expected", [
    ("It costs 0.8× the CPU.\n", "README.md line 1: 0.8 not in benchmarks.md"),
    # the number exists, but not in the block of the command named beside it
    ("About 3 s (`python benchmarks/fit.py --part cost --jobs 2`).\n",
     "README.md line 1: 3 not in the block(s) of `python benchmarks/fit.py --part cost --jobs 2`"),
    ("See `python benchmarks/plain.py`.\n",
     "README.md line 1: `python benchmarks/plain.py` has no block in benchmarks.md"),
    # an output block without the example-output marker is checked like prose
    ("```console\nconverged in 92 EM steps\n```\n", "README.md line 2: 92 not in benchmarks.md"),
    ("| command | time |\n|---|---|\n| run | 7.6 min |\n", "README.md line 3: 7.6 not in benchmarks.md"),
])
def test_a_readme_number_without_its_measurement_is_named(tmp_path, readme, expected):
    assert documented.problems(*_write(tmp_path, readme, GOOD_DOC)) == [expected]


@pytest.mark.parametrize("doc, expected", [
    ("<!-- benchmark: python benchmarks/fit.py --part speed -->\n1 s\n<!-- /benchmark -->\n",
     "benchmarks.md line 1: `python benchmarks/fit.py --part speed`: --part 'speed' is not one of "
     "benchmarks/fit.py's parts ['all', 'cost', 'size']"),
    ("<!-- benchmark: python benchmarks/fit.py --limit 3 -->\n1 s\n<!-- /benchmark -->\n",
     "benchmarks.md line 1: `python benchmarks/fit.py --limit 3`: benchmarks/fit.py has no option --limit"),
    ("<!-- benchmark: python benchmarks/gone.py -->\n1 s\n<!-- /benchmark -->\n",
     "benchmarks.md line 1: `python benchmarks/gone.py`: benchmarks/gone.py does not exist"),
    ("<!-- benchmark: benchirt run -->\n1 s\n<!-- /benchmark -->\n",
     "benchmarks.md line 1: `benchirt run` does not run a script of benchmarks/ "
     "(expected `python benchmarks/SCRIPT.py ...`)"),
    ("<!-- benchmark: python benchmarks/plain.py --quick -->\nfast\n<!-- /benchmark -->\n",
     "benchmarks.md line 1: the block of `python benchmarks/plain.py --quick` states no number"),
    ("It took 14 min.\n", "benchmarks.md: numbers outside any benchmark block: 14"),
    ("<!-- benchmark: python benchmarks/plain.py --quick -->\n1 s\n",
     "benchmarks.md line 1: the block of `python benchmarks/plain.py --quick` is never closed"),
])
def test_a_broken_benchmark_block_is_named(tmp_path, doc, expected):
    assert documented.problems(*_write(tmp_path, "No numbers here.\n", doc)) == [expected]


def test_a_block_is_compared_with_a_saved_output_to_its_rounding():
    block = "ltm's median discrimination is ≈ 394; the sd is 31-62 points; 0.75× the CPU"
    output = "recomputed: 394.4\nrecomputed: 30.8-61.5\nratio 0.754\n    prose:      0.75×\n"
    assert documented.unmatched_numbers(block, output) == []
    # the output's own restatement of the docs ("prose:") is no evidence: without the ratio 0.75 is unmatched
    assert documented.unmatched_numbers(block, output.replace("ratio 0.754", "ratio 0.77")) == ["0.75"]

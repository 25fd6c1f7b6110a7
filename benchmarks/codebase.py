"""The codebase's numbers at two git revisions side by side (issue 35, "Show: the numbers before and after").

For each revision (its ``benchirt/`` and ``README.md`` extracted with ``git archive``): lines of Python per
package and in all, the five largest modules, ``raise ConfigError`` sites outside ``benchirt/options.py``,
manifest string-key reads outside ``benchirt/pipeline/manifest.py`` (``manifest[`` and ``manifest.get(``),
private names of the IRT estimator reached from tests (``from benchirt.irt.<module> import _name`` and
``<module>._name``), functions above cyclomatic complexity 15 (the count of ``tests/test_code_complexity.py``)
and the README's size in bytes. mypy's error count is CI's (``.ci/run`` runs it and fails on any).

    python benchmarks/codebase.py [--before 9204efd] [--after HEAD]
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import re
import subprocess
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def complexity_of():
    """The complexity function of tests/test_code_complexity.py (one definition of the count)."""
    spec = importlib.util.spec_from_file_location("code_complexity", ROOT / "tests" / "test_code_complexity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._complexity


def extract(rev: str, into: Path) -> Path:
    """``benchirt/``, ``tests/`` and ``README.md`` of ``rev`` under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "benchirt", "tests", "README.md"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def numbers(tree: Path, complexity) -> dict:
    package = tree / "benchirt"
    lines, per_package, over, raises, manifest_reads = {}, Counter(), 0, 0, 0
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        text = path.read_text(encoding="utf-8")
        count = text.count("\n")
        lines[relative] = count
        per_package[relative.split("/")[0] if "/" in relative else "(top level)"] += count
        if relative != "options.py":
            raises += len(re.findall(r"raise ConfigError", text))
        if relative != "pipeline/manifest.py":
            manifest_reads += len(re.findall(r"\bmanifest(?:\[|\.get\()", text))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and complexity(node) > 15:
                over += 1
    private = 0
    for path in (tree / "tests").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        private += len(re.findall(r"from benchirt\.irt\.\w+ import \(?[^)\n]*\b_[a-z]\w*", text))
        private += len(re.findall(r"\b(?:estimation|em|mstep|estep|climb|multistart|recombine)\._[a-z]\w*", text))
    return {"lines": sum(lines.values()), "per_package": per_package,
            "largest": sorted(lines.items(), key=lambda item: -item[1])[:5], "over_15": over,
            "config_error_raises": raises, "manifest_string_reads": manifest_reads,
            "private_irt_names_in_tests": private, "readme_bytes": (tree / "README.md").stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="9204efd")
    parser.add_argument("--after", default="HEAD")
    args = parser.parse_args()
    complexity = complexity_of()
    with tempfile.TemporaryDirectory() as tmp:
        result = {rev: numbers(extract(rev, Path(tmp) / rev), complexity) for rev in (args.before, args.after)}
    before, after = result[args.before], result[args.after]
    print(f"{'':34s} {args.before:>12s} {args.after:>12s}")
    for key in ("lines", "over_15", "config_error_raises", "manifest_string_reads", "private_irt_names_in_tests",
                "readme_bytes"):
        print(f"{key:34s} {before[key]:12d} {after[key]:12d}")
    print("\nlines per package")
    for name in sorted(set(before["per_package"]) | set(after["per_package"])):
        print(f"  {name:32s} {before['per_package'].get(name, 0):12d} {after['per_package'].get(name, 0):12d}")
    for rev in (args.before, args.after):
        print(f"\nlargest modules at {rev}: " + ", ".join(f"{name} {n}" for name, n in result[rev]["largest"]))


if __name__ == "__main__":
    main()

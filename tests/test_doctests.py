"""Run the numpydoc ``Examples`` blocks of the public entry points, and README.md's Python example, as doctests.

Each stage package's entry point carries a small example built from inline data (no network, no
``../shared``); this module runs them, and checks that every entry point listed below has an Examples
block with at least one example that was executed. README.md's example shows its real output, which is checked
here too (a fit's duration aside).
"""
import doctest
import importlib
import re
from pathlib import Path

import pytest

# module -> the entry points in it whose docstring carries a doctested Examples block
ENTRY_POINTS = {
    "benchirt.irt.estimation": ["fit_irt"],
    "benchirt.irt.scoring": ["score_frozen"],
    "benchirt.rating.stage": ["rate"],
    "benchirt.rating.leaderboard": ["leaderboard"],
    "benchirt.subsets.selection": ["build_subsets"],
    "benchirt.airt.analysis": ["fit_airt"],
    "benchirt.responses.stage": ["respond"],
    "benchirt.placement.design": ["plan_datasets"],
    "benchirt.placement.predict": ["predict_new"],
    "benchirt.stored_runs.predictions": ["read_predictions"],
    "benchirt.pipeline.config": ["load_config"],
    "benchirt.pipeline.registry": ["stage"],
    "benchirt.out_folder": ["claim_out"],
    "benchirt.pipeline.slurm": ["plan_jobs"],
    "benchirt.pipeline.slurm_options": ["walltime_seconds", "memory_bytes"],
}

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _tests(module_name: str) -> dict[str, doctest.DocTest]:
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return {test.name.rsplit(".", 1)[-1]: test for test in finder.find(module, module_name)}


@pytest.mark.parametrize("module_name", sorted(ENTRY_POINTS))
def test_examples_run(module_name):
    tests = _tests(module_name)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    for name in ENTRY_POINTS[module_name]:
        test = tests.get(name)
        assert test is not None and test.examples, f"{module_name}.{name} has no doctest examples"
        assert "Examples\n" in test.docstring and "--------" in test.docstring, \
            f"{module_name}.{name}: the examples are not in a numpydoc Examples section"
        result = runner.run(test, clear_globs=True)
        assert result.attempted == len(test.examples) > 0
    summary = runner.summarize(verbose=False)
    assert summary.failed == 0, f"{summary.failed} doctest example(s) failed in {module_name} (output above)"


def test_every_stage_package_has_an_example():
    packages = {name.split(".")[1] for name in ENTRY_POINTS}
    assert packages >= {"irt", "rating", "subsets", "airt", "responses", "placement", "stored_runs", "pipeline"}


README = Path(__file__).resolve().parents[1] / "README.md"
#: A fit's duration as ``IRTFit.summary()`` prints it ("0.07s)"): the one part of the README's output that varies.
DURATION = re.compile(r"\d+\.\d+s\)")


class _AnyDuration(doctest.OutputChecker):
    def check_output(self, want, got, optionflags):
        return super().check_output(DURATION.sub("<duration>", want), DURATION.sub("<duration>", got), optionflags)


def test_readme_python_example():
    """README.md's ``python`` block runs and prints what the README shows (refresh it when this fails)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 1 and ">>> " in blocks[0]
    test = doctest.DocTestParser().get_doctest(blocks[0], {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(checker=_AnyDuration(), optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, clear_globs=True)
    assert result.attempted == len(test.examples) > 5
    assert result.failed == 0, "README.md's Python example no longer prints what the README shows (output above)"

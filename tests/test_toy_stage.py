"""Adding a stage: a toy stage (:mod:`toy_stage`) registered in a test runs through the engine unchanged, and the
tests derived from the registry check it without an edit and break nowhere.

The toy is one record plus its own module (config with declared options, result, plan, command); the
engine, the config loader, the store and ``load_run`` take it from the registry. The registry-derived
tests are run with it registered: their checks of one stage called here on the toy (cheap, in the
default suite), and the whole files under ``BENCHIRT_TEST_TOY_STAGE=1`` (``-m slow``).
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
import test_option_constraints
import test_stage_conformance
import toy_stage

from benchirt.errors import ConfigError
from benchirt.pipeline import registry
from benchirt.pipeline.config import load_config, select_stages
from benchirt.pipeline.results import load_run
from benchirt.pipeline.run import run_pipeline
from benchirt.report import build_report

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy(monkeypatch):
    toy_stage.install(monkeypatch)
    return registry.stage("toy")


def test_the_registry_and_the_config_loader_take_the_toy_from_its_record(toy):
    assert toy is toy_stage.TOY and registry.STAGES[-1] == "toy" and registry.canonical("toys") == "toy"
    config = load_config({"toys": {"n": 5}, "stages": ["toys", "irt"]})
    assert config.stages == ("irt", "toy") and config.stage_config("toy") == toy_stage.ToyConfig(n=5)
    assert "section: 'toys' is the former name of the 'toy' stage; read as 'toy'" in config.notes
    assert select_stages(["toy", "respond"], skip=["toys"]) == ("respond",)
    with pytest.raises(ConfigError, match=r"^<dict>: section 'toy': toy\.mode: got 'mean', expected one of sum, max$"):
        load_config({"toy": {"mode": "mean"}})


def test_the_engine_runs_the_toy_stores_it_and_reuses_it(toy, tmp_path):
    options = {"suite": "builtin:iris", "stages": ["toy"], "toy": {"n": 4, "squared": True, "offset": [0.5]}}
    first = run_pipeline(load_config(options), out=tmp_path / "run", show_progress=False)
    assert first.exit_code == 0 and first.manifest.stages["toy"]["computed"] == 1
    result = load_run(first.run_dir).toy
    assert isinstance(result, toy_stage.ToyResult) and result.value == 1 + 4 + 9 + 16 + 0.5  # hand-computed
    again = run_pipeline(load_config(options), out=tmp_path / "run", show_progress=False)
    assert again.manifest.stages["toy"]["reused"] == 1  # same options: same key
    changed = run_pipeline(load_config({**options, "toy": {"n": 4, "mode": "max"}}), out=tmp_path / "run",
                           show_progress=False)
    assert changed.manifest.stages["toy"]["computed"] == 1 and load_run(changed.run_dir).toy.value == 4.0


def test_the_toy_shows_its_section_in_the_report_from_its_record_alone(toy, tmp_path):
    """The record's ``sections`` is all a stage needs to show in the report: nothing under benchirt/report names the
    toy; its section follows the report's own sections (it is not in the page order), in both renderings."""
    assert not [path for path in (ROOT / "benchirt" / "report").rglob("*.py") if "toy" in path.read_text(encoding="utf-8")]
    options = {"suite": "builtin:iris", "stages": ["toy"], "toy": {"n": 3}}
    outcome = run_pipeline(load_config(options), out=tmp_path / "run", show_progress=False)
    paths = build_report(outcome.run_dir)
    markdown, page = paths["markdown"].read_text(encoding="utf-8"), paths["html"].read_text(encoding="utf-8")
    assert markdown.index("## Conclusions") < markdown.index("## Run overview") < markdown.index("## Toy stage")
    assert "toy: 6 from 3 terms" in markdown and "The toy's terms." in markdown   # 1 + 2 + 3, its own summary
    assert '<section id="toy"><h2>Toy stage</h2>' in page and page.index('id="overview"') < page.index('id="toy"')


def test_the_registry_derived_checks_accept_the_toy(toy):
    """The one-stage checks of the conformance suite and the generated option cases, called on the toy."""
    test_stage_conformance.test_config_round_trips_through_its_section(toy)
    test_stage_conformance.test_unknown_key_message_is_pinned(toy)
    test_stage_conformance.test_one_name_for_section_cli_and_results(toy)
    test_stage_conformance.test_report_sections_take_the_result_and_a_context(toy)
    cases = test_option_constraints.stage_cases([toy])
    assert {case.key for case in cases} == set(toy_stage.ToyConfig.OPTIONS)
    messages = [test_option_constraints.check_case(case) for case in cases]
    assert "<dict>: section 'toy': toy.scale: got 11, expected a number in (0, 10]" in messages
    assert "<dict>: section 'toy': toy.n: got 0, expected an integer >= 1" in messages
    assert "<dict>: section 'toy': toy.offset: got [6], expected a non-empty list of numbers, each in [-5, 5]" \
        in messages


@pytest.mark.slow
def test_no_registry_derived_test_breaks_when_a_stage_is_added():
    """The test files that read the registry pass whole with the toy registered (about half a minute). Left out: the
    `--help` of every command in a fresh interpreter, which does not see a stage registered by a test."""
    files = ["tests/test_pipeline_config.py", "tests/test_option_constraints.py", "tests/test_stage_conformance.py",
             "tests/test_cli.py"]
    fresh = "tests/test_cli.py::test_every_sub_command_help_imports_only_argparse_and_the_options_layer"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN", *files,
                           "--deselect", fresh],
                          cwd=ROOT, env={**os.environ, "BENCHIRT_TEST_TOY_STAGE": "1"}, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
    fields = sum(len(dataclasses.fields(registry.resolve(stage.config))) for stage in registry.REGISTRY)
    fields += len(dataclasses.fields(toy_stage.ToyConfig))  # the toy's options are generated and checked too
    assert f"{fields} of {fields} stage config fields ({len(registry.REGISTRY) + 1} stages)" in done.stdout

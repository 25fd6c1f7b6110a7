"""Every registered stage honours the stage contract (as scikit-learn's ``check_estimator`` does for estimators).

Parametrised over :data:`benchirt.pipeline.registry.REGISTRY`, so a new stage is checked without a new
test: its config round-trips and refuses unknown keys with the pinned message; its one name is its
config section, artifact folder, results attribute and CLI verb; a small run stores a result of a
registered type that reads back; its declared code covers what it imports (function-level imports
included); identical inputs give identical keys, and a config written with the former stage names
gives the same run.
"""
from __future__ import annotations

import dataclasses
import inspect
import json

import numpy as np
import pandas as pd
import pytest
import yaml

import import_graph
from benchirt import cli
from benchirt.errors import ConfigError
from benchirt.pipeline import artifact_types, fingerprint, registry
from benchirt.pipeline.config import load_config, stage_options
from benchirt.pipeline.results import load_run
from benchirt.pipeline.run import run_pipeline
from benchirt.results import StageResult

STAGES = registry.REGISTRY
COMPUTED = [stage for stage in STAGES if stage.scope != "document"]
N_DATASETS = 5

#: Small options of the stages that have slow defaults (any other stage runs with its defaults).
SMALL = {
    "respond": {"cv_folds": 2, "ladder_epochs": 0,
                "pool": ["gaussian_nb", "knn_3", "decision_tree", "bernoulli_nb", "knn_5"]},
    "irt": {"model": "1PL", "min_respondents": 5},
    "rate": {"n_permutations": 0, "n_bootstrap": 0},
    "subset": {"cuts": [50], "n_random": 2, "n_permutations": 0},
}


def _former(stage) -> str:
    """The stage's first former name (its name when it has none)."""
    return (*stage.aliases, stage.name)[0]


#: A small study of every computed stage of the registry, written with the former names (sections and stages)
#: where a stage has one: 5 datasets of 80 rows, 5 real classifiers, 1PL (AIRT needs 5 datasets, the subsets
#: 2). The report is left out (figures are slow).
FORMER = {
    "suite": "data/",
    "stages": [_former(stage) for stage in COMPUTED],
    **{_former(stage): SMALL[stage.name] for stage in COMPUTED if stage.name in SMALL},
    "execution": {"n_jobs": 1},
}


def _current_names(config: dict) -> dict:
    renamed = {registry.canonical(key): value for key, value in config.items()}
    renamed["stages"] = [registry.canonical(name) for name in config["stages"]]
    return renamed


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("conformance")
    (folder / "data").mkdir()
    for i in range(N_DATASETS):
        rng = np.random.default_rng(i)
        x = rng.normal(size=(80, 3))
        y = x[:, 0] + rng.normal(scale=0.5 + 0.3 * i, size=80) > 0
        pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "class": np.where(y, "yes", "no")}).to_csv(
            folder / "data" / f"d{i}.csv", index=False)
    path = folder / "former.yaml"
    path.write_text(yaml.safe_dump(FORMER))
    outcome = run_pipeline(load_config(path), out=folder / "run", show_progress=False)
    assert outcome.exit_code == 0
    return {"folder": folder, "config": path, "outcome": outcome}


# -- config ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.name)
def test_config_round_trips_through_its_section(stage):
    cls = registry.resolve(stage.config)
    default = cls()
    config = load_config({stage.name: stage_options(default)})
    assert config.stage_config(stage.name) == default
    again = load_config(config.to_dict())
    assert again.stage_config(stage.name) == default and again.section(stage.name) == config.section(stage.name)


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.name)
def test_unknown_key_message_is_pinned(stage):
    fields = [f.name for f in dataclasses.fields(registry.resolve(stage.config))]
    extra = ["input", "aslib", "which"] if stage.name == "airt" else []
    with pytest.raises(ConfigError) as info:
        load_config({stage.name: {"zz_unknown": 1}})
    assert str(info.value) == (f"<dict>: unknown {stage.name} option(s) 'zz_unknown'; valid options: "
                               f"{', '.join(fields + extra)}")


# -- names -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.name)
def test_one_name_for_section_cli_and_results(stage):
    assert stage.scope in registry.SCOPES
    assert registry.STAGES.index(stage.name) > max((registry.STAGES.index(n) for n in stage.needs), default=-1)
    assert all(registry.canonical(alias) == stage.name for alias in stage.aliases)
    assert cli.COMMANDS[stage.name] == (stage.command, stage.help)
    parser = cli.build_parser(stage.name)
    assert stage.name in parser._subparsers._group_actions[0].choices  # its module registers the verb
    assert callable(registry.resolve(stage.plan))
    config = load_config({name: {} for name in (stage.name,)})
    assert stage.name in config.stage_configs


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.name)
def test_report_sections_take_the_result_and_a_context(stage):
    """Each function a record names in ``sections`` resolves (a benchirt stage's in its ``report_sections`` module)
    and takes the stage's result and a :class:`benchirt.document.context.SectionContext`."""
    for name in stage.sections:
        function = registry.resolve(name)
        assert list(inspect.signature(function).parameters)[1:] == ["context"], name
        assert not name.startswith("benchirt.") or name.split(":")[0].endswith(".report_sections"), name


def test_the_page_order_places_every_section_of_the_registry():
    """The report's page order lists its own sections and every benchirt stage's, each once (a stage it does not
    list still shows: after them, tests/test_toy_stage.py)."""
    from benchirt.report.page import CROSS_STAGE, PAGE_ORDER

    named = [name for stage in registry.REGISTRY for name in stage.sections if name.startswith("benchirt.")]
    named += [f"{make.__module__}:{make.__name__}" for make in CROSS_STAGE]
    assert len(set(PAGE_ORDER)) == len(PAGE_ORDER) and set(PAGE_ORDER) == set(named)


def test_former_names_are_read_with_a_note_and_both_spellings_refused():
    config = load_config({"stages": ["responses", "rating"], "rating": {"n_permutations": 3}})
    assert config.stages == ("respond", "rate") and config.stage_config("rate").n_permutations == 3
    with pytest.raises(KeyError, match="'rating' is not a stage; the stages are respond, irt, rate"):
        config.stage_config("rating")  # former names are read by the loader only
    assert "section: 'rating' is the former name of the 'rate' stage; read as 'rate'" in config.notes
    assert "stages: 'responses' is the former name of the 'respond' stage; read as 'respond'" in config.notes
    assert load_config(None).notes == ()  # the packaged default is written with the stages' names
    with pytest.raises(ConfigError, match="sections 'rating' and 'rate' are the same stage's; keep 'rate' only"):
        load_config({"rating": {}, "rate": {}})


# -- a small run -----------------------------------------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize("stage", COMPUTED, ids=lambda s: s.name)
def test_small_run_stores_a_registered_result_that_reads_back(small_run, stage):
    results = load_run(small_run["outcome"].run_dir)
    found = getattr(results, stage.name)
    values = list(found.values()) if stage.scope == "dataset" else [found]
    assert values and all(value is not None for value in values)
    for value in values:
        assert artifact_types.name_of(type(value)).split(":")[0] in stage.results
        assert isinstance(value, StageResult) and value.summary().strip()  # the result protocol (benchirt.results)
        assert all(isinstance(frame, pd.DataFrame) for frame in value.to_frames().values())
    for alias in stage.aliases:
        with pytest.warns(FutureWarning, match=f"is the former name of the '{stage.name}' stage"):
            assert getattr(results, alias) is found


@pytest.mark.heavy
def test_former_names_run_and_give_the_same_keys_as_the_current_ones(small_run):
    manifest = small_run["outcome"].manifest
    assert any("former name" in note for note in manifest.notes)
    written = yaml.safe_load((small_run["outcome"].run_dir / "config.yaml").read_text())
    assert {stage.name for stage in COMPUTED} <= set(written) and not set(registry.ALIASES) & set(written)
    current = small_run["folder"] / "current.yaml"
    current.write_text(yaml.safe_dump(_current_names(FORMER)))
    again = run_pipeline(load_config(current), out=small_run["outcome"].run_dir, show_progress=False, explain=True)
    decisions = [entry["decision"] for stages in again.manifest.datasets.values() for entry in stages.values()]
    decisions += [entry["decision"] for entry in again.manifest.artifacts.values()]
    per_dataset = sum(stage.scope == "dataset" for stage in COMPUTED)
    assert len(decisions) == N_DATASETS * per_dataset + len(COMPUTED) - per_dataset  # every computed stage
    assert set(decisions) == {"reused"}  # identical inputs: identical keys


# -- declared code ---------------------------------------------------------------------------------
def _declared(stage) -> set[str]:
    files = set()
    for part in (*fingerprint.COMMON_CODE, *stage.code):
        path = import_graph.PACKAGE / part
        files.update(path.rglob("*.py") if path.is_dir() else [path])
    return {file.relative_to(import_graph.PACKAGE).as_posix() for file in files}


def _reached(stage) -> set[str]:
    """Modules the stage's plan, config and result modules import, not following the run engine's modules."""
    modules = import_graph.modules()
    engine = {name for name, path in modules.items()
              if path.relative_to(import_graph.PACKAGE).as_posix() in registry.ENGINE_CODE}
    start = {stage.plan.split(":")[0], stage.config.split(":")[0], *stage.results}
    if stage.needs_for:
        start.add(stage.needs_for.split(":")[0])
    seen, todo = set(), list(start)
    while todo:
        module = todo.pop()
        if module in seen or module in engine:
            continue
        seen.add(module)
        todo.extend(import_graph.edges()[module])
    return {modules[name].relative_to(import_graph.PACKAGE).as_posix() for name in seen}


@pytest.mark.parametrize("stage", [s for s in STAGES if s.code is not None], ids=lambda s: s.name)
def test_declared_code_covers_what_the_stage_imports(stage):
    missing = sorted(_reached(stage) - _declared(stage))
    assert not missing, f"{stage.name}: add {missing} to its `code` in benchirt/pipeline/registry.py"
    assert set(dict(fingerprint.code_digests(stage.name))) == _declared(stage)  # the key digests what is declared


def test_a_stage_without_declared_code_depends_on_the_whole_package():
    report = registry.stage("report")
    assert report.code is None
    assert {f for f, _ in fingerprint.code_digests("report")} >= {"pipeline/run.py", "report/sections.py", "cli.py"}


def test_registry_lists_are_derived_from_the_records():
    assert registry.STAGES == tuple(s.name for s in STAGES)
    assert set(artifact_types.RESULT_MODULES) == {m for s in STAGES for m in s.results} | set(
        registry.OTHER_RESULT_MODULES)
    assert fingerprint.STAGE_CODE["respond"] == registry.stage("respond").code
    assert json.dumps(sorted(registry.ALIASES)) == json.dumps(sorted(alias for s in STAGES for alias in s.aliases))
    assert {"irts", "rating", "responses", "subsets"} <= set(registry.ALIASES)  # the former names still read


def test_stage_commands_take_their_defaults_from_the_config_classes():
    """A command given no option passes no override: every config-backed option parses to None, so the
    config class's own default applies (the commands declare no defaults of their own)."""
    from benchirt.options import from_arguments
    from benchirt.rating import command as rate_command
    from benchirt.rating.config import RatingConfig
    from benchirt.subsets import command as subset_command
    from benchirt.subsets.config import SubsetConfig

    rate = cli.build_parser("rate").parse_args(["rate", "s.csv", "--out", "o"])
    assert set(rate_command.ARGUMENTS) <= set(RatingConfig.OPTIONS)
    assert from_arguments(RatingConfig.OPTIONS, {key: getattr(rate, key) for key in rate_command.ARGUMENTS}) == {}
    subset = cli.build_parser("subset").parse_args(["subset", "x.csv", "s.csv", "--out", "o"])
    assert set(subset_command.ARGUMENTS) <= set(SubsetConfig.OPTIONS)
    assert from_arguments(SubsetConfig.OPTIONS, {key: getattr(subset, key) for key in subset_command.ARGUMENTS}) == {}
    assert subset.score is None or RatingConfig(score=subset.score).score == RatingConfig().score


@pytest.mark.parametrize("score, words", [("true_score", "the score the ratings compare"),
                                          ("test_accuracy", "the ratings of this run compare test accuracy instead")])
def test_the_true_score_section_names_the_score_the_ratings_compare(small_run, score, words):
    from benchirt.document.context import SectionContext
    from benchirt.irt.report_sections import true_scores
    from benchirt.rating.config import RatingConfig

    results = load_run(small_run["outcome"].run_dir)
    config = dataclasses.replace(results.config, stage_configs={**results.config.stage_configs,
                                                                "rate": RatingConfig(score=score)})
    text = true_scores(results.irt, SectionContext(config, results={"respond": results.respond})).blocks[0].text
    assert words in text and ("Glicko-2 compares" not in text)

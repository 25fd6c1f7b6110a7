"""Pipeline configuration: the shipped configs load, bad configs fail with what/where/how-to-fix."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchirt.cli import main
from benchirt.errors import ConfigError, DataError
from benchirt.pipeline import registry
from benchirt.pipeline.config import load_config, select_stages

ROOT = Path(__file__).resolve().parents[1]
#: The stages as the registry lists them (read at collection, so a registered stage is in every list here).
STAGES = registry.STAGES
ONE_OF_STAGES = f"expected one of {', '.join(STAGES)}"


def _write(tmp_path, text, name="c.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_packaged_default_is_identical_to_configs_default():
    packaged = ROOT / "benchirt" / "pipeline" / "default.yaml"
    assert packaged.read_bytes() == (ROOT / "configs" / "default.yaml").read_bytes()
    config = load_config(None)
    assert config.suite == "embedded" and config.stages == ("respond", "irt", "rate", "subset", "airt", "report")
    assert set(config.stage_configs) == set(STAGES)  # every registered stage has its section
    assert config.source == "<default config>"


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "configs").glob("*.yaml")))
def test_every_shipped_config_validates(name):
    config = load_config(ROOT / "configs" / name)
    assert set(config.stages) <= set(STAGES)
    responses = config.stage_config("respond")
    if type(responses).__name__ == "ImportConfig":  # responses imported from stored runs: no training protocol
        assert responses.source == "openml-runs"
    else:
        assert responses.max_test == 500  # decodIRT's cap everywhere


@pytest.mark.parametrize("path", [*sorted((ROOT / "configs").glob("*.yaml")), None], ids=lambda p: p.name if p else "packaged")
def test_shipped_configs_use_the_stages_names(path, recwarn):
    """Every shipped config (and the packaged default) loads without a former-name note or any warning."""
    config = load_config(path)
    assert config.notes == () and len(recwarn) == 0, (config.notes, [str(w.message) for w in recwarn])
    raw = yaml.safe_load((path or ROOT / "configs" / "default.yaml").read_text())
    assert not set(raw) & set(registry.ALIASES) and not set(raw.get("stages", [])) & set(registry.ALIASES)


def test_former_names_are_read_by_the_loader_only(capsys):
    """`responses`/`rating` sections, `stages:` and `--stages`/`--skip` are read with a note; past the loader only
    the stages' names exist."""
    notes: list[str] = []
    assert select_stages(["responses", "irts", "rating"], skip=["irts"], notes=notes) == ("respond", "rate")
    assert notes == ["stages: 'responses' is the former name of the 'respond' stage; read as 'respond'",
                     "stages: 'irts' is the former name of the 'irt' stage; read as 'irt'",
                     "stages: 'rating' is the former name of the 'rate' stage; read as 'rate'",
                     "skip: 'irts' is the former name of the 'irt' stage; read as 'irt'"]
    config = load_config({"subsets": {"cuts": [50]}, "stages": ["subsets"]})
    assert config.stages == ("subset",) and set(config.sections) == set(STAGES) and config.section("subset") == {"cuts": [50]}
    with pytest.raises(KeyError, match="'subsets' is not a stage"):
        config.section("subsets")


@pytest.mark.parametrize("options, message", [
    ({"rating": {"alpha": 1.5}}, "section 'rate': rate.alpha: got 1.5, expected a number in (0, 1)"),
    ({"respond": {"extra": {"evil": {"estimator": "os.system"}}}},
     "section 'respond': extra classifier 'evil': 'os.system' is outside the allowed packages; allowed: classifier "
     "classes from sklearn, xgboost, lightgbm, catboost (add your own package to respond.allowed_packages)"),
    ({"subsets": {"cuts": [0]}}, "section 'subset': subset.cuts: got [0], expected percentages of the suite to keep "
                                 "(of its CPU for the budget rule, of its datasets for decodIRT's), each in (0, 100], "
                                 "e.g. 30,50,70"),
])
def test_messages_name_the_stage_by_its_one_name(options, message):
    """The section and the option are worded with the stage's name, also when the config wrote a former one."""
    with pytest.raises(ConfigError) as info:
        load_config(options)
    assert str(info.value) == f"<dict>: {message}"


def test_shipped_study_configs_follow_decodirt_protocol():
    for name in ("default.yaml", "cc18-offline.yaml", "cc18.yaml"):
        responses = load_config(ROOT / "configs" / name).stage_config("respond")
        assert (responses.test_size, responses.cv_folds, responses.ladder_epochs) == (0.3, 10, 100)
        assert len(responses.pool) == 12 and responses.artificial
    assert load_config(ROOT / "configs" / "cc18.yaml").suite == "OpenML-CC18"


def test_malformed_yaml_names_line_and_column(tmp_path):
    path = _write(tmp_path, "suite: builtin\nresponses:\n  cv_folds: [3\n  seed: 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and "malformed YAML" in message and "line 4, column" in message


def test_config_that_is_not_a_mapping(tmp_path):
    with pytest.raises(ConfigError, match="must be a mapping of sections"):
        load_config(_write(tmp_path, "- respond\n- irt\n"))


def test_missing_file_says_so(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")


def test_unknown_top_level_key_lists_valid_ones(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown top-level option\(s\) 'respones'; valid options: suite, stages"):
        load_config(_write(tmp_path, "respones: {cv_folds: 3}\n"))


def test_unknown_stage_lists_valid_stages(tmp_path):
    with pytest.raises(ConfigError, match=f"stages: got 'rank', {ONE_OF_STAGES}$"):
        load_config(_write(tmp_path, "stages: [respond, rank]\n"))
    with pytest.raises(ConfigError, match=f"^command line: skip: got 'plot', {ONE_OF_STAGES}$"):
        select_stages(STAGES, skip=["plot"])


def test_stages_come_back_in_pipeline_order_minus_skipped():
    assert select_stages(["report", "irt", "respond"]) == ("respond", "irt", "report")
    assert select_stages(STAGES, skip=["airt", "subset"]) == tuple(s for s in STAGES if s not in ("airt", "subset"))


def test_unknown_classifier_name_is_rejected_with_the_known_ones(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, "responses:\n  pool: [random_forest, xgboost]\n"))
    assert "xgboost" in str(info.value) and "gaussian_nb" in str(info.value)


@pytest.mark.parametrize("cut", [0, -5, 100.5, 150])
def test_cut_percentage_outside_0_100_is_rejected(tmp_path, cut):
    with pytest.raises(ConfigError, match=r"section 'subset': subset\.cuts: got \[30, "):
        load_config(_write(tmp_path, f"subsets:\n  cuts: [30, {cut}]\n"))


def test_cut_of_exactly_100_is_allowed(tmp_path):
    assert load_config(_write(tmp_path, "subsets:\n  cuts: [100]\n")).stage_config("subset").cuts == (100.0,)


def test_unknown_option_inside_a_stage_section(tmp_path):
    with pytest.raises(ConfigError, match="unknown irt option\\(s\\) 'modle'; valid options: model, model_family, scoring_model, prior"):
        load_config(_write(tmp_path, "irt:\n  modle: 3PL\n"))


@pytest.mark.parametrize(
    "execution, message",
    [("{n_jobs: 0}", "execution.n_jobs: got 0, expected an integer >= 1 or -1"),
     ("{n_jobs: true}", "execution.n_jobs: got True, expected an integer >= 1 or -1"),
     ("{backend: spark}", "execution.backend: got 'spark', expected one of local, dask, slurm"),
     ("{retries: -1}", "execution.retries: got -1, expected an integer >= 0"),
     ("{scheduler: ' '}", "execution.scheduler: got ' ', expected null or an address such as tcp://host:8786"),
     ("{tasks: folds}", "execution.tasks: got 'folds', expected one of fits, datasets"),
     ("{strict: 1}", "execution.strict: got 1, expected true or false"),
     ("{workers: 3}", "unknown execution option(s) 'workers'; valid options: n_jobs, backend, scheduler, retries, memory_limit_gb, "
                      "tasks, strict, slurm")],
)
def test_execution_section_is_validated(tmp_path, execution, message):
    path = _write(tmp_path, f"execution: {execution}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {message}"


def test_execution_config_refuses_zero_workers_at_construction():
    from benchirt.pipeline.config import ExecutionConfig

    with pytest.raises(ConfigError, match="^execution.n_jobs: got 0, expected an integer >= 1 or -1$"):
        ExecutionConfig(n_jobs=0)


@pytest.mark.parametrize("text", ["", "# nothing but a comment\n", "---\n"])
def test_an_empty_config_file_is_an_error(tmp_path, text):
    path = tmp_path / "empty.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (f"config file {path} is empty; write the sections to run (e.g. `suite: builtin`), or "
                               "run `benchirt run` without a CONFIG for the packaged default")


def test_a_suite_folder_is_relative_to_the_config_and_a_missing_one_names_the_path_tried(tmp_path, monkeypatch):
    from benchirt.pipeline.config import resolve_specs

    (tmp_path / "configs").mkdir()
    monkeypatch.chdir(tmp_path)
    config = load_config(_write(tmp_path / "configs", "suite: data/\nout: runs/here\n"))
    with pytest.raises(DataError) as info:
        resolve_specs(config)
    assert str(info.value) == f"data/: no such file or folder (looked at {tmp_path / 'configs' / 'data'})"
    assert config.out == "runs/here"  # out: relative to the current folder, as --out


@pytest.mark.parametrize(
    "options, message",
    [({"test_size": 1.5}, "respond.test_size: got 1.5, expected a number in (0, 1)"),
     ({"cv_folds": 1}, "respond.cv_folds: got 1, expected an integer >= 2"),
     ({"n_jobs": 0}, "respond.n_jobs: got 0, expected a non-zero integer (-1: all cores)"),
     ({"max_train": 1}, "respond.max_train: got 1, expected null or an integer >= 2"),
     ({"seed": "x"}, "respond.seed: got 'x', expected an integer"),
     ({"time_budget": 0}, "respond.time_budget: got 0, expected null or a number of seconds > 0"),
     ({"colour": 1}, "unknown respond option(s) 'colour'; valid options: test_size, max_test, cv_folds, seed, "
                     "ladder_epochs, pool, extra, allowed_packages, artificial, n_jobs, max_train, max_cv_train, "
                     "max_categories, time_budget")],
)
def test_response_options_share_the_validation_messages(options, message):
    from benchirt.responses import ResponseConfig

    with pytest.raises(ConfigError) as info:
        ResponseConfig.from_dict(options)
    assert str(info.value) == message


def test_scheduler_address_implies_dask(tmp_path):
    config = load_config(_write(tmp_path, "execution: {scheduler: 'tcp://10.0.0.5:8786'}\n"))
    assert config.execution.backend == "dask" and config.execution.scheduler == "tcp://10.0.0.5:8786"


def test_airt_from_aslib_needs_the_scenario_folder(tmp_path):
    with pytest.raises(ConfigError, match="airt.aslib"):
        load_config(_write(tmp_path, "airt: {input: aslib}\n"))
    with pytest.raises(ConfigError, match="airt.input: got 'runtimes', expected one of accuracy, aslib"):
        load_config(_write(tmp_path, "airt: {input: runtimes}\n"))


def test_config_round_trips_through_its_plain_form():
    config = load_config(ROOT / "configs" / "cc18-offline.yaml")
    again = load_config(config.to_dict())
    assert again.to_dict() == config.to_dict()
    assert again.stage_config("respond") == config.stage_config("respond")


def test_cli_reports_a_bad_config_in_one_line_with_exit_2(tmp_path, capsys):
    path = _write(tmp_path, "stages: [respond, ranking]\n")
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchirt run: error:") and "stages: got 'ranking', expected one of respond" in err
    assert "Traceback" not in err
    assert main(["run", str(path), "--skip", "everything"]) == 2
    assert ONE_OF_STAGES in capsys.readouterr().err


@pytest.mark.parametrize(
    "section, options, message",
    [("irt", {"model": "4PL"}, "irt.model: got '4PL', expected one of 1PL, 2PL, 3PL"),
     ("irt", {"ability": "ML"}, "irt.ability: got 'ML', expected one of EAP, MAP"),
     ("irt", {"prior": "yes"}, "irt.prior: got 'yes', expected true or false"),
     ("irt", {"prior_discrimination": [0, 0]}, "irt.prior_discrimination: got [0, 0], expected a list of 2 numbers [mean, sd] "
                                                       "with sd > 0"),
     ("irt", {"prior_difficulty": 3}, "irt.prior_difficulty: got 3, expected a list of 2 numbers [mean, sd] with sd > 0"),
     ("irt", {"starts": 0}, "irt.starts: got 0, expected 'auto' or an integer >= 1"),
     ("irt", {"tol": 0}, "irt.tol: got 0, expected a number > 0"),
     ("irt", {"theta_max": float("inf")}, "irt.theta_max: got inf, expected a number > 0"),
     ("irt", {"max_guessing": 1.0}, "irt.max_guessing: got 1.0, expected a number in (0, 1)"),
     ("irt", {"max_iter": 2.5}, "irt.max_iter: got 2.5, expected an integer >= 1"),
     ("irt", {"min_respondents": 1}, "irt.min_respondents: got 1, expected an integer >= 2"),
     ("irt", {"calibration_roles": []}, "irt.calibration_roles: got [], expected a non-empty list of respondent roles "
                                        "(ladder, real, artificial)"),
     ("rate", {"initial": [1500, -1, 0.06]}, "rate.initial: got [1500, -1, 0.06], expected a list of 3 numbers "
                                              "[rating, RD, volatility] with RD > 0 and volatility > 0"),
     ("rate", {"initial": [1500, 350]}, "rate.initial: got [1500, 350], expected a list of 3 numbers "
                                         "[rating, RD, volatility] with RD > 0 and volatility > 0"),
     ("rate", {"n_permutations": 1}, "rate.n_permutations: got 1, expected an integer >= 2 or 0"),
     ("rate", {"n_bootstrap": True}, "rate.n_bootstrap: got True, expected an integer >= 2 or 0"),
     ("rate", {"seed": 1.5}, "rate.seed: got 1.5, expected an integer"),
     ("rate", {"stats": "anova"}, "rate.stats: got 'anova', expected one of blocks, decodirt"),
     ("rate", {"glicko": "elo"}, "rate.glicko: got 'elo', expected one of glickman, decodirt"),
     ("rate", {"alpha": 1.5}, "rate.alpha: got 1.5, expected a number in (0, 1)"),
     ("rate", {"tie_tolerance": -0.1}, "rate.tie_tolerance: got -0.1, expected a number >= 0"),
     ("rate", {"rope": "small"}, "rate.rope: got 'small', expected a number >= 0"),
     ("rate", {"score": ""}, "rate.score: got '', expected a non-empty text"),
     ("rate", {"order": 3}, "rate.order: got 3, expected null or sorted, given, random:SEED or the path of a file "
                              "of dataset names"),
     ("subset", {"rule": "hardest"}, "subset.rule: got 'hardest', expected one of budget, decodirt, discrimination, "
                                      "difficulty, guessing"),
     ("subset", {"cuts": [30, 120]}, "subset.cuts: got [30, 120], expected percentages of the suite to keep (of its "
                                      "CPU for the budget rule, of its datasets for decodIRT's), each in (0, 100], "
                                      "e.g. 30,50,70"),
     ("subset", {"n_random": 1}, "subset.n_random: got 1, expected an integer >= 2 or 0"),
     ("subset", {"seed": -1}, "subset.seed: got -1, expected an integer >= 0"),
     ("airt", {"logit_epsilon": 0.7}, "airt.logit_epsilon: got 0.7, expected a number in (0, 0.5)"),
     ("airt", {"epsilon": 2}, "airt.epsilon: got 2, expected a number in [0, 1]"),
     ("airt", {"epsilons": []}, "airt.epsilons: got [], expected a non-empty list of numbers, each in [0, 1]"),
     ("airt", {"spline_lam": -1}, "airt.spline_lam: got -1, expected null or a number >= 0"),
     ("airt", {"grid_size": 5}, "airt.grid_size: got 5, expected an integer >= 10"),
     ("airt", {"compat": "R"}, "airt.compat: got 'R', expected null or 'airt-r'"),
     ("airt", {"polytomous": "nrm"}, "airt.polytomous: got 'nrm', expected null or one of grm, gpcm"),
     ("airt", {"polytomous_levels": 3}, "airt.polytomous_levels: got 3, expected 5 (the default) unless polytomous "
                                        "is grm or gpcm"),
     ("airt", {"compat_range": "data"}, "airt.compat_range: got 'data', expected unit (the default) unless compat "
                                        "is airt-r"),
     ("report", {"dpi": 10}, "report.dpi: got 10, expected an integer >= 20"),
     ("report", {"max_dataset_plots": -1}, "report.max_dataset_plots: got -1, expected an integer >= 0"),
     ("report", {"title": 5}, "report.title: got 5, expected text"),
     ("GRM", {"difficulty_limit": "middle"}, "GRM.difficulty_limit: got 'middle', expected one of highest, lowest"),
     ("GRM", {"n_quadrature": 3}, "GRM.n_quadrature: got 3, expected an integer >= 5"),
     ("report", {"colour": "red"}, "unknown report option(s) 'colour'; valid options: title, max_dataset_plots, dpi, "
                                   "top_classifiers")],
)
def test_every_stage_s_options_share_the_validation_messages(section, options, message):
    from benchirt.airt.polytomous import GRMConfig

    config_class = GRMConfig if section == "GRM" else registry.resolve(registry.stage(section).config)
    with pytest.raises(ConfigError) as info:
        config_class.from_dict(options)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "text, message",
    [("stages: []\n", "stages: got [], expected a non-empty list of stages"),
     ("stages: [respond, rank]\n", f"stages: got 'rank', {ONE_OF_STAGES}"),
     ("suite: ''\n", "suite: got '', expected a suite (embedded, builtin, cc18-offline, OpenML-CC18, a folder) or a "
                     "list of datasets"),
     ("out: 3\n", "out: got 3, expected null or a folder path"),
     ("irt: [3PL]\n", "irt: got ['3PL'], expected a mapping of options"),
     ("rating: {score: elo}\n", "rate.score: got 'elo', expected one of true_score, theta, test_accuracy, cv_accuracy"),
     ("airt: {input: aslib}\n", "section 'airt': airt.aslib: got None, expected the ASlib scenario folder when "
                                "airt.input is aslib"),
     ("airt: {which: train}\n", "section 'airt': airt.which: got 'train', expected one of test, cv"),
     ("irt: {model: 4PL}\n", "section 'irt': irt.model: got '4PL', expected one of 1PL, 2PL, 3PL")],
)
def test_the_top_level_of_a_config_shares_the_validation_messages(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {message}"


@pytest.mark.parametrize("value, message", [("0", "execution.n_jobs: got 0, expected an integer >= 1 or -1"),
                                            ("many", "execution.n_jobs: got 'many', expected an integer >= 1 or -1"),
                                            ("1.5", "execution.n_jobs: got 1.5, expected an integer >= 1 or -1")])
def test_the_n_jobs_argument_is_read_and_checked_as_execution_n_jobs_declares(tmp_path, capsys, value, message):
    """``--n-jobs`` overrides ``execution.n_jobs`` through its declaration: the config's words, one line, exit 2."""
    path = _write(tmp_path, "suite: builtin:iris\nstages: [respond]\n")
    assert main(["run", str(path), "--quiet", "--n-jobs", value, "--out", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err == f"benchirt run: error: {message}\n"
    assert not (tmp_path / "run").exists()

"""A real end-to-end `benchirt run` on two builtin datasets (small pool, short ladder, 3 folds) and what
follows from it: reuse on rerun, keys that follow the options, skipped and failed datasets, the report,
the respond export, Dask execution and the OpenML API key kept out of every file."""
from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
import yaml

from benchirt.cli import main
from benchirt.humanize import human_value
from benchirt.airt import pipeline_stage as airt_stage
from benchirt.irt import pipeline_stage as irt_stage
from benchirt.rating.run_scores import run_scores
from benchirt.pipeline.config import load_config
from benchirt.pipeline.results import load_run
from benchirt.pipeline.run import run_pipeline
from benchirt.pipeline.store import MARKER

SECRET = "0123456789abcdef-benchirt-test-apikey"
SMALL = {
    "responses": {"cv_folds": 3, "ladder_epochs": 10,
                  "pool": ["gaussian_nb", "knn_3", "decision_tree", "random_forest_5", "svc"]},
    "rating": {"n_permutations": 20},
    "subsets": {"cuts": [50], "n_random": 5, "n_permutations": 5},
    "report": {"max_dataset_plots": 2},
    "stages": ["respond", "irt", "rate", "subset", "report"],
    "execution": {"n_jobs": 1},
}


def _config_file(folder: Path, suite, name="config.yaml", **changes) -> Path:
    config = {**SMALL, "suite": suite, **changes}
    path = folder / name
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """One real run: iris and wine from scikit-learn plus a single-class CSV that must be skipped."""
    import openml

    folder = tmp_path_factory.mktemp("e2e")
    pd.DataFrame({"x1": range(30), "x2": [i % 7 for i in range(30)], "class": ["only"] * 30}).to_csv(
        folder / "one_class.csv", index=False)
    config = _config_file(folder, ["builtin:iris,wine", "one_class.csv"])
    out = folder / "run"
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("OPENML_APIKEY", SECRET)
    monkeypatch.setattr(openml.config, "apikey", SECRET)
    import contextlib
    import io

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["run", str(config), "--out", str(out)])
    monkeypatch.undo()
    shutil.copytree(out, folder / "pristine")  # what _copied_run hands out: the tests below change `out`
    return {"folder": folder, "config": config, "out": out, "code": code, "pristine": folder / "pristine",
            "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_run_finishes_every_stage_and_skips_the_single_class_dataset(finished_run):
    assert finished_run["code"] == 0, finished_run["stderr"]
    manifest = _manifest(finished_run["out"])
    assert manifest["status"] == "finished"
    assert {s: r["status"] for s, r in manifest["stages"].items()} == dict.fromkeys(
        ["respond", "irt", "rate", "subset", "report"], "done")
    datasets = manifest["datasets"]
    assert datasets["iris"]["respond"]["status"] == datasets["wine"]["irt"]["status"] == "computed"
    skipped = datasets["one_class"]["respond"]
    assert skipped["status"] == "skipped" and "single class" in skipped["reason"]
    assert "irt" not in datasets["one_class"]
    assert manifest["stages"]["respond"]["skipped"] == 1
    for entry in (datasets["iris"]["respond"], datasets["wine"]["irt"]):
        marker = json.loads((finished_run["out"] / entry["path"] / MARKER).read_text())
        assert marker["key"] == entry["key"]


def test_end_of_run_summary_fits_one_screen(finished_run):
    text = finished_run["stdout"]
    assert "benchirt run: finished" in text and "Glicko-2 leaders" in text
    assert "Leaderboard (Bradley–Terry on true_score): " in text
    assert "skipped respond one_class: dataset 'one_class' has a single class" in text
    assert "report.html" in text
    assert len(text.splitlines()) <= 30
    assert "respond" in finished_run["stderr"]  # the progress bars


def test_results_load_back_as_the_stages_objects(finished_run):
    results = load_run(finished_run["out"])
    assert sorted(results.respond) == sorted(results.irt) == ["iris", "wine"]
    assert results.respond["iris"].responses.dtypes.eq("int8").all()
    real = results.respond["wine"].roles.eq("real").sum()
    assert real == 5 and results.respond["wine"].responses.shape[0] == 5 + 10 + 7
    table = results.rate.tournament.table
    assert set(table["classifier"]) == set(SMALL["responses"]["pool"]) | {
        "optimal", "pessimal", "majority", "minority", "random1", "random2", "random3"}
    assert table["rating"].notna().all() and (table["low"] < table["rating"]).all()
    assert table.iloc[-1]["classifier"] == "pessimal"
    assert set(results.subset.subsets) == {"budget-50"}
    assert results.skipped == {"one_class": {"respond": results.skipped["one_class"]["respond"]}}
    # a former stage name reads the same result, and says so
    with pytest.warns(FutureWarning, match="results: 'rating' is the former name of the 'rate' stage; read as "
                                           "'rate'; use results.rate"):
        assert results.rating is results.rate
    with pytest.raises(AttributeError):
        results.ratings


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.images, self.external = [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs["id"])
        if tag == "img":
            self.images.append(attrs["src"])
        for name in ("href", "src"):
            if attrs.get(name) and not attrs[name].startswith(("#", "data:")):
                self.external.append(attrs[name])


@pytest.mark.heavy
def test_report_is_self_contained_with_every_section(finished_run):
    out = finished_run["out"]
    # a report-only run adopts every stored result that matches the config, recomputing nothing
    assert main(["run", str(finished_run["config"]), "--out", str(out), "--quiet", "--stages", "report"]) == 0
    manifest = _manifest(out)
    assert list(manifest["stages"]) == ["report"]
    assert {stage: entry["status"] for stage, entry in manifest["artifacts"].items()} == {"rate": "stored", "subset": "stored"}
    page = (out / "report.html").read_text()
    parser = _Page()
    parser.feed(page)
    assert parser.sections == ["conclusions", "leaderboard", "ratings", "statistics", "overview", "datasets", "model-fit",
                               "suspect-labels", "curves", "true-scores", "subsets"]
    assert len(parser.images) >= 12 and all(src.startswith("data:image/png;base64,") for src in parser.images)
    assert parser.external == []
    assert "could not be drawn" not in page
    assert "one_class" in page  # the skipped dataset and its reason are reported
    summary = (out / "summary.md").read_text()
    for heading in ("## Run overview", "## Datasets: difficulty and discrimination", "## Glicko-2 ratings",
                    "## Friedman / Nemenyi", "## Benchmark subsets"):
        assert heading in summary


def test_openml_api_key_is_in_no_file_and_no_output(finished_run):
    assert SECRET not in finished_run["stdout"] and SECRET not in finished_run["stderr"]
    for path in finished_run["out"].rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"API key leaked into {path}"


def test_decodirt_study_headline_reads_a_finished_run(finished_run):
    from pipelines.decodirt_cc18 import headline

    text = headline(load_run(finished_run["out"]))
    assert "Most difficult datasets" in text and "Glicko-2 ranking" in text
    assert "one_class" in text  # the skipped dataset is listed


@pytest.mark.heavy
def test_respond_command_exports_csvs_the_irt_command_reads(finished_run, capsys):
    out = finished_run["out"]
    assert main(["respond", str(finished_run["config"]), "--out", str(out), "--quiet"]) == 0
    assert "Responses of 2 dataset(s)" in capsys.readouterr().out
    responses = pd.read_csv(out / "responses" / "iris" / "responses.csv")
    assert responses.columns[0] == "classifier" and len(responses) == 22
    assert set(responses.iloc[:, 1:].stack().unique()) <= {0, 1}
    roles = pd.read_csv(out / "responses" / "iris" / "roles.csv")
    assert roles["role"].value_counts().to_dict() == {"ladder": 10, "artificial": 7, "real": 5}
    assert main(["irt", str(out / "responses" / "iris" / "responses.csv"), "--out", str(out / "irt-iris")]) == 0
    abilities = pd.read_csv(out / "irt-iris" / "abilities.csv")
    assert set(abilities["respondent"]) == set(responses["classifier"])
    # the later stages' results still match the config: `benchirt report` still shows them
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert '<section id="ratings">' in page and '<section id="subsets">' in page


@pytest.mark.heavy
def test_rerun_reuses_everything_and_option_change_recomputes_only_downstream(finished_run, capsys):
    out = finished_run["out"]
    respond_mtime = (out / _manifest(out)["datasets"]["iris"]["respond"]["path"] / MARKER).stat().st_mtime_ns
    assert main(["run", str(finished_run["config"]), "--out", str(out), "--quiet", "--skip", "report"]) == 0
    stages = _manifest(out)["stages"]
    assert (stages["respond"]["reused"], stages["respond"]["computed"], stages["respond"]["skipped"]) == (2, 0, 1)
    assert (stages["irt"]["reused"], stages["rate"]["reused"], stages["subset"]["reused"]) == (2, 1, 1)
    # a different IRT model: responses reused, IRT and everything after it recomputed
    changed = _config_file(finished_run["folder"], ["builtin:iris,wine", "one_class.csv"], "2pl.yaml",
                           irt={"model": "2PL"})
    assert main(["run", str(changed), "--out", str(out), "--quiet", "--stages", "respond", "irt", "rate"]) == 0
    stages = _manifest(out)["stages"]
    assert stages["respond"]["reused"] == 2 and stages["irt"]["computed"] == 2 and stages["rate"]["computed"] == 1
    assert (out / _manifest(out)["datasets"]["iris"]["respond"]["path"] / MARKER).stat().st_mtime_ns == respond_mtime
    assert "subset" not in stages
    capsys.readouterr()


def test_force_recomputes_the_selected_stage(finished_run):
    out = finished_run["out"]
    assert main(["run", str(finished_run["config"]), "--out", str(out), "--quiet", "--stages", "irt", "--force"]) == 0
    stages = _manifest(out)["stages"]
    assert list(stages) == ["irt"] and stages["irt"]["computed"] == 2 and stages["irt"]["reused"] == 0


@pytest.mark.heavy
def test_a_dataset_failing_on_every_attempt_is_recorded_and_the_rest_finish(finished_run, monkeypatch):
    calls = []
    real_irt = irt_stage.irt_dataset

    def flaky_irt(result, config):
        calls.append(result.dataset)
        if result.dataset == "wine":
            raise MemoryError("worker ran out of memory on wine")
        return real_irt(result, config)

    monkeypatch.setattr(irt_stage, "irt_dataset", flaky_irt)
    config = load_config(finished_run["config"], stages=["respond", "irt", "rate"])
    outcome = run_pipeline(config, out=finished_run["out"], force=True, show_progress=False)
    assert outcome.exit_code == 1
    entry = outcome.manifest.datasets["wine"]["irt"]
    assert entry["status"] == "failed" and entry["attempts"] == 2 and "MemoryError" in entry["reason"]
    assert calls.count("wine") == 2 and calls.count("iris") == 1
    assert outcome.manifest.datasets["iris"]["irt"]["status"] == "computed"
    assert outcome.manifest.stages["rate"]["status"] == "done"  # rated on the dataset that finished
    assert outcome.manifest.status == "finished with failures"

    # a rerun does not pay for the known failure again, unless asked to (wine's result of the first run removed)
    shutil.rmtree(finished_run["out"] / entry["path"])
    again = run_pipeline(config, out=finished_run["out"], show_progress=False)
    entry = again.manifest.datasets["wine"]["irt"]
    assert again.exit_code == 1 and calls.count("wine") == 2
    assert entry["status"] == "failed" and entry["attempts"] == 0 and entry["previous_attempts"] == 2
    assert entry["reason"].startswith("failed in the previous run (not retried; --retry-failed tries again): MemoryError")
    retried = run_pipeline(config, out=finished_run["out"], show_progress=False, retry_failed=True)
    assert retried.manifest.datasets["wine"]["irt"]["attempts"] == 2 and calls.count("wine") == 4


@pytest.mark.heavy
def test_dask_local_cluster_runs_the_real_irt_stage(finished_run):
    out = finished_run["out"]
    assert main(["run", str(finished_run["config"]), "--out", str(out), "--quiet", "--stages", "irt",
                 "--force", "--scheduler", "local", "--n-jobs", "1"]) == 0
    manifest = _manifest(out)
    assert manifest["executor"].startswith("dask LocalCluster, 1 workers")
    assert manifest["stages"]["irt"]["computed"] == 2


def test_airt_study_without_scenarios_says_where_it_looked(tmp_path):
    from benchirt.errors import DataError
    from pipelines.airt_study import study

    with pytest.raises(DataError, match=f"no ASlib scenario of ASP-POTASSCO.* under {tmp_path}"):
        study(tmp_path, tmp_path / "out")


@pytest.mark.slow
def test_airt_aslib_config_runs_and_reports(shared_data, tmp_path):
    assert main(["run", "configs/airt-aslib.yaml", "--out", str(tmp_path / "run"), "--quiet"]) == 0
    page = (tmp_path / "run" / "report.html").read_text()
    assert '<section id="airt">' in page and "could not be drawn" not in page


@pytest.mark.heavy
def test_rating_score_decides_ratings_and_leaderboard_and_report_labels_decodirt_stats(finished_run, tmp_path):
    """One rerun of rate + report with rating.score = test_accuracy and decodIRT's statistics mode."""
    import shutil

    from benchirt.rating import RatingConfig, glicko_tournament, leaderboard

    score = "test_accuracy"
    out = tmp_path / "run"
    shutil.copytree(finished_run["out"], out)
    shutil.copy(finished_run["folder"] / "one_class.csv", tmp_path / "one_class.csv")
    config = _config_file(tmp_path, ["builtin:iris,wine", "one_class.csv"],
                          rating={"n_permutations": 20, "n_bootstrap": 50, "score": score, "stats": "decodirt"})
    assert main(["run", str(config), "--out", str(out), "--quiet", "--stages", "rate", "report"]) == 0
    friedman = (out / "summary.md").read_text().split("## Friedman / Nemenyi")[1].split("\n## ")[0]
    assert "decodIRT compatibility: Friedman test on Glicko-2 rating trajectories" in friedman
    assert "datasets as blocks" not in friedman

    results = load_run(out)
    rating = results.rate
    assert rating.score == score and _manifest(out)["rating_score"] == score
    scores = run_scores(results.irt, results.respond, score)
    expected = pd.concat([pd.DataFrame({"dataset": name, "classifier": r.test_accuracy.index,
                                        "score": r.test_accuracy.to_numpy()})
                          for name, r in results.respond.items()])
    expected = expected[expected["classifier"].isin(scores["classifier"])]
    assert len(expected) == len(scores)
    config_used = RatingConfig(n_permutations=0, n_bootstrap=50, score=score)
    pd.testing.assert_frame_equal(rating.tournament.table, glicko_tournament(expected, config=config_used).table)
    pd.testing.assert_frame_equal(rating.leaderboard[["classifier", "bt_rating"]],
                                  leaderboard(expected, config=config_used).table[["classifier", "bt_rating"]])
    assert f"won by the higher {human_value(score)}" in (out / "report.html").read_text()


def test_unknown_rating_score_is_refused_with_the_valid_names(tmp_path, capsys):
    config = _config_file(tmp_path, "builtin:iris", rating={"score": "f1"})
    assert main(["run", str(config), "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err
    assert "rate.score: got 'f1', expected one of true_score, theta, test_accuracy, cv_accuracy" in error
    assert not (tmp_path / "run").exists()


def _copied_run(finished_run, tmp_path) -> tuple[Path, Path]:
    """The finished run's config (read, never changed) and a private copy of the run as its first `benchirt run`
    left it: every stage and the report up to date (the report shows the config's path: the copy is run with
    the same one)."""
    shutil.copytree(finished_run["pristine"], tmp_path / "run")
    return finished_run["config"], tmp_path / "run"


@pytest.mark.heavy
@pytest.mark.parametrize("n_jobs", ["1", "2"])  # 2: the (dataset, fit) task source must not load the pool either
def test_a_warm_rerun_reads_stored_results_without_fitting_or_plotting_libraries(finished_run, tmp_path, n_jobs):
    import subprocess
    import sys

    config, out = _copied_run(finished_run, tmp_path)
    code = ("import json, sys; from benchirt.cli import main; "
            f"status = main(['run', {str(config)!r}, '--out', {str(out)!r}, '--quiet', '--n-jobs', {n_jobs!r}]); "
            "print(json.dumps([status, [m for m in ('sklearn', 'matplotlib', 'scipy.stats', 'scikit_posthocs') "
            "if m in sys.modules]]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, []]
    manifest = _manifest(out)
    assert {s: r["computed"] for s, r in manifest["stages"].items()} == dict.fromkeys(manifest["stages"], 0)


def test_a_suite_stage_that_was_skipped_is_not_attempted_again_until_its_inputs_change(finished_run, tmp_path,
                                                                                      monkeypatch):
    out = tmp_path / "run"
    shutil.copytree(finished_run["out"], out)
    config = finished_run["config"]
    # airt has no result (too few datasets): the run says so by its exit status (issue 44), and on every rerun
    assert main(["run", str(config), "--out", str(out), "--quiet", "--stages", "respond", "airt"]) == 1
    first = _manifest(out)
    assert first["stages"]["airt"]["status"] == "skipped" and first["artifacts"]["airt"]["status"] == "skipped"

    def must_not_run(*args, **kwargs):
        raise AssertionError("the skipped airt stage ran again")

    monkeypatch.setattr(airt_stage, "airt_from_accuracy", must_not_run)
    assert main(["run", str(config), "--out", str(out), "--quiet", "--stages", "respond", "airt"]) == 1
    second = _manifest(out)
    assert second["artifacts"]["airt"] == {**first["artifacts"]["airt"], "decision": "reused"}
    assert second["stages"]["airt"]["note"] == first["stages"]["airt"]["note"]
    assert second["stages"]["airt"]["note"].startswith("AIRT input: 2 dataset(s); AIRT needs at least")


@pytest.mark.heavy
def test_a_source_edit_recomputes_that_stage_and_says_why(finished_run, tmp_path, capsys, monkeypatch):
    from benchirt.pipeline import fingerprint

    config, out = _copied_run(finished_run, tmp_path)
    real_digests = fingerprint.code_digests
    edited = tuple((f, "0" * 16 if f == "irt/estimation.py" else d) for f, d in real_digests("irt"))
    monkeypatch.setattr(fingerprint, "code_digests", lambda stage: edited if stage == "irt" else real_digests(stage))
    capsys.readouterr()
    before = (out / "manifest.json").read_bytes()
    # --explain: the decisions, and nothing computed or written
    assert main(["run", str(config), "--out", str(out), "--stages", "respond", "irt", "rate", "--explain"]) == 0
    listing = capsys.readouterr().out
    assert "  respond  iris                     reused" in listing
    assert ("  irt      iris                     would recompute because the code changed "
            "(benchirt/irt/estimation.py)") in listing
    assert "  rate     (all datasets)           would recompute because its input changed" in listing
    assert (out / "manifest.json").read_bytes() == before
    assert main(["run", str(config), "--out", str(out), "--stages", "respond", "irt", "rate"]) == 0
    manifest = _manifest(out)
    assert manifest["datasets"]["iris"]["respond"]["decision"] == "reused"
    assert manifest["datasets"]["iris"]["irt"] | {"status": "computed"} == manifest["datasets"]["iris"]["irt"]
    assert manifest["datasets"]["wine"]["irt"]["decision"] == "recomputed because the code changed (benchirt/irt/estimation.py)"
    assert manifest["artifacts"]["rate"]["decision"] == "recomputed because its input changed"
    assert "irt: recomputing iris, wine because the code changed (benchirt/irt/estimation.py)" in capsys.readouterr().err


@pytest.mark.heavy
def test_a_threshold_change_reuses_every_fit_and_derives_the_tables_again(finished_run, tmp_path, capsys,
                                                                           monkeypatch):
    """Issue 45 item 2: the IRT thresholds are in no fit's key; the tables that read them follow the new values."""
    from benchirt.irt import IRTConfig, irt_for_responses

    _, out = _copied_run(finished_run, tmp_path)
    before = load_run(out).irt
    thresholds = {"difficulty_threshold": -20.0, "suspect_agreement": 0.1, "suspect_rising_alpha": 0.001}
    changed = _config_file(finished_run["folder"], ["builtin:iris,wine", "one_class.csv"], "thresholds.yaml",
                           irt=thresholds)
    capsys.readouterr()
    assert main(["run", str(changed), "--out", str(out), "--explain"]) == 0
    listing = capsys.readouterr().out
    assert "  irt      iris                     reused" in listing
    assert "  irt      wine                     reused" in listing
    assert "  rate     (all datasets)           reused" in listing  # the ratings read no threshold
    assert "  subset   (all datasets)           would recompute because" in listing

    def must_not_fit(*args, **kwargs):
        raise AssertionError("a threshold change fitted a dataset again")

    monkeypatch.setattr(irt_stage, "irt_dataset", must_not_fit)
    assert main(["run", str(changed), "--out", str(out), "--quiet"]) == 0
    manifest = _manifest(out)
    assert (manifest["stages"]["irt"]["reused"], manifest["stages"]["irt"]["computed"]) == (2, 0)
    assert {manifest["datasets"][name]["irt"]["decision"] for name in ("iris", "wine")} == {"reused"}
    assert manifest["artifacts"]["subset"]["status"] == "computed"
    assert manifest["documents"]["report"]["status"] == "rebuilt"
    results = load_run(out)
    for name, irt in results.irt.items():
        pd.testing.assert_frame_equal(irt.fit.items, before[name].fit.items)
        assert before[name].statistics["pct_difficulty_gt"] < 100.0 == irt.statistics["pct_difficulty_gt"]
        assert len(irt.suspect_labels) > len(before[name].suspect_labels)
        # what fitting again under the new thresholds gives
        fresh = irt_for_responses(results.respond[name],
                                  config=IRTConfig.from_dict({**SMALL.get("irt", {}), **thresholds}))
        pd.testing.assert_frame_equal(irt.suspect_labels, fresh.suspect_labels)
        assert irt.statistics == fresh.statistics | {"seconds": irt.statistics["seconds"]}
    assert (results.subset.parameters["difficulty_mean"] == 100.0).all()  # the subsets read the new summaries
    for name, irt in results.irt.items():  # and RUN_DIR/irt/ is written again
        assert len(pd.read_csv(out / "irt" / name / "suspect_labels.csv")) == len(irt.suspect_labels)


@pytest.mark.heavy
def test_an_unchanged_rerun_reuses_the_report(finished_run, tmp_path):
    config, out = _copied_run(finished_run, tmp_path)
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 0
    written = (out / "report.html").stat().st_mtime_ns
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 0
    assert _manifest(out)["documents"]["report"] == {"status": "reused", "decision": "reused"}
    assert (out / "report.html").stat().st_mtime_ns == written
    (out / "summary.md").write_text("edited by hand")
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 0
    assert _manifest(out)["documents"]["report"]["decision"] == (
        "rebuilt because report.html or summary.md is missing or was changed after it was written")
    assert "## Run overview" in (out / "summary.md").read_text()


def test_a_tampered_artifact_is_refused_with_exit_2(finished_run, tmp_path, capsys):
    config, out = _copied_run(finished_run, tmp_path)
    rate = out / _manifest(out)["artifacts"]["rate"]["path"]
    (rate / "result" / "comparisons.pkl").write_bytes(b"cos\nsystem\n(S'touch pwned'\ntR.")
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    assert f"{rate}: refused — comparisons.pkl changed" in capsys.readouterr().err
    assert main(["run", str(config), "--out", str(out), "--quiet", "--stages", "rate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchirt run: error: {rate}: refused — comparisons.pkl changed after benchirt wrote")
    assert "Traceback" not in err and not (tmp_path / "pwned").exists()


@pytest.mark.heavy
def test_a_full_disk_while_saving_one_dataset_fails_only_that_dataset(finished_run, tmp_path, monkeypatch):
    import errno

    from benchirt.pipeline import serialize

    config, out = _copied_run(finished_run, tmp_path)
    real_dump = serialize.dump

    def dump(obj, directory):
        if getattr(obj, "dataset", None) == "wine":
            raise OSError(errno.ENOSPC, "No space left on device", str(directory))
        return real_dump(obj, directory)

    monkeypatch.setattr(serialize, "dump", dump)
    outcome = run_pipeline(load_config(config, stages=["irt", "rate"]), out=out, force=True, show_progress=False)
    assert outcome.exit_code == 1
    wine = outcome.manifest.datasets["wine"]["irt"]
    assert wine["status"] == "failed" and wine["reason"].startswith("could not save the result: No space left on device")
    assert outcome.manifest.datasets["iris"]["irt"]["status"] == "computed"
    assert outcome.manifest.stages["rate"]["status"] == "done"


@pytest.mark.parametrize("kind", ["file", "proc", "unwritable"])
def test_an_unusable_out_folder_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, kind):
    out = tmp_path / "taken"
    if kind == "file":
        out.write_text("not a folder")
        expected = f"cannot use {out} as the run directory (it is an existing file, not a folder)"
    elif kind == "proc":
        out = Path("/proc/benchirt-run")
        expected = f"cannot use {out} as the run directory ("
    else:
        def refuse(self, *args, **kwargs):
            raise PermissionError(13, "Permission denied", str(self))

        monkeypatch.setattr(Path, "mkdir", refuse)
        expected = f"cannot use {out} as the run directory (Permission denied)"
    capsys.readouterr()
    assert main(["run", "--out", str(out), "--quiet", "--stages", "rate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchirt run: error: {expected}") and len(err.splitlines()) == 1


def test_ctrl_c_says_how_to_resume_and_exits_130(capsys, monkeypatch):
    from benchirt.pipeline import run as run_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "run_pipeline", interrupted)
    assert main(["run", "--quiet"]) == 130
    assert capsys.readouterr().err.strip() == "benchirt run: interrupted — rerun the same command to resume"

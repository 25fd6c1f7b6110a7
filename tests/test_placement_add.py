"""`benchirt add`: new classifiers in a finished run — stored splits, frozen items, rebuilt ratings and report."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from benchirt.cli import main
from benchirt.pipeline.results import load_run

SMALL = {
    "suite": "builtin:iris,wine,wdbc",
    "responses": {"cv_folds": 3, "ladder_epochs": 10, "pool": ["gaussian_nb", "knn_3", "decision_tree", "svc"]},
    "rating": {"n_permutations": 0, "n_bootstrap": 100},
    "report": {"max_dataset_plots": 1},
    "stages": ["respond", "irt", "rate"],
    "execution": {"n_jobs": 1},
}
KNN_AGAIN = ["--classifier", "knn_again=sklearn.neighbors.KNeighborsClassifier", "--params", '{"n_neighbors": 3}']


def _digests(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("add")
    (folder / "config.yaml").write_text(yaml.safe_dump(SMALL))
    assert main(["run", str(folder / "config.yaml"), "--out", str(folder / "run")]) == 0
    return folder / "run"


@pytest.fixture(scope="module")
def added(run_dir, tmp_path_factory):
    """The run with a second 3-NN added: same estimator as the pool's knn_3, under another name."""
    irt_before = _digests(run_dir / "artifacts" / "irt")
    respond_before = _digests(run_dir / "artifacts" / "respond")
    assert main(["add", str(run_dir), *KNN_AGAIN, "--quiet"]) == 0
    return {"irt_before": irt_before, "respond_before": respond_before}


@pytest.mark.heavy
def test_add_trains_on_the_stored_split_and_scores_on_frozen_items(run_dir, added):
    from benchirt.pipeline.store import ArtifactStore, safe_name

    assert _digests(run_dir / "artifacts" / "irt") == added["irt_before"]          # items not refitted
    assert _digests(run_dir / "artifacts" / "respond") == added["respond_before"]  # pool not retrained
    manifest = json.loads((run_dir / "manifest.json").read_text())
    store = ArtifactStore(run_dir)
    results = load_run(run_dir)
    record = manifest["added"]["knn_again"]
    assert record["measured"] == sorted(results.irt) and record["predicted"] == []
    for dataset, irt in results.irt.items():
        folder = next((run_dir / "artifacts" / "add").glob(f"{safe_name(f'knn_again@{dataset}')}-*"))
        key = json.loads((folder / "_COMPLETE.json").read_text())["key"]
        mine = store.load("add", f"knn_again@{dataset}", key)
        pool = results.respond[dataset].responses.loc["knn_3"]
        # the same estimator on the same split answers exactly as the pool member did ...
        assert (mine.responses.iloc[0].to_numpy() == pool.to_numpy()).all()
        # ... and scoring it on the frozen items gives the pool member's θ and True-Score back
        fitted = irt.abilities.set_index("respondent").loc["knn_3"]
        assert mine.abilities["theta"].iloc[0] == pytest.approx(fitted["theta"], abs=1e-9)
        assert mine.abilities["true_score"].iloc[0] == pytest.approx(fitted["true_score"], abs=1e-9)


@pytest.mark.heavy
def test_ratings_leaderboard_and_report_include_it(run_dir, added):
    results = load_run(run_dir)
    assert "knn_again" in set(results.rate.tournament.table["classifier"])
    assert "knn_again" in set(results.rate.leaderboard["classifier"])
    assert "knn_again" in set(results.rate.pairwise["a"]) | set(results.rate.pairwise["b"])
    standing = pd.read_csv(run_dir / "added" / "standing.csv")
    assert standing["classifier"].tolist() == ["knn_again"] and standing["n_predicted"].iloc[0] == 0
    assert "knn_again" in (run_dir / "summary.md").read_text() and "knn_again" in (run_dir / "report.html").read_text()


def test_add_again_reuses_and_refuses_what_it_must(run_dir, added, capsys, tmp_path):
    from benchirt.pipeline.results import load_stage_table

    config = tmp_path / "new.yaml"
    config.write_text(yaml.safe_dump({"classifiers": {"knn_again": {
        "estimator": "sklearn.neighbors.KNeighborsClassifier", "params": {"n_neighbors": 3}}}}))
    assert main(["add", str(run_dir), "--config", str(config), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "0 (classifier, dataset) results computed, 3 reused" in out
    board = load_stage_table(run_dir, "rate", "leaderboard").set_index("classifier")
    mine = board.loc["knn_again"]   # add prints the report's joint rank interval, not another one
    assert (f"knn_again: rank {mine['rank']} of {len(board)} on the leaderboard (joint rank interval "
            f"{mine['rank_low']}-{mine['rank_high']}, as the report shows it)") in out
    before = {name: (run_dir / name).read_bytes() for name in ("manifest.json", "config.yaml", "report.html")}
    assert main(["add", str(run_dir), "--classifier", "knn_again=sklearn.neighbors.KNeighborsClassifier", "--quiet"]) == 2
    assert "was added to this run before" in capsys.readouterr().err
    assert main(["add", str(run_dir), "--classifier", "svc=sklearn.svm.SVC"]) == 2
    assert "already a member of the run's pool" in capsys.readouterr().err
    # a refusal inside the engine puts the finished run back as it was
    assert {name: (run_dir / name).read_bytes() for name in before} == before


@pytest.mark.slow
def test_budget_runs_k_planned_datasets_and_predicts_the_rest(run_dir, added, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    assert main(["add", str(copy), "--classifier", "logreg=sklearn.linear_model.LogisticRegression",
                 "--params", '{"max_iter": 300}', "--budget", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "measured on 2 datasets, predicted on 1" in out
    predicted = pd.read_csv(copy / "added" / "predicted.csv")
    mine = predicted[predicted["classifier"] == "logreg"]
    assert mine["observed"].sum() == 2 and len(mine) == 3
    guessed = mine[~mine["observed"]]
    assert (guessed["low"] < guessed["score"]).all() and (guessed["score"] < guessed["high"]).all()
    standing = pd.read_csv(copy / "added" / "standing.csv").set_index("classifier").loc["logreg"]
    assert standing["rank_low"] <= standing["rank"] <= standing["rank_high"]
    assert "predicted" in (copy / "summary.md").read_text()
    # the classifier added earlier stays, measured on every dataset; the new one only where it ran
    rated = set(load_run(copy).rate.tournament.table["classifier"])
    assert {"knn_again", "logreg"} <= rated
    record = json.loads((copy / "manifest.json").read_text())["added"]
    assert len(record["knn_again"]["measured"]) == 3 and len(record["logreg"]["measured"]) == 2
    assert record["logreg"]["budget"] == 2 and len(record["logreg"]["predicted"]) == 1
    assert record["logreg"]["plan_target"] == "suite" and record["knn_again"]["plan_target"] is None
    assert main(["add", str(copy), "--classifier", "lr2=sklearn.linear_model.LogisticRegression", "--budget", "9"]) == 2
    assert "budget K=9 must be between 1 and the 3 datasets" in capsys.readouterr().err


@pytest.mark.parametrize("dotted, message", [
    ("sklearn.nope.Classifier", "cannot import 'sklearn.nope'"),
    ("os.system", "outside the allowed packages"),
    ("sklearn.linear_model.LinearRegression", "not a scikit-learn classifier"),
])
def test_bad_estimators_are_refused_before_anything_runs(run_dir, added, capsys, monkeypatch, dotted, message):
    calls = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a) or 0)
    before = _digests(run_dir)
    assert main(["add", str(run_dir), "--classifier", f"x={dotted}"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert calls == [] and _digests(run_dir) == before


def test_respond_more_refuses_another_split():
    from benchirt.data import resolve_suite
    from benchirt.errors import DataError
    from benchirt.pool.real import REAL_CLASSIFIERS
    from benchirt.responses import ResponseConfig, respond, respond_more

    dataset = resolve_suite("builtin:iris")[0].load()
    config = ResponseConfig(cv_folds=3, ladder_epochs=0, pool=("gaussian_nb",))
    full = respond(dataset, config=config)
    result = respond_more(dataset, config, [REAL_CLASSIFIERS["gaussian_nb"]], test_index=full.test_index)
    assert list(result.responses.index) == ["gaussian_nb"] and result.responses.shape[1] == 45
    assert result.responses.equals(full.responses.loc[["gaussian_nb"]])
    assert result.cv_accuracy["gaussian_nb"] == full.cv_accuracy["gaussian_nb"]
    with pytest.raises(DataError, match="differ from the stored split"):
        respond_more(dataset, config, [REAL_CLASSIFIERS["gaussian_nb"]], test_index=result.test_index[1:])


def test_a_run_without_stored_splits_is_refused(run_dir, tmp_path, capsys):
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(run_dir / "manifest.json", bare / "manifest.json")
    assert main(["add", str(bare), *KNN_AGAIN]) == 2
    assert "no stored splits" in capsys.readouterr().err
    assert main(["add", str(tmp_path / "nothing"), *KNN_AGAIN]) == 2
    assert "not a benchirt run directory" in capsys.readouterr().err


def test_plan_and_predict_read_a_run_directory(run_dir, tmp_path):
    assert main(["plan", str(run_dir), "--budget", "2", "--out", str(tmp_path / "plan"), "--exclude", "svc"]) == 0
    plan = pd.read_csv(tmp_path / "plan" / "plan.csv")
    assert len(plan) == 2 and set(plan["dataset"]) <= {"iris", "wine", "wdbc"}
    from benchirt.placement import load_calibration

    scores = load_calibration(run_dir).scores
    truth = scores["svc"].loc[plan["dataset"]]
    pd.DataFrame({"classifier": "svc_new", "dataset": truth.index, "score": truth.to_numpy()}).to_csv(tmp_path / "obs.csv", index=False)
    assert main(["predict", str(run_dir), "--observed", str(tmp_path / "obs.csv"), "--out", str(tmp_path / "predict"),
                 "--exclude", "svc"]) == 0
    predicted = pd.read_csv(tmp_path / "predict" / "predicted.csv")
    assert predicted["observed"].sum() == 2 and len(predicted) == 3



@pytest.fixture(scope="module")
def accuracy_run(run_dir, tmp_path_factory):
    """The small run re-rated on test accuracy (``rate.score: test_accuracy``): its results before and after `add`,
    and what `add` printed. The report cannot be drawn during that `add` (``build_report`` raises): what `add`
    says then is checked by :func:`test_a_report_that_cannot_be_rebuilt_is_said`."""
    import contextlib
    import io

    import benchirt.report

    folder = tmp_path_factory.mktemp("add_accuracy")
    shutil.copytree(run_dir, folder / "run")
    (folder / "config.yaml").write_text(yaml.safe_dump(
        {**SMALL, "rating": {**SMALL["rating"], "score": "test_accuracy"}, "stages": ["rate"]}))
    assert main(["run", str(folder / "config.yaml"), "--out", str(folder / "run"), "--quiet"]) == 0
    before = load_run(folder / "run")

    def broken(*args, **kwargs):
        raise RuntimeError("no figure today")

    stdout = io.StringIO()
    with pytest.MonkeyPatch.context() as monkeypatch, contextlib.redirect_stdout(stdout):
        monkeypatch.setattr(benchirt.report, "build_report", broken)
        assert main(["add", str(folder / "run"), "--classifier", "logreg=sklearn.linear_model.LogisticRegression",
                     "--params", '{"max_iter": 300}', "--quiet"]) == 0
    return before, load_run(folder / "run"), stdout.getvalue()


@pytest.mark.heavy
def test_add_rates_on_the_runs_own_score(accuracy_run):
    """`add` re-runs the rate stage with ``rate.score: test_accuracy``: every pair of the pool keeps its record
    and difference, and each pool member's mean rank moves only by where the new classifier's test accuracy
    falls beside its own on each dataset (+1 below it, +0.5 tied, 0 above)."""
    from benchirt.pipeline.store import ArtifactStore

    before, after, _ = accuracy_run
    assert after.rate.score == after.rate.config.score == "test_accuracy"
    assert list(after.rate.comparisons) == list(before.rate.comparisons) == ["test_accuracy", "true_score"]
    store = ArtifactStore(after.run_dir)
    new = pd.Series({d: store.load("add", f"logreg@{d}", after.manifest.datasets[f"logreg@{d}"]["add"]["key"]).test_accuracy
                     for d in before.respond})
    pool = pd.DataFrame({d: r.test_accuracy for d, r in before.respond.items()}).T.loc[new.index]  # dataset × classifier
    ranks_before = before.rate.leaderboard.set_index("classifier")["mean_rank"]
    ranks_after = after.rate.leaderboard.set_index("classifier")["mean_rank"]
    assert set(ranks_after.index) == set(ranks_before.index) | {"logreg"} and len(ranks_before) >= 8
    shift = {c: ((pool[c] < new).astype(float) + 0.5 * (pool[c] == new)).mean() for c in ranks_before.index}
    assert any(value > 0 for value in shift.values()) and any(value < 1 for value in shift.values())
    for classifier, rank in ranks_before.items():
        assert ranks_after[classifier] == pytest.approx(rank + shift[classifier], abs=1e-12), classifier
    columns = ["a", "b", "n_datasets", "wins", "losses", "ties", "mean_difference"]
    pairs_before = before.rate.pairwise[columns].set_index(["a", "b"]).sort_index()
    pairs_after = after.rate.pairwise[columns].set_index(["a", "b"])
    pd.testing.assert_frame_equal(pairs_after.loc[pairs_before.index], pairs_before)
    friedman = after.rate.comparisons["test_accuracy"].average_ranks
    assert "logreg" in friedman.index and "random2" not in friedman.index  # the real classifiers are tested


@pytest.mark.heavy
def test_a_report_that_cannot_be_rebuilt_is_said(accuracy_run):
    """`add` in :func:`accuracy_run` ran while ``build_report`` raised: the classifier is added all the same
    (its ratings are checked above) and the note says why the report is old and how to redraw it."""
    _, after, out = accuracy_run
    assert "note: the report was not rebuilt (RuntimeError: no figure today" in out
    assert f"`benchirt report {after.run_dir}` tries again" in out
    assert "logreg" in json.loads((after.run_dir / "manifest.json").read_text())["added"]

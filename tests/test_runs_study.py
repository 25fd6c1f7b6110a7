"""A study of stored runs over several tasks (subsets, AIRT on the datasets × flows matrix, report), the
imports paired with their datasets (labels read from the data, rows checked) and benchirt's own pool beside
the imported runs on the same rows.

The runs folder is written here from scikit-learn's 4-fold out-of-fold predictions on five small real
CC18 datasets (``../shared/data/cc18-arff``), with seeded stratified splits as ``datasplits.arff`` (4 folds,
not OpenML's 10: the same odd-fold items, half the rows either way, for 40 % of the fits)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import BernoulliNB, GaussianNB
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from benchirt.data import resolve_suite
from benchirt.errors import DataError
from benchirt.pipeline.config import load_config
from benchirt.pipeline.run import load_run, run_pipeline
from benchirt.stored_runs.beside import beside_suite
from benchirt.stored_runs.folder import read_runs_folder
from benchirt.stored_runs.responses import imported_results
from runs_samples import write_study_folder

DATASETS = {  # task id -> (dataset id, OpenML name, ARFF file of ../shared/data/cc18-arff)
    9011: (11, "balance-scale", "11-balance-scale.arff"),
    9050: (50, "tic-tac-toe", "50-tic-tac-toe.arff"),
    9037: (37, "diabetes", "37-diabetes.arff"),
    9063: (1063, "kc2", "1063-kc2.arff"),
    9469: (469, "analcatdata_dmft", "469-analcatdata_dmft.arff"),
}
FLOWS = {  # flow id -> (name, one estimator per hyperparameter setting: one run each); 10 flows, as IRT needs
    200 + i: (f"sklearn.tree.{kind.__name__}(max_depth={depth})",
              [kind(max_depth=depth, min_samples_leaf=leaf, random_state=0) for leaf in (1, 20)])
    for i, (kind, depth) in enumerate([(DecisionTreeClassifier, d) for d in (1, 2, 4, 8, None)]
                                      + [(ExtraTreeClassifier, d) for d in (3, None)])
} | {
    210: ("sklearn.naive_bayes.GaussianNB", [GaussianNB(var_smoothing=v) for v in (1e-9, 1e-2)]),
    211: ("sklearn.naive_bayes.BernoulliNB", [BernoulliNB(alpha=a) for a in (0.1, 10.0)]),
    212: ("sklearn.ensemble.RandomForestClassifier", [RandomForestClassifier(5, max_depth=4, random_state=s) for s in (0, 1)]),
}
SMALL_POOL = {"pool": ["gaussian_nb", "decision_tree"], "ladder_epochs": 0, "artificial": False, "cv_folds": 3}


@pytest.fixture(scope="module")
def study(shared_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    arffs = {task: (did, name, shared_data / "cc18-arff" / file) for task, (did, name, file) in DATASETS.items()}
    expected = write_study_folder(root, arffs, FLOWS, n_folds=4)
    suite = [str(shared_data / "cc18-arff" / file) for _, _, file in DATASETS.values()]
    return root, expected, suite


def _config(root, suite=None, stages=("respond",), **responses):
    return load_config({"suite": suite or "openml-runs", "stages": list(stages),
                        "responses": {"source": "openml-runs", "path": str(root), **responses},
                        "irt": {"model": "2PL"}, "rating": {"n_permutations": 0, "n_bootstrap": 20},
                        "subsets": {}, "airt": {},
                        "report": {"max_dataset_plots": 0, "dpi": 40}, "execution": {"n_jobs": 1}})


@pytest.mark.heavy
def test_a_folder_of_five_tasks_reads_the_runs_and_the_labels_from_the_data(study):
    root, expected, _ = study
    matrices = {m.dataset: m for m in read_runs_folder(root)}
    assert sorted(matrices) == sorted(name for _, name, _ in DATASETS.values())
    for matrix in matrices.values():
        assert matrix.responses.shape == (2 * len(FLOWS), matrix.n_rows) and not matrix.skipped
        for i, run_id in enumerate(matrix.runs["run_id"]):
            assert np.array_equal(matrix.responses[i], expected[run_id])
    balance = matrices["balance-scale"]
    assert balance.classes == ("L", "B", "R") and list(balance.item_labels[:3]) == ["B", "R", "R"]


@pytest.mark.heavy
def test_test_labels_of_an_import_are_the_datasets_labels(study, tmp_path, shared_data):
    root, _, _ = study
    run_pipeline(_config(root), out=tmp_path / "run", show_progress=False)
    results = load_run(tmp_path / "run").respond
    from benchirt.data.arff import read_arff

    for task, (_, name, file) in DATASETS.items():
        frame = read_arff(shared_data / "cc18-arff" / file).frame
        labels = frame.iloc[:, -1].astype(str).to_numpy()
        result = results[name]
        items = result.responses.columns.astype(int)
        assert list(result.test_labels.index) == list(result.responses.columns)
        assert np.array_equal(result.test_labels.to_numpy(), labels[items]), name
        # several datasets: every flow is one respondent on each (no pattern merged away), odd folds are items
        assert len(result.responses) == len(FLOWS)
        assert any("over 5 datasets each flow is one respondent" in note for note in result.notes)


@pytest.mark.heavy
def test_import_runs_command_keeps_one_respondent_per_flow_on_every_dataset(study, tmp_path, capsys):
    from benchirt.cli import main

    root, _, _ = study
    assert main(["import-runs", str(root), "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("over 5 datasets each flow is one respondent on every dataset") == 5
    for _, name, _ in DATASETS.values():
        respondents = pd.read_csv(tmp_path / "responses" / name / "respondents.csv")
        assert sorted(respondents["flow_name"]) == sorted(flow for flow, _ in FLOWS.values())
        assert (respondents["n_identical"] == 1).all()


@pytest.mark.heavy
def test_imported_runs_beside_benchirts_pool_on_the_same_rows(study, tmp_path, shared_data):
    root, _, suite = study
    config = _config(root, suite=suite, pool=SMALL_POOL)
    run_pipeline(config, out=tmp_path / "run", show_progress=False)
    results = load_run(tmp_path / "run").respond
    result = results["diabetes"]
    assert list(result.responses.index[:2]) == ["gaussian_nb", "decision_tree"]
    assert len(result.responses) == 2 + len(FLOWS) and (result.roles == "real").all()
    sources = result.provenance.set_index("respondent")["source"]
    assert sources["gaussian_nb"] == "benchirt real" and (sources.iloc[2:] == "stored run").all()
    # the pool answered exactly the imported items (odd folds) after training on the other rows (even folds)
    from benchirt.data.arff import read_arff

    frame = read_arff(shared_data / "cc18-arff" / "37-diabetes.arff").frame
    X, y = frame.iloc[:, :-1].to_numpy(float), frame.iloc[:, -1].cat.codes.to_numpy()
    items = result.responses.columns.astype(int).to_numpy()
    train = np.setdiff1d(np.arange(len(y)), items)
    direct = (GaussianNB().fit(X[train], y[train]).predict(X[items]) == y[items]).astype(np.int8)
    assert np.array_equal(result.responses.loc["gaussian_nb"].to_numpy(), direct)
    assert any("benchirt's pool (2 real classifiers" in note for note in result.notes)
    assert np.array_equal(result.test_labels.to_numpy(), frame.iloc[:, -1].astype(str).to_numpy()[items])


def test_rows_that_differ_are_refused_with_one_line(study, tmp_path, shared_data):
    root, _, _ = study
    single = tmp_path / "one"
    (single / "runs").mkdir(parents=True)
    for name in ("tasks", "datasets"):  # copied (a link would leave the folder); the datasets' ARFF links kept
        shutil.copytree(root / name, single / name, symlinks=True)
    for run in (root / "runs").iterdir():
        if _task_of(run) == 9011:
            shutil.copytree(run, single / "runs" / run.name)  # a link would leave the folder: refused
    wrong = str(shared_data / "cc18-arff" / "50-tic-tac-toe.arff")  # balance-scale's runs beside tic-tac-toe
    outcome = run_pipeline(_config(single, suite=[wrong], pool=SMALL_POOL), out=tmp_path / "bad", show_progress=False)
    entry = outcome.manifest.datasets["balance-scale"]["respond"]
    assert entry["status"] == "skipped"  # a DataError: the dataset is skipped with its one line
    assert "differ: the runs' dataset has 625 rows, this one 958" in entry["reason"]
    # rule 'best': the items are every row, so nothing is left to train benchirt's pool on
    config = _config(single, per_flow="best", pool=SMALL_POOL).stage_config("respond")
    [result] = imported_results(config).values()
    [spec] = resolve_suite([str(shared_data / "cc18-arff" / "11-balance-scale.arff")])
    with pytest.raises(DataError, match="benchirt's pool has no row to train on.*per_flow: best-held-out"):
        beside_suite(result, spec, pool_config=config.pool_config())


def _task_of(run_folder) -> int:
    text = (run_folder / "description.xml").read_text()
    return int(text.split("<oml:task_id>")[1].split("<")[0])


@pytest.mark.slow
def test_a_multi_task_import_runs_through_subsets_airt_and_report(study, tmp_path):
    root, _, _ = study
    config = _config(root, stages=("respond", "irt", "rate", "subsets", "airt", "report"))
    outcome = run_pipeline(config, out=tmp_path / "run", show_progress=False)
    stages = outcome.manifest.stages
    assert all(stages[s]["status"] == "done" for s in ("respond", "irt", "rate", "subset", "airt", "report")), stages
    results = load_run(tmp_path / "run")
    assert list(results.airt.performance.shape) == [5, len(FLOWS)]
    assert set(results.airt.performance.columns) == {name for name, _ in FLOWS.values()}
    note = next(n for n in results.airt.notes if n.startswith("algorithms:"))
    assert note.startswith(f"algorithms: the {len(FLOWS)} OpenML flows imported on every dataset") and "5 datasets" in note
    assert outcome.manifest.artifacts["airt"]["notes"][0] == note
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert f"{len(FLOWS)} OpenML flows" in page and "Respondents from stored runs" in page
    summary = (tmp_path / "run" / "summary.md").read_text(encoding="utf-8")
    assert f"{len(FLOWS)} OpenML flows" in summary
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["artifacts"]["subset"]["status"] == "computed"


def test_pairing_names_the_unpaired_imports_and_the_suite_in_words():
    from benchirt.data.spec import DatasetSpec
    from benchirt.errors import DataError
    from benchirt.stored_runs.beside import pair_with_suite

    specs = [DatasetSpec(name="40-kr-vs-kp", kind="file", location="x.arff"),
             DatasetSpec(name="iris", kind="builtin", location="iris")]
    assert {name: spec.name for name, spec in pair_with_suite(["KR-VS-KP", "iris"], specs).items()} == \
        {"KR-VS-KP": "40-kr-vs-kp", "iris": "iris"}
    with pytest.raises(DataError) as refused:
        pair_with_suite(["wine", "iris"], specs)
    assert str(refused.value) == ("imported dataset(s) wine have no single suite dataset of the same name (suite: "
                                  "40-kr-vs-kp, iris); put the datasets the runs answered in the suite")


def test_merge_refuses_different_rows_and_a_name_on_both_sides_in_one_line():
    from types import SimpleNamespace

    from benchirt.errors import DataError
    from benchirt.stored_runs.beside import merge

    def result(names, items):
        return SimpleNamespace(dataset="iris", responses=pd.DataFrame(1, index=names, columns=items))

    with pytest.raises(DataError, match=r"^iris: benchirt's pool answered 2 rows, the imported runs 3 others; "):
        merge(result(["run_1"], ["r1", "r2", "r3"]), result(["knn_5"], ["r1", "r2"]))   # (imported, pool)
    clash = [f"c{i}" for i in range(5)]
    with pytest.raises(DataError) as refused:
        merge(result(clash, ["r1"]), result(clash, ["r1"]))
    assert str(refused.value) == ("iris: respondent name(s) c0, c1, c2 … are both a pool classifier and an imported "
                                  "flow; leave them out of respond.pool.pool")

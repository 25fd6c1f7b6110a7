"""Same results whatever the executor: in-process, two loky workers and a Dask LocalCluster of processes,
with the response stage as (dataset, fit) tasks (the default) or one task per dataset.

kr-vs-kp is where k-nearest-neighbour search answered 7/5/10/6 test items differently with 1 and 2
OpenMP threads (knn_2/3/5/8) before every fit was pinned to one thread (:mod:`benchirt.threads`).
"""
from __future__ import annotations

import pandas as pd
import pytest
import yaml
from threadpoolctl import threadpool_info, threadpool_limits

from benchirt.cli import main
from benchirt.pipeline.results import load_run
from benchirt.threads import one_thread


def test_one_thread_limits_blas_and_openmp():
    with threadpool_limits(limits=2), one_thread():
        pools = threadpool_info()
    assert {"blas", "openmp"} <= {pool["user_api"] for pool in pools}
    assert all(pool["num_threads"] == 1 for pool in pools)


@pytest.mark.slow
def test_results_identical_across_n_jobs_and_a_dask_local_cluster(shared_data, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({
        "suite": [str(shared_data / "cc18-arff" / "3-kr-vs-kp.arff"), "builtin:wine"],
        "stages": ["respond", "irt", "rate"],
        "responses": {"cv_folds": 3, "ladder_epochs": 5,
                      "pool": ["knn_2", "knn_3", "knn_5", "knn_8", "gaussian_nb", "decision_tree", "mlp"]},
        "rating": {"n_permutations": 5},
    }))
    per_dataset = tmp_path / "per-dataset.yaml"
    per_dataset.write_text(config.read_text() + "execution: {tasks: datasets}\n")
    runs = {}
    for label, (path, extra) in {"n_jobs=1": (config, ["--n-jobs", "1"]), "n_jobs=2": (config, ["--n-jobs", "2"]),
                                 "n_jobs=2, a task per dataset": (per_dataset, ["--n-jobs", "2"]),
                                 "dask": (config, ["--scheduler", "local", "--n-jobs", "2"])}.items():
        out = tmp_path / label
        assert main(["run", str(path), "--out", str(out), "--quiet", *extra]) == 0
        runs[label] = load_run(out)
    assert runs["n_jobs=2, a task per dataset"].config.execution.tasks == "datasets"
    reference = runs.pop("n_jobs=1")
    assert set(reference.respond) == {"3-kr-vs-kp", "wine"}
    for label, run in runs.items():
        for name, result in reference.respond.items():
            pd.testing.assert_frame_equal(run.respond[name].responses, result.responses, obj=f"{label} {name}")
            pd.testing.assert_series_equal(run.respond[name].cv_accuracy, result.cv_accuracy)
            items, expected = run.irt[name].fit.items, reference.irt[name].fit.items
            pd.testing.assert_frame_equal(items, expected, check_exact=True, obj=f"{label} {name} items")
            pd.testing.assert_frame_equal(run.irt[name].abilities, reference.irt[name].abilities, check_exact=True)
        pd.testing.assert_frame_equal(run.rate.ratings, reference.rate.ratings, check_exact=True, obj=label)

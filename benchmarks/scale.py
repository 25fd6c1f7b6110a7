"""The response stage at CC18's largest shapes: measured time and peak memory against ``--estimate``.

Two jobs:

``--calibrate``
    Measures single-threaded fits of every pool classifier (and the ladder, the loading of a data
    file, one IRT fit) on synthetic data of a few sizes and rewrites the cost model the estimate uses
    (``benchirt/pipeline/cost_model.json``; its form is in :mod:`benchirt.pipeline.estimate`). CPU
    seconds (``time.process_time``): with one thread per fit they do not depend on the machine's load.
    It drops the factors of ``--calibrate-run``, which must follow.

``--calibrate-run RUN_DIR [OTHER_RUN ...]``
    Fits the suite-wide stages' constants (fixed + per dataset × classifier) to finished real runs (their
    manifests' CPU seconds per (dataset, stage) and per stage) and refits, on the first run, one factor per group of classifiers (ridge towards 1 on
    the log scale) and the IRT constant, keeping each refit only where its leave-one-dataset-out error
    beats the synthetic calibration's error on that run; prints both and rewrites the model.

default
    Synthetic datasets (``make_classification``) with the rows, features and classes of CC18's
    largest datasets go through :func:`benchirt.responses.respond` with the size policy of
    ``configs/cc18.yaml``, each in a fresh process (time and peak resident memory), with ``--n-jobs``
    parallel fits (default 1). ``--fraction F`` shrinks the rows *and* the caps by F for a
    brief run on a shared machine; the table prints the estimate of the same reduced run beside the
    measurement (their ratio checks the cost model) and the full-size estimate with the cc18 policy.
    Finally the whole CC18 is estimated on 2 cores and on 16 workers, with the cc18 policy and uncapped.

``--check RUN_DIR [--time-file FILE]``
    A finished run's measured seconds per dataset (respond + irt) and per suite-wide stage (its
    manifest: CPU seconds where recorded) against the estimate of the packaged cost model and, with
    ``--baseline-model``, of an earlier one; with the run's ``/usr/bin/time -v`` output, its whole wall
    and CPU time against the expected wall time on idle workers and the estimated work.

``--memory CACHE_DIR``
    CC18's image shapes (CIFAR_10, Devnagari-Script, mnist_784, Fashion-MNIST) at full size, as
    synthetic 0-255 tables cached as OpenML parquet datasets (:mod:`openml_synthetic`), loaded
    through openml-python's real code path in a fresh process: peak memory after loading, after
    cleaning every row, and (``--fits``) after the response stage with the cc18 policy on one core.

``--project``
    Only the whole-suite projection (the last part of the default run): CC18's 72 recorded shapes
    with the cc18 policy and uncapped, on 2 and 16 workers, with both task grains.

``--threads``
    Why every fit runs with one thread: kr-vs-kp's k-NN answers with 1 and 2 OpenMP threads.

    python benchmarks/scale.py --calibrate          # or --calibrate-memory: the OpenML loading bytes only
    python benchmarks/scale.py --fraction 0.05 --n-jobs 1     # what benchmarks/results/scale.md shows
    python benchmarks/scale.py --threads
    python benchmarks/scale.py --project                      # the whole-suite projection only
    python benchmarks/scale.py --calibrate-run RUN_DIR [OTHER_RUN ...]   # refit to finished real runs
    python benchmarks/scale.py --check RUN_DIR --baseline-model OLD.json --time-file RUN.time   # estimate vs a run
    python benchmarks/scale.py --memory /tmp/cc18-images [--fits] [--only mnist_784]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.pipeline.estimate import SUITE_STAGES

ROOT = Path(__file__).resolve().parents[1]
MODEL_PATH = ROOT / "benchirt" / "pipeline" / "cost_model.json"

#: CC18's largest datasets by values (rows x features), with their OpenML shapes (features without the
#: target), and the row-largest ones the issue names; Fashion-MNIST has mnist_784's shape and is measured once.
LARGEST = [
    ("CIFAR_10", 60000, 3072, 10),
    ("Devnagari-Script", 92000, 1024, 46),
    ("mnist_784", 70000, 784, 10),
    ("APSFailure", 76000, 170, 2),
    ("numerai28.6", 96320, 21, 2),
]


#: The model's stated accuracy until ``--calibrate-run`` measures it on a real run (and says it).
TYPICAL_ERROR = ("not measured: synthetic constants only, not yet fitted to a real run "
                 "(python benchmarks/scale.py --calibrate-run RUN_DIR)")


def thread_ties(shared: Path) -> None:
    """Why every fit runs with one thread: kr-vs-kp's k-NN answers with 1 and 2 OpenMP threads."""
    from threadpoolctl import threadpool_limits

    from benchirt.data import resolve_suite
    from benchirt.pool import REAL_CLASSIFIERS
    from benchirt.preprocess import clean_features, transform_pair
    from benchirt.responses import ResponseConfig
    from benchirt.responses.split import split_train_test

    [spec] = resolve_suite(str(shared / "cc18-arff" / "3-kr-vs-kp.arff"))
    dataset = spec.load()
    X, _ = clean_features(dataset.X, dataset=spec.name)
    codes = dataset.y.cat.codes.to_numpy()
    config = ResponseConfig()
    split = split_train_test(codes, config.test_size, config.max_test, config.seed, dataset=spec.name)
    X_train, X_test = transform_pair(X, split.train, split.test, scale=True)
    print(f"kr-vs-kp, {len(split.test)} test items: items answered differently with 1 and 2 OpenMP threads")
    for name in ("knn_2", "knn_3", "knn_5", "knn_8"):
        answers = []
        for threads in (1, 2):
            with threadpool_limits(limits=threads, user_api="openmp"):
                answers.append(REAL_CLASSIFIERS[name].build(0).fit(X_train, codes[split.train]).predict(X_test))
        print(f"  {name}: {int((answers[0] != answers[1]).sum())}")


def _one_fit(spec, X, y, X_test) -> float:
    from benchirt.threads import one_thread

    with one_thread():
        start = time.process_time()
        spec.build(0).fit(X, y).predict(X_test)
        return time.process_time() - start


def calibrate() -> dict:
    """Measure the constants of the cost model (seconds per work unit) on this machine."""
    from sklearn.datasets import make_classification

    from benchirt.irt import fit_irt
    from benchirt.irt.simulate import simulate_responses
    from benchirt.pipeline.estimate import load_cost_model, work_units
    from benchirt.pool import REAL_CLASSIFIERS
    from benchirt.threads import one_thread

    # fixed seconds per fit (per epoch for the ladder): the median of 3 fits on 100 x 4, where the work is nil
    X, y = make_classification(n_samples=150, n_features=4, n_informative=2, n_redundant=0, random_state=0)
    fixed = {name: statistics.median(_one_fit(spec, X[:100], y[:100], X[100:]) for _ in range(3))
             for name, spec in REAL_CLASSIFIERS.items()}
    fixed["ladder"] = statistics.median(_ladder_seconds(X[:100], y[:100], X[100:], 10) for _ in range(3)) / 10

    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in fixed}  # (units, seconds)
    for n, d, c in [(500, 20, 2), (2000, 20, 2), (500, 200, 10), (2000, 200, 10), (1000, 60, 5)]:
        X, y = make_classification(n_samples=n + 200, n_features=d, n_informative=min(d, 10), n_classes=c,
                                   n_clusters_per_class=1, random_state=0)
        X = (X - X.mean(0)) / X.std(0)
        for name, spec in REAL_CLASSIFIERS.items():
            seconds = _one_fit(spec, X[:n], y[:n], X[n:])
            samples[name].append((work_units(name, n, 200, d, c), seconds))
        seconds = _ladder_seconds(X[:n], y[:n], X[n:], 10) / 10
        samples["ladder"].append((work_units("ladder", n, 200, d, c), seconds))
        print(f"  calibrated on {n} x {d}, {c} classes", file=sys.stderr)
    constants, spread = {}, {}
    for name, points in samples.items():
        constants[name] = _slope([(u, t - fixed[name]) for u, t in points])
        modelled = [(fixed[name] + constants[name] * u, t) for u, t in points]
        spread[name] = max(max(m / t, t / m) for m, t in modelled)

    # loading: benchirt's file loader on a CSV of numbers (time and bytes per value)
    import tracemalloc

    from benchirt.data.files import load_file

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(20000, 50)), columns=[f"f{i}" for i in range(50)])
    frame["class"] = np.random.default_rng(1).integers(0, 3, size=len(frame)).astype(str)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "synthetic.csv"
        frame.to_csv(path, index=False)
        tracemalloc.start()
        start = time.process_time()
        load_file(path, name="synthetic")
        load_seconds = time.process_time() - start
        load_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    values = 20000 * 50

    sim = simulate_responses(n_respondents=132, n_items=500, seed=0)
    start = time.process_time()
    with one_thread():
        fit_irt(sim.responses)
    irt_seconds = time.process_time() - start
    model = {
        "calibrated": time.strftime("calibrated %Y-%m-%d by benchmarks/scale.py --calibrate"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "seconds_per_unit": constants,
        "fixed_seconds_per_fit": fixed,
        "fixed_seconds_per_dataset": 0.0,
        "worst_calibration_error": {name: round(value, 2) for name, value in spread.items()},
        "load_seconds_per_value": load_seconds / values,
        "load_bytes_per_value": load_peak / values,
        "openml_load_bytes_per_value": openml_load_bytes(),
        "irt_seconds": irt_law_through(load_cost_model()["irt_seconds"], 132, 500, irt_seconds),
        "base_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "typical_error": TYPICAL_ERROR,
    }
    model["fixed_seconds_per_dataset"] = fixed_per_dataset(model)
    return model


def openml_load_bytes(rows: int = 20000, features: int = 500) -> float:
    """Peak bytes per value of loading an OpenML parquet dataset of fractions (nothing to store compactly: the
    worst case) through openml's code path and cleaning every row, as respond does, in a fresh process."""
    from openml_synthetic import write_openml_cache

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(rows, features)),
                         columns=[f"f{i}" for i in range(features)])
    frame["class"] = pd.Categorical(np.random.default_rng(1).integers(0, 3, size=rows).astype(str))
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    with tempfile.TemporaryDirectory() as folder:
        write_openml_cache(folder, 990002, "fractions", frame, "class")
        process = context.Process(target=_openml_load_child, args=(Path(folder), queue))
        process.start()
        increase = queue.get()
        process.join()
    return increase / (rows * features)


def _openml_load_child(folder: Path, queue) -> None:
    from benchirt.data import DatasetSpec
    from benchirt.data.openml_source import load_openml
    from benchirt.preprocess import clean_features

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    dataset = load_openml(DatasetSpec("fractions", "openml", "990002", openml_id=990002, openml_cache=str(folder)))
    clean_features(dataset.X, dataset="fractions")
    queue.put(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)


def _ladder_seconds(X, y, X_test, epochs: int) -> float:
    from benchirt.pool import ladder_predictions
    from benchirt.threads import one_thread

    with one_thread():
        start = time.process_time()
        ladder_predictions(X, y, X_test, epochs=epochs)
        return time.process_time() - start


def irt_law_through(law: dict, n_respondents: int, items: int, seconds: float) -> dict:
    """The IRT stage's law (:func:`benchirt.pipeline.estimate.irt_seconds`) rescaled to give ``seconds`` at
    ``n_respondents`` × ``items`` (its powers and fixed part kept)."""
    return {**law, "scale": max(seconds - law["fixed"], 1e-6) / (n_respondents ** law["respondents_power"]
                                                                  * items ** law["items_power"])}


def fixed_per_dataset(model: dict) -> float:
    """Seconds of loading and ``respond`` per dataset beyond its fits: iris and wine, 3 times each (median).

    ``respond`` runs with one cheap classifier (Gaussian naive Bayes, its modelled seconds subtracted)
    and no ladder, so what is measured is per dataset: loading, cleaning, the split and folds,
    preprocessing per task, the artificial classifiers and joblib's scheduling.
    """
    from benchirt.data import resolve_suite
    from benchirt.pipeline.estimate import Shape, response_cost
    from benchirt.responses import ResponseConfig, respond

    config = ResponseConfig(pool=("gaussian_nb",), ladder_epochs=0)
    left = []
    for spec in resolve_suite("builtin:iris,wine") * 3:
        start = time.process_time()
        dataset = spec.load()
        respond(dataset, config=config)
        measured = time.process_time() - start
        shape = Shape(len(dataset.y), dataset.X.shape[1], int(dataset.y.nunique()), "loaded")
        left.append(measured - response_cost(shape, config, model)["seconds"])
    print(f"  per dataset beyond the fits: {', '.join(f'{s:.2f}' for s in left)} s", file=sys.stderr)
    return max(0.0, statistics.median(left))


def _slope(points: list[tuple[float, float]]) -> float:
    """Least-squares ``seconds = a * units``, ``a >= 0`` (through the origin: the largest fits weigh most, as at
    scale; the seconds are those beyond the fixed cost of a fit)."""
    units = np.array([u for u, _ in points], dtype=float)
    seconds = np.array([t for _, t in points], dtype=float)
    return max(0.0, float(np.sum(units * seconds) / np.sum(units * units)))


def _measure(shape, config, n_jobs, queue) -> None:
    """Child process: build the synthetic dataset, run the response stage, report time and peak memory."""
    from sklearn.datasets import make_classification

    from benchirt.data import Dataset
    from benchirt.responses import respond

    name, rows, features, classes = shape
    start = time.perf_counter()
    X, y = make_classification(n_samples=rows, n_features=features, n_informative=min(features, 20),
                               n_redundant=0, n_classes=classes, n_clusters_per_class=1, random_state=0)
    dataset = Dataset(name, pd.DataFrame(X, columns=[f"f{i}" for i in range(features)]),
                      pd.Series(y).astype(str).astype("category"))
    del X
    generated = time.perf_counter() - start
    peak = _TreeMemory()
    start = time.perf_counter()
    result = respond(dataset, config=replace(config, n_jobs=n_jobs))
    seconds = time.perf_counter() - start
    queue.put({"seconds": seconds, "generate_s": generated, "peak_bytes": peak.stop(), "sizes": result.sizes})


class _TreeMemory:
    """Largest resident memory of this process plus its children (the fitting workers), sampled every 0.2 s."""

    def __init__(self) -> None:
        import threading

        import psutil

        self._process, self.peak, self._done = psutil.Process(), 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        import psutil

        while not self._done.wait(0.2):
            total = 0
            for process in [self._process, *self._process.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)

    def stop(self) -> int:
        self._done.set()
        self._thread.join()
        return max(self.peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)


def measure(shape, config, n_jobs: int) -> dict:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_measure, args=(shape, config, n_jobs, queue))
    process.start()
    out = queue.get()
    process.join()
    return out


def cc18_config(fraction: float):
    from benchirt.pipeline import load_config

    config = load_config(ROOT / "configs" / "cc18.yaml").stage_config("respond")
    scaled = {key: max(2, int(getattr(config, key) * fraction)) for key in ("max_train", "max_cv_train")
              if getattr(config, key) is not None}
    return config, replace(config, **scaled)


#: CC18's image datasets (0-255 pixels) whose loading the 4 GB goal is about: the memory benchmark's shapes.
IMAGES = [("CIFAR_10", 60000, 3072, 10, 40927), ("Devnagari-Script", 92000, 1024, 46, 40923),
          ("mnist_784", 70000, 784, 10, 554), ("Fashion-MNIST", 70000, 784, 10, 40996)]


def _write_image_dataset(folder: Path, shape) -> None:
    """Child process: a synthetic image table of ``shape`` cached as an OpenML parquet dataset (float64 columns)."""
    from sklearn.datasets import make_classification

    from openml_synthetic import write_openml_cache

    name, rows, features, classes, did = shape
    X, y = make_classification(n_samples=rows, n_features=features, n_informative=20, n_redundant=0,
                               n_classes=classes, n_clusters_per_class=1, random_state=0)
    np.rint(X * 32 + 128, out=X)
    np.clip(X, 0, 255, out=X)
    X += 0.0  # no -0.0: pixel values as OpenML serves them
    frame = pd.DataFrame(X, columns=[f"pixel{i + 1}" for i in range(features)], copy=False)
    frame["class"] = pd.Categorical(y.astype(str))
    write_openml_cache(folder, did, name, frame, "class")


def _measure_openml(folder: Path, shape, config, fits: bool, queue) -> None:
    """Child process: load ``shape``'s cached dataset through openml, plan its rows, optionally fit; peaks after each."""
    from benchirt.data import DatasetSpec
    from benchirt.data.openml_source import load_openml
    from benchirt.preprocess import clean_features

    def peak() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9

    name, rows, features, classes, did = shape
    out = {"dataset": name, "shape": f"{rows} x {features}, {classes} cl", "base_gb": round(peak(), 2)}
    start = time.perf_counter()
    dataset = load_openml(DatasetSpec(name, "openml", str(did), openml_id=did, openml_cache=str(folder)))
    out.update(load_s=round(time.perf_counter() - start, 1), loaded_gb=round(peak(), 2),
               table_gb=round(dataset.X.memory_usage(deep=True).sum() / 1e9, 3))
    clean_features(dataset.X, dataset=name)  # what respond does first, over every row
    out["cleaned_gb"] = round(peak(), 2)
    if fits:
        from benchirt.responses import respond

        start = time.perf_counter()
        result = respond(dataset, config=config)
        out.update(respond_s=round(time.perf_counter() - start, 1), respond_gb=round(peak(), 2),
                   trained_on=result.sizes["train_used"], skipped=",".join(result.sizes["skipped_classifiers"]) or "-")
    queue.put(out)


def memory(folder: Path, names: list[str] | None, fits: bool, n_jobs: int = 1) -> None:
    """Peak memory of loading CC18's image shapes at full size through openml's real code path (and their fits,
    on ``n_jobs`` cores: the response stage's fits spread over that many worker processes)."""
    from benchirt.pipeline.estimate import Shape, load_cost_model, response_cost

    full, _ = cc18_config(1.0)
    full = replace(full, n_jobs=n_jobs)
    model = load_cost_model()
    context = multiprocessing.get_context("spawn")
    rows = []
    for shape in IMAGES:
        if names and shape[0] not in names:
            continue
        if not (folder / "org" / "openml" / "www" / "datasets" / str(shape[4]) / f"dataset_{shape[4]}.pq").is_file():
            writer = context.Process(target=_write_image_dataset, args=(folder, shape))
            writer.start()
            writer.join()
        queue = context.Queue()
        process = context.Process(target=_measure_openml, args=(folder, shape, full, fits, queue))
        process.start()
        out = queue.get()
        process.join()
        estimated = response_cost(Shape(shape[1], shape[2], shape[3], "OpenML qualities"), full, model)
        out["estimated_gb"] = round(estimated["peak_bytes"] / 1e9, 2)
        rows.append(out)
        print(out, file=sys.stderr, flush=True)
    print(f"\nPeak resident memory (GB, ru_maxrss) through openml's code path, full size, cc18 policy "
          f"(max_train {full.max_train}, max_cv_train {full.max_cv_train}); fits: {f'yes, {n_jobs} core(s)' if fits else 'no'}"
          + ("; respond_gb is the driver process's peak, each fit worker holds its own copies" if fits and n_jobs > 1 else ""))
    print(pd.DataFrame(rows).to_string(index=False))


def run_measurements(run_dir: Path) -> dict:
    """A finished run's measured seconds: per dataset (respond, irt) and per suite-wide stage.

    CPU seconds (``cpu_seconds`` / ``task_cpu_seconds``, recorded since the manifest has them) where the
    manifest records them, else the tasks' wall seconds (``"clock"`` says which): with one thread per task
    CPU seconds are the work whatever else the machine ran; wall seconds are that only on an idle machine.
    """
    from benchirt.pipeline.config import load_config, resolve_specs

    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    config = load_config(run_dir / "config.yaml")
    specs = resolve_specs(config)
    cpu = all("cpu_seconds" in manifest["datasets"][spec.name].get("respond", {}) for spec in specs)
    field = "cpu_seconds" if cpu else "seconds"
    per_dataset = {stage: [manifest["datasets"][spec.name].get(stage, {}).get(field) for spec in specs]
                   for stage in ("respond", "irt")}
    stages = manifest["stages"]
    suite = {stage: stages[stage]["task_cpu_seconds" if cpu else "seconds"] for stage in SUITE_STAGES
             if stage in stages and stages[stage].get("computed")}
    workers = config.execution.n_jobs if config.execution.n_jobs > 0 else os.cpu_count()
    return {"config": config, "source": manifest.get("config_source") or str(run_dir), "specs": specs,
            "clock": "CPU" if cpu else "wall", "per_dataset": per_dataset,
            "suite": suite, "stage_wall": {name: report["seconds"] for name, report in stages.items()},
            "workers": workers}


#: ``--calibrate-run``'s pull of each group factor towards 1 (ridge on log factors). cc18-offline's datasets are
#: small (at most 5,000 cross-validated rows, 287 features): a weak ridge (0.1) shrinks the MLP and SVC factors to
#: 0.4-0.5 there, which would carry over to CIFAR_10-sized fits nobody measured, for a leave-one-out gain of
#: 0.29 -> 0.26 in root-mean-square log error (benchmarks/results/scale.md); 1.0 keeps the factors within 0.8-1.2.
RIDGE = 1.0
#: A refit replaces the synthetic calibration only when its leave-one-out error is this much (relative) lower.
REFIT_MARGIN = 0.05


def fit_group_factors(components: np.ndarray, measured: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Factors ``f`` (one per column of ``components``, datasets x groups) minimising
    ``sum_d log(components[d] @ f / measured[d])**2 + ridge * sum_g log(f_g)**2``: relative errors, so a
    small dataset weighs as much as a large one, and factors near 1 unless the run says otherwise."""
    from scipy.optimize import minimize

    used = components.sum(axis=0) > 0

    def loss(log_f: np.ndarray) -> float:
        f = np.ones(components.shape[1])
        f[used] = np.exp(log_f)
        return float(np.sum(np.log(components @ f / measured) ** 2) + ridge * np.sum(log_f ** 2))

    result = minimize(loss, np.zeros(int(used.sum())), method="BFGS")
    factors = np.ones(components.shape[1])
    factors[used] = np.exp(result.x)
    return factors


def _relative_fit(x: np.ndarray, measured: np.ndarray) -> float:
    """``b`` minimising ``sum log(b x / measured)**2``: the geometric mean of ``measured / x``."""
    return float(np.exp(np.mean(np.log(measured / x))))


def group_components(specs, config, model: dict) -> tuple[list, np.ndarray]:
    """Each dataset's shape and its estimated respond seconds split by :data:`COST_GROUPS` (factors 1)."""
    from benchirt.pipeline.estimate import COST_GROUPS, dataset_shape, response_cost

    shapes = [dataset_shape(spec, ask_server=False, max_categories=config.max_categories) for spec in specs]
    base = {**model, "run_factors": {}}
    columns = []
    for group in COST_GROUPS:
        only = {**base, "run_factors": {g: float(g == group) for g in COST_GROUPS}}
        columns.append([response_cost(shape, config, only)["seconds"] for shape in shapes])
    return shapes, np.array(columns).T


def _rms_log(ratio: np.ndarray) -> float:
    """Root-mean-square of log(measured / estimated): a factor's error, the same for over- and underestimates."""
    return float(np.sqrt(np.mean(np.log(ratio) ** 2)))


def _error_line(label: str, ratio: np.ndarray) -> str:
    return (f"{label}: measured/estimated {ratio.min():.2f}-{ratio.max():.2f}, median {np.median(ratio):.2f}, middle "
            f"80 % {np.quantile(ratio, 0.1):.2f}-{np.quantile(ratio, 0.9):.2f}, root-mean-square log error "
            f"{_rms_log(ratio):.3f}")


def fit_suite_stages(runs: list[dict]) -> dict[str, dict[str, float]]:
    """Per suite-wide stage, ``{"fixed": a, "per_cell": b}`` with ``a, b >= 0`` (non-negative least squares)
    such that ``a + b * datasets * rated classifiers`` fits each run's measured seconds; with one run, ``a = 0``."""
    from scipy.optimize import nnls

    from benchirt.pipeline.estimate import rated_classifiers

    cells = [len(run["specs"]) * rated_classifiers(run["config"].stage_config("respond")) for run in runs]
    fitted = {}
    for stage in SUITE_STAGES:
        points = [(c, run["suite"][stage]) for c, run in zip(cells, runs) if stage in run["suite"]]
        if not points:
            continue
        x = np.array([[1.0, c] for c, _ in points]) if len(points) > 1 else np.array([[0.0, points[0][0]]])
        (fixed, per_cell), _ = nnls(x, np.array([t for _, t in points]))
        fitted[stage] = {"fixed": float(fixed), "per_cell": float(per_cell)}
    return fitted


def calibrate_run(run_dir: Path, ridge: float = RIDGE, others: tuple[Path, ...] = ()) -> dict:
    """The cost model refitted to a finished run (module docstring of :mod:`benchirt.pipeline.estimate`).

    The suite-wide stages' constants are fitted to ``run_dir`` and ``others`` (:func:`fit_suite_stages`;
    nothing else estimates them). The response stage's group
    factors and the IRT constant are refitted too, but kept only where their leave-one-dataset-out error
    is more than :data:`REFIT_MARGIN` below the error of the synthetic calibration (``--calibrate``, never fitted to this run) on the run's
    datasets; both errors are printed, and ``typical_error`` states the kept model's error per dataset.
    """
    from benchirt.pipeline.estimate import COST_GROUPS, irt_cost, load_cost_model

    model = load_cost_model()
    run = run_measurements(run_dir)
    if run["clock"] != "CPU":
        print(f"warning: {run_dir}'s manifest has no CPU seconds; its tasks' wall seconds are used, which are the "
              "work only if nothing else ran", file=sys.stderr)
    responses = run["config"].stage_config("respond")
    shapes, components = group_components(run["specs"], responses, model)
    measured = np.array(run["per_dataset"]["respond"], dtype=float)
    irt_measured = np.array(run["per_dataset"]["irt"], dtype=float)
    factors = fit_group_factors(components, measured, ridge)
    law = model["irt_seconds"]  # its powers and fixed part are kept; the refit is its scale
    irt_units = np.array([irt_cost(shape, responses, {"irt_seconds": {**law, "fixed": 0.0, "scale": 1.0}})
                          for shape in shapes])
    above_fixed = np.maximum(irt_measured - law["fixed"], 1e-3)
    irt_constant = _relative_fit(irt_units, above_fixed)
    synthetic_irt = law["fixed"] + irt_units * law["scale"]  # before the refit replaces the scale
    # leave one dataset out: its seconds predicted by the model refitted to the others
    respond_loo = np.array([components[d] @ fit_group_factors(np.delete(components, d, 0), np.delete(measured, d), ridge)
                            for d in range(len(measured))])
    irt_loo = np.array([law["fixed"] + irt_units[d] * _relative_fit(np.delete(irt_units, d), np.delete(above_fixed, d))
                        for d in range(len(irt_measured))])
    refit = {"respond": measured / respond_loo, "irt": irt_measured / irt_loo}
    baseline = {"respond": measured / components.sum(axis=1), "irt": irt_measured / synthetic_irt}
    # a refit is kept only where its leave-one-out error beats the synthetic calibration's error on this run
    # by more than REFIT_MARGIN (a hair's difference on 27 datasets is noise)
    keep = {stage: _rms_log(refit[stage]) < (1 - REFIT_MARGIN) * _rms_log(baseline[stage]) for stage in refit}
    respond_estimate = respond_loo if keep["respond"] else components.sum(axis=1)
    irt_estimate = irt_loo if keep["irt"] else synthetic_irt
    both = (measured + irt_measured) / (respond_estimate + irt_estimate)
    print(f"{run_dir}: {len(measured)} datasets, {run['clock']} seconds; refitted group factors (ridge {ridge}) "
          + ", ".join(f"{g} {f:.2f}" for g, f in zip(COST_GROUPS, factors)) + f"; IRT law scale {irt_constant:.3g} "
          f"(packaged: {law['scale']:.3g})")
    for stage in refit:
        print(_error_line(f"{stage}, the synthetic calibration alone", baseline[stage]))
        print(_error_line(f"{stage}, refitted, leave one dataset out", refit[stage])
              + ("  -> kept" if keep[stage] else "  -> not better: the synthetic calibration is kept"))
    print(_error_line("respond + irt, as kept", both))
    model.update(
        run_factors={group: round(float(f), 4) for group, f in zip(COST_GROUPS, factors)} if keep["respond"] else {},
        irt_seconds={**law, "scale": irt_constant} if keep["irt"] else law,
        suite_stage_seconds=fit_suite_stages([run, *(run_measurements(other) for other in others)]),
        calibrated=f"{model['calibrated'].split(';')[0]}; suite-wide stages fitted to the {run['clock']} seconds of "
                   f"{run['source']} ({len(measured)} datasets)" + (f" and {len(others)} other run(s)" if others else "")
                   + f" by benchmarks/scale.py --calibrate-run {time.strftime('%Y-%m-%d')}",
        typical_error=(f"per dataset, measured/estimated CPU seconds of respond + irt {both.min():.2f}-{both.max():.2f} "
                       f"(median {np.median(both):.2f}, middle 80 % {np.quantile(both, 0.1):.2f}-"
                       f"{np.quantile(both, 0.9):.2f}) on the {len(measured)} datasets of {run['source']}; the wall "
                       "time assumes idle cores: a loaded machine is slower by its load (the ETA rescales as datasets "
                       "finish); nominal features of OpenML shapes count before one-hot encoding"))
    model.pop("suite_stage_seconds_per_cell", None)
    print("suite-wide stages, seconds = fixed + per dataset x rated classifier: "
          + ", ".join(f"{stage} {part['fixed']:.2f} + {part['per_cell']:.4f}"
                      for stage, part in model["suite_stage_seconds"].items()))
    return model


def elapsed_from_time_file(path: Path) -> tuple[float, float] | None:
    """(wall, user + system CPU) seconds from a ``/usr/bin/time -v`` log, or None without them."""
    wall = cpu = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            parts = [float(p) for p in line.rsplit(" ", 1)[1].split(":")]
            wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
        elif line.startswith(("User time (seconds)", "System time (seconds)")):
            cpu = (cpu or 0.0) + float(line.rsplit(" ", 1)[1])
    return (wall, cpu) if wall is not None and cpu is not None else None


def check_run(run_dir: Path, baseline: Path | None, time_file: Path | None = None) -> None:
    """A finished run's measured seconds per dataset (respond + irt) and per suite-wide stage against the
    estimate of the packaged cost model (and a baseline model's); with ``time_file`` (``/usr/bin/time -v``
    of the run) the whole run's wall and CPU time too."""
    from benchirt.pipeline.estimate import estimate, expected_wall_seconds, load_cost_model, suite_stage_seconds

    run = run_measurements(run_dir)
    config, specs, workers, clock = run["config"], run["specs"], run["workers"], run["clock"]
    responses = config.stage_config("respond")
    models = {"estimated": load_cost_model()}
    if baseline is not None:
        old = json.loads(baseline.read_text(encoding="utf-8"))
        # a model calibrated before the fixed terms existed had none: zero fixed seconds
        old.setdefault("fixed_seconds_per_fit", dict.fromkeys(old["seconds_per_unit"], 0.0))
        old.setdefault("fixed_seconds_per_dataset", 0.0)
        models = {"baseline": old, **models}
    table = pd.DataFrame({"dataset": [spec.name for spec in specs]})
    estimates = {}
    for label, model in models.items():
        estimates[label] = estimate(specs, responses, workers, model, ask_server=False)
        table[f"{label}_s"] = (estimates[label]["respond_s"] + estimates[label]["irt_s"]).to_numpy()
    table["measured_s"] = np.add(run["per_dataset"]["respond"], run["per_dataset"]["irt"])
    for label in models:
        table[f"measured/{label}"] = table["measured_s"] / table[f"{label}_s"]
    print(f"{run_dir}: {len(specs)} datasets on {workers} worker(s); measured = {clock} seconds of respond + irt "
          "per dataset (manifest)")
    print(table.round(2).to_string(index=False))
    timed = elapsed_from_time_file(time_file) if time_file else None
    stage_wall = sum(run["stage_wall"].values())
    for label, model in models.items():
        ratios = table[f"measured/{label}"]
        est = estimates[label]
        print(f"\n{label}: per dataset measured/estimated {ratios.min():.2f}-{ratios.max():.2f}, median "
              f"{ratios.median():.2f}, middle 80 % {ratios.quantile(0.1):.2f}-{ratios.quantile(0.9):.2f}")
        for stage in ("respond", "irt"):
            m, e = float(np.nansum(run["per_dataset"][stage])), float(est[f"{stage}_s"].sum())
            print(f"  {stage}: summed over datasets measured {m:.0f} s, estimated {e:.0f} s (measured/estimated {m / e:.2f})")
        suite = suite_stage_seconds(config.stages, len(specs), responses, model)
        for stage, measured in run["suite"].items():
            print(f"  {stage}: measured {measured:.1f} s, estimated "
                  + (f"{suite[stage]:.1f} s (measured/estimated {measured / suite[stage]:.2f})" if stage in suite
                     else "- (not in this model)"))
        expected = expected_wall_seconds(est, workers, tasks=config.execution.tasks, suite_seconds=sum(suite.values()))
        cpu_expected = float((est["respond_s"] + est["irt_s"]).sum()) + sum(suite.values())
        print(f"  whole run: expected {expected:.0f} s wall on {workers} idle worker(s); its stages took "
              f"{stage_wall:.0f} s wall (manifest; measured/expected {stage_wall / expected:.2f})")
        if timed:
            wall, cpu = timed
            print(f"  whole run by {time_file.name}: {wall:.0f} s wall (measured/expected {wall / expected:.2f}), "
                  f"{cpu:.0f} CPU-s with start-up and the driver's work (estimated work {cpu_expected:.0f} CPU-s, "
                  f"ratio {cpu / cpu_expected:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calibrate", action="store_true", help="measure and rewrite the cost model")
    parser.add_argument("--calibrate-memory", action="store_true",
                        help="measure only the bytes per value of loading an OpenML parquet dataset; update the model")
    parser.add_argument("--fraction", type=float, default=1.0, help="share of rows and caps (default 1: full size)")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="parallel fits per dataset (default 1; with 2 a measurement stalled once here, not investigated)")
    parser.add_argument("--only", nargs="*", help="dataset names of LARGEST to run")
    parser.add_argument("--check", type=Path, metavar="RUN_DIR",
                        help="a finished run's measured respond seconds per dataset against the estimate")
    parser.add_argument("--time-file", type=Path, metavar="FILE",
                        help="with --check: the run's /usr/bin/time -v output (whole-run wall and CPU time)")
    parser.add_argument("--calibrate-run", type=Path, nargs="+", metavar="RUN_DIR",
                        help="refit the cost model to finished runs: the first for the response and IRT stages, "
                             "all of them for the suite-wide stages")
    parser.add_argument("--ridge", type=float, default=RIDGE,
                        help=f"with --calibrate-run: pull of the group factors towards 1 (default {RIDGE})")
    parser.add_argument("--baseline-model", type=Path, metavar="JSON",
                        help="with --check: also a cost model saved before (e.g. git show REV:benchirt/pipeline/cost_model.json)")
    parser.add_argument("--memory", type=Path, metavar="CACHE_DIR",
                        help="peak memory of loading CC18's image shapes at full size through openml (synthetic "
                             "parquet datasets written once to CACHE_DIR); with --fits also the response stage")
    parser.add_argument("--fits", action="store_true", help="with --memory: run the response stage too")
    parser.add_argument("--project", action="store_true", help="only the whole-suite projection (72 recorded shapes)")
    parser.add_argument("--threads", action="store_true",
                        help="k-NN answers on kr-vs-kp with 1 vs 2 OpenMP threads (needs ../shared/data)")
    args = parser.parse_args()
    if args.check:
        check_run(args.check, args.baseline_model, args.time_file)
        return
    if args.calibrate_run:
        model = calibrate_run(args.calibrate_run[0], args.ridge, tuple(args.calibrate_run[1:]))
        MODEL_PATH.write_text(json.dumps(model, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"written {MODEL_PATH.relative_to(ROOT)}")
        return
    if args.memory:
        memory(args.memory, args.only, args.fits, args.n_jobs)
        return
    if args.threads:
        thread_ties(Path(os.environ.get("BENCHIRT_SHARED_DATA", ROOT.parent / "shared" / "data")))
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (timings on a shared machine are "
          "indicative)")
    if args.calibrate_memory:
        model = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
        model["openml_load_bytes_per_value"] = openml_load_bytes()
        MODEL_PATH.write_text(json.dumps(model, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"openml_load_bytes_per_value: {model['openml_load_bytes_per_value']:.1f}")
        return
    if args.calibrate:
        model = calibrate()
        previous = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
        if model["openml_load_bytes_per_value"] <= 0:  # seen once under heavy load: the child's peak did not rise
            print(f"warning: OpenML loading measured {model['openml_load_bytes_per_value']} bytes per value; the "
                  f"previous {previous['openml_load_bytes_per_value']:.1f} is kept (rerun --calibrate-memory)",
                  file=sys.stderr)
            model["openml_load_bytes_per_value"] = previous["openml_load_bytes_per_value"]
        MODEL_PATH.write_text(json.dumps(model, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(json.dumps(model, indent=2, sort_keys=True))
        print("next: python benchmarks/scale.py --calibrate-run RUN_DIR (a finished run of configs/cc18-offline.yaml)")
        return

    from benchirt.pipeline.estimate import Shape, load_cost_model, response_cost

    model = load_cost_model()
    full, scaled = cc18_config(args.fraction)
    if args.project:
        project_suites(full, model)
        return
    rows = []
    for shape in LARGEST:
        if args.only and shape[0] not in args.only:
            continue
        name, n, d, c = shape
        small = (name, max(int(n * args.fraction), 200), d, c)
        measured = measure(small, scaled, args.n_jobs)
        # synthetic data are made in memory: make_classification's float64 array and its DataFrame copy
        # replace the file loader's bytes per value
        estimated = response_cost(Shape(small[1], d, c, "synthetic"), scaled, {**model, "load_bytes_per_value": 16.0})
        at_full = response_cost(Shape(n, d, c, "OpenML qualities"), full, model)  # loaded from OpenML's parquet
        ratio = measured["seconds"] / (estimated["seconds"] / args.n_jobs)
        rows.append({
            "dataset": name, "shape": f"{small[1]} x {d}, {c} cl", "trained_on": measured["sizes"]["train_used"],
            "measured_s": round(measured["seconds"], 1), "estimated_s": round(estimated["seconds"] / args.n_jobs, 1),
            "measured_gb": round(measured["peak_bytes"] / 1e9, 2), "estimated_gb": round(estimated["peak_bytes"] / 1e9, 2),
            "measured/estimated": round(ratio, 2),
            "full_estimate_min_2_cores": round(at_full["seconds"] / 2 / 60, 1),
            "full_estimated_gb": round(at_full["peak_bytes"] / 1e9, 2),
            "full_over_budget": ",".join(at_full["skipped"]) or "-",
        })
        print(rows[-1], file=sys.stderr)
    table = pd.DataFrame(rows)
    print(f"\nResponse stage, cc18 policy (max_train {full.max_train}, max_cv_train {full.max_cv_train}) at fraction "
          f"{args.fraction} of the rows and caps, {args.n_jobs} parallel fits; *_s are wall seconds on {args.n_jobs} cores")
    print(table.to_string(index=False))

    project_suites(full, model)


def project_suites(full, model: dict) -> None:
    """:func:`project_suite` with the cc18 policy (``full``) and with decodIRT's uncapped protocol."""
    for label, config in (("cc18 policy", full),
                          ("decodIRT, uncapped", replace(full, max_train=None, max_cv_train=None, time_budget=None))):
        project_suite(label, config, model)


def project_suite(label: str, config, model: dict) -> None:
    """The whole CC18, estimated from its 72 recorded shapes (:mod:`benchirt.data.recorded_shapes`; the 27
    offline ones are checked against the data), as ``benchirt run configs/cc18.yaml --estimate`` does offline."""
    from benchirt.data.recorded_shapes import recorded_specs
    from benchirt.pipeline.estimate import estimate, expected_wall_seconds

    table = estimate(recorded_specs(), config, workers=2, model=model, ask_server=False)
    seconds = (table["respond_s"] + table["irt_s"]).tolist()
    longest_task = max(t for tasks in table["respond_tasks_s"] for t in tasks)
    print(f"\nFull CC18, {label} ({len(seconds)} datasets, recorded shapes), one thread per fit:")
    print(f"  CPU time {sum(seconds) / 3600:.1f} h; longest dataset {max(seconds) / 3600:.2f} h, "
          f"longest (dataset, fit) task {longest_task / 3600:.2f} h")
    for workers in (2, 16):
        print(f"  on {workers} workers: {expected_wall_seconds(table, workers, tasks='fits') / 3600:.2f} h with "
              f"(dataset, fit) tasks, {expected_wall_seconds(table, workers, tasks='datasets') / 3600:.2f} h with one "
              "task per dataset")


if __name__ == "__main__":
    main()

"""Does adding workers shorten the study when one dataset dominates? (issue 16, item 6)

A suite of one large synthetic dataset and several small ones (``make_classification``, written as
CSV files) goes through the response stage of ``benchirt run`` with 1, 2 and 4 local process workers
(loky), once with one task per dataset (``execution.tasks: datasets``) and once as (dataset, fit)
tasks (``execution.tasks: fits``, the default; :mod:`benchirt.pipeline.fits`). Each run is a fresh
process into a fresh run directory; its time is the response stage's wall time from the run's
manifest (worker start-up included), beside the CPU time of the run and its workers and the load
average after it. With one worker both granularities run the same code in process, so it runs once
per round. The settings run in rounds of alternating order (a drifting load on a shared machine then
favours none) and the medians are shown. The script checks that every run produced the same
responses bit for bit.

The lower bounds printed beside: ``work / workers`` (the work is the summed seconds of the datasets
in the 1-worker runs) and, for one task per dataset, the longest dataset. A machine with fewer free
cores than workers cannot run them side by side: on 2 cores, 4 workers cannot beat 2.

    python benchmarks/speedup.py                   # what benchmarks/results/scale.md shows
    python benchmarks/speedup.py --repeat 3 --workers 1 2 4 8 --big-rows 4000 --folds 10 --ladder 100
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]


def write_suite(folder: Path, big_rows: int, small: int, small_rows: int) -> list[str]:
    """One dominant dataset (``big_rows`` x 40, 3 classes) and ``small`` datasets (``small_rows`` x 10, 2 classes)."""
    from sklearn.datasets import make_classification

    shapes = [("big", big_rows, 40, 3)] + [(f"small{i + 1}", small_rows, 10, 2) for i in range(small)]
    files = []
    for seed, (name, rows, features, classes) in enumerate(shapes):
        X, y = make_classification(n_samples=rows, n_features=features, n_informative=min(features, 8),
                                   n_classes=classes, random_state=seed)
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(features)]).round(6)
        frame["class"] = [f"c{v}" for v in y]
        path = folder / f"{name}.csv"
        frame.to_csv(path, index=False)
        files.append(str(path))
    return files


def run_once(config: dict, folder: Path, label: str) -> dict:
    """One ``benchirt run`` in a fresh process; the manifest's stage and dataset seconds."""
    path = folder / f"{label}.yaml"
    out = folder / f"run-{label}"
    path.write_text(yaml.safe_dump(config))
    code = "import sys; from benchirt.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    start, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-c", code, "run", str(path), "--out", str(out), "--quiet"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    manifest = json.loads((out / "manifest.json").read_text())
    datasets = {name: entry["respond"]["seconds"] for name, entry in manifest["datasets"].items()}
    return {"out": out, "stage_s": manifest["stages"]["respond"]["seconds"], "process_s": wall, "cpu_s": cpu,
            "datasets": datasets}


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (the run and its worker processes)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def same_results(outs: list[Path]) -> bool:
    """Every run's response matrices, predictions and CV accuracies equal the first run's, bit for bit."""
    from benchirt.pipeline.results import load_run

    runs = [load_run(out).respond for out in outs]
    for other in runs[1:]:
        if set(other) != set(runs[0]):
            return False
        for name, result in runs[0].items():
            if not (other[name].responses.equals(result.responses) and other[name].predictions.equals(result.predictions)
                    and np.array_equal(other[name].cv_accuracy.to_numpy(), result.cv_accuracy.to_numpy())):
                return False
    return True


class VirtualWorkers:
    """An executor on a virtual clock: ``workers`` idle workers, each task lasting what it took when run here.

    Every task is run for real once, in this process, one at a time (``cache`` keeps its outcome and
    seconds by task name), so the durations of all schedules come from the same measurements; the
    scheduling itself is benchirt's (:class:`benchirt.pipeline.fits.ResponseFits` hands out the tasks).
    """

    def __init__(self, workers: int, cache: dict) -> None:
        self.workers, self.cache, self.clock = workers, cache, 0.0

    def map(self, fn, tasks):
        import heapq
        from dataclasses import replace

        from benchirt.pipeline.executors import attempt, task_source

        source, running, order = task_source(tasks), [], 0
        while True:
            while len(running) < self.workers and (task := source.next_task()) is not None:
                name, args = task
                if name not in self.cache:
                    self.cache[name] = attempt(fn, name, args)
                heapq.heappush(running, (self.clock + self.cache[name].seconds, order, name))
                order += 1
            if not running:
                return
            self.clock, _, name = heapq.heappop(running)
            yield replace(self.cache[name])


def replay(suite: list[str], responses: dict, workers: list[int]) -> None:
    """The schedules' wall time on idle workers, from task times measured one at a time (see VirtualWorkers)."""
    from benchirt.data import resolve_suite
    from benchirt.pipeline.fits import response_fits
    from benchirt.pipeline.respond_stage import respond_dataset
    from benchirt.responses import ResponseConfig

    config = ResponseConfig.from_dict(responses)
    specs = resolve_suite(suite)
    tasks = [(spec.name, (respond_dataset, spec, config, False, None)) for spec in specs]
    cache: dict = {}
    rows = []
    for count in workers:
        executor = VirtualWorkers(count, cache)
        assert all(outcome.status == "ok" for outcome in response_fits(executor, tasks))
        per_dataset = [sum(o.seconds for name, o in cache.items() if name.startswith(f"{spec.name} · ")) for spec in specs]
        in_order = _list_schedule(per_dataset, count)
        rows.append({"workers": count, "datasets_s": in_order, "fits_s": executor.clock,
                     "longest_dataset_s": max(per_dataset), "longest_task_s": max(o.seconds for o in cache.values())})
    table = pd.DataFrame(rows)
    work = table["datasets_s"].iloc[0]
    table["datasets_speedup"], table["fits_speedup"] = work / table["datasets_s"], work / table["fits_s"]
    print(f"\nReplay on idle workers: {len(cache)} tasks timed one at a time here ({work:.1f} s of work), scheduled as "
          "benchirt schedules them: one task per dataset in suite order, or (dataset, fit) tasks")
    print(table.round(2).to_string(index=False))


def _list_schedule(seconds: list[float], workers: int) -> float:
    """Wall time of tasks started in the given order, each on the first free worker."""
    import heapq

    loads = [0.0] * workers
    for task in seconds:
        heapq.heapreplace(loads, loads[0] + task)
    return max(loads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=2, help="rounds over the settings (alternating their order); "
                        "the median is shown")
    parser.add_argument("--big-rows", type=int, default=3000)
    parser.add_argument("--small", type=int, default=4)
    parser.add_argument("--small-rows", type=int, default=300)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--ladder", type=int, default=10)
    parser.add_argument("--replay-workers", type=int, nargs="*", default=[1, 2, 4, 8, 16],
                        help="idle workers of the replay (none: no replay)")
    parser.add_argument("--no-processes", action="store_true", help="only the replay, no runs with worker processes")
    args = parser.parse_args()
    args.workers = sorted(set(args.workers))
    if args.workers[0] != 1:
        parser.error("--workers must include 1 (the baseline of the speed-ups)")

    responses = {"cv_folds": args.folds, "ladder_epochs": args.ladder}
    print(f"machine: {os.cpu_count()} cores, load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} at start")
    settings = [(w, t) for w in args.workers for t in (("fits",) if w == 1 else ("datasets", "fits"))]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite = write_suite(folder, args.big_rows, args.small, args.small_rows)
        print(f"suite: big ({args.big_rows} x 40, 3 classes) + {args.small} small ({args.small_rows} x 10, 2 classes); "
              f"responses: default pool, {responses}")
        if args.replay_workers:
            replay(suite, responses, sorted(set(args.replay_workers) | {1}))
        if args.no_processes:
            return
        measured: dict[tuple, list[dict]] = {setting: [] for setting in settings}
        for round_ in range(args.repeat):  # alternate the order, so that a drifting load favours no setting
            for workers, tasks in (settings if round_ % 2 == 0 else settings[::-1]):
                config = {"suite": suite, "stages": ["respond"], "responses": responses,
                          "execution": {"n_jobs": workers, "tasks": tasks}}
                run = run_once(config, folder, f"{workers}-{tasks}-{round_}")
                run["load"] = os.getloadavg()[0]
                measured[(workers, tasks)].append(run)
                print(f"  {workers} worker(s), tasks {tasks}: {run['stage_s']:.1f} s, CPU {run['cpu_s']:.1f} s, "
                      f"load {run['load']:.1f}", flush=True)
        serial = measured[(1, "fits")]
        datasets = {name: statistics.median(run["datasets"][name] for run in serial) for name in serial[0]["datasets"]}
        work = sum(datasets.values())
        rows = []
        for (workers, tasks), runs in measured.items():
            bound = work if workers == 1 else max(work / workers, max(datasets.values()) if tasks == "datasets" else 0.0)
            rows.append({"workers": workers, "tasks": tasks if workers > 1 else "(in process)",
                         "respond_s": statistics.median(run["stage_s"] for run in runs),
                         "cpu_s": statistics.median(run["cpu_s"] for run in runs), "bound_s": bound,
                         "load": statistics.median(run["load"] for run in runs)})
        table = pd.DataFrame(rows)
        table["speedup"] = table["respond_s"].iloc[0] / table["respond_s"]
        print(f"\nwork of the 1-worker runs: {work:.1f} s (big dataset {datasets.get('big', float('nan')):.1f} s); "
              f"medians of {args.repeat} run(s); bound_s: work / workers, and the longest dataset for one task per "
              "dataset; cpu_s: CPU time of the run and its workers; load: 1-min load average after the run")
        print(table[["workers", "tasks", "respond_s", "speedup", "bound_s", "cpu_s", "load"]].round(2).to_string(index=False))
        for workers in args.workers[1:]:
            by = table[table["workers"] == workers].set_index("tasks")["respond_s"]
            print(f"{workers} workers: (dataset, fit) tasks / one task per dataset = {by['fits'] / by['datasets']:.2f}")
        outs = [run["out"] for runs in measured.values() for run in runs]
        print(f"responses identical across all {len(outs)} runs: {'yes' if same_results(outs) else 'NO'}")
        print(f"load average at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()

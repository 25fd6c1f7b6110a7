"""Does adding workers shorten the study when one dataset dominates? (issue 16, item 6)

A suite of one large synthetic dataset and several small ones (``make_classification``, written as
CSV files) goes through the response stage of ``benchirt run`` with 1, 2 and 4 local process workers
(loky), once with one task per dataset (``execution.tasks: datasets``) and once as (dataset, fit)
tasks (``execution.tasks: fits``, the default; :mod:`benchirt.pipeline.fits`). Each run is a fresh
process into a fresh run directory; the time is the response stage's wall time from the run's
manifest (worker start-up included). With one worker both granularities run the same code in
process, so it runs once. The script checks that every run produced the same responses bit for bit.

The lower bounds printed beside: ``work / workers`` (the work is the summed seconds of the datasets'
tasks in the 1-worker run) and, for one task per dataset, the longest dataset.
A machine with fewer cores than workers cannot run them side by side: on 2 cores, 4 workers cannot
beat 2.

    python benchmarks/speedup.py                   # what docs/scale.md shows
    python benchmarks/speedup.py --repeat 3 --workers 1 2 4 8
"""
from __future__ import annotations

import argparse
import json
import os
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
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, "run", str(path), "--out", str(out), "--quiet"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    manifest = json.loads((out / "manifest.json").read_text())
    datasets = {name: entry["respond"]["seconds"] for name, entry in manifest["datasets"].items()}
    return {"out": out, "stage_s": manifest["stages"]["respond"]["seconds"], "process_s": wall, "datasets": datasets}


def same_results(outs: list[Path]) -> bool:
    """Every run's response matrices, predictions and CV accuracies equal the first run's, bit for bit."""
    from benchirt.pipeline.run import load_run

    runs = [load_run(out).responses for out in outs]
    for other in runs[1:]:
        if set(other) != set(runs[0]):
            return False
        for name, result in runs[0].items():
            if not (other[name].responses.equals(result.responses) and other[name].predictions.equals(result.predictions)
                    and np.array_equal(other[name].cv_accuracy.to_numpy(), result.cv_accuracy.to_numpy())):
                return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting; the median is shown")
    parser.add_argument("--big-rows", type=int, default=4000)
    parser.add_argument("--small", type=int, default=4)
    parser.add_argument("--small-rows", type=int, default=300)
    args = parser.parse_args()
    args.workers = sorted(set(args.workers))
    if args.workers[0] != 1:
        parser.error("--workers must include 1 (the baseline of the speed-ups)")

    responses = {"cv_folds": 10, "ladder_epochs": 20}
    print(f"machine: {os.cpu_count()} cores, load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} at start")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite = write_suite(folder, args.big_rows, args.small, args.small_rows)
        print(f"suite: big ({args.big_rows} x 40, 3 classes) + {args.small} small ({args.small_rows} x 10, 2 classes); "
              f"responses: default pool, {responses}")
        rows, outs = [], []
        for workers in args.workers:
            for tasks in (("fits",) if workers == 1 else ("datasets", "fits")):
                config = {"suite": suite, "stages": ["respond"], "responses": responses,
                          "execution": {"n_jobs": workers, "tasks": tasks}}
                measured = [run_once(config, folder, f"{workers}-{tasks}-{i}") for i in range(args.repeat)]
                outs += [m["out"] for m in measured]
                rows.append({"workers": workers, "tasks": tasks if workers > 1 else "(in process)",
                             "respond_s": statistics.median(m["stage_s"] for m in measured),
                             "process_s": statistics.median(m["process_s"] for m in measured),
                             "datasets": measured[0]["datasets"]})
                print(f"  {workers} worker(s), tasks {rows[-1]['tasks']}: {rows[-1]['respond_s']:.1f} s", flush=True)
        table = pd.DataFrame(rows)
        serial = table.loc[table["workers"] == 1, "respond_s"]
        base = float(serial.iloc[0]) if len(serial) else float("nan")
        work = sum(rows[0]["datasets"].values())
        table["speedup"] = (base / table["respond_s"]).round(2)
        table["bound_s"] = [max(work / r["workers"], max(r["datasets"].values()) if r["tasks"] == "datasets"
                                else 0.0) if r["workers"] > 1 else work for r in rows]
        print(f"\nwork of the 1-worker run: {work:.1f} s (big dataset {rows[0]['datasets'].get('big', float('nan')):.1f} s)")
        print(table[["workers", "tasks", "respond_s", "speedup", "bound_s", "process_s"]].round(1).to_string(index=False))
        for workers in sorted({r["workers"] for r in rows if r["workers"] > 1}):
            by = table[table["workers"] == workers].set_index("tasks")["respond_s"]
            print(f"{workers} workers: (dataset, fit) tasks / one task per dataset = {by['fits'] / by['datasets']:.2f}")
        print(f"responses identical across all {len(outs)} runs: {'yes' if same_results(outs) else 'NO'}")
        print(f"load average at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()

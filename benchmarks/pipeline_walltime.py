"""Wall time of `benchirt run` with a per-stage breakdown, and the speed-up of Dask 2 workers vs 1.

Measurements (each a fresh run directory, so nothing is reused):

1. ``default``: configs/default.yaml as `benchirt run` runs it (4 builtin datasets, decodIRT's full
   protocol, local joblib with the config's n_jobs).
2. ``dask``: the respond and irt stages of the same config on a Dask LocalCluster with 1 worker,
   then 2 workers (one thread each); the speed-up is time(1 worker) / time(2 workers). With
   ``--dask-datasets N`` on the N smallest datasets of the offline CC18 mirror instead of the builtin
   four (digits alone takes half of their time, which caps the speed-up of 2 workers).
3. ``cc18`` (``--cc18``, long): configs/cc18-offline.yaml; ``--limit N`` keeps the N smallest
   datasets of the mirror for a partial measure (the table says which).

Prints a table per measurement (and writes them to ``--json FILE`` when given). The machine's load is printed
with each result: on a shared machine the timings are only indicative.

    python benchmarks/pipeline_walltime.py                     # default + dask comparison
    python benchmarks/pipeline_walltime.py --cc18 --limit 8    # + a partial cc18-offline run
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from benchirt.pipeline import load_config, run_pipeline
from benchirt.pipeline.config import ExecutionConfig

ROOT = Path(__file__).resolve().parents[1]


def timed_run(config, label: str, workdir: Path) -> dict:
    """One run into a fresh folder; total wall time and the manifest's per-stage seconds."""
    out = workdir / label
    shutil.rmtree(out, ignore_errors=True)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    outcome = run_pipeline(config, out=out, show_progress=False)
    wall = time.perf_counter() - start
    stages = {name: report["seconds"] for name, report in outcome.manifest["stages"].items()}
    counts = {name: (report["computed"], report["skipped"], report["failed"]) for name, report in outcome.manifest["stages"].items()}
    task_seconds = sum(entry["respond"].get("seconds", 0.0) for entry in outcome.manifest["datasets"].values()
                       if "respond" in entry)
    return {"label": label, "wall_s": round(wall, 1), "stages_s": stages, "task_seconds": round(task_seconds, 1), "computed_skipped_failed": counts,
            "executor": outcome.manifest["executor"], "status": outcome.manifest["status"],
            "datasets": len(outcome.manifest["datasets"]), "loadavg_before": round(load_before, 1),
            "loadavg_after": round(os.getloadavg()[0], 1)}


def _burn(n: int) -> float:
    start = time.perf_counter()
    total = 0
    for i in range(n):
        total += i * i
    return time.perf_counter() - start


def parallel_capacity(n_tasks: int = 4, size: int = 10_000_000) -> float:
    """How much more pure-CPU work 2 processes finish than 1 in the same time (2.0 = two free cores).

    Measured beside the Dask comparison: it is the ceiling of any 2-worker speed-up on this machine
    at this moment (shared or throttled virtual CPUs give less than 2).
    """
    from joblib import Parallel, delayed

    walls = {}
    for n_jobs in (1, 2):
        start = time.perf_counter()
        Parallel(n_jobs=n_jobs)(delayed(_burn)(size) for _ in range(n_tasks))
        walls[n_jobs] = time.perf_counter() - start
    return walls[1] / walls[2]


def with_execution(config, **changes):
    return replace(config, execution=ExecutionConfig.from_dict({**config.execution.__dict__, **changes}))


def print_result(result: dict) -> None:
    print(f"\n{result['label']}: {result['wall_s']:.1f} s wall, {result['datasets']} datasets, {result['executor']}, "
          f"status {result['status']} (load average {result['loadavg_before']} -> {result['loadavg_after']})")
    for stage, seconds in result["stages_s"].items():
        computed, skipped, failed = result["computed_skipped_failed"][stage]
        print(f"  {stage:<8}{seconds:>9.1f} s   computed {computed}, skipped {skipped}, failed {failed}")


def smallest_cc18(limit: int) -> list[str]:
    """Names of the ``limit`` smallest files of the offline CC18 mirror (by bytes)."""
    from benchirt.data import resolve_suite

    specs = [s for s in resolve_suite("cc18-offline") if s.kind == "file"]
    return [s.name for s in sorted(specs, key=lambda s: Path(s.location).stat().st_size)[:limit]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-default", action="store_true", help="leave out the default-config run")
    parser.add_argument("--skip-dask", action="store_true", help="leave out the Dask 1 vs 2 workers comparison")
    parser.add_argument("--dask-datasets", type=int, metavar="N",
                        help="compare Dask on the N smallest cc18-offline datasets instead of the builtin four")
    parser.add_argument("--cc18", action="store_true", help="also time configs/cc18-offline.yaml (long)")
    parser.add_argument("--limit", type=int, help="with --cc18: only the N smallest mirror datasets")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--workdir", help="where the run folders go (default: a temporary folder)")
    args = parser.parse_args(argv)

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="benchirt-walltime-"))
    print(f"{os.cpu_count()} CPUs; run folders under {workdir}")
    results = []
    default = load_config(ROOT / "configs" / "default.yaml")
    if not args.skip_default:
        results.append(timed_run(default, "default", workdir))
        print_result(results[-1])
    if not args.skip_dask:
        stages = replace(default, stages=("respond", "irt"))
        if args.dask_datasets:  # many similar datasets show the scale-out better than 4 uneven ones
            stages = replace(stages, suite={"suite": "cc18-offline", "include": smallest_cc18(args.dask_datasets)})
        one = timed_run(with_execution(stages, backend="dask", n_jobs=1), "dask-1-worker", workdir)
        print_result(one)
        two = timed_run(with_execution(stages, backend="dask", n_jobs=2), "dask-2-workers", workdir)
        print_result(two)
        results += [one, two]
        capacity = parallel_capacity()
        concurrency = {r["label"]: round(r["task_seconds"] / r["stages_s"]["respond"], 2) for r in (one, two)}
        print(f"\nDask speed-up, 2 workers vs 1 (respond + irt): {one['wall_s'] / two['wall_s']:.2f}x; datasets "
              f"in flight on average (sum of per-dataset seconds / respond wall): {concurrency}; this machine's "
              f"ceiling (pure-CPU work of 2 processes vs 1, measured now): {capacity:.2f}x")
        results.append({"label": "machine-parallel-capacity", "ratio_2_vs_1": round(capacity, 2)})
    if args.cc18:
        config = load_config(ROOT / "configs" / "cc18-offline.yaml")
        label = "cc18-offline"
        if args.limit:
            config = replace(config, suite={"suite": "cc18-offline", "include": smallest_cc18(args.limit)})
            label = f"cc18-offline-{args.limit}-smallest"
        results.append(timed_run(config, label, workdir))
        print_result(results[-1])
    if args.json:
        Path(args.json).write_text(json.dumps({"cpus": os.cpu_count(), "results": results}, indent=2) + "\n")
        print(f"\nwritten {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

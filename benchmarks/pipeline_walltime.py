"""Wall time of `benchirt run` with a per-stage breakdown, and the speed-up of Dask 2 workers vs 1.

Measurements (each a fresh run directory, so nothing is reused):

1. ``default``: configs/default.yaml as `benchirt run` runs it (4 builtin datasets, decodIRT's full
   protocol, local joblib with the config's n_jobs).
2. ``dask``: the respond and irt stages of the same config on a Dask LocalCluster with 1 worker,
   then 2 workers (one thread each); the speed-up is time(1 worker) / time(2 workers). With
   ``--dask-datasets N`` on the N smallest datasets of the offline CC18 mirror instead of the builtin
   four (digits alone takes half of their time, which caps the speed-up of 2 workers).
3. ``cc18`` (``--cc18``, long): configs/cc18-offline.yaml; ``--limit N`` keeps the N smallest
   datasets of the mirror for a partial measure (the table says which). ``--from-run RUN_DIR`` prints
   the same table for a run made elsewhere (its manifest; with ``--time-file`` the ``/usr/bin/time -v``
   output of that run for the wall time of the whole command, start-up included).
4. ``warm`` (``--warm``): what a user waits for when nothing changed, each as a fresh
   ``python -m benchirt.cli`` process: ``benchirt --help`` (median of 5) and a warm rerun of a finished
   run (median of 3, after one rerun that settles the report), for this checkout and, side by side
   under the same load, for a baseline commit (``--baseline REF``, default 5a8c6e8: before lazy
   sub-commands and report reuse) extracted with ``git archive``. Both run the same config file
   (``suite: builtin``, every stage but AIRT, which needs 5 datasets, with each version's defaults); then each version's warm rerun
   of its packaged default run (``benchirt run`` with no CONFIG). Goals: ``--help`` < 0.3 s, warm
   rerun of the default run < 2 s on a quiet machine.

Prints a table per measurement (and writes them to ``--json FILE`` when given). The machine's load is printed
with each result: on a shared machine the timings are only indicative.

    python benchmarks/pipeline_walltime.py                     # default + dask comparison
    python benchmarks/pipeline_walltime.py --cc18 --limit 8    # + a partial cc18-offline run
    python benchmarks/pipeline_walltime.py --from-run RUN_DIR --time-file RUN.time   # a finished run's times
    python benchmarks/pipeline_walltime.py --skip-default --skip-dask --warm   # --help and warm reruns
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from benchirt.pipeline import load_config, run_pipeline
from benchirt.pipeline.config import STAGES, ExecutionConfig

ROOT = Path(__file__).resolve().parents[1]


def timed_run(config, label: str, workdir: Path) -> dict:
    """One run into a fresh folder; total wall time and the manifest's per-stage seconds."""
    out = workdir / label
    shutil.rmtree(out, ignore_errors=True)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    outcome = run_pipeline(config, out=out, show_progress=False)
    wall = time.perf_counter() - start
    return {**manifest_times(outcome.manifest.to_json()), "label": label, "wall_s": round(wall, 1),
            "loadavg_before": round(load_before, 1), "loadavg_after": round(os.getloadavg()[0], 1)}


def manifest_times(manifest: dict) -> dict:
    """Per-stage wall and task CPU seconds, counts and the respond tasks' summed seconds of a run's manifest."""
    stages = manifest["stages"]
    task_seconds = sum(entry["respond"].get("seconds", 0.0) for entry in manifest["datasets"].values()
                       if "respond" in entry)
    return {"stages_s": {name: report["seconds"] for name, report in stages.items()},
            "stages_cpu_s": {name: report.get("task_cpu_seconds") for name, report in stages.items()},
            "task_seconds": round(task_seconds, 1),
            "computed_skipped_failed": {name: (r["computed"], r["skipped"], r["failed"]) for name, r in stages.items()},
            "executor": manifest["executor"], "status": manifest["status"], "datasets": len(manifest["datasets"])}


def from_run(run_dir: Path, time_file: Path | None) -> dict:
    """:func:`manifest_times` of a finished run; its wall time from ``time_file`` (``/usr/bin/time -v``), else the
    sum of its stages' wall seconds."""
    from scale import elapsed_from_time_file

    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    times = manifest_times(manifest)
    timed = elapsed_from_time_file(time_file) if time_file else None
    wall = timed[0] if timed else sum(times["stages_s"].values())
    return {**times, "label": f"{run_dir}" + (f" (wall and CPU of the whole command: {time_file})" if timed else
                                                " (wall: its stages summed)"),
            "wall_s": round(wall, 1), "cpu_s": round(timed[1], 1) if timed else None,
            "loadavg_before": None, "loadavg_after": None}


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
    load = (f" (load average {result['loadavg_before']} -> {result['loadavg_after']})"
            if result["loadavg_before"] is not None else "")
    print(f"\n{result['label']}: {result['wall_s']:.1f} s wall, {result['datasets']} datasets, {result['executor']}, "
          f"status {result['status']}{load}")
    if result.get("cpu_s") is not None:
        print(f"  CPU time of the whole command (user + system, workers included): {result['cpu_s']:.1f} s")
    order = {stage: i for i, stage in enumerate(STAGES)}
    for stage, seconds in sorted(result["stages_s"].items(), key=lambda item: order.get(item[0], len(order))):
        computed, skipped, failed = result["computed_skipped_failed"][stage]
        cpu = result.get("stages_cpu_s", {}).get(stage)
        cpu_text = f"   tasks' CPU {cpu:>7.1f} s" if cpu is not None else ""
        print(f"  {stage:<8}{seconds:>9.1f} s wall{cpu_text}   computed {computed}, skipped {skipped}, failed {failed}")


def smallest_cc18(limit: int) -> list[str]:
    """Names of the ``limit`` smallest files of the offline CC18 mirror (by bytes)."""
    from benchirt.data import resolve_suite

    specs = [s for s in resolve_suite("cc18-offline") if s.kind == "file"]
    return [s.name for s in sorted(specs, key=lambda s: Path(s.location).stat().st_size)[:limit]]


def _cli_seconds(source: Path, args: list[str], repeats: int, cwd: Path) -> float:
    """Median wall seconds of ``python -m benchirt.cli ARGS`` with ``source`` first on the import path."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "benchirt.cli", *args], cwd=cwd, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def _warm_rerun(source: Path, config: list[str], out: Path, cwd: Path) -> dict:
    """Cold run into ``out``, one settling rerun, then the median of 3 warm reruns (fresh processes)."""
    shutil.rmtree(out, ignore_errors=True)
    cold = _cli_seconds(source, ["run", *config, "--out", str(out), "--quiet"], 1, cwd)
    _cli_seconds(source, ["run", *config, "--out", str(out), "--quiet"], 1, cwd)
    warm = _cli_seconds(source, ["run", *config, "--out", str(out), "--quiet"], 3, cwd)
    return {"cold_s": round(cold, 2), "warm_s": round(warm, 2)}


def warm_comparison(baseline_ref: str, workdir: Path) -> list[dict]:
    """``benchirt --help`` and warm reruns, this checkout vs ``baseline_ref`` (see the module docstring)."""
    baseline = workdir / f"baseline-{baseline_ref}"
    shutil.rmtree(baseline, ignore_errors=True)
    baseline.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", baseline_ref, "benchirt"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive.stdout, check=True)
    config = workdir / "builtin.yaml"
    config.write_text("suite: builtin\nstages: [respond, irt, rate, subset, report]\n")   # AIRT needs 5 datasets
    rows = []
    for label, source in (("baseline " + baseline_ref, baseline), ("this checkout", ROOT)):
        load = os.getloadavg()[0]
        row = {"label": label, "help_s": round(_cli_seconds(source, ["--help"], 5, workdir), 3),
               **_warm_rerun(source, [str(config)], workdir / f"warm-{source.name}", workdir),
               "loadavg": round(load, 1)}
        rows.append(row)
        print(f"  {label:<22} --help {row['help_s']:.3f} s   run (suite: builtin): cold {row['cold_s']:.1f} s, "
              f"warm rerun {row['warm_s']:.2f} s   (load average {row['loadavg']})")
    base, this = rows
    print(f"  ratios this/baseline: --help {this['help_s'] / base['help_s']:.2f}, "
          f"warm rerun {this['warm_s'] / base['warm_s']:.2f}")
    defaults = []
    for label, source in (("baseline " + baseline_ref, baseline), ("this checkout", ROOT)):
        load = os.getloadavg()[0]
        default = _warm_rerun(source, [], workdir / f"warm-default-{source.name}", workdir)
        print(f"  {label:<22} packaged default run: cold {default['cold_s']:.1f} s, warm rerun {default['warm_s']:.2f} s"
              f"   (load average {load:.1f})")
        defaults.append({"label": f"{label}, packaged default run", **default, "loadavg": round(load, 1)})
    print(f"  ratio this/baseline, warm rerun of the default run: {defaults[1]['warm_s'] / defaults[0]['warm_s']:.2f} "
          "(goals: --help < 0.3 s, warm rerun < 2 s on a quiet machine)")
    return rows + defaults


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-default", action="store_true", help="leave out the default-config run")
    parser.add_argument("--skip-dask", action="store_true", help="leave out the Dask 1 vs 2 workers comparison")
    parser.add_argument("--dask-datasets", type=int, metavar="N",
                        help="compare Dask on the N smallest cc18-offline datasets instead of the builtin four")
    parser.add_argument("--cc18", action="store_true", help="also time configs/cc18-offline.yaml (long)")
    parser.add_argument("--limit", type=int, help="with --cc18: only the N smallest mirror datasets")
    parser.add_argument("--from-run", type=Path, metavar="RUN_DIR", help="only print a finished run's times")
    parser.add_argument("--time-file", type=Path, metavar="FILE", help="with --from-run: its /usr/bin/time -v output")
    parser.add_argument("--warm", action="store_true", help="time `benchirt --help` and warm reruns against a baseline")
    parser.add_argument("--baseline", default="5a8c6e8", metavar="REF", help="baseline commit of --warm (default 5a8c6e8)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--workdir", help="where the run folders go (default: a temporary folder)")
    args = parser.parse_args(argv)

    if args.from_run:
        print_result(from_run(args.from_run, args.time_file))
        return 0
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
    if args.warm:
        print("\nwarm: what a user waits for when nothing changed (fresh processes, medians)")
        results += warm_comparison(args.baseline, workdir)
    if args.json:
        Path(args.json).write_text(json.dumps({"cpus": os.cpu_count(), "results": results}, indent=2) + "\n")
        print(f"\nwritten {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

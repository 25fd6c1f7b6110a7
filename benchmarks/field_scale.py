"""Whole runs on synthetic sparse fields of stored runs at OpenML's scale: CPU, wall and memory per stage.

A field of F flows on T tasks is written in the layout of ``../shared/data/openml-runs/cv-fold0`` (one CSV per task,
rows named ``<flow>(<id>)||<setup>``, one 0/1 column per test row): each flow runs on a random
30 % of the tasks (at least one) with 1–3 setups, each task has 200–1,000 test rows, and setup s of flow f answers
row r of task t correctly with probability expit(θ_f + ε_s + u_ft − b_r) (θ ~ N(1.5, 1), ε ~ N(0, 0.2²),
u ~ N(0, 0.5²), b ~ N(−1, 1): mostly good classifiers on easy test sets, as stored runs are). The run uses
``configs/cv-fold0.yaml``'s settings (best-held-out setup per flow, 2PL, 20 orders, 200 bootstrap replicates) on
every stage (``--rate-defaults``: the rating stage's own defaults, 200 orders and 1,000 replicates), in a fresh
process; the manifest gives each stage's wall seconds and CPU seconds (its tasks' CPU for the per-dataset stages), ``getrusage`` the run's CPU and peak resident memory. Between two sizes with the
same number of tasks the growth exponent in flows is log(cost ratio) / log(flow ratio).

``--only subset`` (or ``rate``) times that stage alone: the respond and IRT stages run first (untimed), then the
stage in a process of its own (``--stages subset``), whose CPU seconds and peak resident memory ``getrusage`` gives;
``--baseline REV`` runs that stage a second time with the package of the git revision ``REV`` (``git archive``)
on the same stored IRT results and prints the ratio of the two.

    python benchmarks/field_scale.py --sizes 1000x20 2000x20 [--keep DIR] [--limit SECONDS]
    python benchmarks/field_scale.py --sizes 2000x20 --only subset [--baseline main]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

#: Share of the tasks each flow runs on, and the most setups per flow.
PRESENCE = 0.3
MAX_SETUPS = 3
STAGES = ("respond", "irt", "rate", "subset", "airt", "report")
#: This tree (its ``benchirt`` package is the one timed, beside a ``--baseline``).
HERE = Path(__file__).resolve().parents[1]
#: The stages a stage timed alone (``--only``) needs stored first.
UPSTREAM = {"subset": ("respond", "irt"), "rate": ("respond", "irt")}
#: Runs ``benchirt`` in this process and writes the process's CPU seconds and peak memory (``getrusage``) as JSON to
#: the file named by ``FIELD_SCALE_USAGE`` when it exits.
MEASURED = """import atexit, json, os, resource, runpy, sys
def usage():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    with open(os.environ["FIELD_SCALE_USAGE"], "w") as out:
        json.dump({"cpu_s": cpu, "peak_mb": max(own.ru_maxrss, kids.ru_maxrss) / 1024,
                   "package": sys.modules["benchirt"].__file__}, out)
atexit.register(usage)
sys.argv = ["benchirt", *sys.argv[1:]]
runpy.run_module("benchirt.cli", run_name="__main__")
"""

CONFIG = """suite: field-scale
stages: [respond, irt, rate, subset, airt, report]
respond:
  source: openml-runs
  path: {path}
  per_flow: best-held-out
  max_items: 200
irt:
  model: 2PL
rate:
{rate}  seed: 0
execution:
  n_jobs: 1
out: {out}
"""


def write_field(folder: Path, n_flows: int, n_tasks: int, *, seed: int = 0) -> None:
    """The synthetic field (module docstring) as per-task CSVs in ``folder``."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(1.5, 1.0, n_flows)
    setups = rng.integers(1, MAX_SETUPS + 1, n_flows)
    present = rng.random((n_tasks, n_flows)) < PRESENCE
    present[rng.integers(0, n_tasks, n_flows), np.arange(n_flows)] = True
    for task in range(n_tasks):
        n_rows = int(rng.integers(200, 1001))
        difficulty = rng.normal(-1.0, 1.0, n_rows)
        names, answers = [], []
        for flow in np.flatnonzero(present[task]):
            advantage = ability[flow] + rng.normal(0.0, 0.5)
            for setup in range(setups[flow]):
                p = 1.0 / (1.0 + np.exp(-(advantage + rng.normal(0.0, 0.2) - difficulty)))
                answers.append((rng.random(n_rows) < p).astype(np.int8))
                names.append(f"flow{flow:05d}({flow + 1})||setup{setup}")
        table = pd.DataFrame(np.array(answers), columns=[str(r + 1) for r in range(n_rows)])
        table.insert(0, "run", names)
        table.to_csv(folder / f"task{task:02d}.csv", index=False)


#: The rating stage's settings of ``configs/cv-fold0.yaml``; ``--rate-defaults`` leaves them out (the stage's defaults:
#: 200 orders, 1,000 bootstrap replicates).
CV_FOLD0_RATE = "  n_permutations: 20\n  n_bootstrap: 200\n"


def prepared_field(root: Path, size: str, rate: str = CV_FOLD0_RATE) -> tuple[Path, Path]:
    """Write the FLOWSxTASKS field under ``root/field`` and its config (``rate``: the rating stage's settings);
    the config's path and the run folder."""
    n_flows, n_tasks = (int(part) for part in size.split("x"))
    field, out = root / "field", root / "run"
    field.mkdir(parents=True, exist_ok=True)
    write_field(field, n_flows, n_tasks)
    config = root / "config.yaml"
    config.write_text(CONFIG.format(path=field.resolve(), out=out.resolve(), rate=rate))
    return config, out


def measure(size: str, keep: Path | None, limit: float, rate: str = CV_FOLD0_RATE) -> dict:
    """One whole run of a FLOWSxTASKS field: per-stage wall and CPU seconds, the run's CPU and peak memory."""
    with tempfile.TemporaryDirectory() as scratch:
        config, out = prepared_field(keep / size if keep else Path(scratch), size, rate)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.time()
        try:
            done = subprocess.run([sys.executable, "-m", "benchirt.cli", "run", str(config), "--force"],
                                  capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return {"size": size, "status": f"not finished within {limit:.0f} s"}
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        row: dict = {"size": size, "status": f"exit {done.returncode}", "wall_s": round(time.time() - started, 1),
                     "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
                     "peak_mb": round(after.ru_maxrss / 1024)}
        manifest = out / "manifest.json"
        if manifest.exists():
            row.update(stage_costs(json.loads(manifest.read_text())))
        report = out / "report.html"
        row["report_mb"] = round(report.stat().st_size / 2**20, 2) if report.exists() else None
        if done.returncode:
            row["error"] = (done.stderr.strip().splitlines() or [""])[-1][:200]
        return row


def measure_stage(size: str, stage: str, keep: Path | None, limit: float, baseline: str | None,
                  rate: str = CV_FOLD0_RATE) -> dict:
    """The ``stage`` of one FLOWSxTASKS field alone (module docstring): its process's CPU seconds and peak memory and
    the stage's own CPU seconds (the manifest's), with the code of this tree and, with ``baseline``, of that git
    revision's package (``git archive``) on the same stored upstream results."""
    with tempfile.TemporaryDirectory() as scratch:
        config, out = prepared_field(keep / size if keep else Path(scratch), size, rate)
        command = [str(config), "--quiet"]
        subprocess.run([sys.executable, "-m", "benchirt.cli", "run", *command, "--stages", *UPSTREAM[stage]],
                       capture_output=True, text=True, timeout=limit, check=True)
        row: dict = {"size": size, "stage": stage,
                     **_timed_stage(command + ["--stages", stage, "--force"], out, stage, HERE, limit)}
        if baseline:
            with tempfile.TemporaryDirectory() as tree:
                package = subprocess.run(["git", "archive", baseline, "benchirt"], capture_output=True, check=True,
                                         cwd=HERE)
                subprocess.run(["tar", "-x", "-C", tree], input=package.stdout, check=True)
                before = _timed_stage(command + ["--stages", stage, "--force"], out, stage, tree, limit)
            row.update({f"{baseline}_{key}": value for key, value in before.items()})
            for key in ("cpu_s", "stage_cpu_s"):
                row[key.replace("_s", "_ratio")] = round(row[key] / before[key], 3) if before.get(key) else None
        return row


def _timed_stage(arguments: list[str], out: Path, stage: str, code: Path | str, limit: float) -> dict:
    """``benchirt run ARGUMENTS`` (run directory ``out``) in a process of its own with the package at ``code``: its
    CPU seconds and peak memory, the ``stage``'s CPU seconds from the manifest, and the exit status."""
    usage = out.parent / "usage.json"
    usage.unlink(missing_ok=True)   # a process killed before it could write its usage leaves none, not a stale one
    env = {**os.environ, "FIELD_SCALE_USAGE": str(usage), "PYTHONPATH": str(code)}
    started = time.time()
    # run from ``code``: ``python -c`` puts the working directory first on the path, before PYTHONPATH
    done = subprocess.run([sys.executable, "-c", MEASURED, "run", *arguments], capture_output=True, text=True,
                          timeout=limit, env=env, cwd=code)
    measured = json.loads(usage.read_text())
    if not Path(measured["package"]).resolve().is_relative_to(Path(code).resolve()):
        raise RuntimeError(f"timed the package at {measured['package']}, not the one in {code}")
    row = {"status": f"exit {done.returncode}", "wall_s": round(time.time() - started, 1),
           "cpu_s": round(measured["cpu_s"], 1), "peak_mb": round(measured["peak_mb"]),
           "stage_cpu_s": stage_costs(json.loads((out / "manifest.json").read_text()))[f"{stage}_cpu_s"]}
    if done.returncode:
        row["error"] = (done.stderr.strip().splitlines() or [""])[-1][:200]
    return row


def stage_costs(manifest: dict) -> dict:
    """Each stage's wall seconds and CPU seconds (its tasks' CPU for a per-dataset stage, the suite-wide
    result's CPU otherwise) from a run's manifest."""
    costs = {}
    for stage in STAGES:
        entry = manifest.get("stages", {}).get(stage, {})
        cpu = entry.get("task_cpu_seconds") or manifest.get("artifacts", {}).get(stage, {}).get("cpu_seconds")
        costs[f"{stage}_wall_s"] = round(entry.get("seconds", math.nan), 1)
        costs[f"{stage}_cpu_s"] = round(cpu, 1) if cpu is not None else None
    return costs


def growth(table: pd.DataFrame) -> pd.DataFrame:
    """Growth exponents in flows between consecutive sizes with the same number of tasks."""
    rows = []
    sizes = table["size"].str.split("x", expand=True).astype(int)
    for (a, b) in zip(range(len(table) - 1), range(1, len(table))):
        if sizes.iloc[a, 1] != sizes.iloc[b, 1] or sizes.iloc[a, 0] == sizes.iloc[b, 0]:
            continue
        ratio = math.log(sizes.iloc[b, 0] / sizes.iloc[a, 0])
        row = {"from": table["size"].iloc[a], "to": table["size"].iloc[b]}
        for column in [c for c in table.columns if c.endswith("cpu_s")]:
            low, high = table[column].iloc[a], table[column].iloc[b]
            if low and high and not (pd.isna(low) or pd.isna(high)):
                row[column.replace("_cpu_s", "")] = round(math.log(high / low) / ratio, 2)
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["1000x20", "2000x20"])
    parser.add_argument("--keep", type=Path, help="keep each field, config and run here")
    parser.add_argument("--limit", type=float, default=3600.0, help="seconds a run may take")
    parser.add_argument("--only", choices=sorted(UPSTREAM), help="time this stage alone (module docstring)")
    parser.add_argument("--baseline", metavar="REV", help="with --only: also time the stage with this git revision")
    parser.add_argument("--rate-defaults", action="store_true",
                        help="the rating stage's default orders and bootstrap replicates instead of cv-fold0's")
    args = parser.parse_args()
    rate = "" if args.rate_defaults else CV_FOLD0_RATE
    if args.only:
        table = pd.DataFrame([measure_stage(size, args.only, args.keep, args.limit, args.baseline, rate)
                              for size in args.sizes])
        with pd.option_context("display.width", 200, "display.max_columns", 40):
            print(table.T.to_string(header=False))
        return
    table = pd.DataFrame([measure(size, args.keep, args.limit, rate) for size in args.sizes])
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        print(table.T.to_string(header=False))
        exponents = growth(table)
        if len(exponents):
            print("\ngrowth exponents in flows (CPU):")
            print(exponents.to_string(index=False))


if __name__ == "__main__":
    main()

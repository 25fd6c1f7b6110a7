"""``benchirt run CONFIG --estimate`` against the CPU seconds a finished run of CONFIG measured, per stage.

For each RUN_DIR (a finished ``benchirt run``), the config it ran (its ``config.yaml``, paths relative to the
config file it came from, ``manifest.json``'s ``config_source``) is estimated as ``--estimate`` does
(:func:`benchirt.pipeline.estimate.estimate_run`), and each stage's estimate is printed beside the CPU seconds
the manifest records: per dataset for respond and irt (summed, and the spread of measured/estimated over the
datasets), per stage for the suite-wide stages (``task_cpu_seconds``). A stored-runs field imports its runs in
the driver while the stage is planned, which the manifest does not time: its respond row is the import timed again
here (``CPU*``). ``--fit`` first refits the IRT stage's law, the import's constant and the suite-wide stages to the
runs (:func:`write_model`) and rewrites ``benchirt/pipeline/cost_model.json``. ``--synthetic DIR`` writes the synthetic 10³-flow field (three tasks of 1,000 flows
× 3 setups, 400, 1,000 and 2,000 rows: :mod:`synthetic_field`) and a wide test set (90 runs × 8,000 items, every
run a respondent) with their configs, to run with ``python -m benchirt.cli run DIR/synthetic.yaml --out RUN_DIR``
(and ``DIR/wide.yaml``).

    python benchmarks/estimate_accuracy.py [--fit] RUN_DIR [RUN_DIR ...]
    python benchmarks/estimate_accuracy.py --synthetic DIR
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: Rows of the synthetic field's three tasks (each answered by 1,000 flows × 3 setups).
SYNTHETIC_ROWS = (400, 1000, 2000)
#: Runs of each synthetic task: 1,000 flows of :data:`synthetic_field.SETUPS` setups.
SYNTHETIC_RUNS = 3000
#: Runs × items of the wide synthetic test set (every run a respondent): many items, few respondents.
WIDE = (90, 8000)


def write_synthetic(folder: Path) -> list[Path]:
    """The synthetic fields' matrix files and configs (2PL, respond and irt); returns the configs' paths: the
    10³-flow field (``synthetic.yaml``) and one test set of :data:`WIDE` items (``wide.yaml``)."""
    import yaml

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synthetic_field import write_field

    (folder / "field").mkdir(parents=True, exist_ok=True)
    (folder / "wide").mkdir(parents=True, exist_ok=True)
    for seed, rows in enumerate(SYNTHETIC_ROWS):
        write_field(folder / "field" / f"synthetic-{rows}.csv", SYNTHETIC_RUNS, rows, seed)
    write_field(folder / "wide" / f"wide-{WIDE[1]}.csv", *WIDE, seed=len(SYNTHETIC_ROWS))
    paths = []
    for name, source, per_flow in (("synthetic", "field", "best-held-out"), ("wide", "wide", "all")):
        config = {"suite": name, "stages": ["respond", "irt"],
                  "respond": {"source": "openml-runs", "path": source, "per_flow": per_flow},
                  "irt": {"model": "2PL"}, "execution": {"n_jobs": 1}}
        paths.append(folder / f"{name}.yaml")
        paths[-1].write_text(yaml.safe_dump(config), encoding="utf-8")
    return paths


def run_config(run_dir: Path):
    """The config a run ran (its ``config.yaml``), its relative paths read beside the config file it came from."""
    from benchirt.pipeline.config import load_config

    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    config = load_config(run_dir / "config.yaml")
    source = Path(manifest.get("config_source") or "")
    return replace(config, base_dir=str(source.resolve().parent)) if source.is_file() else config, manifest


def measured_seconds(manifest: dict, stages) -> dict[str, dict]:
    """Per stage: ``total`` CPU seconds and, for respond and irt, ``per_dataset`` (name -> CPU seconds)."""
    out = {}
    for stage in stages:
        report = manifest["stages"].get(stage, {})
        per_dataset = {name: entry[stage]["cpu_seconds"] for name, entry in manifest["datasets"].items()
                       if entry.get(stage, {}).get("cpu_seconds") is not None}
        if per_dataset and stage in ("respond", "irt"):
            out[stage] = {"total": sum(per_dataset.values()), "per_dataset": per_dataset, "clock": "CPU"}
        elif report.get("task_cpu_seconds"):
            out[stage] = {"total": report["task_cpu_seconds"], "per_dataset": {}, "clock": "CPU"}
        elif report.get("seconds") is not None:
            out[stage] = {"total": report["seconds"], "per_dataset": {}, "clock": "wall"}
    return out


def estimated_seconds(config) -> dict[str, dict]:
    """Per stage, as ``--estimate`` computes it: ``total`` and, for respond and irt, ``per_dataset``."""
    from benchirt.pipeline.estimate import estimate_run, load_cost_model, run_workers

    table, suite, _ = estimate_run(config, run_workers(config.execution), load_cost_model())
    known = table.dropna(subset=["respond_s"])
    out = {stage: {"total": float(known[f"{stage}_s"].sum()),
                   "per_dataset": dict(zip(known["dataset"], known[f"{stage}_s"]))}
           for stage in ("respond", "irt") if stage in config.stages}
    out.update({stage: {"total": seconds, "per_dataset": {}} for stage, seconds in suite.items()})
    return out


def stage_rows(label: str, config, manifest: dict) -> list[str]:
    """One line per stage: estimated, measured, measured/estimated, and the per-dataset spread where there is one
    (a stored-runs field's respond stage: its import timed again here, ``CPU*``)."""
    from benchirt.pipeline.estimate import is_stored_runs
    measured = measured_seconds(manifest, config.stages)
    if is_stored_runs(config.stage_config("respond")) and "respond" in measured:
        measured["respond"] = {"total": import_cpu_seconds(config), "per_dataset": {}, "clock": "CPU*"}
    estimated = estimated_seconds(config)
    rows = []
    for stage in config.stages:
        if stage not in measured or stage not in estimated:
            continue
        m, e = measured[stage], estimated[stage]
        ratios = np.array([m["per_dataset"][name] / e["per_dataset"][name] for name in m["per_dataset"]
                           if e["per_dataset"].get(name)])
        spread = (f"{ratios.min():.2f}-{ratios.max():.2f} (median {np.median(ratios):.2f}, {len(ratios)} datasets)"
                  if len(ratios) else "-")
        rows.append(f"{label:<14} {stage:<8} {e['total']:>10.1f} {m['total']:>10.1f} {m['clock']:>5} "
                    f"{m['total'] / e['total'] if e['total'] else float('nan'):>8.2f}  {spread}")
    return rows


def import_cpu_seconds(config) -> float:
    """CPU seconds of importing a stored-runs field again (reading and selecting: what its respond stage does while
    it is planned, which the manifest does not time)."""
    from benchirt.stored_runs.responses import imported_results

    start = time.process_time()
    imported_results(config.stage_config("respond"), base_dir=config.base_dir)
    return time.process_time() - start


def irt_points(run_dirs: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Respondents, items (as the estimate reads them) and measured IRT CPU seconds of every dataset of the runs."""
    from benchirt.pipeline.estimate import estimate_run, load_cost_model

    points = []
    for run_dir in run_dirs:
        config, manifest = run_config(run_dir)
        table, _, _ = estimate_run(config, 1, load_cost_model())
        for name, n, items in zip(table["dataset"], table["irt_respondents"], table["irt_items"]):
            seconds = manifest["datasets"].get(name, {}).get("irt", {}).get("cpu_seconds")
            if seconds:
                points.append((n, items, seconds))
    return tuple(np.array(column, dtype=float) for column in zip(*points))  # type: ignore[return-value]


def fit_irt(run_dirs: list[Path]) -> dict[str, float]:
    """``irt_seconds`` of the cost model (:func:`benchirt.pipeline.estimate.irt_seconds`) fitted to the runs' IRT
    CPU seconds per dataset, on the log scale (each dataset's ratio counts alike)."""
    from scipy.optimize import minimize

    n, items, measured = irt_points(run_dirs)

    def predicted(x: np.ndarray) -> np.ndarray:
        return np.exp(x[0]) + np.exp(x[1]) * n ** x[2] * items ** x[3]

    def loss(x: np.ndarray) -> float:
        return float(np.mean(np.log(measured / predicted(x)) ** 2))

    x = minimize(loss, np.array([np.log(0.1), -10.0, 0.5, 1.0]), method="Nelder-Mead",
                 options={"maxiter": 20000, "xatol": 1e-8, "fatol": 1e-12}).x
    print(f"IRT fitted to {len(measured)} datasets of {len(run_dirs)} run(s): root-mean-square log error "
          f"{np.sqrt(loss(x)):.2f}")
    return {"fixed": round(float(np.exp(x[0])), 4), "scale": float(f"{np.exp(x[1]):.4g}"),
            "respondents_power": round(float(x[2]), 3), "items_power": round(float(x[3]), 3)}


def fit_import(run_dirs: list[Path]) -> float:
    """``stored_seconds_per_cell``: the stored-runs runs' import CPU seconds over the answers their sources store."""
    from benchirt.pipeline.estimate import is_stored_runs
    from benchirt.stored_runs.shapes import stored_shapes

    seconds = cells = 0.0
    for run_dir in run_dirs:
        config, _ = run_config(run_dir)
        responses = config.stage_config("respond")
        if is_stored_runs(responses):
            seconds += import_cpu_seconds(config)
            cells += sum(shape.cells for shape in stored_shapes(responses, base_dir=config.base_dir))
    return float(f"{seconds / cells:.4g}")


def fit_suite_stages(run_dirs: list[Path], model: dict) -> dict[str, dict[str, float]]:
    """``suite_stage_seconds`` (fixed + per rated (dataset, classifier) pair) fitted to the runs' suite-wide stages'
    CPU seconds, non-negative, on relative error; a stage fewer than two runs measured keeps its constants."""
    from scipy.optimize import nnls

    from benchirt.pipeline.estimate import SUITE_STAGES, estimate_run, rated_cells

    points: dict[str, list[tuple[int, float]]] = {stage: [] for stage in SUITE_STAGES}
    for run_dir in run_dirs:
        config, manifest = run_config(run_dir)
        table, _, _ = estimate_run(config, 1, model)
        cells = rated_cells(config.stage_config("respond"), table)
        for stage, seconds in measured_seconds(manifest, config.stages).items():
            if stage in points and seconds["clock"] == "CPU":
                points[stage].append((cells, seconds["total"]))
    fitted = dict(model["suite_stage_seconds"])
    for stage, pairs in points.items():
        if len(pairs) >= 2:
            cells, seconds = (np.array(column, dtype=float) for column in zip(*pairs))
            (fixed, per_cell), _ = nnls(np.column_stack([1 / seconds, cells / seconds]), np.ones(len(seconds)))
            fitted[stage] = {"fixed": round(float(fixed), 4), "per_cell": float(f"{per_cell:.4g}")}
    return fitted


def write_model(run_dirs: list[Path]) -> None:
    """Refit the IRT stage's law, the import's constant and the suite-wide stages to the runs and rewrite
    ``cost_model.json``."""
    path = ROOT / "benchirt" / "pipeline" / "cost_model.json"
    model = json.loads(path.read_text(encoding="utf-8"))
    model.pop("irt_seconds_per_response", None)
    model["irt_seconds"] = fit_irt(run_dirs)
    model["stored_seconds_per_cell"] = fit_import(run_dirs)
    model["suite_stage_seconds"] = fit_suite_stages(run_dirs, model)
    model["calibrated"] = (model["calibrated"].split("; IRT")[0] + "; IRT stage, stored-runs import and suite-wide "
                           "stages (replacing any earlier fit of them) fitted to "
                           f"{len(run_dirs)} run(s) by benchmarks/estimate_accuracy.py --fit {date.today()}")
    path.write_text(json.dumps(model, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{path}: irt_seconds {model['irt_seconds']}, stored_seconds_per_cell {model['stored_seconds_per_cell']}, "
          f"suite_stage_seconds {model['suite_stage_seconds']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", type=Path, metavar="RUN_DIR", help="finished runs to compare")
    parser.add_argument("--synthetic", type=Path, metavar="DIR", help="write the synthetic 10^3-flow field and config")
    parser.add_argument("--fit", action="store_true",
                        help="refit the IRT stage's law, the stored-runs import's constant and the suite-wide "
                             "stages to the runs and rewrite benchirt/pipeline/cost_model.json, then compare")
    args = parser.parse_args()
    if args.synthetic:
        print("\n".join(str(path) for path in write_synthetic(args.synthetic)))
    if not args.runs:
        return
    if args.fit:
        write_model(args.runs)
    print(f"{'config':<14} {'stage':<8} {'estimate s':>10} {'measured s':>10} {'clock':>5} {'meas/est':>8}  "
          "per dataset measured/estimated")
    for run_dir in args.runs:
        config, manifest = run_config(run_dir)
        label = Path(manifest.get("config_source") or run_dir.name).stem
        print("\n".join(stage_rows(label, config, manifest)))


if __name__ == "__main__":
    main()

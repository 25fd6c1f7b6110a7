"""Stored runs (issue 26): import time and peak memory, and the Iris study 59 end to end.

Parts (each prints a Markdown table; benchmarks/results/stored-runs.md shows their output):

``--part large``
    One synthetic predictions file of Devnagari-Script's shape (92,000 rows × 46 classes, openml-python's
    2025 layout, rows shuffled) read by :func:`benchirt.stored_runs.predictions.read_predictions` in a fresh
    process: seconds and peak resident memory (goal ≤ 30 s, ≤ 500 MB).
``--part many``
    500 runs of a 10,000-row, 10-fold task (a runs folder with the split) imported by
    ``benchirt import-runs`` in a fresh process: seconds and peak memory, per rule.
``--part iris``
    The Iris study 59 matrix (4,432 real OpenML runs, ``../shared/data/openml-runs``): the winner's-curse
    gap per flow, then ``benchirt run configs/openml-iris.yaml`` per selection rule (time, respondents,
    suspect rows, the top of the leaderboard) and the Jaccard similarity of the suspect sets.
``--part field``
    Two fields through ``benchirt run`` with every stage (respond, irt, rate, subset, airt, report), each in a
    fresh process watched through /proc: wall, CPU seconds and peak resident memory per stage and in all.
    The real cv-fold0 field (configs/cv-fold0.yaml: 20 OpenML tasks, 277 flows, sparse; goal ≤ 10 min, ≤ 2 GB
    on 2 cores) and the synthetic field of ``benchmarks/synthetic_field.py`` (``--respondents`` runs × 150
    items, 2PL answers, long flow names, every run a respondent; goal at 2,000: ≤ 1 GB). ``--field`` picks one.
``--part rating``
    The rating stage alone (:func:`benchirt.rating.rate`, 200 bootstrap replicates, 20 orders) on a simulated
    field of ``--respondents`` classifiers over ``--datasets`` datasets, in a fresh process: seconds, peak memory.
``--part beside``
    ``benchirt run configs/openml-iris-pool.yaml``: the stored runs beside benchirt's own pool on the same
    75 rows of Iris (time per stage; where benchirt's classifiers rank among the field by IRT ability and
    on the leaderboard; the suspect rows with Iris's labels).
``--part import-field``
    ``benchirt import-runs ../shared/data/openml-runs/cv-fold0`` (20 respondents × items matrices, one per
    task) in a fresh process: seconds, peak memory, the field's flows per number of tasks, and per task the
    runs read, respondents, items and share of the field.
``--part hostile``
    A runs folder of two good runs beside a 1 GiB ``description.xml`` (sparse) and a 300 MB predictions file
    of one endless line, imported in a fresh process with ``BENCHIRT_MAX_INPUT_MB`` at 1024 (so the line
    check, not the size limit, meets the long line) and at its default: seconds, peak memory, the lines said.

    nice -n 10 python benchmarks/stored_runs.py --part large
    nice -n 10 python benchmarks/stored_runs.py --part many
    nice -n 10 python benchmarks/stored_runs.py --part iris [--rules all]
    nice -n 10 python benchmarks/stored_runs.py --part beside
    nice -n 10 python benchmarks/stored_runs.py --part field [--field cv-fold0|synthetic] [--respondents 2000]
    nice -n 10 python benchmarks/stored_runs.py --part rating --respondents 300 --datasets 5
    nice -n 10 python benchmarks/stored_runs.py --part import-field
    nice -n 10 python benchmarks/stored_runs.py --part hostile
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BENCHIRT_SHARED_DATA", ROOT.parent / "shared" / "data"))


def write_predictions_file(path: Path, n_rows: int, n_classes: int, folds: int, seed: int, accuracy: float = 0.8):
    """A 2025-layout predictions file, rows shuffled; returns (row folds, true labels, predicted labels)."""
    rng = np.random.default_rng(seed)
    classes = [f"c{k}" for k in range(n_classes)]
    truth = np.arange(n_rows) % n_classes
    fold = np.arange(n_rows) % folds
    right = rng.random(n_rows) < accuracy
    predicted = np.where(right, truth, (truth + 1 + rng.integers(0, n_classes - 1, n_rows)) % n_classes)
    proba = rng.dirichlet(np.ones(n_classes), n_rows).astype(np.float32)
    order = rng.permutation(n_rows)
    header = ["@RELATION synthetic_predictions", "@ATTRIBUTE repeat NUMERIC", "@ATTRIBUTE fold NUMERIC",
              "@ATTRIBUTE sample NUMERIC", "@ATTRIBUTE row_id NUMERIC",
              "@ATTRIBUTE prediction {" + ",".join(classes) + "}", "@ATTRIBUTE correct {" + ",".join(classes) + "}"]
    header += [f"@ATTRIBUTE confidence.{c} NUMERIC" for c in classes] + ["@DATA"]
    names = np.array(classes, dtype=object)
    conf = np.char.mod("%.4f", proba[order])
    lead = np.char.add(np.char.add("0,", fold[order].astype(str)), ",0,")
    lead = np.char.add(np.char.add(lead, order.astype(str)), ",")
    labels = np.char.add(np.char.add(names[predicted[order]].astype(str), ","), names[truth[order]].astype(str))
    body = np.char.add(np.char.add(lead, labels), ",")
    conf_text = [",".join(row) for row in conf]
    with path.open("w") as handle:
        handle.write("\n".join(header) + "\n")
        handle.write("\n".join(b + c for b, c in zip(body.tolist(), conf_text)) + "\n")
    return fold, truth, predicted


def _child(argv: list[str], env: dict | None = None) -> dict:
    """Run this script's ``--child`` job in a fresh process; its JSON line plus its peak memory."""
    out = subprocess.run([sys.executable, __file__, "--child", *argv], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(args: list[str]) -> None:
    job = args[0]
    start = time.perf_counter()
    if job == "write":
        write_predictions_file(Path(args[1]), int(args[2]), int(args[3]), 10, seed=0)
        info = {}
    elif job == "write-many":
        write_runs_folder(Path(args[1]), int(args[2]), int(args[3]))
        info = {}
    elif job == "rate":
        import pandas as pd

        from benchirt.rating import RatingConfig, rate

        k, d = int(args[1]), int(args[2])
        rng = np.random.default_rng(0)
        skill = rng.normal(0, 1, k)
        scores = pd.DataFrame([{"dataset": f"d{j}", "classifier": f"c{i}", "score": float(skill[i] + rng.normal())}
                               for j in range(d) for i in range(k)])
        result = rate(scores, config=RatingConfig(n_permutations=20, n_bootstrap=200, seed=0))
        info = {"classifiers": len(result.leaderboard)}
    elif job == "read":
        from benchirt.stored_runs.predictions import read_predictions

        result = read_predictions(args[1], "synthetic run")
        info = {"rows": int(len(result.row_id)), "accuracy": result.accuracy}
    else:
        from benchirt.cli import main

        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()) as printed:
            code = main(["import-runs", args[1], "--out", args[2], "--per-flow", args[3]])
        info = {"exit": code, "printed": printed.getvalue()}
    info["seconds"] = time.perf_counter() - start
    info["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(info))


def part_large(tmp: Path) -> None:
    path = tmp / "devnagari-shape.arff"
    written = _child(["write", str(path), "92000", "46"])["seconds"]
    result = _child(["read", str(path)])
    print(f"| file | size | rows read | accuracy | seconds | peak memory |\n|---|---|---|---|---|---|\n"
          f"| 92,000 rows × 46 classes (written in {written:.1f} s) | {path.stat().st_size / 1e6:.0f} MB | "
          f"{result['rows']:,} | {result['accuracy']:.3f} | {result['seconds']:.2f} | {result['peak_mb']:.0f} MB |")
    print("\n(each job in a fresh process, started by a parent that holds no data: ru_maxrss survives fork and exec)")


def write_runs_folder(root: Path, n_runs: int, n_rows: int) -> None:
    """``n_runs`` runs of 50 flows (accuracy rising with the flow id) on a 10,000-row, 10-fold task 77."""
    from benchirt.io import atomic_write_text

    split = ["@relation splits", "@attribute type {TRAIN,TEST}", "@attribute rowid numeric",
             "@attribute repeat numeric", "@attribute fold numeric", "@data"]
    split += [f"TEST,{row},0,{row % 10}" for row in range(n_rows)]
    atomic_write_text(root / "tasks" / "77" / "datasplits.arff", "\n".join(split) + "\n")
    for run in range(1, n_runs + 1):
        folder = root / "runs" / str(run)
        folder.mkdir(parents=True)
        flow = 1 + run % 50
        (folder / "description.xml").write_text(
            f'<oml:run xmlns:oml="http://openml.org/openml"><oml:run_id>{run}</oml:run_id><oml:task_id>77'
            f"</oml:task_id><oml:flow_id>{flow}</oml:flow_id><oml:flow_name>synthetic.Flow{flow}</oml:flow_name>"
            f"<oml:setup_id>{run}</oml:setup_id><oml:uploader>1</oml:uploader></oml:run>")
        write_predictions_file(folder / "predictions.arff", n_rows, 10, 10, seed=run, accuracy=0.5 + 0.4 * (flow / 50))


def part_many(tmp: Path, n_runs: int = 500, n_rows: int = 10_000) -> None:
    root = tmp / "many"
    written = _child(["write-many", str(root), str(n_runs), str(n_rows)])["seconds"]
    print(f"{n_runs} runs × {n_rows:,} rows written in {written:.0f} s\n")
    print("| rule | respondents × items | seconds | peak memory |\n|---|---|---|---|")
    for rule in ("best-held-out", "all"):
        out = tmp / f"out-{rule}"
        result = _child(["import", str(root), str(out), rule])
        import pandas as pd

        shape = pd.read_csv(next((out / "responses").glob("*/responses.csv")), index_col=0).shape
        print(f"| {rule} | {shape[0]} × {shape[1]:,} | {result['seconds']:.1f} | {result['peak_mb']:.0f} MB |")


def part_import_field(tmp: Path) -> None:
    source = SHARED / "openml-runs" / "cv-fold0"
    out = tmp / "cv-fold0"
    result = _child(["import", str(source), str(out), "best-held-out"])
    printed = result["printed"].splitlines()
    print(f"`benchirt import-runs {source} --out DIR`: exit {result['exit']}, {result['seconds']:.1f} s, peak "
          f"{result['peak_mb']:.0f} MB (a fresh process)\n")
    print("\n".join(line for line in printed if line.startswith(("field:", str(source)))) + "\n")
    print("| dataset | runs read | respondents × items | share of the field's flows |\n|---|---|---|---|")
    for record in sorted((json.loads(p.read_text()) for p in out.glob("responses/*/import.json")),
                         key=lambda r: r["dataset"].lower()):
        field = record["field"]
        print(f"| {record['dataset']} | {record['runs_read']} | {record['respondents']} × {record['items']:,} | "
              f"{field['flows_here']} of {field['flows']} ({100 * field['share_here']:.1f} %) |")


def part_hostile(tmp: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from runs_samples import write_small_task

    root = tmp / "hostile"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3, 4))
    with open(root / "runs" / "3" / "description.xml", "r+b") as handle:
        handle.truncate(2**30)  # 1 GiB, sparse: the size is what is measured
    predictions = root / "runs" / "4" / "predictions.arff"
    head = predictions.read_text().split("@DATA")[0] + "@DATA\n"
    with predictions.open("w") as handle:
        handle.write(head)
        for _ in range(300):
            handle.write("0," * 500_000)  # 300 MB on one line
        handle.write("\n")
    print("| BENCHIRT_MAX_INPUT_MB | exit | seconds | peak memory | said |\n|---|---|---|---|---|")
    for limit in ("1024", None):
        env = {"BENCHIRT_MAX_INPUT_MB": limit} if limit else {}
        if not limit:
            os.environ.pop("BENCHIRT_MAX_INPUT_MB", None)
        result = _child(["import", str(root), str(tmp / f"out-{limit}"), "all"], env=env)
        said = [line.strip()[len("skipped: "):].replace(str(root), "DIR")[:120] for line in result["printed"].splitlines()
                if line.strip().startswith("skipped:")]
        print(f"| {limit or 'default (128)'} | {result['exit']} | {result['seconds']:.1f} | {result['peak_mb']:.0f} MB | "
              + "<br>".join(said) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("large", "many", "iris", "beside", "field", "rating", "import-field",
                                           "hostile"), required=False)
    parser.add_argument("--child", nargs="+")
    parser.add_argument("--rules", default="best-held-out,best,median,all",
                        help="--part iris: the selection rules to run (comma-separated)")
    parser.add_argument("--respondents", type=int, default=2000, help="--part field, rating: the size of the field")
    parser.add_argument("--datasets", type=int, default=5, help="--part rating: the number of datasets")
    parser.add_argument("--field", choices=("both", "cv-fold0", "synthetic"), default="both",
                        help="--part field: which field(s) to run")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))   # this checkout's benchirt, as the child processes get it (PYTHONPATH)
    if args.child:
        return child(args.child)
    with tempfile.TemporaryDirectory() as tmp:
        if args.part == "iris":
            return part_iris(Path(tmp), tuple(args.rules.split(",")))
        if args.part == "field":
            return part_field(Path(tmp), args.respondents, which=args.field)
        if args.part == "rating":
            info = _child(["rate", str(args.respondents), str(args.datasets)])
            return print(f"| {args.respondents} × {args.datasets} datasets | {info['seconds']:.1f} | "
                         f"{info['peak_mb']:.0f} MB |")
        {"large": part_large, "many": part_many, "beside": part_beside, "import-field": part_import_field,
         "hostile": part_hostile}[args.part](Path(tmp))


#: The classic ambiguous versicolor/virginica rows of Iris (0-based; ../shared/data/openml-runs/README.md).
AMBIGUOUS = {70, 77, 83, 106, 119, 133}
IRIS = SHARED / "openml-runs" / "iris-matrices" / "results_Iris_Study59_4432x150.csv"


def _markdown(frame) -> str:
    """A Markdown table (floats to 3 decimals)."""
    cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row] for row in frame.itertuples(index=False)]
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _run_study(config: dict, config_path: Path, out: Path):
    """Write ``config`` to ``config_path``, time ``benchirt run`` on it in a fresh interpreter and load the run.

    Returns (wall seconds, :class:`~benchirt.pipeline.run.RunResults`, stage name -> seconds from the manifest).
    """
    import yaml

    from benchirt.pipeline.run import load_run

    config_path.write_text(yaml.safe_dump(config))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchirt.cli", "run", str(config_path), "--out", str(out)], check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    results = load_run(out)
    stages = {name: entry.get("seconds") for name, entry in results.manifest.stages.items()}
    return seconds, results, stages


def part_iris(tmp: Path, rules=("best-held-out", "best", "median", "all")) -> None:
    import pandas as pd
    import yaml

    from benchirt.rating.verdict import measured
    from benchirt.stored_runs.matrices import read_matrix_csv
    from benchirt.stored_runs.select import SelectionOptions, select

    matrix = read_matrix_csv(IRIS)
    curse = select(matrix, options=SelectionOptions(min_accuracy=0.35)).winners_curse
    print(f"Winner's curse on {len(curse)} flows with ≥ 2 runs above 35 % (best run of a flow chosen on a random "
          f"half of the rows, seed 0): raw gap chosen-half − other-half mean {curse['gap'].mean():.4f}; the "
          f"flows' median run differs by {curse['half_difference'].mean():.4f} between the halves; curse (gap − "
          f"that) mean {curse['curse'].mean():.4f}, median {curse['curse'].median():.4f}, max "
          f"{curse['curse'].max():.4f}; {int((curse['curse'] > 0).sum())} flows above 0. On the held-out half the "
          f"chosen run beats the flow's median run by {curse['best_minus_median_out'].mean():.4f} on average.\n")
    columns = ["flow_name", "n_runs", "chosen_in", "chosen_out", "median_out", "gap", "half_difference", "curse"]
    print(_markdown(curse.head(8)[columns]))
    base = yaml.safe_load((ROOT / "configs" / "openml-iris.yaml").read_text())
    rows, suspects, tops = [], {}, {}
    for rule in rules:
        config = dict(base, respond={**base["respond"], "path": str(IRIS), "per_flow": rule})
        seconds, results, stages = _run_study(config, tmp / f"iris-{rule}.yaml", tmp / rule)
        [irt] = results.irt.values()
        [result] = results.respond.values()
        items = irt.fit.items
        negative = set(int(i) for i in items.index[items["discrimination"] < 0])
        suspects[rule] = negative
        board = measured(results.rate.leaderboard)
        flows = result.provenance.set_index("respondent")["flow_name"]
        tops[rule] = [flows[c] for c in board["classifier"].head(10)]
        rows.append({"rule": rule, "respondents × items": f"{result.responses.shape[0]} × {result.responses.shape[1]}",
                     "seconds": round(seconds, 1),
                     "rate s": stages.get("rate"), "report s": stages.get("report"),
                     "items with a < 0": " ".join(map(str, sorted(negative))),
                     "known ambiguous found": f"{len(negative & AMBIGUOUS)} of {len(AMBIGUOUS & set(map(int, items.index)))}",
                     "leader": tops[rule][0]})
    print("\n" + _markdown(pd.DataFrame(rows)))
    print("\nJaccard similarity of the negatively discriminating items (a < 0) and of the top-10 flows:\n")
    table = pd.DataFrame([{"rules": f"{a} / {b}", "suspects": _jaccard(suspects[a], suspects[b]),
                           "top-10 flows": _jaccard(set(tops[a]), set(tops[b]))}
                          for i, a in enumerate(rules) for b in rules[i + 1:]])
    print(_markdown(table))


#: Every stage of a run, in order (what ``--part field`` times).
ALL_STAGES = ["respond", "irt", "rate", "subset", "airt", "report"]
CV_FOLD0 = SHARED / "openml-runs" / "cv-fold0"


def monitored_run(config_path: Path, out: Path, interval: float = 0.2) -> dict:
    """``benchirt run CONFIG --out OUT`` in a fresh process, watched every ``interval`` seconds.

    Returns ``{"wall", "cpu", "peak_mb", "load", "stages": {stage: {"status", "wall", "cpu", "peak_mb"}}}``: a
    stage's wall time is the manifest's; its CPU seconds (user + system, the process and its children) and peak
    resident memory (summed over the process tree) are read from /proc through psutil while the manifest says
    the stage is running. The whole run's peak is the child's own ``ru_maxrss`` (resource.getrusage).
    """
    import psutil

    load = os.getloadavg()[0]
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.Popen([sys.executable, "-m", "benchirt.cli", "run", str(config_path), "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    process = psutil.Process(child.pid)
    stages: dict[str, dict] = {}
    running, cpu_at_start = None, 0.0
    while child.poll() is None:
        try:
            tree = [process, *process.children(recursive=True)]
            rss = sum(p.memory_info().rss for p in tree) / 2**20
            times = process.cpu_times()
            cpu = times.user + times.system + times.children_user + times.children_system
        except psutil.Error:
            break
        now = _running_stage(out)
        if now != running:
            if running is not None:
                stages[running]["cpu"] = cpu - cpu_at_start
            running, cpu_at_start = now, cpu
            if now is not None:
                stages.setdefault(now, {"peak_mb": 0.0})
        if running is not None:
            stages[running]["peak_mb"] = max(stages[running]["peak_mb"], rss)
        time.sleep(interval)
    child.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - start
    total_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if running is not None and "cpu" not in stages[running]:
        stages[running]["cpu"] = total_cpu - cpu_at_start
    manifest = json.loads((out / "manifest.json").read_text())
    for name, entry in manifest.get("stages", {}).items():
        stages.setdefault(name, {"peak_mb": float("nan"), "cpu": float("nan")})
        stages[name].update(status=entry.get("status"), wall=entry.get("seconds"))
    return {"wall": wall, "cpu": total_cpu, "peak_mb": after.ru_maxrss / 1024, "load": load, "exit": child.returncode,
            "stages": stages}


def _running_stage(out: Path) -> str | None:
    """The stage the run's manifest says is running (None before it exists, between stages, or mid-write)."""
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    return next((name for name, entry in manifest.get("stages", {}).items() if entry.get("status") == "running"), None)


def _stage_table(label: str, run: dict, out: Path) -> None:
    print(f"\n{label}: exit {run['exit']}, wall {run['wall']:.1f} s, CPU {run['cpu']:.1f} s, peak "
          f"{run['peak_mb']:.0f} MB (load average before: {run['load']:.2f})", flush=True)
    from benchirt.pipeline.results import load_run
    from benchirt.rating.verdict import measured

    results = load_run(out)
    shapes = [r.responses.shape for r in results.respond.values()]
    print(f"{len(shapes)} dataset(s), {sum(s[0] for s in shapes)} respondents × {sum(s[1] for s in shapes)} items "
          "in all (summed over datasets)")
    rating = results.rate
    if rating is not None:
        tested = measured(rating.leaderboard)
        print(f"leaderboard: {len(tested)} ranked, {len(rating.left_out)} placed by a model; leader "
              f"{tested['classifier'].iloc[0]}; Glicko-2 largest volatility "
              f"{rating.tournament.table['volatility'].max():.3f}")
    print("\n| stage | status | wall s | CPU s | peak MB | said |\n|---|---|---|---|---|---|")
    manifest = results.manifest.stages
    for name in ALL_STAGES:
        entry = run["stages"].get(name, {})
        said = str(manifest.get(name, {}).get("note") or "")[:160]
        print(f"| {name} | {entry.get('status', '—')} | {entry.get('wall') or 0:.1f} | {entry.get('cpu', float('nan')):.1f} "
              f"| {entry.get('peak_mb', float('nan')):.0f} | {said} |")


def part_field(tmp: Path, n_respondents: int, n_items: int = 150, which: str = "both") -> None:
    """cv-fold0 (configs/cv-fold0.yaml with every stage) and the synthetic field of benchmarks/synthetic_field.py."""
    import yaml

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synthetic_field import write_field

    if which in ("both", "cv-fold0"):
        config = yaml.safe_load((ROOT / "configs" / "cv-fold0.yaml").read_text())
        config = dict(config, stages=ALL_STAGES, respond={**config["respond"], "path": str(CV_FOLD0)})
        (tmp / "cv-fold0.yaml").write_text(yaml.safe_dump(config))
        run = monitored_run(tmp / "cv-fold0.yaml", tmp / "cv-fold0")
        _stage_table("cv-fold0 (configs/cv-fold0.yaml, every stage)", run, tmp / "cv-fold0")
    if which in ("both", "synthetic"):
        source = write_field(tmp / f"field-{n_respondents}.csv", n_respondents, n_items)
        config = {"suite": "synthetic-field", "stages": ["respond", "irt", "rate", "report"],   # one dataset: no subset, AIRT
                  "respond": {"source": "openml-runs", "path": str(source), "per_flow": "all", "min_accuracy": 0.0,
                              "deduplicate": False},
                  "irt": {"model": "2PL"}, "rate": {"n_permutations": 20, "n_bootstrap": 200, "seed": 0},
                  "execution": {"n_jobs": 1}}
        (tmp / "synthetic.yaml").write_text(yaml.safe_dump(config))
        run = monitored_run(tmp / "synthetic.yaml", tmp / "synthetic")
        _stage_table(f"synthetic {n_respondents} × {n_items} (benchmarks/synthetic_field.py, every stage)", run,
                     tmp / "synthetic")


def part_beside(tmp: Path) -> None:
    import pandas as pd
    import yaml

    from benchirt.rating.verdict import measured

    base = yaml.safe_load((ROOT / "configs" / "openml-iris-pool.yaml").read_text())
    config = dict(base, respond={**base["respond"], "path": str(IRIS)})
    seconds, results, stages = _run_study(config, tmp / "iris-pool.yaml", tmp / "run")
    [result] = results.respond.values()
    [irt] = results.irt.values()
    sources = result.provenance.set_index("respondent")["source"]
    print(f"benchirt run configs/openml-iris-pool.yaml: {seconds:.1f} s ({stages}); "
          f"{result.responses.shape[0]} respondents x {result.responses.shape[1]} items: "
          f"{sources.value_counts().to_dict()}\n")
    theta = irt.abilities.set_index("respondent")["theta"]
    real = result.roles.index[result.roles == "real"]
    theta_rank = theta[real].rank(ascending=False, method="min")
    board = measured(results.rate.leaderboard).set_index("classifier")
    own = [name for name in real if sources[name].startswith("benchirt")]
    table = pd.DataFrame({"classifier": own, "accuracy on the 75 items": result.test_accuracy[own].round(3).to_numpy(),
                          f"theta rank of {len(real)}": theta_rank[own].astype(int).to_numpy(),
                          f"leaderboard rank of {len(board)}": board.loc[own, "rank"].to_numpy()})
    print(_markdown(table))
    stored = [name for name in real if not sources[name].startswith("benchirt")]
    print(f"\nbest stored run on the items: {result.test_accuracy[stored].max():.3f}; best of benchirt's pool: "
          f"{result.test_accuracy[own].max():.3f}; suspect rows (with Iris's label): "
          + ", ".join(f"{r} ({label})" for r, label in zip(irt.suspect_labels["row"], irt.suspect_labels["label"])))
    items = irt.fit.items
    print("items with a < 0: " + " ".join(map(str, sorted(int(i) for i in items.index[items["discrimination"] < 0]))))


if __name__ == "__main__":
    main()

"""Leave-one-classifier-out check of `benchirt plan` / `benchirt predict` (docs/new-classifier.md; its tables: benchmarks/results/new-classifier.md).

For every classifier of a calibration, the classifier is taken out of the pool, the model is fitted
on the rest, and the classifier is "run" on K datasets — the K the plan chooses (made before any
result: `benchirt plan --budget K`, `benchirt add --budget K`), the K an adaptive plan chooses
(re-planned after each result: `benchirt plan --observed`), the K the plan for the average rank
chooses (`benchirt plan --target rank`), the K the previous model (one Gaussian prior, rank 3)
plans, or K chosen at random (20 draws) — then its other scores and its standing are
predicted and compared with the truth:

* score error: mean |predicted − true| over the datasets not run, in pool standard deviations;
* suite error: |predicted − true| mean standardised score over the whole suite (the summary the
  plan is designed to pin down; the analogue of tinyBenchmarks' full-benchmark accuracy);
* rank error: |predicted − true| position among the pool by average rank (1 = best);
* coverage: share of the 90 % score intervals (datasets not run) and of the 90 % rank intervals
  that hold the truth.

Baselines at the same K: "random + model" (random datasets, the same predictor) and "random only"
(random datasets and nothing else: the suite score is the mean over the K datasets, every other
dataset is predicted at the pool mean shifted by that offset, the rank is the average rank over the K).
"plan/random only" ratios carry a 90 % bootstrap interval over the held-out classifiers. Two tables per
calibration: every classifier held out in turn, and only the real ones (a user adds a real classifier;
the artificial optimal/pessimal/majority/minority/random respondents lie outside the pool's range by
construction) — the pool is always all the other classifiers.

    .venv/bin/python benchmarks/new_classifier.py [CALIBRATION ...]
    # default: ../shared/data/decodirt-reference, and runs/cc18-offline when that run exists
    .venv/bin/python benchmarks/new_classifier.py --quick [CALIBRATION ...]   # 3 random draws per K (iteration)
    .venv/bin/python benchmarks/new_classifier.py --datasets-out [CALIBRATION] [--splits N]
    # leave datasets out (issue 22 item 4): the plan chooses among the calibration's other datasets,
    # the error is measured on held-out datasets the plan never saw; plan vs random + model vs random only
    .venv/bin/python benchmarks/new_classifier.py --timing [CONFIG]
    # `benchirt run CONFIG` (default: the packaged default) into a fresh folder, then `benchirt add` of a
    # logistic regression: wall times, the training part of `add`, and their ratios to the first run
"""
from __future__ import annotations

import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.placement import fit_score_model, load_calibration, plan_datasets
from benchirt.placement.standing import average_ranks, position, standing
from benchirt.pool import ARTIFICIAL_NAMES, DECODIRT_NAMES

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = [ROOT.parent / "shared" / "data" / "decodirt-reference", ROOT / "runs" / "cc18-offline"]
FRACTIONS = (0.05, 0.10, 0.20)
N_RANDOM = 20


def evaluate(scores: pd.DataFrame, classifier: str, observed: list[str], model, with_intervals: bool) -> dict:
    """Errors of one prediction of ``classifier`` from its scores on ``observed``."""
    truth = scores[classifier]
    measured = truth.loc[observed]
    table = model.predict(measured)
    rest = ~table["observed"].to_numpy()
    scale = model.scale
    true_z = (truth.to_numpy() - model.center) / scale
    pred_z = (table["score"].to_numpy() - model.center) / scale
    pool = model.scores.to_numpy(float)
    true_rank = int(position(*average_ranks(pool, truth.to_numpy()[None]))[0])
    out = {
        "score_err": float(np.mean(np.abs(pred_z - true_z)[rest])),
        "suite_err": float(abs(pred_z.mean() - true_z.mean())),
    }
    place = standing(model, measured, classifier, n_draws=500)
    out["rank_err"] = abs(place["rank"] - true_rank)
    if with_intervals:
        inside = (table["low"] <= truth.to_numpy()) & (truth.to_numpy() <= table["high"])
        out["score_cover"] = float(np.mean(inside.to_numpy()[rest]))
        out["rank_cover"] = float(place["rank_low"] <= true_rank <= place["rank_high"])
    # "random only": the K datasets alone
    positions = model.positions(observed)
    offset = true_z[positions].mean()
    naive_rank = int(position(*average_ranks(pool[positions], truth.to_numpy()[positions][None]))[0])
    out["naive_score_err"] = float(np.mean(np.abs(offset - true_z)[rest]))
    out["naive_suite_err"] = float(abs(offset - true_z.mean()))
    out["naive_rank_err"] = abs(naive_rank - true_rank)
    return out


def floor(scores: pd.DataFrame, classifier: str, model) -> float:
    """Score error when every *other* dataset is measured (leave-one-dataset-out): the model's noise floor."""
    truth = scores[classifier]
    errors = []
    for dataset in scores.index:
        table = model.predict(truth.drop(index=dataset))
        errors.append(abs(table.loc[dataset, "score"] - truth[dataset]) / model.scale[model.positions([dataset])[0]])
    return float(np.mean(errors))


def adaptive_plan(model, truth: pd.Series, k: int) -> list[str]:
    """The plan continued after every result (`benchirt plan --observed` once per dataset run)."""
    chosen: list[str] = []
    while len(chosen) < k:
        chosen.append(plan_datasets(model, len(chosen) + 1, observed=truth.loc[chosen])["dataset"].iloc[-1])
    return chosen


def is_artificial(name: str) -> bool:
    """decodIRT's and benchirt's artificial respondents (optimal, pessimal, majority, minority, random)."""
    return name in ARTIFICIAL_NAMES or DECODIRT_NAMES.get(name) in ARTIFICIAL_NAMES


def loco(path: Path, n_random: int = N_RANDOM) -> pd.DataFrame:
    scores = load_calibration(path).scores
    n = len(scores)
    rng = np.random.default_rng(0)
    rows = []
    for classifier in scores.columns:
        base = {"classifier": classifier, "artificial": is_artificial(str(classifier))}
        model = fit_score_model(scores.drop(columns=classifier))
        previous = fit_score_model(scores.drop(columns=classifier), prior="gaussian")
        rows.append({**base, "kind": "floor", "score_err": floor(scores, classifier, model)})
        rows.append({**base, "kind": "floor, previous model", "score_err": floor(scores, classifier, previous)})
        for fraction in FRACTIONS:
            k = max(2, math.ceil(fraction * n))
            cell = {**base, "fraction": fraction, "K": k}
            plan = plan_datasets(model, k)["dataset"].tolist()
            rows.append({**cell, "kind": "plan", **evaluate(scores, classifier, plan, model, True)})
            rows.append({**cell, "kind": "adaptive plan",
                         **evaluate(scores, classifier, adaptive_plan(model, scores[classifier], k), model, True)})
            ranked = plan_datasets(model, k, target="rank")["dataset"].tolist()
            rows.append({**cell, "kind": "rank plan", **evaluate(scores, classifier, ranked, model, True)})
            old = plan_datasets(previous, k)["dataset"].tolist()
            rows.append({**cell, "kind": "plan, previous model", **evaluate(scores, classifier, old, previous, True)})
            for _ in range(n_random):
                chosen = list(rng.choice(scores.index.to_numpy(), k, replace=False))
                rows.append({**cell, "kind": "random", **evaluate(scores, classifier, chosen, model, False)})
    return pd.DataFrame(rows)


def ratio(group: pd.DataFrame, kind: str, metric: str, n_boot: int = 2000) -> str:
    """Mean error of ``kind`` over mean "random only" error, with a 90 % bootstrap interval over held-out classifiers.

    Each classifier is one unit (its plan error, its mean random-only error over the draws); the
    classifiers are resampled with replacement (paired: both means from the same resample).
    """
    planned = group[group["kind"] == kind].groupby("classifier")[metric].mean()
    naive = group[group["kind"] == "random"].groupby("classifier")[f"naive_{metric}"].mean().loc[planned.index]
    rng = np.random.default_rng(1)
    picks = rng.integers(0, len(planned), size=(n_boot, len(planned)))
    boot = planned.to_numpy()[picks].mean(axis=1) / naive.to_numpy()[picks].mean(axis=1)
    low, high = np.quantile(boot, [0.05, 0.95])
    return f"{planned.mean() / naive.mean():.2f} [{low:.2f}, {high:.2f}]"


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    lines = []
    floors = results[results["kind"].str.startswith("floor")].groupby("kind")["score_err"].mean()
    for (fraction, k), group in results.dropna(subset=["K"]).groupby(["fraction", "K"]):
        rand = group[group["kind"] == "random"]
        line = {"K": f"{int(k)} ({fraction:.0%})"}
        for metric in ("score_err", "suite_err", "rank_err"):
            for kind in ("plan", "adaptive plan", "rank plan", "plan, previous model"):
                line[f"{metric} {kind}"] = group.loc[group["kind"] == kind, metric].mean()
            line[f"{metric} random+model"] = rand[metric].mean()
            line[f"{metric} random only"] = rand[f"naive_{metric}"].mean()
            if metric == "score_err":
                line["score_err all other datasets measured"] = floors["floor"]
                line["score_err all other measured, previous model"] = floors["floor, previous model"]
            for kind in ("plan", "adaptive plan", "rank plan"):
                line[f"{metric} {kind}/random only [90% CI]"] = ratio(group, kind, metric)
        for kind in ("plan", "adaptive plan", "rank plan", "plan, previous model"):
            line[f"score 90% coverage, {kind}"] = group.loc[group["kind"] == kind, "score_cover"].mean()
            line[f"rank 90% coverage, {kind}"] = group.loc[group["kind"] == kind, "rank_cover"].mean()
        lines.append(line)
    return pd.DataFrame(lines).set_index("K")


def main(paths: list[Path], n_random: int = N_RANDOM) -> None:
    for path in paths:
        if not (path.is_dir() or path.is_file()):
            print(f"{path}: not found, skipped (run `benchirt run configs/cc18-offline.yaml` for the cc18-offline table)")
            continue
        start = time.perf_counter()
        results = loco(path, n_random)
        seconds = time.perf_counter() - start
        real = results[~results["artificial"]]
        for label, subset in (("every classifier", results), ("real classifiers only", real)):
            print(f"\n{path.name}: leave-one-classifier-out, {label} left out in turn "
                  f"({subset['classifier'].nunique()} of {results['classifier'].nunique()}; the pool is always all the "
                  f"others), {n_random} random draws per K ({seconds:.1f} s)")
            with pd.option_context("display.width", 200, "display.max_columns", 30,
                                   "display.float_format", "{:.3f}".format):
                print(summarise(subset).T.to_string())


HELD_OUT = 10
DATASETS_OUT_K = (5, 10)


def datasets_out(path: Path, n_splits: int = 12, n_random: int = 10) -> pd.DataFrame:
    """Leave datasets out: is the plan's choice better than random datasets fed to the same model?

    In each of ``n_splits`` random splits, :data:`HELD_OUT` datasets are held out and each real
    classifier in turn is the newcomer. The plan (`benchirt plan --budget K`, suite and rank targets)
    is made on a calibration of the other datasets only (the pool: every other classifier); random
    choices are drawn from the same datasets. Every choice is fed to the same prediction model — the
    pool's scores on all datasets, as `benchirt predict` has them — and the error is that of the
    newcomer's mean standardised score over the held-out datasets, which no plan saw. "random only"
    takes the mean over the K measured datasets as that estimate. "all calibration datasets measured"
    is the floor: the model's error with every dataset the plan could choose measured.
    """
    scores = load_calibration(path).scores
    rng = np.random.default_rng(0)
    real = [c for c in scores.columns if not is_artificial(str(c))]
    rows = []
    for split in range(n_splits):
        order = rng.permutation(len(scores))
        held, calibration = scores.index[order[:HELD_OUT]], scores.index[order[HELD_OUT:]]
        for classifier in real:
            pool = scores.drop(columns=classifier)
            model = fit_score_model(pool)
            planner = fit_score_model(pool.loc[calibration])
            truth = scores[classifier]
            true_z = (truth.to_numpy() - model.center) / model.scale
            held_positions = model.positions(held)
            target = true_z[held_positions].mean()

            def errors(chosen) -> dict:
                predicted = model.predict(truth.loc[chosen])["score"].to_numpy()
                predicted_z = (predicted - model.center) / model.scale
                return {"error": abs(predicted_z[held_positions].mean() - target),
                        "naive_error": abs(true_z[model.positions(chosen)].mean() - target)}

            cell = {"split": split, "classifier": classifier}
            rows.append({**cell, "K": len(calibration), "kind": "all calibration datasets measured",
                         **errors(list(calibration))})
            for k in DATASETS_OUT_K:
                for kind, target_kind in (("plan", "suite"), ("rank plan", "rank")):
                    chosen = plan_datasets(planner, k, target=target_kind)["dataset"].tolist()
                    rows.append({**cell, "K": k, "kind": kind, **errors(chosen)})
                for _ in range(n_random):
                    chosen = list(rng.choice(calibration.to_numpy(), k, replace=False))
                    rows.append({**cell, "K": k, "kind": "random", **errors(chosen)})
    return pd.DataFrame(rows)


def _per_cell(results: pd.DataFrame, kind: str, column: str) -> pd.DataFrame:
    """Mean ``column`` of ``kind`` per (split, classifier): splits × classifiers."""
    return results[results["kind"] == kind].groupby(["split", "classifier"])[column].mean().unstack()


def paired_ratio(numerator: pd.DataFrame, denominator: pd.DataFrame, n_boot: int = 2000) -> tuple[float, float, float]:
    """Ratio of mean errors with a 90 % bootstrap interval, splits and classifiers resampled independently."""
    top, bottom = numerator.to_numpy(), denominator.to_numpy()
    rng = np.random.default_rng(1)
    boot = np.empty(n_boot)
    for b in range(n_boot):
        rows = rng.integers(0, top.shape[0], top.shape[0])
        cols = rng.integers(0, top.shape[1], top.shape[1])
        boot[b] = top[np.ix_(rows, cols)].mean() / bottom[np.ix_(rows, cols)].mean()
    low, high = np.quantile(boot, [0.05, 0.95])
    return float(top.mean() / bottom.mean()), float(low), float(high)


def summarise_datasets_out(results: pd.DataFrame) -> pd.DataFrame:
    """Per K: mean held-out suite error of each choice, and plan ÷ random + model, plan ÷ random only."""
    lines = []
    floor = results.loc[results["kind"] == "all calibration datasets measured", "error"].mean()
    for k in DATASETS_OUT_K:
        group = results[results["K"] == k]
        random_model, random_only = _per_cell(group, "random", "error"), _per_cell(group, "random", "naive_error")
        line = {"K": k, "random + model": random_model.to_numpy().mean(), "random only": random_only.to_numpy().mean()}
        for kind in ("plan", "rank plan"):
            chosen = _per_cell(group, kind, "error")
            line[kind] = chosen.to_numpy().mean()
            for name, baseline in (("random + model", random_model), ("random only", random_only)):
                ratio_, low, high = paired_ratio(chosen, baseline)
                line[f"{kind} ÷ {name} [90% CI]"] = f"{ratio_:.2f} [{low:.2f}, {high:.2f}]"
        ratio_, low, high = paired_ratio(random_model, random_only)
        line["random + model ÷ random only [90% CI]"] = f"{ratio_:.2f} [{low:.2f}, {high:.2f}]"
        line["all calibration datasets measured (floor)"] = floor
        lines.append(line)
    return pd.DataFrame(lines).set_index("K")


def main_datasets_out(path: Path, n_splits: int) -> None:
    start = time.perf_counter()
    results = datasets_out(path, n_splits)
    print(f"\n{path.name}: leave {HELD_OUT} datasets out, {n_splits} random splits, each real classifier the newcomer "
          f"in turn ({results['classifier'].nunique()}); error of its mean standardised score over the held-out "
          f"datasets, in pool SDs ({time.perf_counter() - start:.0f} s)")
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.float_format", "{:.3f}".format):
        print(summarise_datasets_out(results).T.to_string())


def timing(config: str | None) -> None:
    """Wall time of a first run and of `benchirt add` on it, side by side on the same machine."""
    from benchirt.cli import main as cli

    with tempfile.TemporaryDirectory() as folder:
        run_dir = Path(folder) / "run"
        start = time.perf_counter()
        assert cli(["run", *([config] if config else []), "--out", str(run_dir)]) == 0
        first = time.perf_counter() - start
        start = time.perf_counter()
        assert cli(["add", str(run_dir), "--classifier", "logreg=sklearn.linear_model.LogisticRegression",
                    "--params", '{"max_iter": 500}', "--quiet"]) == 0
        added = time.perf_counter() - start
        training = sum(json.loads(p.read_text())["seconds"] for p in (run_dir / "artifacts" / "add").glob("*/_COMPLETE.json"))
        start = time.perf_counter()
        assert cli(["add", str(run_dir), "--classifier", "logreg=sklearn.linear_model.LogisticRegression",
                    "--params", '{"max_iter": 500}', "--quiet"]) == 0
        again = time.perf_counter() - start
        manifest = json.loads((run_dir / "manifest.json").read_text())
    stages = {name: report.get("seconds") for name, report in manifest.get("stages", {}).items()}
    print(f"\nfirst run {first:.1f} s (stages of the last run: {stages})")
    print(f"benchirt add: {added:.1f} s = {added / first:.2f} of the first run; training the classifier on every "
          f"dataset {training:.1f} s = {training / first:.2f}; the rest rebuilds the ratings, tests and report")
    print(f"benchirt add again (everything reused): {again:.1f} s = {again / first:.2f} of the first run")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--datasets-out"]:
        arguments = sys.argv[2:]
        splits = 12
        if "--splits" in arguments:
            where = arguments.index("--splits")
            splits = int(arguments[where + 1])
            del arguments[where:where + 2]
        main_datasets_out(Path(arguments[0]) if arguments else DEFAULTS[0], splits)
    elif sys.argv[1:2] == ["--timing"]:
        timing(sys.argv[2] if len(sys.argv) > 2 else None)
    elif sys.argv[1:2] == ["--quick"]:  # iteration: 3 random draws per K instead of 20
        main([Path(p) for p in sys.argv[2:]] or DEFAULTS, n_random=3)
    else:
        main([Path(p) for p in sys.argv[1:]] or DEFAULTS)

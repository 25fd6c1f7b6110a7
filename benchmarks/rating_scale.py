"""Both verdicts on simulated fields: error rates, power, coverage, and the rate stage's cost by field size.

Fields are drawn from a logistic model of answers: entrant i answers row r of dataset d correctly with
probability expit(b_d + a_i + u_id − e_r), b_d ~ U(0, 1.5) the dataset's ease, e_r ~ N(0, 1) the row's difficulty,
a_i the entrant's ability and u_id ~ N(0, τ²) its dataset-specific advantage; 200–2,000 rows per dataset; dense
(every entrant on every dataset) or sparse (each entrant on a random 30 % of the datasets, at least 2).
A dataset's score is the entrant's accuracy on its rows.

1. **Error rates** (``--fields`` fields per setting, default 100), the verdicts alone
   (:func:`benchirt.rating.stepdown.step_down`, :func:`benchirt.rating.on_suite.on_suite_step_down`):

   - *strict null* (a = 0, τ = 0: every entrant the same on every row): family-wise error of both verdicts;
   - *suite-only differences* (a = 0, τ = 0.3: entrants differ on each dataset, not on average over datasets
     like these): family-wise error of the verdict across datasets (its null holds; the one on this suite is
     then right to separate, and its separations are counted);
   - *planted* (a evenly spaced over [0, 1] logits, τ = 0.1): power (share of pairs separated in the right
     direction), wrong-direction separations, joint coverage of the rank intervals (every entrant's true rank
     inside its interval, true ranks by a_i across datasets and by the field's expected accuracy difference on
     this suite), of the could-be-best set (the true best has rank_low 1) and of the could-be-top set (the true
     top k/4 all have rank_low ≤ k/4; Mogstad, Romano, Shaikh & Wilhelm 2023), with its mean size.

   ``--intervals ENTRANTSxDATASETS …`` measures the same for the verdicts of fields above ``rate.pairwise_up_to``
   (intervals per entrant, forced at any size); with ``--nulls-only`` the verdict across datasets on the two nulls
   alone (its family-wise error and the bootstrap's critical value), which 10⁴ entrants can afford (``--layouts``
   picks dense or sparse fields).
2. **Cost** (``--sizes``): :func:`benchirt.rating.rate` on one planted field per size, in a fresh process each:
   CPU seconds and peak resident memory. A size that does not finish within ``--limit`` seconds is reported as
   such (the rate stage's Bradley–Terry bootstrap and Glicko-2 still grow with entrants²).

3. **Pools** (``--pools``): decodIRT's 50 reference pools (``../shared/data/decodirt-reference``), the 12 real
   classifiers' True-Scores and their answers on each dataset's test rows: pairs separated by each verdict, and
   how many could be the best.
4. **Placement** (``--placement RUN_DIR``, a run of a sparse field such as ``configs/cv-fold0.yaml``): real cells of
   its score table hidden (``--hidden`` per repeat, three repeats, entrants on at least 3 datasets), predicted by
   :mod:`benchirt.rating.placed`, and the share inside their 90 % intervals.

Usage::

    python benchmarks/rating_scale.py                       # error rates at 20 entrants, costs at 100 and 1000
    python benchmarks/rating_scale.py --fields 400 --entrants 50 --sizes 100x8 1000x20 3000x40
    python benchmarks/rating_scale.py --placement runs/cv-fold0 --fields 0 --sizes
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from benchirt.rating.config import RatingConfig
from benchirt.rating.leaderboard import bradley_terry_table
from benchirt.rating.on_suite import on_suite_step_down
from benchirt.rating.on_suite_scale import additive_effects, on_suite_intervals
from benchirt.rating.sparse import min_datasets
from benchirt.rating.stepdown import step_down


def simulate(k: int, n_datasets: int, ability: np.ndarray, tau: float, sparse: bool, seed: int, *, at_least: int = 2):
    """One field: ``rows`` (dataset → entrants × rows answers), ``scores`` (datasets × entrants, NaN absent),
    and the expected accuracy differences on this suite (entrants × entrants) for the true ranks there."""
    rng = np.random.default_rng(seed)
    names = [f"e{i:05d}" for i in range(k)]
    present = np.ones((n_datasets, k), dtype=bool)
    if sparse:
        present = rng.random((n_datasets, k)) < 0.3
        for i in range(k):   # at least two datasets each (``at_least``)
            present[rng.choice(n_datasets, at_least, replace=False), i] = True
    rows, scores, expected = {}, np.full((n_datasets, k), np.nan), np.zeros((n_datasets, k))
    for d in range(n_datasets):
        n_rows = int(rng.integers(200, 2001))
        logits = rng.uniform(0, 1.5) + ability[:, None] + tau * rng.normal(size=(k, 1)) - rng.normal(size=(1, n_rows))
        p = expit(logits)
        answers = (rng.random(p.shape) < p).astype(np.int8)
        taken = present[d]
        rows[f"d{d:02d}"] = pd.DataFrame(answers[taken], index=np.asarray(names)[taken])
        scores[d, taken] = answers[taken].mean(axis=1)
        expected[d] = p.mean(axis=1)
    return names, rows, scores, expected, present


def true_ranks(value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The best and worst rank each entrant's true value allows (ties span their ranks)."""
    higher = (value[None, :] > value[:, None] + 1e-12).sum(axis=1)
    not_lower = (value[None, :] >= value[:, None] - 1e-12).sum(axis=1)
    return 1 + higher, not_lower


def suite_truth(expected: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The true on-suite difference of every pair: the mean over shared datasets of the expected accuracy gap."""
    shared = present.T.astype(float) @ present
    gap = (expected * present).T @ present - present.T @ (expected * present)
    return np.divide(gap, shared, out=np.zeros_like(gap), where=shared > 0)


def error_rates(k: int, n_datasets: int, sparse: bool, n_fields: int, n_tables: int) -> dict:
    """Section 1 for one field shape."""
    out = {"entrants": k, "datasets": n_datasets, "sparse": sparse}
    counts = {"strict_null_across": 0, "strict_null_suite": 0, "suite_only_across": 0}
    suite_only_separated, power, wrong, cover_across, cover_suite, best_in = [], [], 0, 0, 0, 0
    top = max(1, k // 4)                                  # the top places whose contender set is checked
    top_in, top_size = 0, []
    ability = np.linspace(1, 0, k)
    for field in range(n_fields):
        names, rows, scores, _, _ = simulate(k, n_datasets, np.zeros(k), 0.0, sparse, seed=field)
        counts["strict_null_across"] += bool(step_down(scores, n_tables, alpha=0.05, seed=field).better.any())
        counts["strict_null_suite"] += bool(on_suite_step_down(rows, names, n_tables=n_tables, alpha=0.05, seed=field).better.any())
        names, rows, scores, _, _ = simulate(k, n_datasets, np.zeros(k), 0.3, sparse, seed=10_000 + field)
        counts["suite_only_across"] += bool(step_down(scores, n_tables, alpha=0.05, seed=field).better.any())
        suite_only_separated.append(on_suite_step_down(rows, names, n_tables=n_tables, alpha=0.05, seed=field).better.sum())
        names, rows, scores, expected, present = simulate(k, n_datasets, ability, 0.1, sparse, seed=20_000 + field)
        across = step_down(scores, n_tables, alpha=0.05, seed=field)
        suite = on_suite_step_down(rows, names, n_tables=n_tables, alpha=0.05, seed=field)
        truth = ability[:, None] > ability[None, :]
        power.append(across.better[truth].mean())
        wrong += int((across.better & ~truth).any())
        low, high = true_ranks(ability)
        cover_across += bool(((across.rank_low <= low) & (across.rank_high >= high)).all())
        best_in += bool(across.rank_low[0] == 1)
        top_in += bool((across.rank_low[:top] <= top).all())     # entrants 0..top-1 are the true top places
        top_size.append(int((across.rank_low <= top).sum()))
        gap = suite_truth(expected, present)
        suite_wrong = suite.better & (gap <= 0)
        cover_suite += not suite_wrong.any()
    n = n_fields
    out.update({
        "fwer_across_strict_null": counts["strict_null_across"] / n,
        "fwer_suite_strict_null": counts["strict_null_suite"] / n,
        "fwer_across_suite_only": counts["suite_only_across"] / n,
        "suite_only_pairs_separated_on_suite": float(np.mean(suite_only_separated)),
        "power_across": float(np.mean(power)),
        "wrong_direction_across": wrong / n,
        "rank_coverage_across": cover_across / n,
        "no_false_separation_on_suite": cover_suite / n,
        "best_could_be_best": best_in / n,
        "top_places": top,
        "true_top_in_could_be_top": top_in / n,
        "could_be_top_size": float(np.mean(top_size)),
        "se": float(np.sqrt(0.05 * 0.95 / n)),
    })
    return out


COST_CHILD = r"""
import json, resource, sys, time
import numpy as np, pandas as pd
sys.path.insert(0, sys.argv[1])
from rating_scale import simulate
from benchirt.rating import RatingConfig, rate
from benchirt.rating.verdict import measured
k, n_datasets, sparse = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
names, rows, scores, _, _ = simulate(k, n_datasets, np.linspace(1, 0, k), 0.1, sparse, seed=0)
long = pd.DataFrame([(f"d{d:02d}", names[i], scores[d, i]) for d in range(n_datasets) for i in range(k)
                     if not np.isnan(scores[d, i])], columns=["dataset", "classifier", "score"])
start = time.process_time()
result = rate(long, config=RatingConfig(score="score", n_permutations=0, n_bootstrap=200), rows=rows)
print(json.dumps({"cpu_s": time.process_time() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "ranked": len(measured(result.leaderboard)), "pairs": len(result.pairwise),
                  "separated": int(result.pairwise["separated"].sum()),
                  "separated_on_suite": int(result.pairwise["separated_on_suite"].fillna(False).sum())}))
"""


def interval_error_rates(k: int, n_datasets: int, sparse: bool, n_fields: int, n_tables: int) -> dict:
    """Section 1b for one field shape: the verdicts of a field above ``rate.pairwise_up_to`` (simultaneous
    intervals per entrant, :mod:`benchirt.rating.simultaneous`), forced at this size; a sparse field's entrants each
    on at least as many datasets as the rate stage tests (:func:`benchirt.rating.sparse.min_datasets`)."""
    config = RatingConfig(score="score", n_bootstrap=n_tables, pairwise_up_to=2)
    counts = {"strict_null_across": 0, "strict_null_suite": 0, "suite_only_across": 0, "wrong_across": 0,
              "cover_across": 0, "best_in": 0, "top_in": 0, "suite_wrong": 0}
    power, suite_power, suite_only_separated, top_size = [], [], [], []
    top = max(1, k // 4)
    ability = np.linspace(1, 0, k)
    tested = min_datasets(config.alpha)   # the rate stage tests only entrants on this many datasets
    for field in range(n_fields):
        for setting, tau, seed in (("strict_null", 0.0, field), ("suite_only", 0.3, 10_000 + field)):
            names, rows, scores, _, _ = simulate(k, n_datasets, np.zeros(k), tau, sparse, seed=seed, at_least=tested)
            across = _interval_ranks(names, scores, config)
            counts[f"{setting}_across"] += bool((across.rank_low > 1).any())
            suite = on_suite_intervals(rows, names, n_tables=n_tables, seed=field).intervals
            if setting == "strict_null":
                counts["strict_null_suite"] += bool((suite.rank_low > 1).any())
            else:
                suite_only_separated.append(suite.n_separated())
        names, rows, scores, expected, present = simulate(k, n_datasets, ability, 0.1, sparse, seed=20_000 + field,
                                                          at_least=tested)
        across = _interval_ranks(names, scores, config)   # names are in true order: e00000 is the best
        low, high = true_ranks(ability)
        counts["cover_across"] += bool(((across.rank_low <= low) & (across.rank_high >= high)).all())
        counts["best_in"] += bool(across.rank_low[0] == 1)
        counts["top_in"] += bool((across.rank_low[:top] <= top).all())
        top_size.append(int((across.rank_low <= top).sum()))
        power.append(across.n_separated() / (k * (k - 1) / 2))
        counts["wrong_across"] += bool((across.rank_low > low).any() or (across.rank_high < high).any())
        suite = on_suite_intervals(rows, names, n_tables=n_tables, seed=field).intervals
        truth = additive_effects(*_expected_sums(expected, present), present.astype(float))[0]
        first, second = np.nonzero(truth[:, None] <= truth[None, :])
        counts["suite_wrong"] += bool(suite.better(first, second).any())
        suite_power.append(suite.n_separated() / (k * (k - 1) / 2))
    n = n_fields
    return {"entrants": k, "datasets": n_datasets, "sparse": sparse,
            "fwer_across_strict_null": counts["strict_null_across"] / n,
            "fwer_suite_strict_null": counts["strict_null_suite"] / n,
            "fwer_across_suite_only": counts["suite_only_across"] / n,
            "suite_only_pairs_separated_on_suite": float(np.mean(suite_only_separated)),
            "share_separated_across": float(np.mean(power)), "share_separated_on_suite": float(np.mean(suite_power)),
            "rank_coverage_across": counts["cover_across"] / n, "any_wrong_rank_across": counts["wrong_across"] / n,
            "no_false_separation_on_suite": 1 - counts["suite_wrong"] / n,
            "best_could_be_best": counts["best_in"] / n, "top_places": top,
            "true_top_in_could_be_top": counts["top_in"] / n, "could_be_top_size": float(np.mean(top_size)),
            "se": float(np.sqrt(0.05 * 0.95 / n))}


def interval_null_rates(k: int, n_datasets: int, sparse: bool, n_fields: int, n_tables: int) -> dict:
    """Section 1b's nulls alone, across datasets only (``--nulls-only``: no rows' verdict, no planted field), cheap
    enough for 10⁴ entrants: the family-wise error of the intervals across datasets on strict nulls and on
    per-dataset-only differences, and the bootstrap's median critical value."""
    config = RatingConfig(score="score", n_bootstrap=n_tables, pairwise_up_to=2)
    errors = {"strict_null": 0, "suite_only": 0}
    critical = []
    for field in range(n_fields):
        for setting, tau, seed in (("strict_null", 0.0, field), ("suite_only", 0.3, 10_000 + field)):
            names, _, scores, _, _ = simulate(k, n_datasets, np.zeros(k), tau, sparse, seed=seed,
                                              at_least=min_datasets(config.alpha))
            across = _interval_ranks(names, scores, config)
            errors[setting] += bool((across.rank_low > 1).any())
            critical.append(across.critical)
    return {"entrants": k, "datasets": n_datasets, "sparse": sparse,
            "fwer_across_strict_null": errors["strict_null"] / n_fields,
            "fwer_across_suite_only": errors["suite_only"] / n_fields,
            "bootstrap_critical_median": float(np.median(critical)), "se": float(np.sqrt(0.05 * 0.95 / n_fields))}


def _interval_ranks(names: list[str], scores: np.ndarray, config: RatingConfig):
    """The across-datasets decisions of the interval verdict, entrants in the order of ``names``."""
    long = pd.DataFrame([(f"d{d:02d}", names[i], scores[d, i]) for d in range(scores.shape[0])
                         for i in range(scores.shape[1]) if not np.isnan(scores[d, i])],
                        columns=["dataset", "classifier", "score"])
    table, _, decisions, _ = bradley_terry_table(long, config=config)
    order = np.argsort(table["classifier"].to_numpy())       # names sort as their index: e00000, e00001, …
    intervals = decisions.intervals
    if intervals is None:
        raise RuntimeError("the interval verdict did not run (no bootstrap replicates)")
    return replace(intervals, estimate=intervals.estimate[order], low=intervals.low[order], high=intervals.high[order],
                   rank_low=intervals.rank_low[order], rank_high=intervals.rank_high[order])


def _expected_sums(expected: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The additive model's sums of the expected accuracies over the present cells (one replicate)."""
    values = np.where(present, expected, 0.0)
    return values.sum(axis=1)[None], values.sum(axis=0)[None]


def cost(size: str, sparse: bool, limit: float) -> dict:
    """Section 2 for one size "ENTRANTSxDATASETS", in a fresh process."""
    k, n_datasets = (int(part) for part in size.split("x"))
    here = str(Path(__file__).resolve().parent)
    started = time.time()
    try:
        done = subprocess.run([sys.executable, "-c", COST_CHILD, here, str(k), str(n_datasets), "1" if sparse else "0"],
                              capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"size": size, "sparse": sparse, "status": f"not finished within {limit:.0f} s"}
    if done.returncode:
        return {"size": size, "sparse": sparse, "status": "failed: " + done.stderr.strip().splitlines()[-1]}
    return {"size": size, "sparse": sparse, "status": "done", "wall_s": round(time.time() - started, 1),
            **json.loads(done.stdout.strip().splitlines()[-1])}


def placement_coverage(run_dir: str, hidden: int) -> pd.DataFrame:
    """Section 3: real cells hidden and predicted, three repeats."""
    from benchirt.pipeline.run import load_run
    from benchirt.rating.placed import PLACED_LEVEL, cell_intervals, standardised_matrix
    from benchirt.rating.run_scores import run_scores

    run = load_run(run_dir)
    scores = run_scores(run.per_dataset["irt"], run.per_dataset["respond"], "true_score")
    z = standardised_matrix(scores)
    observed = np.argwhere(z.notna().to_numpy())
    eligible = observed[z.notna().sum(axis=1).to_numpy()[observed[:, 0]] >= 3]
    rows = []
    for repeat in range(3):
        rng = np.random.default_rng(repeat)
        hide = eligible[rng.choice(len(eligible), min(hidden, len(eligible)), replace=False)]
        values = z.to_numpy().copy()
        truth = values[hide[:, 0], hide[:, 1]].copy()
        values[hide[:, 0], hide[:, 1]] = np.nan
        start = time.process_time()
        low, high = cell_intervals(pd.DataFrame(values, index=z.index, columns=z.columns), seed=repeat)
        inside = (low[hide[:, 0], hide[:, 1]] <= truth) & (truth <= high[hide[:, 0], hide[:, 1]])
        rows.append({"repeat": repeat, "hidden_cells": len(hide), "nominal": PLACED_LEVEL, "coverage": inside.mean(),
                     "mean_width_sd": float(np.mean(high - low, where=np.isnan(values) & z.notna().to_numpy())),
                     "cpu_s": round(time.process_time() - start, 1)})
    return pd.DataFrame(rows)


def pools_verdicts(n_tables: int) -> dict:
    """Section 3: both verdicts on the 12 real classifiers of decodIRT's 50 reference pools."""
    import os

    shared = Path(os.environ.get("BENCHIRT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    rows, scores = {}, {}
    for folder in sorted((shared / "decodirt-reference").iterdir()):
        names = pd.read_csv(folder / "test_accuracy.csv").iloc[:, 0].astype(str).tolist()
        rows[folder.name] = pd.read_csv(folder / "responses_reported.csv").set_axis(names, axis=0).iloc[:12]
        scores[folder.name] = pd.read_csv(folder / "true_scores.csv").set_index("Clf")["Score"]
    table = pd.DataFrame(scores).T          # datasets × classifiers
    names = [name for name in rows[next(iter(rows))].index if name in table.columns]   # the 12 real ones
    across = step_down(table[names].to_numpy(float), n_tables, alpha=0.05, seed=0)
    suite = on_suite_step_down(rows, names, n_tables=n_tables, alpha=0.05, seed=0)
    return {"datasets": len(table), "classifiers": len(names), "pairs": len(names) * (len(names) - 1) // 2,
            "separated_across": int(across.better.sum()), "separated_on_suite": int(suite.better.sum()),
            "could_be_best_across": int((across.rank_low == 1).sum()),
            "could_be_best_on_suite": int((suite.rank_low == 1).sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fields", type=int, default=100)
    parser.add_argument("--entrants", type=int, default=20)
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--sizes", nargs="*", default=["100x8", "1000x8", "1000x20"])
    parser.add_argument("--limit", type=float, default=1200)
    parser.add_argument("--placement", metavar="RUN_DIR")
    parser.add_argument("--hidden", type=int, default=300)
    parser.add_argument("--pools", action="store_true")
    parser.add_argument("--intervals", nargs="*", metavar="ENTRANTSxDATASETS", default=[],
                        help="error rates of the verdicts of fields above rate.pairwise_up_to at these shapes")
    parser.add_argument("--layouts", nargs="+", choices=("dense", "sparse"), default=["dense", "sparse"],
                        help="which fields the cost section (and --nulls-only) draws")
    parser.add_argument("--nulls-only", action="store_true",
                        help="with --intervals: the verdict across datasets on the two nulls only (10⁴ entrants)")
    args = parser.parse_args()
    if args.pools:
        print("3. decodIRT's 50 reference pools, the 12 real classifiers (True-Scores; answers on the test rows):")
        print(pools_verdicts(args.tables))
    if args.placement:
        print(f"3. placement: hidden real cells of {args.placement} predicted, 90 % intervals")
        table = placement_coverage(args.placement, args.hidden)
        print(table.round(3).to_string(index=False))
        print(f"pooled coverage {table['coverage'].mean():.3f} over {table['hidden_cells'].sum()} cells")
    if args.intervals:
        print(f"1b. the large-field verdicts (simultaneous intervals per entrant, forced): {args.fields} fields per "
              f"setting, {args.tables} bootstrap replicates, alpha 0.05")
        measure = interval_null_rates if args.nulls_only else interval_error_rates
        layouts = [layout == "sparse" for layout in args.layouts] if args.nulls_only else [False, True]
        rates = [measure(int(size.split("x")[0]), int(size.split("x")[1]), sparse, args.fields, args.tables)
                 for size in args.intervals for sparse in layouts]
        print(pd.DataFrame(rates).round(3).T.to_string())
        return
    if not args.fields and not args.sizes:
        return
    if args.fields:
        print(f"1. error rates, power and coverage: {args.fields} fields per setting, {args.entrants} entrants, "
              f"{args.tables} resampled tables, alpha 0.05")
        rates = [error_rates(args.entrants, n_datasets, sparse, args.fields, args.tables)
                 for n_datasets in (8, 20) for sparse in (False, True)]
        print(pd.DataFrame(rates).round(3).T.to_string())
    print("\n2. the rate stage (Bradley–Terry with 200 bootstrap replicates, both verdicts, agreement checks on "
          "the 50 best): CPU and peak memory")
    print(pd.DataFrame([cost(size, layout == "sparse", args.limit) for size in args.sizes
                        for layout in args.layouts]).to_string())
    print(f"\n(max RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()

"""Which datasets keep the verdict per CPU-hour: the budget rule against every baseline, on classifiers it never saw.

On decodIRT's 50 reference pools (``../shared/data/decodirt-reference``: the 12 real classifiers' answers on each
dataset's test rows; a classifier's score on a dataset is its accuracy there) with each dataset's training cost from
the packaged shape-based cost model (``benchirt/data/cc18_shapes.csv``, decodIRT's protocol), every split draws
``--calibration`` classifiers to choose with and holds the others out. At 25, 50 and 75 % of the suite's CPU each
rule chooses from the calibration classifiers alone:

* ``budget``: :func:`benchirt.subsets.budget.budget_subset` (the default rule);
* ``decodirt``: decodIRT's combined ranking (most discriminating and most difficult, interleaved, from decodIRT's
  own item parameters) filled to the budget;
* the baselines of :mod:`benchirt.subsets.baselines` (cheapest-first, top-10 spread, farthest-first, most items)
  and ``--random`` random subsets of equal cost and of the budget rule's size.

Each subset is judged on the held-out classifiers against the full suite's step-down verdict on them: the share
of its separated pairs kept (separated in the same direction), pairs reversed, Kendall τ of the mean ranks and
the mean overlap (Jaccard) of the joint rank intervals. Printed: the mean over splits with a 95 % bootstrap interval
over splits, and for the budget rule its difference from random subsets of equal cost with a one-sided sign-flip
p-value over splits.

Usage::

    python benchmarks/subset_rules.py                 # 30 splits, 100 random draws each
    python benchmarks/subset_rules.py --splits 10 --random 50
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.placement.calibration import calibration_costs
from benchirt.rating.stepdown import step_down
from benchirt.subsets.baselines import baseline_orders, fill_in_order, random_fills
from benchirt.subsets.budget import budget_subset
from benchirt.subsets.held_out import judge

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BENCHIRT_SHARED_DATA", ROOT.parent / "shared" / "data"))
REFERENCE = SHARED / "decodirt-reference"
N_REAL = 12
FRACTIONS = (0.25, 0.5, 0.75)
N_TABLES = 1000


def load() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dataset names, accuracies (datasets × 12 classifiers), costs (CPU-s), numbers of items and decodIRT's
    combined order."""
    names, accuracy, items, summaries = [], [], [], []
    for folder in sorted(p for p in REFERENCE.iterdir() if (p / "responses_reported.csv").exists()):
        answers = pd.read_csv(folder / "responses_reported.csv").iloc[:N_REAL]
        parameters = pd.read_csv(folder / "ltm_item_params.csv", index_col=0)
        names.append(folder.name)
        accuracy.append(answers.to_numpy(float).mean(axis=1))
        items.append(answers.shape[1])
        summaries.append(((parameters["Discriminacao"] > 0.75).mean(), (parameters["Dificuldade"] > 1.0).mean()))
    summaries = np.asarray(summaries)
    cost, _ = calibration_costs(REFERENCE, names)   # the packaged cost model on CC18's recorded shapes
    return names, np.asarray(accuracy), cost.to_numpy(float), np.asarray(items), decodirt_order(summaries)


def decodirt_order(summaries: np.ndarray) -> np.ndarray:
    """decodIRT's combined ranking grown one dataset at a time: most discriminating and most difficult, taking
    turns, each skipping datasets already taken (``summaries``: shares of discriminating and difficult items)."""
    rankings = [list(np.argsort(-summaries[:, column], kind="stable")) for column in (0, 1)]
    order: list[int] = []
    while len(order) < len(summaries):
        for ranking in rankings:
            nxt = next((d for d in ranking if d not in order), None)
            if nxt is not None and len(order) < len(summaries):
                order.append(int(nxt))
    return np.asarray(order)


def judged(scores: np.ndarray, chosen: np.ndarray, full) -> dict[str, float]:
    """:func:`benchirt.subsets.held_out.judge` of the datasets ``chosen``, with their number."""
    return {**judge(scores, chosen, full, N_TABLES, 0.05, 0), "n_datasets": float(len(chosen))}


def one_split(data, calibration: np.ndarray, held_out: np.ndarray, n_random: int, seed: int) -> list[dict]:
    names, accuracy, cost, items, decodirt = data
    full = step_down(accuracy[:, held_out], N_TABLES, 0.05, 0)
    rows = []
    orders = {**baseline_orders(accuracy[:, calibration], cost, items), "decodirt": decodirt}
    for fraction in FRACTIONS:
        budget = fraction * cost.sum()
        chosen = budget_subset(accuracy[:, calibration], cost, budget, n_tables=N_TABLES, seed=seed).chosen
        subsets = {"budget": chosen, **{name: fill_in_order(order, cost, budget) for name, order in orders.items()}}
        for rule, members in subsets.items():
            rows.append({"fraction": fraction, "rule": rule, "cpu_share": cost[members].sum() / cost.sum(),
                         **judged(accuracy[:, held_out], members, full)})
        for rule, draws in (("random_equal_cost", random_fills(cost, budget, n_random, seed=seed)),
                            ("random_equal_size", [np.sort(np.random.default_rng(seed + i).choice(
                                len(cost), len(chosen), replace=False)) for i in range(n_random)])):
            table = pd.DataFrame([judged(accuracy[:, held_out], members, full) for members in draws])
            rows.append({"fraction": fraction, "rule": rule,
                         "cpu_share": float(np.mean([cost[m].sum() / cost.sum() for m in draws])),
                         **table.mean().to_dict()})
    return rows


def interval(values: np.ndarray, n_bootstrap: int = 2000, seed: int = 0) -> tuple[float, float]:
    values = values[~np.isnan(values)]
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), (n_bootstrap, len(values)))].mean(axis=1)
    return tuple(np.quantile(means, [0.025, 0.975]))


def sign_flip_p(differences: np.ndarray, n_tables: int = 20000, seed: int = 0) -> float:
    """One-sided p-value of mean(differences) > 0 over random sign flips."""
    differences = differences[~np.isnan(differences)]
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], (n_tables, len(differences)))
    flipped = (signs * differences).mean(axis=1)
    return float((1 + (flipped >= differences.mean() - 1e-12).sum()) / (n_tables + 1))


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (fraction, rule), group in table.groupby(["fraction", "rule"], sort=False):
        row = {"cpu": f"{fraction:.0%}", "rule": rule, "cpu_share": group["cpu_share"].mean(),
               "n_datasets": group["n_datasets"].mean()}
        for measure in ("kept", "reversed", "tau", "overlap"):
            low, high = interval(group[measure].to_numpy(float))
            row[measure] = f"{group[measure].mean():.3f} [{low:.3f}, {high:.3f}]"
        rows.append(row)
    return pd.DataFrame(rows)


def against_random(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for fraction, group in table.groupby("fraction"):
        pivot = group.pivot(index="split", columns="rule", values="kept")
        for rival in ("random_equal_cost", "cheapest_first"):
            difference = (pivot["budget"] - pivot[rival]).to_numpy(float)
            low, high = interval(difference)
            rows.append({"cpu": f"{fraction:.0%}", "budget_minus": rival, "mean": np.nanmean(difference),
                         "ci": f"[{low:.3f}, {high:.3f}]", "p_one_sided": sign_flip_p(difference)})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=30)
    parser.add_argument("--calibration", type=int, default=6)
    parser.add_argument("--random", type=int, default=100)
    args = parser.parse_args()
    if not REFERENCE.is_dir():
        sys.exit(f"offline data not found at {REFERENCE}")
    data = load()
    rng = np.random.default_rng(0)
    table = []
    for split in range(args.splits):
        order = rng.permutation(N_REAL)
        rows = one_split(data, order[:args.calibration], order[args.calibration:], args.random, split)
        table += [{**row, "split": split} for row in rows]
        print(f"split {split + 1}/{args.splits}", file=sys.stderr, flush=True)
    table = pd.DataFrame(table)
    print(f"{len(data[0])} datasets, {N_REAL} classifiers: {args.calibration} choose, {N_REAL - args.calibration} "
          f"judge; {args.splits} splits, {args.random} random draws per budget")
    print(summarise(table).to_string(index=False))
    print()
    print(against_random(table).to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()

"""Does `benchirt plan` by cost pin a newcomer down for less CPU than random or cheapest-first datasets?

On decodIRT's 50 reference pools (``../shared/data/decodirt-reference``: True-Scores of 12 real and 7 artificial
classifiers; each dataset's cost from the packaged shape-based cost model on OpenML-CC18's recorded shapes, as
`benchirt plan` reads them), each real classifier in turn is the newcomer and the model is fitted on all the others.
The newcomer is run one dataset at a time, in four orders, each through the same model
(:meth:`benchirt.placement.model.ScoreModel.predict`):

* ``plan by cost``: `benchirt plan --observed` after every result (the default, ``--per cpu``);
* ``plan by count``: the same, ``--per dataset``;
* ``cheapest first``: ascending cost;
* ``random``: ``--random`` random orders.

After each dataset: the cumulative CPU seconds and the suite error, |predicted − true| mean standardised score over
the 50 datasets (what the plan pins down). Printed: the mean error and CPU per step for each order, and the goal's
reading: the CPU at which each order's mean error first reaches the error of 5 random datasets, as a share of those
5 random datasets' mean CPU.

The extrapolation case (``--extrapolation``): the ``--top`` best real classifiers are held out together, the model is
fitted on the others without the artificial respondents (so the newcomers lie beyond the pool), and each newcomer
is run on the plan's first ``--k`` datasets: coverage of the 90 % score intervals on the datasets not run, and how
many newcomers :func:`benchirt.placement.predict.beyond_pool_notes` warns about.

    python benchmarks/plan_by_cost.py [--random 20] [--steps 10]
    python benchmarks/plan_by_cost.py --extrapolation [--top 3] [--k 5]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.placement import fit_score_model, load_calibration, plan_datasets
from benchirt.placement.predict import beyond_pool_notes
from benchirt.rating.scores import artificial_roles

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BENCHIRT_SHARED_DATA", ROOT.parent / "shared" / "data"))
REFERENCE = SHARED / "decodirt-reference"
BASELINE_K = 5


def real_classifiers(columns) -> list:
    """The calibration's real classifiers (not decodIRT's or benchirt's artificial references)."""
    artificial = artificial_roles(columns)
    return [c for c in columns if str(c) not in artificial]


def suite_error(model, truth: pd.Series, observed: list[str]) -> float:
    """|predicted − true| mean standardised score over the suite, from the scores on ``observed``."""
    predicted = model.predict(truth.loc[observed])["score"].to_numpy()
    return float(abs(((predicted - truth.to_numpy()) / model.scale).mean()))


def adaptive(model, truth: pd.Series, steps: int, costs: pd.Series | None) -> list[str]:
    """The plan continued after every result, one dataset at a time."""
    chosen: list[str] = []
    while len(chosen) < steps:
        plan = plan_datasets(model, len(chosen) + 1, observed=truth.loc[chosen], costs=costs)
        chosen.append(plan["dataset"].iloc[-1])
    return chosen


def curves(steps: int, n_random: int) -> pd.DataFrame:
    calibration = load_calibration(REFERENCE)
    scores, costs = calibration.scores, calibration.costs
    rng = np.random.default_rng(0)
    rows = []
    for newcomer in real_classifiers(scores.columns):
        model = fit_score_model(scores.drop(columns=newcomer))
        truth = scores[newcomer]
        orders = {"plan by cost": adaptive(model, truth, steps, costs),
                  "plan by count": adaptive(model, truth, steps, None),
                  "cheapest first": list(costs.sort_values(kind="stable").index[:steps])}
        orders.update({f"random {i}": list(rng.permutation(scores.index.to_numpy())[:steps])
                       for i in range(n_random)})
        for name, order in orders.items():
            for k in range(1, steps + 1):
                rows.append({"newcomer": newcomer, "order": name.split(" ")[0] if name.startswith("random") else name,
                             "k": k, "cpu": float(costs.loc[order[:k]].sum()),
                             "error": suite_error(model, truth, order[:k])})
        print(f"{newcomer} done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def summarise(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    mean = table.groupby(["order", "k"])[["cpu", "error"]].mean().reset_index()
    goal = mean[(mean["order"] == "random") & (mean["k"] == BASELINE_K)].iloc[0]
    reach = []
    for order, group in mean.groupby("order"):
        hit = group[group["error"] <= goal["error"]]
        reach.append({"order": order, "first_k": int(hit["k"].iloc[0]) if len(hit) else np.nan,
                      "cpu_s": float(hit["cpu"].iloc[0]) if len(hit) else np.nan,
                      "share_of_random_5_cpu": float(hit["cpu"].iloc[0] / goal["cpu"]) if len(hit) else np.nan})
    return mean, pd.DataFrame(reach).assign(random_5_error=goal["error"], random_5_cpu=goal["cpu"])


def extrapolation(top: int, k: int) -> pd.DataFrame:
    calibration = load_calibration(REFERENCE)
    scores, costs = calibration.scores, calibration.costs
    real = real_classifiers(scores.columns)
    best = scores[real].mean().sort_values(ascending=False).index[:top].tolist()
    model = fit_score_model(scores[[c for c in real if c not in best]])
    rows = []
    for newcomer in best:
        truth = scores[newcomer]
        observed = plan_datasets(model, k, costs=costs)["dataset"].tolist()
        table = model.predict(truth.loc[observed])
        rest = ~table["observed"].to_numpy()
        inside = ((table["low"] <= truth.to_numpy()) & (truth.to_numpy() <= table["high"])).to_numpy()[rest]
        measured = pd.DataFrame({"classifier": newcomer, "dataset": observed, "score": truth.loc[observed].to_numpy()})
        rows.append({"newcomer": newcomer, "coverage": float(inside.mean()), "cells": int(rest.sum()),
                     "warned": bool(beyond_pool_notes(model, measured))})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=20)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--extrapolation", action="store_true")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    if not REFERENCE.is_dir():
        sys.exit(f"offline data not found at {REFERENCE}")
    if args.extrapolation:
        table = extrapolation(args.top, args.k)
        print(table.to_string(index=False))
        print(f"pooled coverage of the 90 % intervals: {np.average(table['coverage'], weights=table['cells']):.3f} "
              f"over {table['cells'].sum()} cells; warned {int(table['warned'].sum())} of {len(table)}")
        return
    mean, reach = summarise(curves(args.steps, args.random))
    with pd.option_context("display.width", 160):
        print(mean.pivot(index="k", columns="order", values="error").round(4).to_string())
        print()
        print(mean.pivot(index="k", columns="order", values="cpu").round(0).to_string())
        print()
        print(reach.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()

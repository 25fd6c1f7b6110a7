"""Order robustness of decodIRT's Glicko-2 ranking, and the vectorised engine vs the glicko2 package.

On decodIRT's own True-Scores (``../shared/data/decodirt-reference/*/true_scores.csv``, 50 CC18
datasets) this plays decodIRT's tournament (Cardoso et al. 2021 §4.7) under N random dataset orders twice:

- baseline: the ``glicko2`` package, one ``update_player`` call per classifier and period, as
  decodIRT does (:func:`benchirt.rating.glicko_tournament` per order);
- benchirt: :func:`benchirt.rating.permutation_analysis` (all orders at once, numpy).

It prints the time of both, their ratio and largest disagreement, then the order-robustness
table: per classifier the sorted-order rating/RD (what Cardoso et al. 2021 Table 1 reports) beside the
rating's mean/sd and the rank range over the random orders.

Both engines run decodIRT's variant (``glicko: decodirt``), the one the package computes; the
order table uses the same variant, as benchmarks/results/rating-verdict.md reports it.

Usage::

    .venv/bin/python benchmarks/rating_orders.py                 # 200 orders, seed 0
    .venv/bin/python benchmarks/rating_orders.py --orders 50 --seed 1

Goal: the order analysis in well under a second; agreement with the package to its own
volatility tolerance (about 1e-4 rating points, see benchirt/rating/batch.py).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.rating import RatingConfig, glicko_tournament, permutation_analysis, read_scores

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("BENCHIRT_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "decodirt-reference"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not DATA.is_dir():
        raise SystemExit(f"reference data not found at {DATA} (set BENCHIRT_SHARED_DATA)")
    scores = read_scores(DATA)
    config = RatingConfig(glicko="decodirt")

    start = time.perf_counter()
    analysis = permutation_analysis(scores, n_permutations=args.orders, seed=args.seed, config=config)
    vectorised = time.perf_counter() - start

    start = time.perf_counter()
    package = []
    for row in analysis.orders:
        table = glicko_tournament(scores, order=[analysis.datasets[i] for i in row], config=config).table
        package.append(table.set_index("classifier").loc[analysis.ratings.columns, "rating"].to_numpy())
    baseline = time.perf_counter() - start
    gap = float(np.abs(np.array(package) - analysis.ratings.to_numpy()).max())

    n_datasets, n_classifiers = len(analysis.datasets), analysis.ratings.shape[1]
    print(f"{n_datasets} datasets x {n_classifiers} classifiers x {args.orders} orders (seed {args.seed})")
    print(f"  glicko2 package, one tournament per order : {baseline:8.3f} s")
    print(f"  benchirt vectorised engine               : {vectorised:8.3f} s")
    print(f"  speed-up {baseline / vectorised:.0f}x, largest rating difference {gap:.1e}")

    single = glicko_tournament(scores, config=config).table.set_index("classifier")
    summary = analysis.summary.set_index("classifier")
    table = pd.DataFrame(
        {
            "sorted_rank": single["rank"],
            "sorted_rating": single["rating"].round(1),
            "sorted_rd": single["rd"].round(1),
            "orders_mean": summary["rating_mean"].round(1),
            "orders_sd": summary["rating_sd"].round(1),
            "sd/rd": summary["sd_over_rd"].round(2),
            "rank_range": summary["rank_min"].astype(str) + "-" + summary["rank_max"].astype(str),
            "p_first": summary["p_first"].round(3),
        }
    ).loc[single.index]
    print()
    print(table.to_string())


if __name__ == "__main__":
    main()

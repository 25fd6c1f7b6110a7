"""Speed of the subsets' fidelity-vs-chance comparison on the offline mirror's decodIRT results.

Runs the random-subset part of :func:`benchirt.subsets.evaluate_subsets` (3 cuts × N random
subsets, played in one batch per size by :func:`benchirt.rating.batch.play_orders`) and, as the
baseline, the same random subsets rated one by one with :func:`benchirt.rating.glicko_tournament`
(the ``glicko2`` package); prints both times, their ratio and the largest difference in Kendall τ.

    .venv/bin/python benchmarks/subsets_fidelity.py [N_RANDOM]     # default 200
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.rating import glicko_tournament
from benchirt.subsets import SubsetConfig, build_subsets, evaluate_subsets, fidelity
from benchirt.subsets.command import default_roles

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "decodirt-reference"


def load():
    summaries, scores = [], []
    for folder in sorted(p for p in REFERENCE.iterdir() if p.is_dir()):
        items = pd.read_csv(folder / "ltm_item_params.csv", index_col=0)
        summaries.append({"dataset": folder.name, "pct_discrimination_gt": 100 * (items["Discriminacao"] > 0.75).mean(),
                          "pct_difficulty_gt": 100 * (items["Dificuldade"] > 1.0).mean()})
        table = pd.read_csv(folder / "true_scores.csv")
        scores.append(pd.DataFrame({"dataset": folder.name, "classifier": table["Clf"], "score": table["Score"]}))
    return pd.DataFrame(summaries), pd.concat(scores, ignore_index=True)


def main(n_random: int) -> None:
    if not REFERENCE.is_dir():
        sys.exit(f"offline data not found at {REFERENCE}")
    summaries, scores = load()
    roles = default_roles(scores["classifier"].unique())
    subsets = build_subsets(summaries)
    config = SubsetConfig(n_random=n_random, n_permutations=0)

    start = time.perf_counter()
    evaluation = evaluate_subsets(subsets, scores, summaries, roles=roles, config=config)
    batched = time.perf_counter() - start

    datasets = sorted(scores["dataset"].unique())
    real = roles.index[roles == "real"]
    reference = glicko_tournament(scores).table.set_index("classifier")["rating"].loc[real]
    start = time.perf_counter()
    taus = []
    for size in sorted({len(v) for v in subsets.values()}):
        for row in fidelity.random_subsets(len(datasets), size, n_random, seed=config.seed):
            chosen = [datasets[i] for i in row]
            table = glicko_tournament(scores[scores["dataset"].isin(chosen)]).table.set_index("classifier")
            taus.append(fidelity.kendall_tau(reference, table["rating"].loc[real]))
    one_by_one = time.perf_counter() - start

    difference = np.abs(np.array(taus) - evaluation.random_draws["kendall_tau"].to_numpy()).max()
    print(f"{len(taus)} random subsets of {len(datasets)} datasets, {scores['classifier'].nunique()} classifiers")
    print(f"evaluate_subsets (batched engine, whole evaluation): {batched:7.2f} s")
    print(f"glicko_tournament one by one (random subsets only):  {one_by_one:7.2f} s")
    print(f"ratio one-by-one / batched: {one_by_one / batched:5.1f}×   max |Δτ| = {difference:.2e}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)

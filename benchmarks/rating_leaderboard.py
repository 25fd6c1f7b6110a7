"""The Bradley–Terry leaderboard: bootstrap speed, interval coverage, and Glickman's vs the package's Glicko-2.

1. Speed. 1000 bootstrap replicates over 60 datasets × 19 classifiers (Bradley–Terry scores θ + Gumbel
   noise, θ evenly spaced), fitted two ways side by side:

   - baseline: one ``choix.opt_pairwise`` MAP fit per replicate (the same prior), on a share of the
     replicates (``--baseline-replicates``), its time scaled to all of them;
   - benchirt: :func:`benchirt.rating.bradley_terry.fit_bradley_terry` on all replicates at once.

   It prints both times, the ratio and the largest rating difference on the shared replicates.
   Goal: the 1000 replicates in under 5 s.
2. The whole leaderboard (:func:`benchirt.rating.leaderboard`: fit, 1000 replicates, Glicko-2,
   pairwise Wilcoxon and Bayesian tests) on decodIRT's 50 reference folders: its time and the table.
3. Glicko-2 on the reference folders, Glickman's algorithm (``glicko: glickman``, the default) beside
   the ``glicko2`` package's variant (``decodirt``): ratings, volatilities, and the ranks that differ.
4. With ``--coverage``: coverage of the 95 % rating intervals on simulated Bradley–Terry data
   (15 classifiers × 40 datasets, 200 simulations × 1000 replicates; about 3 minutes).

Usage::

    .venv/bin/python benchmarks/rating_leaderboard.py
    .venv/bin/python benchmarks/rating_leaderboard.py --coverage
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import choix
import numpy as np
import pandas as pd

from benchirt.rating import RatingConfig, glicko_tournament, leaderboard, read_scores
from benchirt.rating.bradley_terry import (
    PRIOR_SD, RATING_PER_THETA, bootstrap_counts, fit_bradley_terry, pairwise_wins,
)
from benchirt.rating.glicko import match_outcomes

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("BENCHIRT_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "decodirt-reference"


def simulated_wins(n_datasets: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per-dataset win matrices of Bradley–Terry data (scores θ + Gumbel noise) and the centred θ."""
    strength = np.linspace(-1.5, 1.5, k)
    scores = strength[None, :] + rng.gumbel(size=(n_datasets, k))
    return pairwise_wins(match_outcomes(scores)), strength - strength.mean()


def speed(n_replicates: int, n_baseline: int, seed: int) -> None:
    wins, _ = simulated_wins(60, 19, np.random.default_rng(seed))
    counts = bootstrap_counts(60, n_replicates, seed)
    start = time.perf_counter()
    replicate_wins = np.einsum("bd,dij->bij", counts, wins)
    fit = fit_bradley_terry(replicate_wins)
    stacked = time.perf_counter() - start
    start = time.perf_counter()
    baseline_theta = []
    for b in range(n_baseline):
        data = [(i, j) for i in range(19) for j in range(19) for _ in range(int(replicate_wins[b, i, j]))]
        theta = choix.opt_pairwise(19, data, alpha=1 / (2 * PRIOR_SD**2))
        baseline_theta.append(theta - theta.mean())
    baseline = (time.perf_counter() - start) * n_replicates / n_baseline
    gap = np.abs(np.array(baseline_theta) - fit.theta[:n_baseline]).max() * RATING_PER_THETA
    print(f"1. {n_replicates} bootstrap replicates over 60 datasets x 19 classifiers (seed {seed})")
    print(f"   choix.opt_pairwise, one fit per replicate ({n_baseline} timed, scaled): {baseline:8.2f} s")
    print(f"   benchirt, all replicates stacked (resampling included)            : {stacked:8.2f} s")
    print(f"   ratio {baseline / stacked:.1f}x; {int(fit.converged.sum())}/{n_replicates} converged "
          f"(largest remaining step {fit.max_step.max():.1e} points); "
          f"largest difference to choix {gap:.1e} rating points (choix's own tolerance)")


def reference_leaderboard(scores: pd.DataFrame) -> None:
    start = time.perf_counter()
    board = leaderboard(scores, RatingConfig(n_bootstrap=1000))
    seconds = time.perf_counter() - start
    print(f"\n2. Leaderboard of decodIRT's 50 reference folders (True-Scores), 1000 replicates: {seconds:.2f} s")
    shown = board.table[["rank", "classifier", "bt_rating", "bt_low", "bt_high", "rank_low", "rank_high", "tier",
                         "glicko_rating", "mean_rank"]]
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    print(board.verdict())


def glicko_variants(scores: pd.DataFrame) -> None:
    glickman = glicko_tournament(scores).table.set_index("classifier")
    package = glicko_tournament(scores, config=RatingConfig(glicko="decodirt")).table.set_index("classifier")
    package = package.loc[glickman.index]
    table = pd.DataFrame({
        "rank_glickman": glickman["rank"], "rank_decodirt": package["rank"],
        "rating_glickman": glickman["rating"].round(1), "rating_decodirt": package["rating"].round(1),
        "vol_glickman": glickman["volatility"].round(4), "vol_decodirt": package["volatility"].round(4),
    })
    moved = table[table["rank_glickman"] != table["rank_decodirt"]]
    print("\n3. Glicko-2 on the reference folders (sorted order): Glickman's algorithm vs the glicko2 package")
    print(table.to_string())
    print(f"   largest rating difference {np.abs(glickman['rating'] - package['rating']).max():.1f} points; "
          f"{len(moved)} of {len(table)} ranks differ: {', '.join(moved.index) or 'none'}")


def coverage(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_simulations, n_replicates, k = 200, 1000, 15
    counts = bootstrap_counts(40, n_replicates, seed)
    covered = np.zeros((n_simulations, k), dtype=bool)
    for s in range(n_simulations):
        wins, truth = simulated_wins(40, k, rng)
        rating = fit_bradley_terry(np.einsum("bd,dij->bij", counts, wins)).rating
        low, high = np.quantile(rating, [0.025, 0.975], axis=0)
        truth = 1500 + RATING_PER_THETA * truth
        covered[s] = (low <= truth) & (truth <= high)
    print(f"\n4. Coverage of the 95 % intervals, 15 classifiers x 40 datasets, {n_simulations} simulations x "
          f"{n_replicates} replicates: {covered.mean():.3f} over all intervals; per classifier "
          f"{covered.mean(axis=0).min():.3f}-{covered.mean(axis=0).max():.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--baseline-replicates", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--coverage", action="store_true", help="also run the coverage simulation (~3 min)")
    args = parser.parse_args()
    speed(args.replicates, args.baseline_replicates, args.seed)
    if DATA.is_dir():
        scores = read_scores(DATA)
        reference_leaderboard(scores)
        glicko_variants(scores)
    else:
        print(f"\nreference data not found at {DATA} (set BENCHIRT_SHARED_DATA): parts 2 and 3 skipped")
    if args.coverage:
        coverage(args.seed)


if __name__ == "__main__":
    main()

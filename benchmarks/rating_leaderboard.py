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
5. With ``--tiers``: error rates of the separation test and its tiers (:mod:`benchirt.rating.separation`) on
   simulated leaderboards of 19 classifiers × 60 datasets (scores θ + Gumbel noise), ``--tables`` tables
   (300) with ``--tier-replicates`` (200) bootstrap replicates and as many shuffled tables each, through
   :func:`benchirt.rating.leaderboard.bradley_terry_table` (the leaderboard's own code):

   - all 19 equal: how often any pair is separated (the family-wise error; also for the range test alone,
     every distance c), how often equal classifiers land in different tiers, and the same for the
     baseline the tiers replace (Arena's rule on the bootstrap intervals, Chiang et al. 2024), with the
     coverage of the 95 % rating intervals;
   - three groups of equal classifiers (6 at θ = +1, 7 at 0, 6 at −1): equal classifiers in different
     tiers, a better classifier in a worse tier, any false separation (also for the range test alone),
     how often the three groups are recovered exactly, and the same for Arena's rule; then the same with
     the groups twice as far apart (±2), where the tiers have the power to find them.

   About 6 minutes per setting at load average ≈ 18 on the shared 2-core machine.

Usage::

    .venv/bin/python benchmarks/rating_leaderboard.py
    .venv/bin/python benchmarks/rating_leaderboard.py --coverage
    .venv/bin/python benchmarks/rating_leaderboard.py --only-tiers --tables 300 --tier-replicates 200
"""
from __future__ import annotations

import argparse
import os
import sys
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
from benchirt.rating.leaderboard import bradley_terry_table

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
          f"(largest last Newton step {fit.max_step.max():.1e} points); "
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


def tier_errors(strength: np.ndarray, n_datasets: int, n_tables: int, n_replicates: int, seed: int) -> dict:
    """Error rates of the separation tiers and of Arena's rule on ``n_tables`` simulated leaderboards."""
    rng = np.random.default_rng(seed)
    k = strength.size
    names = [f"c{j:02d}" for j in range(k)]
    equal = np.triu(strength[:, None] == strength[None, :], k=1)
    better = strength[:, None] > strength[None, :]
    truth = pd.Series(1500 + RATING_PER_THETA * (strength - strength.mean()), index=names)
    counts = {key: 0 for key in ("false_claim", "range_false_claim", "split", "better_below", "recovered",
                                 "arena_split", "arena_better_below", "arena_recovered")}
    covered, n_tiers = [], []
    config = RatingConfig(n_bootstrap=n_replicates, n_permutations=0, seed=seed)
    for index in range(n_tables):
        if index and index % 50 == 0:
            print(f"   ... {index} of {n_tables} tables", file=sys.stderr, flush=True)
        scores = strength[None, :] + rng.gumbel(size=(n_datasets, k))
        rows = [(f"d{i:03d}", names[j], scores[i, j]) for i in range(n_datasets) for j in range(k)]
        table, _, separation, _ = bradley_terry_table(pd.DataFrame(rows, columns=["dataset", "classifier", "score"]),
                                                   config)
        position = table["classifier"].map({name: j for j, name in enumerate(names)}).to_numpy()
        tier = np.empty(k, dtype=int)
        tier[position] = table["tier"].to_numpy()
        claims = np.zeros((k, k), dtype=bool)
        claims[np.ix_(position, position)] = separation.better
        low, high = table["bt_low"].to_numpy(), table["bt_high"].to_numpy()
        arena = np.empty(k, dtype=int)
        arena[position] = 1 + (low[None, :] > high[:, None]).sum(axis=1)
        true_tiers = np.unique(strength).size
        for prefix, tiers in (("", tier), ("arena_", arena)):
            apart = tiers[:, None] != tiers[None, :]
            counts[prefix + "split"] += bool((equal & apart).any())
            counts[prefix + "better_below"] += bool((better & (tiers[:, None] > tiers[None, :])).any())
            counts[prefix + "recovered"] += bool(not (equal & apart).any() and np.unique(tiers).size == true_tiers
                                                 and not (better & (tiers[:, None] >= tiers[None, :])).any())
        counts["false_claim"] += bool((claims & ~better).any())
        rating = table["bt_rating"].to_numpy()
        range_only = np.zeros((k, k), dtype=bool)   # the range test alone: every pair's distance is c
        range_only[np.ix_(position, position)] = (rating[:, None] - rating[None, :]) > separation.critical_value
        counts["range_false_claim"] += bool((range_only & ~better).any())
        covered.append(((low <= truth[table["classifier"]].to_numpy()) & (truth[table["classifier"]].to_numpy() <= high)).mean())
        n_tiers.append(int(table["tier"].max()))
    rates = {key: value / n_tables for key, value in counts.items()}
    rates["coverage"] = float(np.mean(covered))
    rates["mean_tiers"] = float(np.mean(n_tiers))
    return rates


def tiers(n_tables: int, n_replicates: int, seed: int) -> None:
    start = time.perf_counter()
    null = tier_errors(np.zeros(19), 60, n_tables, n_replicates, seed)
    groups = tier_errors(np.repeat([1.0, 0.0, -1.0], [6, 7, 6]), 60, n_tables, n_replicates, seed + 1)
    apart = tier_errors(np.repeat([2.0, 0.0, -2.0], [6, 7, 6]), 60, n_tables, n_replicates, seed + 2)
    print(f"\n5. Tiers on simulated leaderboards, 19 classifiers x 60 datasets, {n_tables} tables x "
          f"{n_replicates} bootstrap replicates and shuffled tables ({time.perf_counter() - start:.0f} s)")
    print(f"   all equal:  any pair separated {null['false_claim']:.3f} (range test alone "
          f"{null['range_false_claim']:.3f}); equal classifiers in different tiers "
          f"{null['split']:.3f} (Arena's rule {null['arena_split']:.3f}); tiers per table {null['mean_tiers']:.2f}; "
          f"95 % rating intervals cover {null['coverage']:.3f}")
    print(f"   3 groups (6 at +1, 7 at 0, 6 at -1): equal classifiers in different tiers {groups['split']:.3f} "
          f"(Arena {groups['arena_split']:.3f}); a better classifier in a worse tier {groups['better_below']:.3f} "
          f"(Arena {groups['arena_better_below']:.3f}); any false separation {groups['false_claim']:.3f} (range test "
          f"alone {groups['range_false_claim']:.3f}); "
          f"groups recovered exactly {groups['recovered']:.3f} (Arena {groups['arena_recovered']:.3f}); tiers per "
          f"table {groups['mean_tiers']:.2f}; 95 % rating intervals cover {groups['coverage']:.3f}")
    print(f"   3 groups twice as far apart (6 at +2, 7 at 0, 6 at -2): equal classifiers in different tiers "
          f"{apart['split']:.3f} (Arena {apart['arena_split']:.3f}); a better classifier in a worse tier "
          f"{apart['better_below']:.3f} (Arena {apart['arena_better_below']:.3f}); any false separation "
          f"{apart['false_claim']:.3f} (range test alone {apart['range_false_claim']:.3f}); groups recovered exactly "
          f"{apart['recovered']:.3f} (Arena {apart['arena_recovered']:.3f}); tiers per table {apart['mean_tiers']:.2f}; "
          f"95 % rating intervals cover {apart['coverage']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--baseline-replicates", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--coverage", action="store_true", help="also run the coverage simulation (~3 min)")
    parser.add_argument("--tiers", action="store_true", help="also run the tier error-rate simulation (~20 min)")
    parser.add_argument("--tables", type=int, default=300, help="simulated leaderboards per setting of --tiers")
    parser.add_argument("--tier-replicates", type=int, default=200,
                        help="bootstrap replicates (and shuffled tables) per leaderboard in --tiers")
    parser.add_argument("--only-tiers", action="store_true", help="skip parts 1-3")
    args = parser.parse_args()
    if args.only_tiers:
        tiers(args.tables, args.tier_replicates, args.seed)
        return
    speed(args.replicates, args.baseline_replicates, args.seed)
    if DATA.is_dir():
        scores = read_scores(DATA)
        reference_leaderboard(scores)
        glicko_variants(scores)
    else:
        print(f"\nreference data not found at {DATA} (set BENCHIRT_SHARED_DATA): parts 2 and 3 skipped")
    if args.coverage:
        coverage(args.seed)
    if args.tiers:
        tiers(args.tables, args.tier_replicates, args.seed)


if __name__ == "__main__":
    main()

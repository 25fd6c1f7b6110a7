"""Recompute the numbers docs/benchmarks.md and the other docs state about decodIRT's reference outputs.

Each claim is printed with where the prose states it, the number the prose gives, and the number this
script computes from ``../shared/data/decodirt-reference`` (50 CC18 datasets, the public outputs of the
decodIRT tool), so that the prose can be checked and corrected by anyone:

* ``optimal_below_best_real`` — on how many datasets decodIRT's True-Score of the optimal classifier
  (``otimo``) is *strictly* below the best of the 12 real classifiers (and how many at or below: ties);
* ``ltm_mirror_pools`` — on how many pools R's ``ltm`` returned the mirror-image solution (theta -> -theta),
  by the rule of ``benchmarks/irt_fit.py``: on the items whose item-rest correlation has a clear sign
  (|r| > 0.2), fewer than half of ltm's discriminations share that sign;
* ``ltm_pc1_median_a`` — ltm's median discrimination on pc1 (docs/benchmarks.md: "median discrimination is ≈ 394");
* ``glicko_order_*`` — the order robustness of decodIRT's Glicko-2 tournament over 200 random dataset
  orders (seed 0; ``benchirt.rating.permutation_analysis``), with benchirt's default Glicko-2 (Glickman's
  algorithm) and with decodIRT's ``glicko2`` package (``rating.glicko: decodirt``);
* ``friedman_*`` — the Friedman/Nemenyi claims: rejections at alpha = .05 over 20 simulations of i.i.d. scores
  (5 classifiers, 30 datasets; the simulation of ``tests/test_rating_statistics.py``) with datasets as blocks
  and with decodIRT's rating trajectories, and both tests on the 12 real classifiers' reference True-Scores;
* ``subset_tau_percentile_*`` — how well decodIRT's subsets (its combined rule, ``decodirt``, 30/50/70 %) and subsets of the
  most discriminating datasets (30/50 %) keep the full suite's order of the real classifiers, as the
  percentile of Kendall's tau among 200 random subsets of the same size (``benchirt subset``'s fidelity),
  with both Glicko-2 arithmetics.

The AIRT numbers of ``docs/airt.md`` come from ``benchmarks/airt_compat.py``.

It also checks docs/benchmarks.md, where every measurement stands in a block naming its command
(``benchmarks/documented_numbers.py`` says the rules):

* ``--check-docs``: the blocks name existing scripts, options and parts; no number of docs/benchmarks.md
  outside a block; every number of README.md in docs/benchmarks.md (what ``tests/test_documented_numbers.py`` runs);
* ``--check-block "COMMAND" OUTPUT``: the numbers of COMMAND's blocks that a saved output of COMMAND does not give
  (to its rounding) — e.g. ``python benchmarks/claims.py --part orders > orders.txt``, then
  ``python benchmarks/claims.py --check-block "python benchmarks/claims.py --part orders" orders.txt``.

Run:  .venv/bin/python benchmarks/claims.py [--part reference|orders|statistics|subsets]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.irt.starts import item_rest_correlations
from benchirt.rating import RatingConfig, friedman_nemenyi, glicko_tournament, permutation_analysis, read_scores
from benchirt.subsets import SubsetConfig, build_subsets, evaluate_subsets
from benchirt.subsets.command import default_roles, read_summaries

sys.path.insert(0, str(Path(__file__).resolve().parent))
from documented_numbers import blocks_of, problems, unmatched_numbers  # noqa: E402  (a script beside this one)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path(os.environ.get("BENCHIRT_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "decodirt-reference"
#: decodIRT's artificial classifiers (Portuguese names); every other reported classifier is real.
ARTIFICIAL = frozenset({"rand1", "rand2", "rand3", "majoritario", "minoritario", "pessimo", "otimo"})
#: |item-rest correlation| above which an item's classical discrimination has a clear sign.
CLEAR_SIGN = 0.2


def reference_claims(folders: list[Path]) -> list[tuple[str, str, str, str]]:
    """The claims about decodIRT's outputs: (name, where, the number the prose states, recomputed)."""
    strictly_below, at_or_below, mirrored = [], [], []
    pc1_median = float("nan")
    for folder in folders:
        scores = pd.read_csv(folder / "true_scores.csv").set_index("Clf")["Score"]
        best_real = scores[[name for name in scores.index if name not in ARTIFICIAL]].max()
        if scores["otimo"] < best_real:
            strictly_below.append(folder.name)
        if scores["otimo"] <= best_real:
            at_or_below.append(folder.name)
        pool = pd.read_csv(folder / "responses_pool.csv").to_numpy(dtype=float)
        ltm_a = pd.read_csv(folder / "ltm_item_params.csv", index_col=0).iloc[:, 0].to_numpy(dtype=float)
        rest = item_rest_correlations(pool)
        clear = np.abs(rest) > CLEAR_SIGN
        if (np.sign(ltm_a[clear]) == np.sign(rest[clear])).mean() < 0.5:
            mirrored.append(folder.name)
        if folder.name == "pc1":
            pc1_median = float(np.median(ltm_a))
    n = len(folders)
    return [
        ("reference_datasets", "docs/benchmarks.md, docs/subsets.md", "50", str(n)),
        ("optimal_below_best_real", "docs/benchmarks.md (Rating), docs/subsets.md (Fidelity)", "22 strictly below, 11 more tied",
         f"{len(strictly_below)} of {n} strictly below; {len(at_or_below)} at or below (ties: "
         f"{len(at_or_below) - len(strictly_below)})"),
        ("ltm_mirror_pools", "docs/benchmarks.md (IRT fit and cost)", "10",
         f"{len(mirrored)} of {n}: {', '.join(mirrored)}"),
        ("ltm_pc1_median_a", "docs/benchmarks.md (IRT fit and cost)", "≈ 394", f"{pc1_median:.1f}"),
    ]


def order_claims(n_orders: int = 200, seed: int = 0) -> list[tuple[str, str, str, str]]:
    """The Glicko-2 order-robustness claims (docs/benchmarks.md, docs/rating.md), for both Glicko-2 arithmetics.

    ``glickman`` is benchirt's default (Glickman's paper); ``decodirt`` the ``glicko2`` package decodIRT ran.
    """
    scores = read_scores(REFERENCE)
    rows = []
    for glicko in ("glickman", "decodirt"):
        config = RatingConfig(glicko=glicko)
        summary = permutation_analysis(scores, n_permutations=n_orders, seed=seed,
                                       config=config).summary.set_index("classifier")
        single = glicko_tournament(scores, config=config).table.set_index("classifier")
        mlp = summary.loc["MLPClassifier"]
        sd, rd = summary["rating_sd"], single["rd"]
        rows += [
            (f"glicko_order_mlp_rank_range [{glicko}]", "docs/benchmarks.md, docs/rating.md", "1st to 11th (glickman), 1st to 10th (decodirt)",
             f"{int(mlp['rank_min'])} to {int(mlp['rank_max'])} over {n_orders} random orders"),
            (f"glicko_order_rating_sd [{glicko}]", "docs/benchmarks.md, docs/rating.md", "31-62 points (glickman), 30-56 (decodirt)",
             f"{sd.min():.1f}-{sd.max():.1f}"),
            (f"glicko_single_run_rd [{glicko}]", "docs/benchmarks.md, docs/rating.md", "31-36 (glickman), 30-33 (decodirt)",
             f"median {rd.median():.1f}, {rd.min():.1f}-{rd.max():.1f}"),
            (f"glicko_sd_exceeds_rd [{glicko}]", "docs/benchmarks.md, docs/rating.md", "18 of 19 (both)",
             f"{int((summary['sd_over_rd'] > 1).sum())} of {len(summary)}"),
        ]
    return rows


def subset_claims(seed: int = 0) -> list[tuple[str, str, str, str]]:
    """Kendall tau percentile of decodIRT's subsets against 200 random subsets (docs/benchmarks.md, docs/subsets.md)."""
    summaries = read_summaries(REFERENCE)
    scores = read_scores(REFERENCE)
    roles = default_roles(scores["classifier"].unique())
    rows = []
    for glicko in ("glickman", "decodirt"):
        for rule, cuts in (("decodirt", (30, 50, 70)), ("discrimination", (30, 50))):
            subsets = build_subsets(summaries, cuts=cuts, rule=rule)
            evaluation = evaluate_subsets(subsets, scores, summaries, roles=roles,
                                          config=SubsetConfig(seed=seed, n_permutations=2),
                                          rating_config=RatingConfig(glicko=glicko))
            table = evaluation.fidelity.set_index("subset").loc[list(subsets)]
            percentiles = table["kendall_tau_percentile"]
            said = {("decodirt", "glickman"): "48-68", ("decodirt", "decodirt"): "43-54",
                    ("discrimination", "glickman"): "95, p 0.07", ("discrimination", "decodirt"): "96-98"}[rule, glicko]
            rows.append((f"subset_tau_percentile_{rule} [{glicko}]", "docs/benchmarks.md, docs/subsets.md", said,
                         f"{percentiles.min():.1f}-{percentiles.max():.1f} (cuts {', '.join(map(str, cuts))} %; "
                         f"p {table['kendall_tau_p_value'].min():.2f}-{table['kendall_tau_p_value'].max():.2f})"))
    return rows


def statistics_claims() -> list[tuple[str, str, str, str]]:
    """Friedman/Nemenyi on random scores and on decodIRT's real classifiers (docs/benchmarks.md, docs/rating.md)."""
    rng = np.random.default_rng(1)   # the simulation of tests/test_rating_statistics.py
    rejections = {("blocks", "glickman"): 0, ("decodirt", "glickman"): 0, ("decodirt", "decodirt"): 0}
    for _ in range(20):
        values = rng.uniform(size=(30, 5))
        scores = pd.DataFrame([(f"d{i:02d}", name, values[i, j]) for i in range(30) for j, name in enumerate("ABCDE")],
                              columns=["dataset", "classifier", "score"])
        for mode, glicko in rejections:
            test = friedman_nemenyi(scores, mode=mode, config=RatingConfig(glicko=glicko))
            rejections[mode, glicko] += test.p_value < 0.05
    reference = read_scores(REFERENCE)
    real = sorted(c for c in reference["classifier"].unique() if c not in ARTIFICIAL)
    blocks = friedman_nemenyi(reference, mode="blocks", classifiers=real)
    rows = [
        ("friedman_random_rejections", "docs/benchmarks.md, docs/rating.md", "1 of 20 (blocks), 19 of 20 (trajectories)",
         f"5 classifiers x 30 datasets: blocks {rejections['blocks', 'glickman']} of 20; trajectories {rejections['decodirt', 'glickman']} of 20 "
         f"(Glickman), {rejections['decodirt', 'decodirt']} of 20 (decodIRT's arithmetic)"),
        ("friedman_reference_blocks", "benchmarks/results/rating-verdict.md", "chi2_F = 69.8, p ≈ 1e-10, 11 of 66 pairs, CD = 2.36",
         f"chi2_F = {blocks.statistic:.1f}, p = {blocks.p_value:.1e}, "
         f"{_pairs_below(blocks.p_values, blocks.alpha)} of {len(real) * (len(real) - 1) // 2} pairs, "
         f"CD = {blocks.critical_difference:.2f}"),
    ]
    for glicko in ("glickman", "decodirt"):
        trajectories = friedman_nemenyi(reference, mode="decodirt", classifiers=real,
                                        config=RatingConfig(glicko=glicko))
        rows.append((f"friedman_reference_trajectories [{glicko}]", "benchmarks/results/rating-verdict.md",
                     "333, p ≈ 9e-65 (decodirt); 329, p ≈ 6e-64 (glickman); 31 of 66 pairs",
                     f"chi2_F = {trajectories.statistic:.0f}, p = {trajectories.p_value:.0e}, "
                     f"{_pairs_below(trajectories.p_values, trajectories.alpha)} of {len(real) * (len(real) - 1) // 2} pairs"))
    return rows


def _pairs_below(p_values: pd.DataFrame, alpha: float) -> int:
    """Pairs (upper triangle) whose Nemenyi p-value is below alpha."""
    values = p_values.to_numpy()
    return int((values[np.triu_indices_from(values, k=1)] < alpha).sum())


PARTS = ("reference", "orders", "statistics", "subsets")


def claims(part: str) -> list[tuple[str, str, str, str]]:
    """The claims of one part (``all``: every part), recomputed."""
    if part == "reference":
        return reference_claims(sorted(p for p in REFERENCE.iterdir() if (p / "true_scores.csv").is_file()))
    if part == "orders":
        return order_claims()
    if part == "statistics":
        return statistics_claims()
    if part == "subsets":
        return subset_claims()
    return [row for name in PARTS for row in claims(name)]


def check_block(command: str, output: Path) -> int:
    """Print the numbers of ``command``'s blocks in docs/benchmarks.md that ``output`` does not give; 1 if any."""
    blocks = blocks_of(command)
    if not blocks:
        print(f"docs/benchmarks.md has no block of `{command}`")
        return 1
    text = output.read_text(encoding="utf-8")
    status = 0
    for block in blocks:
        missing = unmatched_numbers(block.text, text)
        status |= bool(missing)
        print(f"docs/benchmarks.md line {block.line}: " + (
            f"not in {output} (derived, or changed: check by hand): {', '.join(missing)}" if missing
            else f"every number is in {output}"))
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=(*PARTS, "all"), default="all", help="which claims to recompute")
    parser.add_argument("--check-docs", action="store_true",
                        help="check docs/benchmarks.md's blocks and README.md's numbers (runs no benchmark)")
    parser.add_argument("--check-block", nargs=2, metavar=("COMMAND", "OUTPUT"),
                        help="compare COMMAND's blocks in docs/benchmarks.md with a saved output of COMMAND")
    args = parser.parse_args()
    if args.check_docs:
        found = problems()
        print("\n".join(found) if found else "docs/benchmarks.md and README.md: every check holds")
        return 1 if found else 0
    if args.check_block:
        return check_block(args.check_block[0], Path(args.check_block[1]))
    if not REFERENCE.is_dir():
        raise SystemExit(f"reference data not found at {REFERENCE} (set BENCHIRT_SHARED_DATA)")
    for name, where, said, value in claims(args.part):
        print(f"{name}\n    recomputed: {value}\n    prose:      {said}  [{where}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

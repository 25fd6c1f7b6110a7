"""Does the dataset-value table predict which datasets separate strong classifiers it never saw?

On decodIRT's 50 reference pools (``../shared/data/decodirt-reference``: the 12 real classifiers' answers on each
dataset's test rows, ``responses_reported.csv``), the ``--held-out`` strongest real classifiers (by mean test
accuracy over the 50 datasets) are held out of every choice. From the other real classifiers alone each dataset
gets the quantities of :mod:`benchirt.subsets.value` (the top contenders' pairs its rows separate, redundancy, the
value per CPU-hour with costs from the packaged shape-based cost model and ``benchirt/data/cc18_shapes.csv``) and
the baselines: its number of items, the spread (SD) of the top-10 accuracies on it, and the share of its items
that fewer than half of the classifiers answer correctly. The target: how many pairs of the held-out classifiers
its own rows separate (McNemar's exact test, p < 0.05). Printed: Spearman's ρ of each predictor with the target
over the datasets, and the difference of the top pairs separated's ρ from each other predictor's with a 95 % bootstrap interval over
datasets (``--bootstrap`` resamples).

Usage::

    python benchmarks/dataset_value.py
    python benchmarks/dataset_value.py --held-out 6 --bootstrap 5000
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from benchirt.placement.calibration import calibration_costs
from benchirt.irt.mcnemar import mcnemar_separated
from benchirt.subsets.value import redundancy

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BENCHIRT_SHARED_DATA", ROOT.parent / "shared" / "data"))
REFERENCE = SHARED / "decodirt-reference"
#: The separation power the value is built on, compared with every other predictor.
REFERENCE_PREDICTOR = "top_pairs_separated"
#: The first 12 rows of ``responses_reported.csv`` are the real classifiers (test_accuracy.csv's order).
N_REAL = 12


def pools() -> dict[str, pd.DataFrame]:
    """Dataset → the 12 real classifiers' answers (named rows)."""
    out = {}
    for folder in sorted(p for p in REFERENCE.iterdir() if (p / "responses_reported.csv").exists()):
        names = pd.read_csv(folder / "test_accuracy.csv").iloc[:, 0].astype(str).tolist()
        answers = pd.read_csv(folder / "responses_reported.csv").set_axis(names, axis=0)
        out[folder.name] = answers.iloc[:N_REAL]
    return out


def costs(names) -> dict[str, float]:
    """Training CPU seconds of decodIRT's protocol per dataset: the packaged cost model on CC18's recorded shapes."""
    cost, _ = calibration_costs(REFERENCE, list(names))
    return {} if cost is None else cost.to_dict()


def predictors(answers: dict[str, pd.DataFrame], calibration: list[str], cost: dict[str, float]) -> pd.DataFrame:
    """Per dataset, from the calibration classifiers only: the value's parts, the value and the baselines."""
    accuracy = pd.DataFrame({name: frame.loc[calibration].mean(axis=1) for name, frame in answers.items()})
    means = accuracy.mean(axis=1).sort_values(ascending=False)
    top = means.index[:10].tolist()
    repeated = redundancy(accuracy)
    rows = []
    for name, frame in answers.items():
        matrix = frame.loc[top].to_numpy(float)
        separated = int(np.triu(mcnemar_separated(matrix)).sum())
        rows.append({"dataset": name, "top_pairs_separated": separated,
                     "value": separated / (max(cost.get(name, np.nan), 1.0) / 3600.0),
                     "discounted_by_redundancy": separated * (1.0 - repeated[name]), "n_items": frame.shape[1],
                     "top10_spread": float(accuracy.loc[top, name].std()),
                     "hard_item_share": float((frame.loc[calibration].mean(axis=0) < 0.5).mean())})
    return pd.DataFrame(rows).set_index("dataset")


def target(answers: dict[str, pd.DataFrame], held_out: list[str]) -> pd.Series:
    """Per dataset, the pairs of the held-out classifiers its rows separate."""
    return pd.Series({name: int(np.triu(mcnemar_separated(frame.loc[held_out].to_numpy(float))).sum())
                      for name, frame in answers.items()})


def compare(table: pd.DataFrame, truth: pd.Series, n_bootstrap: int, seed: int = 0) -> pd.DataFrame:
    """Spearman's ρ of each predictor with the target, and the value's ρ minus each one's with a bootstrap CI."""
    names = list(table.columns)
    rho = {name: spearmanr(table[name], truth).statistic for name in names}
    rng = np.random.default_rng(seed)
    draws = {name: [] for name in names}
    for _ in range(n_bootstrap):
        pick = rng.integers(0, len(table), len(table))
        for name in names:
            draws[name].append(spearmanr(table[name].to_numpy()[pick], truth.to_numpy()[pick]).statistic)
    rows = []
    for name in names:
        difference = np.asarray(draws[REFERENCE_PREDICTOR]) - np.asarray(draws[name])
        low, high = np.nanquantile(difference, [0.025, 0.975])
        rows.append({"predictor": name, "spearman": rho[name],
                     "top_pairs_minus_it": rho[REFERENCE_PREDICTOR] - rho[name], "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", type=int, default=4)
    parser.add_argument("--bootstrap", type=int, default=2000)
    args = parser.parse_args()
    answers = pools()
    cost = costs(answers)
    answers = {name: frame for name, frame in answers.items() if name in cost}
    strength = pd.DataFrame({name: frame.mean(axis=1) for name, frame in answers.items()}).mean(axis=1)
    held_out = strength.sort_values(ascending=False).index[:args.held_out].tolist()
    calibration = [name for name in strength.index if name not in held_out]
    print(f"{len(answers)} pools; held out (strongest by mean test accuracy): {', '.join(held_out)}; "
          f"{len(calibration)} real classifiers calibrate")
    truth = target(answers, held_out)
    print(f"target: held-out pairs separated per dataset, mean {truth.mean():.2f} of "
          f"{args.held_out * (args.held_out - 1) // 2}")
    table = predictors(answers, calibration, cost)
    with pd.option_context("display.width", 200):
        print(compare(table, truth.loc[table.index], args.bootstrap).round(3).to_string(index=False))


if __name__ == "__main__":
    main()

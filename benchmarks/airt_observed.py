"""AIRT on the observed cells: parameter recovery from 30 % of the cells, and hiding cells of a real matrix.

1. Simulated: 300 datasets × 30 algorithms drawn from the continuous response model (Kandanaarachchi &
   Smith-Miles 2023 eq. 3: theta ~ N(0, 1), gamma z ~ N(theta - beta, 1 / alpha^2); three anomalous
   algorithms), each cell observed with probability 0.3 (datasets left with fewer than 2 results dropped, as
   :mod:`benchirt.airt.sparse` does). Correlation of the observed-cell fit with the generating parameters and
   with the fit to every cell, and the share of discrimination signs right.
2. Real: the OpenML-WEKA-2017 matrix of ``tests/fixtures`` (105 datasets × 30 WEKA classifiers, complete),
   30 % of its cells hidden at random; rank (Spearman) correlation of each parameter with the fit to the whole
   matrix. Ranks, because a large discrimination (a nearly deterministic algorithm) is estimated with an error
   proportional to itself, so a linear correlation is set by the two or three largest.

``tests/test_airt_observed.py`` sets its thresholds below the smallest value of each column printed here.

Run:  .venv/bin/python benchmarks/airt_observed.py [REPLICATES]   (default 40; a few CPU-seconds)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from benchirt.airt.continuous import fit_continuous, logit

PARAMETERS = ("discrimination", "difficulty", "scale")
FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "openml_weka_2017.csv"


def draw(seed: int, *, n_datasets: int = 300, n_items: int = 30, presence: float = 0.3):
    """Experiment 1's field: the continuous response model of Kandanaarachchi & Smith-Miles 2023 eq. 3, three
    anomalous algorithms, each cell observed with probability ``presence``. Returns (alpha, beta, gamma, theta),
    the complete z and the sparse z (NaN where not observed)."""
    rng = np.random.default_rng(seed)
    alpha, gamma = rng.uniform(0.8, 2.5, n_items), rng.uniform(0.6, 2.0, n_items)
    beta = rng.normal(0.0, 0.7, n_items)
    alpha[:3], gamma[:3] = -alpha[:3], -gamma[:3]
    theta = rng.normal(size=n_datasets)
    z = (theta[:, None] - beta) / gamma + rng.normal(size=(n_datasets, n_items)) / (alpha * gamma)
    return (alpha, beta, gamma, theta), z, np.where(rng.random(z.shape) < presence, z, np.nan)


def simulated(seed: int, *, n_datasets: int = 300, n_items: int = 30, presence: float = 0.3) -> dict:
    """One replicate of experiment 1: correlations with the truth and with the full-data fit."""
    (alpha, beta, gamma, theta), z, sparse = draw(seed, n_datasets=n_datasets, n_items=n_items, presence=presence)
    keep = (~np.isnan(sparse)).sum(axis=1) >= 2
    full, fit = fit_continuous(z), fit_continuous(sparse[keep])
    row = {f"{name} vs truth": np.corrcoef(getattr(fit, name), truth)[0, 1]
           for name, truth in zip(PARAMETERS, (alpha, beta, gamma))}
    row |= {f"{name} vs full": np.corrcoef(getattr(fit, name), getattr(full, name))[0, 1] for name in PARAMETERS}
    row["theta vs truth"] = np.corrcoef(fit.theta, theta[keep])[0, 1]
    row["signs right"] = float(np.mean(np.sign(fit.discrimination) == np.sign(alpha)))
    return row


def hidden(seed: int, z: np.ndarray, full, *, hide: float = 0.3) -> dict:
    """One replicate of experiment 2: correlations with the fit to the whole real matrix."""
    rng = np.random.default_rng(seed)
    fit = fit_continuous(np.where(rng.random(z.shape) < hide, np.nan, z))
    return {f"{name} vs full": spearmanr(getattr(fit, name), getattr(full, name))[0]
            for name in (*PARAMETERS, "theta")}


def main(replicates: int = 40) -> None:
    table = pd.DataFrame([simulated(seed) for seed in range(replicates)])
    print(f"1. simulated 300 × 30, 30 % of cells observed, {replicates} replicates")
    print(table.describe().loc[["min", "50%", "mean"]].T.round(3).to_string())
    z = logit(pd.read_csv(FIXTURE, index_col=0).to_numpy(), epsilon=0.01)
    full = fit_continuous(z)
    table = pd.DataFrame([hidden(seed, z, full) for seed in range(replicates)])
    print(f"\n2. OpenML-WEKA-2017 {z.shape[0]} × {z.shape[1]}, 30 % of cells hidden, {replicates} replicates (rank correlations)")
    print(table.describe().loc[["min", "50%", "mean"]].T.round(3).to_string())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)

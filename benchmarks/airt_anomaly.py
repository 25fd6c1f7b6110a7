"""AIRT's anomaly rule on simulated portfolios: false alarms, power and the discrimination interval's coverage.

Portfolios of ``n_items`` algorithms on N datasets are drawn from the continuous response model
(Kandanaarachchi & Smith-Miles 2023 eq. 3: theta ~ N(0, 1), gamma z ~ N(theta - beta, 1 / alpha^2)), with
discriminations uniform on [0.8, 2.5] and one test algorithm of known discrimination (0: flat, or negative:
anomalous). benchirt's default fit is run on each; the table gives, per N and test discrimination, the share
of replicates in which the test algorithm is called anomalous by the interval rule (95 % interval below 0,
:mod:`benchirt.airt.plausibility`) and by the sign rule of the R package airt (alpha < 0), and the coverage of
the 95 % interval for the test algorithm and for the other algorithms.

Run:  .venv/bin/python benchmarks/airt_anomaly.py [REPLICATES]   (default 400; about a minute on one core)
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from benchirt.airt.continuous import fit_continuous
from benchirt.airt.plausibility import discrimination_interval


def simulate(n_datasets: int, test_alpha: float, rng: np.random.Generator, n_items: int = 10) -> tuple:
    """One simulated logit matrix; the last column is the test algorithm. Returns (z, true alpha)."""
    alpha = rng.uniform(0.8, 2.5, n_items)
    alpha[-1] = test_alpha
    gamma = rng.uniform(0.6, 2.0, n_items) * np.where(alpha < 0, -1, 1)
    beta = rng.normal(0.0, 0.7, n_items)
    theta = rng.normal(size=n_datasets)
    noise_sd = np.where(alpha != 0, 1 / np.abs(np.where(alpha != 0, alpha, 1) * gamma), 1.0)
    mean = np.where(alpha != 0, (theta[:, None] - beta) / gamma, 0.0)     # alpha = 0: unrelated to theta
    return mean + rng.normal(size=(n_datasets, n_items)) * noise_sd, alpha


def rates(n_datasets: int, test_alpha: float, replicates: int, seed: int = 0) -> dict:
    """False-alarm (or detection) rates of both rules and interval coverage, over ``replicates`` portfolios."""
    rng = np.random.default_rng(seed)
    interval_calls = sign_calls = covered_test = 0
    covered_others = []
    for _ in range(replicates):
        z, alpha = simulate(n_datasets, test_alpha, rng)
        fit = fit_continuous(z)
        low, high = discrimination_interval(fit)
        interval_calls += high[-1] < 0
        sign_calls += fit.discrimination[-1] < 0
        covered_test += low[-1] <= alpha[-1] <= high[-1]
        covered_others.append(np.mean((low[:-1] <= alpha[:-1]) & (alpha[:-1] <= high[:-1])))
    return {"datasets": n_datasets, "test discrimination": test_alpha,
            "anomalous (interval rule)": interval_calls / replicates, "anomalous (sign rule)": sign_calls / replicates,
            "coverage, test algorithm": covered_test / replicates, "coverage, others": float(np.mean(covered_others))}


def main(replicates: int = 400) -> None:
    rows = [rates(n, a, replicates, seed=k) for k, (n, a) in enumerate(
        (n, a) for n in (12, 27, 60, 235) for a in (0.0, -0.3, -1.0))]
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)

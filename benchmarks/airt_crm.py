"""Continuous AIRT model: parameter recovery on simulated portfolios and speed against sklearn's FactorAnalysis.

Samejima's continuous response model is a one-factor Gaussian model, so
``sklearn.decomposition.FactorAnalysis(n_components=1)`` maximises the same likelihood by another algorithm;
it is the baseline (same estimates, see ``tests/test_airt_core.py``) for the timing of
:func:`benchirt.airt.fit_continuous` (Shojima's closed-form EM + SQUAREM).

For every size (N datasets x n algorithms, a fifth of them anomalous: alpha, gamma < 0) and seed, data are drawn
from Kandanaarachchi & Smith-Miles 2023 eq. 3 (theta ~ N(0, 1), gamma z ~ N(theta - beta, 1 / alpha^2)) and the table reports the
correlation of the estimates with the truth, the share of anomalous signs recovered, and both run times.

Usage::

    .venv/bin/python benchmarks/airt_crm.py [--seeds 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.decomposition import FactorAnalysis

from benchirt.airt import fit_continuous

SIZES = ((50, 10), (100, 20), (500, 20), (2000, 30), (5000, 40))


def simulate(n_resp: int, n_items: int, seed: int):
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0.5, 3.0, n_items)
    gamma = rng.uniform(0.5, 2.0, n_items)
    beta = rng.normal(0.0, 1.0, n_items)
    anomalous = rng.choice(n_items, size=max(1, n_items // 5), replace=False)
    alpha[anomalous] *= -1
    gamma[anomalous] *= -1
    theta = rng.normal(size=n_resp)
    z = (theta[:, None] - beta) / gamma + rng.normal(size=(n_resp, n_items)) / (alpha * gamma)
    return theta, alpha, beta, gamma, z


def timed(function, *args, repeat: int = 3, **kwargs):
    best, result = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return result, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for n_resp, n_items in SIZES:
        for seed in range(args.seeds):
            theta, alpha, beta, gamma, z = simulate(n_resp, n_items, seed)
            fit, seconds = timed(fit_continuous, z)
            baseline = FactorAnalysis(n_components=1, tol=1e-8, max_iter=10000, svd_method="lapack")
            _, fa_seconds = timed(baseline.fit, z)
            rows.append({
                "N": n_resp, "n": n_items, "seed": seed,
                "r_alpha": np.corrcoef(fit.discrimination, alpha)[0, 1],
                "r_beta": np.corrcoef(fit.difficulty, beta)[0, 1],
                "r_gamma": np.corrcoef(fit.scale, gamma)[0, 1],
                "r_theta": np.corrcoef(fit.theta, theta)[0, 1],
                "signs_ok": np.mean(np.sign(fit.discrimination) == np.sign(alpha)),
                "converged": fit.converged, "iterations": fit.n_iter,
                "airt_ms": 1000 * seconds, "factor_analysis_ms": 1000 * fa_seconds,
            })
    table = pd.DataFrame(rows).groupby(["N", "n"]).agg(
        r_alpha=("r_alpha", "mean"), r_beta=("r_beta", "mean"), r_gamma=("r_gamma", "mean"),
        r_theta=("r_theta", "mean"), signs_ok=("signs_ok", "mean"), converged=("converged", "mean"),
        iterations=("iterations", "median"), airt_ms=("airt_ms", "median"),
        factor_analysis_ms=("factor_analysis_ms", "median"))
    table["speed_ratio"] = table["factor_analysis_ms"] / table["airt_ms"]
    pd.set_option("display.width", 160)
    print(f"Parameter recovery (mean over {args.seeds} seeds) and median time per fit (best of 3)")
    print(table.round(3).to_string())


if __name__ == "__main__":
    main()

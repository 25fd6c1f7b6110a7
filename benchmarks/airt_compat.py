"""What each of the R package airt's estimator choices changes, measured one at a time (``docs/airt.md``).

First the airt vignette's data (``tests/fixtures/airt_classification_cts.csv``) with ``--compat airt-r`` as given
(the package's range [0, 1]) and with the matrix's extremes as range. Then, on the AIRT paper's classification data
(OPENML-WEKA-2017, ``tests/fixtures/openml_weka_2017.csv``, with the paper's range: the matrix's extremes) and on
the ASlib scenarios in ``../shared/data/aslib`` (when present), it fits the continuous AIRT model in steps
from airt's estimator (``--compat airt-r``) to benchirt's default and prints, per step, the largest change of
consistency (1/|alpha|) and difficulty limit (-beta) over the algorithms (and the median change), and the
marginal log-likelihood (comparable between the first three steps, which share airt's logits):

1. ``airt-r``: airt's estimator as published (exact-extreme replacement, EM stopped when the monitored
   log-likelihood changes by < .01) — on OPENML-WEKA-2017 it reproduces Table 4 (largest deviation printed);
2. ``+ converged``: the same EM run until the change is < 1e-9 (stopping rule);
3. ``+ ML moments``: benchirt's EM (population moments, SQUAREM, Heywood bound) on airt's logits;
4. ``default``: benchirt's default, which also clips every performance to [.01, .99] instead of replacing
   exact extremes only.

Then the model goodness of the same fit (airt's EM stopped by its rule) with airt's prediction formula and
with the model's own mode, and, on the GPCM of the binned data (5 levels, the model airt fits), the polytomous difficulty limit
defined by the lowest threshold (the airt vignette) against the highest (benchirt's default).

Run:  .venv/bin/python benchmarks/airt_compat.py
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.airt import AIRTConfig, fit_airt
from benchirt.airt.aslib import load_aslib
from benchirt.airt.compat import fit_continuous_r, r_logit, r_predicted, replace_extremes
from benchirt.airt.continuous import expit, fit_continuous
from benchirt.airt.goodness import model_goodness
from benchirt.airt.polytomous import GRMConfig, bin_performance, fit_grm
from benchirt.errors import DataError

PROJECT_ROOT = Path(__file__).resolve().parents[1]
FIXTURE = PROJECT_ROOT / "tests" / "fixtures" / "openml_weka_2017.csv"
VIGNETTE_DATA = PROJECT_ROOT / "tests" / "fixtures" / "airt_classification_cts.csv"
ASLIB = Path(os.environ.get("BENCHIRT_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "aslib"
# AIRT paper Table 4 (consistency, difficulty limit), in the fixture's column order
TABLE_4 = np.array([
    (1.401, 1.427), (1.349, 1.271), (1.201, 1.842), (0.655, 1.950), (1.426, 1.026), (0.274, 1.749),
    (1.010, 1.798), (0.595, 1.663), (0.709, 1.457), (0.500, 2.064), (0.467, 1.994), (0.757, 1.553),
    (0.842, 1.508), (0.253, 1.741), (0.950, 1.812), (1.272, 0.919), (1.173, 1.968), (3.768, -1.176),
    (0.281, 1.806), (0.752, 1.942), (2.473, 0.845), (0.643, 1.819), (0.819, 1.750), (0.852, 1.793),
    (0.669, 1.824), (2.069, 0.882), (0.408, 1.947), (0.660, 1.837), (0.645, 1.532), (0.473, 1.927),
])
# AIRT paper Table 5 MSE and Table 4 LTO (epsilon 0, 0.01), same order
TABLE_5_MSE = np.array([0.032, 0.036, 0.029, 0.007, 0.051, 0.004, 0.022, 0.010, 0.007, 0.006, 0.007, 0.011, 0.017,
                        0.003, 0.020, 0.040, 0.029, 0.164, 0.006, 0.011, 0.093, 0.009, 0.013, 0.012, 0.005, 0.082,
                        0.006, 0.011, 0.009, 0.004])
TABLE_4_LTO = np.array([
    (0.010, 0.038), (0.000, 0.038), (0.000, 0.019), (0.000, 0.000), (0.000, 0.000), (0.000, 0.162),
    (0.000, 0.000), (0.029, 0.076), (0.000, 0.000), (0.410, 0.790), (0.276, 0.895), (0.000, 0.000),
    (0.000, 0.000), (0.000, 0.124), (0.000, 0.000), (0.000, 0.000), (0.000, 0.000), (0.000, 0.000),
    (0.000, 0.314), (0.000, 0.000), (0.000, 0.000), (0.010, 0.105), (0.000, 0.000), (0.000, 0.010),
    (0.000, 0.000), (0.000, 0.000), (0.267, 0.448), (0.000, 0.105), (0.000, 0.067), (0.000, 0.000),
])


def _metrics(fit) -> np.ndarray:
    return np.column_stack([1.0 / np.abs(fit.discrimination), -fit.difficulty])


def estimator_steps(perf: pd.DataFrame) -> pd.DataFrame:
    """Consistency and difficulty limit at each step from airt's estimator to benchirt's default."""
    values = perf.to_numpy(dtype=float)
    z_r = r_logit(values, values.min(), values.max())
    published = fit_continuous_r(z_r)
    steps = {
        "airt-r": published.fit,
        "+ converged": fit_continuous_r(z_r, converge=1e-9, max_cycles=200_000).fit,
        "+ ML moments": fit_continuous(z_r),
        "default": fit_airt(perf).fit,
    }
    rows, previous = [], None
    for name, fit in steps.items():
        metrics = _metrics(fit)
        row = {"step": name, "cycles": str(fit.n_iter), "log_likelihood": fit.log_likelihood}
        if previous is not None:
            delta = np.abs(metrics - previous)
            row.update(max_d_consistency=delta[:, 0].max(), median_d_consistency=np.median(delta[:, 0]),
                       max_d_difficulty_limit=delta[:, 1].max(), median_d_difficulty_limit=np.median(delta[:, 1]))
        rows.append(row)
        previous = metrics
    before, after = _metrics(steps["airt-r"]), _metrics(steps["+ converged"])
    moved = [f"{label} of {perf.columns[j]} {before[j, k]:.3f} -> {after[j, k]:.3f}"
             for k, label in enumerate(("consistency", "difficulty limit"))
             for j in [int(np.argmax(np.abs(after[:, k] - before[:, k])))]]
    print("largest changes when airt's EM is run to convergence: " + "; ".join(moved))
    total = np.abs(_metrics(steps["default"]) - _metrics(steps["airt-r"]))
    rows.append({"step": "airt-r -> default", "max_d_consistency": total[:, 0].max(),
                 "median_d_consistency": np.median(total[:, 0]), "max_d_difficulty_limit": total[:, 1].max(),
                 "median_d_difficulty_limit": np.median(total[:, 1])})
    return pd.DataFrame(rows)


def prediction_formulas(perf: pd.DataFrame) -> pd.DataFrame:
    """Model goodness of airt's fit with airt's prediction formula and with the model's mode."""
    values = perf.to_numpy(dtype=float)
    shifted, span = replace_extremes(values, values.min(), values.max())
    fit = fit_continuous_r(r_logit(values, values.min(), values.max())).fit
    actual = pd.DataFrame(shifted, index=perf.index, columns=perf.columns)
    airt_pred = pd.DataFrame(r_predicted(shifted, fit), index=perf.index, columns=perf.columns)
    mode = pd.DataFrame(span * expit(fit.predicted_logit()), index=perf.index, columns=perf.columns)
    out = {}
    for name, predicted in (("airt formula", airt_pred), ("model mode", mode)):
        table = model_goodness(actual, predicted).table.set_index("algorithm")
        out[name] = table[["mse", "aucdf"]]
    both = pd.concat(out, axis=1)
    return both


def polytomous_limits(perf: pd.DataFrame) -> pd.Series:
    """GPCM on 5 quantile levels: difficulty limit from the lowest threshold (vignette) and the highest."""
    fit = fit_grm(bin_performance(perf, n_levels=5), config=GRMConfig(model="gpcm"))
    lowest = fit.items["thresholds"].map(lambda t: -t[0])
    highest = fit.items["difficulty_limit"]
    return pd.Series({"max |lowest - highest|": float((lowest - highest).abs().max()),
                      "median |lowest - highest|": float((lowest - highest).abs().median()),
                      "Spearman(lowest, highest)": float(lowest.rank().corr(highest.rank()))})


def main() -> None:
    weka = pd.read_csv(FIXTURE, index_col=0)
    vignette = pd.read_csv(VIGNETTE_DATA, index_col=0)
    table = fit_airt(vignette, config=AIRTConfig(compat="airt-r")).algorithms.set_index("algorithm")
    print(f"airt vignette data classification_cts ({vignette.shape[0]} x {vignette.shape[1]}), --compat airt-r "
          "(the package's range [0, 1]): consistency " + ", ".join(f"{k} {v:.4f}" for k, v in table["consistency"].items())
          + f"; anomalous: {', '.join(table.index[table['anomalous']]) or 'none'}")
    table = fit_airt(vignette,
                     config=AIRTConfig(compat="airt-r", compat_range="data")).algorithms.set_index("algorithm")
    print(f"  with --compat-range data: QDA discrimination {table.loc['QDA', 'discrimination']:.4f}, consistency "
          f"{table.loc['QDA', 'consistency']:.1f}, anomalous {bool(table.loc['QDA', 'anomalous'])}")
    result = fit_airt(weka, config=AIRTConfig(compat="airt-r", compat_range="data")).algorithms
    deviation = np.abs(result[["consistency", "difficulty_limit"]].to_numpy() - TABLE_4).max()
    print(f"OPENML-WEKA-2017 ({weka.shape[0]} x {weka.shape[1]}), --compat airt-r --compat-range data vs the AIRT "
          "paper's Table 4: "
          f"largest deviation {deviation:.4f}")
    scaled = (weka - weka.min().min()) / (weka.max().max() - weka.min().min())
    deviation = np.abs(fit_airt(scaled, config=AIRTConfig(compat="airt-r")).algorithms[
        ["consistency", "difficulty_limit"]].to_numpy() - TABLE_4).max()
    print(f"  same after benchirt's min-max scaling (the ASlib reader, --rescale): largest deviation {deviation:.4f}")
    mse = fit_airt(weka, config=AIRTConfig(compat="airt-r", compat_range="data")).goodness["mse"].to_numpy()
    print(f"  Table 5 MSE (airt's prediction formula): largest deviation {np.abs(mse - TABLE_5_MSE).max():.4f} "
          f"(median {np.median(np.abs(mse - TABLE_5_MSE)):.4f})")
    for column, eps in ((0, 0.0), (1, 0.01)):
        ours = fit_airt(weka, config=AIRTConfig(compat="airt-r", compat_range="data", epsilon=eps)).algorithms["lto_strength"].to_numpy()
        top = ", ".join(f"{weka.columns[j]} {ours[j]:.3f} ({TABLE_4_LTO[j, column]:.3f})"
                        for j in np.argsort(-TABLE_4_LTO[:, column])[:4])
        print(f"  Table 4 LTO(eps={eps:g}) (benchirt's smoothing splines, not R mgcv's): largest deviation "
              f"{np.abs(ours - TABLE_4_LTO[:, column]).max():.3f}; published top 4 ours (paper): {top}")
    print()
    datasets = {"OPENML-WEKA-2017": weka}
    if ASLIB.is_dir():
        for folder in sorted(p for p in ASLIB.iterdir() if (p / "algorithm_runs.arff").is_file()):
            datasets[folder.name] = load_aslib(folder).performance
    fmt = lambda v: f"{v:.3f}"  # noqa: E731
    for name, perf in datasets.items():
        print(f"== {name} ({perf.shape[0]} x {perf.shape[1]}) ==")
        try:
            print(estimator_steps(perf).to_string(index=False, float_format=fmt, na_rep=""))
        except DataError as exc:  # airt's estimator refuses constant columns or breaks down: say so
            print(f"airt-r estimator not applicable: {exc}")
            continue
        goodness = prediction_formulas(perf)
        change = (goodness["model mode"] - goodness["airt formula"])
        print(f"prediction: airt's formula vs the model's mode, change of MSE median {change['mse'].median():+.4f} "
              f"(range {change['mse'].min():+.4f} .. {change['mse'].max():+.4f}), of AUCDF median "
              f"{change['aucdf'].median():+.4f} (range {change['aucdf'].min():+.4f} .. {change['aucdf'].max():+.4f})")
        limits = polytomous_limits(perf)
        print("GPCM difficulty limit, lowest vs highest threshold: "
              + ", ".join(f"{key} {value:.3f}" for key, value in limits.items()) + "\n")


if __name__ == "__main__":
    main()

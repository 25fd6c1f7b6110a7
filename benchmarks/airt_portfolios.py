"""AIRT on the offline ASlib scenarios: metrics, polytomous model and the portfolio comparison of Kandanaarachchi & Smith-Miles 2023 Table 6.

For each scenario in ``../shared/data/aslib`` (ASP-POTASSCO, GRAPHS-2015, MAXSAT-PMS-2016, PROTEUS-2014,
SAT11-INDU):

1. read it with :func:`benchirt.airt.aslib.load_aslib` (failed runs -> PAR-k, runtime/PAR10 -> [0, 1]);
2. fit the continuous AIRT model (:func:`benchirt.airt.fit_airt`) and summarise its metrics (anomalous
   algorithms, consistency range, difficulty limits, size of A(0) and A(0.05));
3. bin the performance into 5 quantile levels and fit the graded response model
   (:func:`benchirt.airt.polytomous.fit_grm`): anomalous algorithms, stability;
4. compare the airt, Shapley and topset portfolios of n = 1..k algorithms by the mean performance gap under
   the scenario's 10-fold cross-validation (cv.arff), in raw units and on [0, 1], with standard errors.

It ends with a table in the form of Kandanaarachchi & Smith-Miles 2023 Table 6 (MPG of portfolios of 5 algorithms) next to the paper's
values. The paper's runs used the ASlib data of its time and "runtime" for most scenarios; ``--par-factor 1``
keeps failed runs at the cutoff (plain runtime), the default 10 uses ASlib's PAR10.

Usage::

    .venv/bin/python benchmarks/airt_portfolios.py [--data ../shared/data/aslib] [--par-factor 10]
        [--epsilons 0 0.05] [--n 5] [--out DIR] [--scenarios NAME ...]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from benchirt.airt import fit_airt
from benchirt.airt.aslib import load_aslib
from benchirt.airt.polytomous import bin_performance, fit_grm
from benchirt.airt.portfolio import airt_selector, compare_portfolios, shapley_ranking, topset_ranking
from benchirt.errors import BenchirtError

SCENARIOS = ("ASP-POTASSCO", "GRAPHS-2015", "MAXSAT-PMS-2016", "PROTEUS-2014", "SAT11-INDU")
#: Seed 000 Table 6: (measurement, num. obs., num. algorithms, airt MPG, Shapley MPG, topset MPG).
PAPER_TABLE6 = {
    "ASP-POTASSCO": ("runtime", 1294, 11, 78.0, 92.7, 77.8),
    "GRAPHS-2015": ("runtime", 5725, 8, 1689346, 6127229, 6763210),
    "MAXSAT-PMS-2016": ("par10", 601, 20, 1019, 1469, 1305),
    "PROTEUS-2014": ("runtime", 4021, 23, 293, 648, 1125),
    "SAT11-INDU": ("runtime", 300, 19, 882, 826, 855),
}


def _airt_summary(perf: pd.DataFrame) -> dict:
    start = time.perf_counter()
    result = fit_airt(perf)
    algorithms = result.algorithms
    return {
        "seconds": time.perf_counter() - start,
        "converged": bool(result.fit.converged),
        "anomalous": algorithms.loc[algorithms["anomalous"], "algorithm"].tolist(),
        "consistency": (algorithms["consistency"].min(), algorithms["consistency"].max()),
        "difficulty_limit": (algorithms["difficulty_limit"].min(), algorithms["difficulty_limit"].max()),
        "A(0)": result.portfolio(0.0),
        "A(0.05)": result.portfolio(0.05),
        "mean_mse": float(result.goodness["mse"].mean()),
    }


def _grm_summary(perf: pd.DataFrame) -> dict:
    start = time.perf_counter()
    levels = bin_performance(perf, n_levels=5)
    fit = fit_grm(levels)
    items = fit.items
    return {
        "seconds": time.perf_counter() - start,
        "levels": len(levels.attrs["cut_points"]) - 1,
        "converged": fit.converged,
        "anomalous": items.index[items["anomalous"]].tolist(),
        "most_stable": items["stability"].idxmax(),
        "skipped": sorted(fit.skipped),
    }


def run_scenario(folder: Path, args) -> dict:
    row = {"scenario": folder.name}
    start = time.perf_counter()
    try:
        scenario = load_aslib(folder, par_factor=args.par_factor)
    except BenchirtError as exc:
        row["error"] = str(exc)
        print(f"\n== {folder.name}: unavailable — {exc}")
        return row
    load_seconds = time.perf_counter() - start
    perf = scenario.performance
    print(f"\n== {scenario.name}: {perf.shape[0]} instances x {perf.shape[1]} algorithms, measure "
          f"{scenario.measure}, cutoff {scenario.cutoff:g} s, read in {load_seconds:.1f} s")
    for note in scenario.notes:
        print(f"   note: {note}")
    penalised = not scenario.maximize and scenario.cutoff is not None
    label = f"{scenario.measure}, failed = PAR{args.par_factor:g}" if penalised else scenario.measure
    row.update(measure=label, n_obs=perf.shape[0], n_algorithms=perf.shape[1])

    try:
        airt = _airt_summary(perf)
        print(f"   continuous AIRT ({airt['seconds']:.1f} s, converged={airt['converged']}): "
              f"{len(airt['anomalous'])} anomalous {airt['anomalous']}; consistency "
              f"{airt['consistency'][0]:.3f}..{airt['consistency'][1]:.3f}; difficulty limit "
              f"{airt['difficulty_limit'][0]:.2f}..{airt['difficulty_limit'][1]:.2f}; mean MSE {airt['mean_mse']:.4f}")
        print(f"   |A(0)| = {len(airt['A(0)'])} {airt['A(0)']}")
        print(f"   |A(0.05)| = {len(airt['A(0.05)'])}")
        row["airt_anomalous"] = len(airt["anomalous"])
    except BenchirtError as exc:
        print(f"   continuous AIRT failed: {exc}")
        row["airt_anomalous"] = None

    try:
        grm = _grm_summary(perf)
        print(f"   polytomous GRM ({grm['seconds']:.1f} s, {grm['levels']} levels, converged={grm['converged']}): "
              f"{len(grm['anomalous'])} anomalous {grm['anomalous']}; most stable {grm['most_stable']}; "
              f"skipped {grm['skipped']}")
        row["grm_anomalous"] = len(grm["anomalous"])
    except BenchirtError as exc:
        print(f"   polytomous GRM failed: {exc}")

    start = time.perf_counter()
    selectors = {f"airt(eps={eps:g})": airt_selector(eps) for eps in args.epsilons}
    selectors.update(shapley=shapley_ranking, topset=topset_ranking)
    comparison = compare_portfolios(perf, selectors=selectors, folds=scenario.folds,
                                    raw=scenario.raw_performance, maximize=scenario.maximize)
    seconds = time.perf_counter() - start
    print(f"   portfolio comparison, {scenario.folds.nunique() if scenario.folds is not None else 10}-fold CV "
          f"({seconds:.1f} s); MPG ± SE in {scenario.measure} units (and on [0, 1]):")
    summary = comparison.summary
    for n in sorted(summary["n"].unique()):
        cells = []
        for method in comparison.methods:
            part = summary[(summary["method"] == method) & (summary["n"] == n)]
            cells.append(f"{method} {part['raw_mpg'].item():10.1f} ± {part['raw_se'].item():8.1f} "
                         f"({part['mpg'].item():.4f})" if len(part) else f"{method} {'n/a':>10}")
        print(f"   n={n:2d}  " + " | ".join(cells))
    if len(comparison.failures):
        for _, failure in comparison.failures.iterrows():
            print(f"   fold {failure['fold']}: {failure['method']} failed: {failure['error']}")
    table = comparison.table(args.n)
    scaled = comparison.table(args.n, raw=False)
    row["methods"] = comparison.methods
    for method in comparison.methods:
        row[f"{method}_mpg"] = table.get(method)
        row[f"{method}_mpg01"] = scaled.get(method)
    row["seconds"] = seconds
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        comparison.summary.to_csv(out / f"{scenario.name}_portfolio_summary.csv", index=False)
        comparison.per_fold.to_csv(out / f"{scenario.name}_portfolio_folds.csv", index=False)
    return row


def _cell(value, digits=1):
    if value is None or pd.isna(value):
        return "n/a"
    return f"{value:.{digits}f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "aslib"))
    parser.add_argument("--par-factor", type=float, default=10.0, help="PAR-k penalty of failed runs (default 10)")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.0, 0.05],
                        help="epsilons of the airt portfolios A(eps) to compare (default 0 0.05)")
    parser.add_argument("--n", type=int, default=5, help="portfolio size of the Table 6 row (default 5)")
    parser.add_argument("--out", help="folder for the per-scenario CSV results")
    parser.add_argument("--scenarios", nargs="*", default=list(SCENARIOS))
    args = parser.parse_args(argv)
    root = Path(args.data)
    if not root.is_dir():
        print(f"ASlib data not found at {root}; pass --data", file=sys.stderr)
        return 2
    start = time.perf_counter()
    rows = [run_scenario(root / name, args) for name in args.scenarios]
    total = time.perf_counter() - start

    print(f"\nTable 6 form — mean performance gap (MPG) of portfolios of {args.n} algorithms, 10-fold CV "
          f"(cv.arff folds), failed runs = PAR{args.par_factor:g}; benchirt value [paper value]; "
          "MPG on [0, 1] in parentheses")
    airt_names = [f"airt(eps={eps:g})" for eps in args.epsilons]
    print("| Scenario | Measurement | Num. Obs. | Num. Algorithms | "
          + " | ".join(f"{name} MPG" for name in airt_names) + " | Shapley MPG | topset MPG |")
    print("|" + "---|" * (6 + len(airt_names)))
    for row in rows:
        paper = PAPER_TABLE6.get(row["scenario"])
        if "error" in row:
            cells = ([f"[{paper[0]}]", f"n/a [{paper[1]}]", f"n/a [{paper[2]}]"]
                     + [f"n/a [{paper[3]}]"] * len(airt_names) + [f"n/a [{paper[4]}]", f"n/a [{paper[5]}]"]
                     if paper else ["unavailable"] * (5 + len(airt_names)))
            print(f"| {row['scenario']} (unavailable, see above) | " + " | ".join(cells) + " |")
            continue
        paper_mpg = dict(zip(airt_names + ["shapley", "topset"],
                             [paper[3]] * len(airt_names) + [paper[4], paper[5]])) if paper else {}
        mpg = [f"{_cell(row.get(f'{m}_mpg'))} ({_cell(row.get(f'{m}_mpg01'), 4)})"
               + (f" [{paper_mpg[m]}]" if paper else "")
               for m in airt_names + ["shapley", "topset"]]
        measure = row["measure"]
        print(f"| {row['scenario']} | {measure}{f' [{paper[0]}]' if paper else ''} | {row['n_obs']}"
              f"{f' [{paper[1]}]' if paper else ''} | {row['n_algorithms']}{f' [{paper[2]}]' if paper else ''} | "
              + " | ".join(mpg) + " |")
    print(f"\ntotal {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

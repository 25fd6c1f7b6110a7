"""AIRT (Kandanaarachchi & Smith-Miles 2023) on the ASlib scenarios of the paper, one pipeline run per scenario, compared.

Each scenario is an ``airt`` stage run of :func:`benchirt.pipeline.run_pipeline` in its own run
directory (cached: a rerun only reads the results back), followed by its report; the study then puts
the scenarios side by side: instances, algorithms, anomalous algorithms, the portfolio A(0.05) and the
worst-fitting algorithm.

    python -m pipelines.airt_study --aslib ../shared/data/aslib --out runs/airt-study
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from benchirt.errors import DataError
from benchirt.pipeline import load_config, load_run, run_pipeline

#: The scenarios Kandanaarachchi & Smith-Miles 2023 analyses (§5.2) that the offline data folder holds.
SCENARIOS = ("ASP-POTASSCO", "SAT11-INDU", "GRAPHS-2015", "MAXSAT-PMS-2016", "PROTEUS-2014")


def study(aslib_root: str | Path, out: str | Path = "runs/airt-study", scenarios=SCENARIOS,
          show_progress: bool = True) -> pd.DataFrame:
    """Run AIRT on every scenario found under ``aslib_root``; one row per scenario."""
    aslib_root, out = Path(aslib_root), Path(out)
    found = [name for name in scenarios if (aslib_root / name).is_dir()]
    if not found:
        raise DataError(f"no ASlib scenario of {', '.join(scenarios)} under {aslib_root}; give the folder that "
                        "holds them (e.g. ../shared/data/aslib)")
    rows = []
    for name in found:
        config = load_config({"stages": ["airt", "report"], "airt": {"input": "aslib", "aslib": str((aslib_root / name).resolve())},
                              "report": {"title": f"AIRT on ASlib {name}"}})
        outcome = run_pipeline(config, out=out / name, show_progress=show_progress)
        result = load_run(outcome.run_dir).airt
        if result is None:
            rows.append({"scenario": name, "status": "skipped", "reason": outcome.manifest["artifacts"]["airt"].get("reason")})
            continue
        worst = result.goodness.sort_values("aucdf").iloc[0]
        rows.append({
            "scenario": name, "status": "ok", "instances": len(result.datasets), "algorithms": len(result.algorithms),
            "anomalous": ", ".join(result.algorithms.loc[result.algorithms["anomalous"], "algorithm"]) or "-",
            "portfolio_0.05": _shorten(result.portfolio(0.05)),
            "worst_fit": f"{worst['algorithm']} (AUCDF {worst['aucdf']:.2f})",
            "report": str(outcome.run_dir / "report.html"),
        })
    table = pd.DataFrame(rows)
    if "instances" in table:
        table[["instances", "algorithms"]] = table[["instances", "algorithms"]].astype("Int64")
    return table


def _shorten(names: list[str], keep: int = 4) -> str:
    """The first ``keep`` names of a portfolio and how many more it holds."""
    return ", ".join(names[:keep]) + (f" (+{len(names) - keep} more)" if len(names) > keep else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--aslib", default="../shared/data/aslib", help="folder holding the ASlib scenarios")
    parser.add_argument("--out", default="runs/airt-study")
    args = parser.parse_args(argv)
    table = study(args.aslib, args.out)
    with pd.option_context("display.width", 250, "display.max_colwidth", 70):
        print(table.drop(columns=["report", "reason"], errors="ignore").astype(object).fillna("").to_string(index=False))
    for _, row in table[table["status"] != "ok"].iterrows():
        print(f"{row['scenario']}: {row['reason']}")
    print("reports:", *table.get("report", pd.Series(dtype=str)).dropna(), sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The decodIRT study (Cardoso et al. 2021) on OpenML-CC18, as one function.

Steps, all through :func:`benchirt.pipeline.run_pipeline` (so every result is cached and a killed
study resumes): responses of decodIRT's pool on each dataset (§4.3), a 3PL per dataset (§4.4), the
dataset rankings by difficulty and discrimination (§4.5, Table 2-3), Glicko-2 on True-Scores with
order robustness and Friedman/Nemenyi (§4.7, §5.3, Table 4), the 30/50/70 % subsets and their
fidelity (§4.6, §5.4-5.6, Tables 5-9), AIRT on the accuracy matrix, and the report.

    python -m pipelines.decodirt_cc18                   # offline mirror: configs/cc18-offline.yaml
    python -m pipelines.decodirt_cc18 --online          # the 72 datasets from OpenML: configs/cc18.yaml
    python -m pipelines.decodirt_cc18 --scheduler tcp://host:8786 --out runs/cc18
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

from benchirt.pipeline import load_config, load_run, run_pipeline
from benchirt.pipeline.config import ExecutionConfig

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def study(online: bool = False, out: str | None = None, n_jobs: int | None = None, scheduler: str | None = None,
          force: bool = False, show_progress: bool = True):
    """Run (or resume) the study and return its :class:`~benchirt.pipeline.RunResults`."""
    config = load_config(CONFIGS / ("cc18.yaml" if online else "cc18-offline.yaml"))
    execution = {**config.execution.__dict__}
    if n_jobs is not None:
        execution["n_jobs"] = n_jobs
    if scheduler:
        execution["scheduler"] = scheduler
    config = replace(config, execution=ExecutionConfig.from_dict(execution))
    outcome = run_pipeline(config, out=out, force=force, show_progress=show_progress)
    return load_run(outcome.run_dir)


def headline(results) -> str:
    """The study's answers in a few tables: hardest datasets, classifier ranking, subset fidelity."""
    from benchirt.irt import dataset_rankings, summaries_frame

    parts = []
    if results.irt:
        rankings = dataset_rankings(summaries_frame(list(results.irt.values())))
        parts += ["Most difficult datasets (Cardoso et al. 2021 Table 2):", rankings.head(10).round(1).to_string(), ""]
    if results.rate is not None:
        table = results.rate.ratings[["classifier", "rating", "rd", "rank", "orders_rank_min", "orders_rank_max"]]
        parts += ["Glicko-2 ranking (Cardoso et al. 2021 Table 4):", table.round(1).to_string(index=False), ""]
    if results.subset is not None:
        parts += ["Subsets (Cardoso et al. 2021 §5.4):", results.subset.fidelity.round(3).to_string(index=False), "",
                  results.subset.innate_verdict]
    if results.skipped:
        skipped = pd.Series({name: "; ".join(v) for name, v in results.skipped.items()}, name="reason")
        parts += ["", "Skipped datasets:", skipped.to_string()]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--online", action="store_true", help="OpenML-CC18 from OpenML instead of the offline mirror")
    parser.add_argument("--out", help="run directory (default: the config's)")
    parser.add_argument("--n-jobs", type=int)
    parser.add_argument("--scheduler", help="Dask scheduler address")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    results = study(args.online, args.out, args.n_jobs, args.scheduler, args.force)
    print(headline(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

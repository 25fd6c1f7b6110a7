"""Coverage of benchirt's intervals on simulated data: IRT item parameters, EAP θ, Glicko-2 RD.

The bigger version of ``tests/test_interval_coverage.py`` (same functions,
``benchmarks/coverage_simulation.py``): per interval kind the number of intervals, the share that covers the
true value (with its binomial standard error) and the mean width, at ``--level``.

- IRT (Bock & Aitkin 1981 EM, ``estimate ± z·SE``): 2PL and 3PL matrices drawn from known parameters
  (:func:`benchirt.irt.simulate.simulate_responses`), fitted with the model's default options;
  θ: each simulated respondent's EAP ± z·posterior SD on the fitted items.
- Glicko-2 (Glickman 2012, R ± z·RD) after round robins of ``k`` players over ``periods`` periods, true
  ratings of mean 1500 and SD 200: with independent games (Glicko's model) and with one score per
  player and period deciding every pair (benchirt's tournament on per-dataset scores).
- ``--weighted``: only Glicko-2 in fields of 10, 50 and 200 players over 20 periods decided by scores, every
  game counted against the games of a period weighted 1/(opponents) — what the tournament plays when the
  former diverges (:mod:`benchirt.rating.batch`).

Usage::

    nice -n 10 .venv/bin/python benchmarks/interval_coverage.py              # about a minute
    nice -n 10 .venv/bin/python benchmarks/interval_coverage.py --replicates 10 --level 0.9
    nice -n 10 .venv/bin/python benchmarks/interval_coverage.py --weighted           # seconds
"""
from __future__ import annotations

import argparse
import time

import pandas as pd

from coverage_simulation import coverage_table, glicko_coverage, irt_coverage  # beside this script


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=40, help="IRT fits per setting (default 40)")
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weighted", action="store_true",
                        help="only Glicko-2 in large fields: every game counted against games weighted per period")
    args = parser.parse_args()
    report(weighted_settings(args) if args.weighted else settings_of(args), args.level)


def weighted_settings(args) -> list:
    """Glicko-2 on 10, 50 and 200 players (2,000 or more intervals each), scores deciding every pair of a period."""
    return [(f"Glicko-2, {k} players x 20 periods, scores, {'weighted per period' if weighted else 'every game'}",
             lambda k=k, weighted=weighted: glicko_coverage(k, 20, max(20, 2000 // k), level=args.level,
                                                             outcomes="scores", seed=args.seed, weighted=weighted))
            for k in (10, 50, 200) for weighted in (False, True)]


def settings_of(args) -> list:
    """The default settings: IRT and Glicko-2 (module docstring)."""
    settings = [
        ("IRT 2PL, 500 respondents x 40 items", lambda: irt_coverage("2PL", 500, 40, args.replicates, args.level,
                                                                     args.seed)),
        ("IRT 2PL, 200 respondents x 40 items", lambda: irt_coverage("2PL", 200, 40, args.replicates, args.level,
                                                                     args.seed)),
        ("IRT 3PL, 1000 respondents x 40 items", lambda: irt_coverage("3PL", 1000, 40, args.replicates // 2,
                                                                      args.level, args.seed)),
    ]
    for k, periods in ((10, 5), (10, 20), (20, 50)):
        for outcomes in ("independent", "scores"):
            settings.append((f"Glicko-2, {k} players x {periods} periods, {outcomes}",
                             lambda k=k, periods=periods, outcomes=outcomes: glicko_coverage(
                                 k, periods, 500, level=args.level, outcomes=outcomes, seed=args.seed)))
    return settings


def report(settings: list, level: float) -> None:
    """Run each setting and print its coverage per kind, then the whole table."""
    import warnings

    rows = []
    for name, run in settings:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # the overflow of a diverging tournament
            table = coverage_table(run())
        rows.append(table.assign(setting=name, seconds=round(time.perf_counter() - start, 1)))
        print(f"{name}: " + ", ".join(f"{kind} {cov:.3f} (n={n})" for kind, cov, n in
                                      zip(table["kind"], table["coverage"], table["n_intervals"])), flush=True)
    result = pd.concat(rows, ignore_index=True)[["setting", "kind", "n_intervals", "coverage", "se", "mean_width",
                                                 "seconds"]]
    print(f"\ncoverage of the {level:.0%} intervals")
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(result.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()

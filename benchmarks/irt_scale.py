"""The IRT stage at the field's scale: time and peak memory per phase (issue 23, item 2).

Stored OpenML runs bring hundreds to thousands of respondents x every row of a dataset as items.
For each shape (default 1000 x 20,000 and 4000 x 5000) a simulated 3PL matrix (10 % negative
discriminations, int8 as the response stage stores it) goes through the phases of
:func:`benchirt.irt.irt_for_responses` one by one, in a fresh process per shape:

``fit``        :func:`benchirt.irt.fit_irt` (the EM, default starts)
``abilities``  :meth:`IRTFit.ability_table` of every respondent (EAP, θ, SE, True-Score)
``item_fit``   :func:`benchirt.irt.item_fit` (infit/outfit)
``suspects``   :func:`benchirt.irt.suspect_labels` and :func:`benchirt.irt.item_summary`
``stage``      :func:`benchirt.irt.irt_for_responses` as the pipeline runs it (model comparison off:
               that is the EM's cost three times over, measured by ``benchmarks/irt_fit.py``)

Each phase prints its wall time and its peak memory above what was allocated when it started
(``tracemalloc``: every numpy allocation, the input matrix excluded), in bytes per response cell,
and the stage also its peak resident memory above the process's resident memory before it started
(``ru_maxrss`` of the process that runs only the stage). The issue's goal: at most 25 bytes per
cell for every phase.

``--csv`` also writes the matrix as a CSV and times ``benchirt irt`` reading it (header of one
name per item) — the sniffing and parsing of a wide header.

    nice -n 10 python benchmarks/irt_scale.py                       # both shapes (~3-5 min on 2 cores)
    python benchmarks/irt_scale.py --shapes 500x4000 --csv           # a quick look
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

DEFAULT_SHAPES = ("1000x20000", "4000x5000")


def _phases(n: int, m: int, stage_only: bool) -> dict:
    """Run the phases on an n x m matrix in this process; one dict of measurements."""
    import tracemalloc

    import numpy as np

    from benchirt.irt import IRTConfig, fit_irt, irt_for_responses, item_fit, item_summary, suspect_labels
    from benchirt.irt.simulate import simulate_responses

    responses = simulate_responses(n, m, model="3PL", negative_fraction=0.1, seed=0).responses
    config = IRTConfig(compare_models=False)
    cells = n * m
    out: dict = {"shape": f"{n} x {m}", "cells": cells}
    if stage_only:
        roles = _roles(responses)
        rss_before = _rss_now()
        start = time.perf_counter()
        irt_for_responses(_Result(responses, roles), config)
        out["stage"] = {"seconds": time.perf_counter() - start,
                        "rss_bytes_per_cell": (_peak_rss() - rss_before) / cells}
        return out
    tracemalloc.start()

    def measure(name, work):
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        start = time.perf_counter()
        value = work()
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] - base
        out[name] = {"seconds": seconds, "traced_bytes_per_cell": peak / cells}
        return value

    fit = measure("fit", lambda: fit_irt(responses, config))
    out["fit"]["n_iter"] = fit.n_iter
    table = measure("abilities", lambda: fit.ability_table(responses))
    measure("item_fit", lambda: item_fit(fit, responses, theta=table["theta"].to_numpy()))
    measure("suspects", lambda: (suspect_labels(fit.items, config.suspect_discrimination), item_summary(fit.items)))
    measure("stage", lambda: irt_for_responses(_Result(responses, _roles(responses)), config))
    tracemalloc.stop()
    out["n_flagged"] = int((~fit.informative).sum())
    del np
    return out


class _Result:
    """The parts of a ResponseResult the IRT stage reads."""

    def __init__(self, responses, roles):
        self.dataset, self.responses, self.roles, self.predictions = "simulated", responses, roles, None


def _roles(responses):
    import pandas as pd

    return pd.Series("real", index=responses.index)


def _rss_now() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _csv_read(n: int, m: int) -> dict:
    """Write the matrix as CSV and time ``benchirt irt``'s reader on it."""
    from benchirt.irt.matrix_file import read_responses_csv
    from benchirt.irt.simulate import simulate_responses

    responses = simulate_responses(n, m, model="2PL", seed=1).responses
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "responses.csv")
        responses.rename_axis("respondent").reset_index().to_csv(path, index=False)
        with open(path, "rb") as handle:
            header = len(handle.readline())
        start = time.perf_counter()
        frame = read_responses_csv(path)
        seconds = time.perf_counter() - start
    assert frame.shape == (n, m)
    return {"csv_header_bytes": header, "csv_read_seconds": seconds}


def _child(argv: list[str]) -> dict:
    done = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", nargs="+", default=list(DEFAULT_SHAPES), metavar="NxM")
    parser.add_argument("--csv", action="store_true", help="also time reading the matrix as a CSV")
    parser.add_argument("--child", choices=("phases", "stage", "csv"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n, m = (int(v) for v in args.shapes[0].split("x"))
        work = {"phases": lambda: _phases(n, m, False), "stage": lambda: _phases(n, m, True),
                "csv": lambda: _csv_read(n, m)}[args.child]
        print(json.dumps(work()))
        return
    print("IRT stage per phase: wall seconds and peak memory above the phase's start, bytes per response cell "
          "(tracemalloc; 'stage RSS': peak resident memory of a process running only the stage, above its "
          "resident memory before the stage); 3PL, 10 % negative items, model comparison off")
    for shape in args.shapes:
        phases = _child(["--child", "phases", "--shapes", shape])
        stage = _child(["--child", "stage", "--shapes", shape])["stage"]
        print(f"\n{phases['shape']} ({phases['cells']:,} cells; {phases['fit']['n_iter']} EM steps; "
              f"{phases['n_flagged']} items without information)")
        print(f"  {'phase':<10} {'seconds':>9} {'B/cell':>8}")
        for name in ("fit", "abilities", "item_fit", "suspects", "stage"):
            print(f"  {name:<10} {phases[name]['seconds']:>9.2f} {phases[name]['traced_bytes_per_cell']:>8.1f}")
        print(f"  stage RSS  {stage['seconds']:>9.2f} {stage['rss_bytes_per_cell']:>8.1f}")
        if args.csv:
            read = _child(["--child", "csv", "--shapes", shape])
            print(f"  CSV with a {read['csv_header_bytes']:,}-byte header read in {read['csv_read_seconds']:.2f} s")


if __name__ == "__main__":
    main()

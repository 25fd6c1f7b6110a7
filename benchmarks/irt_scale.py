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
(``VmHWM`` of a process that runs only the stage, reset after simulating the matrix). The issue's goal: at most 25 bytes per
cell for every phase.

``--models`` instead times each model alone at each shape (CPU seconds, EM steps, default start search) — the 1PL,
2PL and 3PL — and the model comparison the stage runs by default (:func:`benchirt.irt.compare.compare_models`
reusing the 3PL: the 2PL and 1PL from the nested solutions), as CPU over the 3PL alone (issue 23: the 1PL no
slower than the 2PL, the comparison at most 1.5x the 3PL alone).

``--csv`` also writes the matrix as a CSV and times ``benchirt irt``'s reader on it (header of one
name per item) — the sniffing and parsing of a wide header.

``--constant-items`` fits decodIRT's wilt pool (``../shared/data/decodirt-reference/wilt``, many items
every classifier answers right or wrong) and applies eq. 1 to every row of its item table, as
anyone scoring from ``items.csv`` would: the log-likelihood those rows add (0 when they reproduce
P = 1 / 0) and the mean True-Score shift, with the reported values and with the former stand-ins
``a = 0, b = -/+6, c = 0``.

    nice -n 10 python benchmarks/irt_scale.py --csv                 # both shapes (~5-10 min on 2 cores)
    python benchmarks/irt_scale.py --shapes 500x4000 --csv           # a quick look
    python benchmarks/irt_scale.py --shapes --constant-items         # the items.csv check on wilt only
    nice -n 10 python benchmarks/irt_scale.py --models               # each model alone, the model comparison
    cd /tmp && PYTHONPATH=<git archive of REV> python …/benchmarks/irt_scale.py --models   # the same for revision REV
"""
from __future__ import annotations

import argparse
import json
import os
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

    responses = simulate_responses(n, n_items=m, model="3PL", negative_fraction=0.1, seed=0).responses
    config = IRTConfig(compare_models=False)
    cells = n * m
    out: dict = {"shape": f"{n} x {m}", "cells": cells}
    if stage_only:
        roles = _roles(responses)
        rss_before = _reset_peak_rss()
        start = time.perf_counter()
        irt_for_responses(_Result(responses, roles), config=config)
        out["stage"] = {"seconds": time.perf_counter() - start,
                        "rss_bytes_per_cell": (_status_bytes("VmHWM") - rss_before) / cells}
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

    fit = measure("fit", lambda: fit_irt(responses, config=config))
    out["fit"]["n_iter"] = fit.n_iter
    table = measure("abilities", lambda: fit.ability_table(responses))
    measure("item_fit", lambda: item_fit(fit, responses, theta=table["theta"].to_numpy()))
    measure("suspects", lambda: (suspect_labels(fit, responses, table["theta"].to_numpy()), item_summary(fit.items)))
    measure("stage", lambda: irt_for_responses(_Result(responses, _roles(responses)), config=config))
    tracemalloc.stop()
    out["n_flagged"] = int((~fit.informative).sum())
    del np
    return out


def _models(n: int, m: int) -> dict:
    """CPU seconds and EM steps of the 1PL, 2PL and 3PL fitted alone (default starts) and of the model
    comparison reusing the 3PL, on the simulated n x m matrix."""
    from benchirt.irt import IRTConfig, fit_irt
    from benchirt.irt.compare import compare_models
    from benchirt.irt.simulate import simulate_responses

    responses = simulate_responses(n, n_items=m, model="3PL", negative_fraction=0.1, seed=0).responses
    out: dict = {"shape": f"{n} x {m}"}
    fits = {}
    for model in ("3PL", "2PL", "1PL"):
        cpu = time.process_time()
        fits[model] = fit_irt(responses, config=IRTConfig(model=model))
        out[model] = {"cpu": time.process_time() - cpu, "n_iter": fits[model].n_iter,
                      "starts": len(fits[model].starts["runs"])}
    cpu = time.process_time()
    table = compare_models(responses, config=IRTConfig(), fitted=fits["3PL"]).set_index("model")
    # (revisions before issue 23 have no "start" column: every model searched)
    out["compare"] = {"cpu": time.process_time() - cpu,
                      "starts": table["start"].to_dict() if "start" in table else "search for every model",
                      "loglik_minus_alone": {model: float(table.loc[model, "log_likelihood"]
                                                          - fits[model].log_likelihood) for model in ("1PL", "2PL")}}
    return out


class _Result:
    """The parts of a ResponseResult the IRT stage reads."""

    def __init__(self, responses, roles):
        self.dataset, self.responses, self.roles, self.predictions = "simulated", responses, roles, None


def _roles(responses):
    import pandas as pd

    return pd.Series("real", index=responses.index)


def _status_bytes(field: str) -> int:
    """``VmRSS`` / ``VmHWM`` (peak) of this process from ``/proc/self/status``, in bytes."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak_rss() -> int:
    """Forget the peak resident memory so far (simulating the matrix); the resident memory now."""
    import gc

    gc.collect()
    with open("/proc/self/clear_refs", "w") as handle:  # "5" resets VmHWM (Linux >= 4.0)
        handle.write("5")
    return _status_bytes("VmRSS")


def _csv_read(n: int, m: int) -> dict:
    """Write the matrix as CSV and time ``benchirt irt``'s reader on it."""
    from benchirt.irt.matrix_file import read_responses_csv
    from benchirt.irt.simulate import simulate_responses

    responses = simulate_responses(n, n_items=m, model="2PL", seed=1).responses
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


def _constant_items() -> None:
    """Eq. 1 on every row of wilt's item table: what the rows of items without information add."""
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from benchirt.irt import IRTConfig, fit_irt
    from benchirt.irt.models import marginal_log_likelihood, probability, quadrature

    source = Path(__file__).resolve().parents[2] / "shared" / "data" / "decodirt-reference" / "wilt" / "responses_pool.csv"
    if not source.is_file():
        print(f"\n--constant-items: {source} not found; skipped")
        return
    responses = pd.read_csv(source)
    config = IRTConfig()
    fit = fit_irt(responses, config=config)
    items, informative = fit.items, fit.informative
    nodes, log_w = quadrature(fit.quadrature_nodes, config.theta_max)  # the fit's grid
    u = responses[list(items.index)].to_numpy(float)
    theta = fit.abilities(responses).to_numpy()
    params = {"reported": items[["discrimination", "difficulty", "guessing"]].to_numpy(float).T}
    old = params["reported"].copy()
    old[0, ~informative], old[2, ~informative] = 0.0, 0.0
    old[1, ~informative] = np.where(items["flag"][~informative] == "all_correct", -config.max_difficulty,
                                    config.max_difficulty)
    params["former a = 0, b = -/+6"] = old
    exact = marginal_log_likelihood(u[:, informative], *params["reported"][:, informative], nodes, log_w)
    exact_score = fit.true_score(theta)
    print(f"\nwilt ({responses.shape[0]} x {responses.shape[1]}, {int((~informative).sum())} items without "
          f"information): eq. 1 on every row of items.csv")
    for name, (a, b, c) in params.items():
        added = marginal_log_likelihood(u, a, b, c, nodes, log_w) - exact
        shift = np.abs(probability(theta, a, b, c).sum(axis=1) - exact_score).mean()
        print(f"  {name:<24} log-likelihood added by those rows {added:>12.2f}; mean |True-Score shift| {shift:.2e}")


def _child(argv: list[str]) -> dict:
    done = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", nargs="*", default=list(DEFAULT_SHAPES), metavar="NxM")
    parser.add_argument("--csv", action="store_true", help="also time reading the matrix as a CSV")
    parser.add_argument("--models", action="store_true",
                        help="instead of the phases: each model alone and the model comparison, CPU seconds")
    parser.add_argument("--constant-items", action="store_true", help="the items.csv check on wilt's pool")
    parser.add_argument("--child", choices=("phases", "stage", "csv", "models"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n, m = (int(v) for v in args.shapes[0].split("x"))
        work = {"phases": lambda: _phases(n, m, False), "stage": lambda: _phases(n, m, True),
                "csv": lambda: _csv_read(n, m), "models": lambda: _models(n, m)}[args.child]
        print(json.dumps(work()))
        return
    if args.models:
        for shape in args.shapes:
            models = _child(["--child", "models", "--shapes", shape])
            print(f"\n{models['shape']}: CPU seconds (EM steps of the reported start, starts climbed), default starts")
            for model in ("1PL", "2PL", "3PL"):
                fit = models[model]
                print(f"  {model} alone {fit['cpu']:>9.1f} s ({fit['n_iter']} steps, {fit['starts']} starts)")
            compare, alone = models["compare"], models["3PL"]["cpu"]
            ratio = (alone + compare["cpu"]) / alone
            print(f"  model comparison reusing the 3PL: {compare['cpu']:.1f} s more, {ratio:.2f}x "
                  f"the 3PL alone (starts: {compare['starts']}; log-likelihood minus the model fitted alone: "
                  + ", ".join(f"{k} {v:+.3f}" for k, v in compare["loglik_minus_alone"].items()) + ")")
        return
    if args.shapes:
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
    if args.constant_items:
        _constant_items()


if __name__ == "__main__":
    main()

"""benchirt's IRT estimator beside PyPI ``mirt`` (benchmark-only extra) and decodIRT's ltm output.

Part 1 — simulated 3PL matrices with known parameters (decodIRT's 132 x 500 and bigger, with and
without negatively discriminating items): wall time and recovery (correlation, RMSE) of a, b, c, θ.
Part 2 — the 50 decodIRT reference pools (``../shared/data/decodirt-reference/*/responses_pool.csv``):
convergence, wall time, range of the estimates, agreement with ltm's difficulty on the items where
ltm is not degenerate (|a| < 10 and |b| < 10 in ltm's output), how many of ltm's negative
discriminations stay negative, and the rank correlation of the 19 reported classifiers' True-Scores
with decodIRT's.

ltm sometimes returns the mirror solution (θ -> -θ: almost every a negative, e.g. churn): where the
signs of ltm's a disagree with the signs of the classical item-rest correlations on most items, the
table marks the pool "ltm_flip" and compares against (-a, -b). ``sign_agree`` / ``ltm_sign_agree``:
share of items with |item-rest correlation| > 0.2 whose a has the same sign as that correlation.

Part 3 (``--part scale``) — the scaling table of issue 14: simulated 3PL (10 % negative a) at
132 x {500, 2000, 8000} and {1000, 5000} x 500, benchirt and mirt side by side in one process
(each warmed up first on a small matrix, BLAS limited to one thread as benchirt uses), printing CPU
seconds, peak traced memory per response cell (``tracemalloc``, in a second, untimed call: every
numpy allocation during the fit, input excluded) and the ratios benchirt / mirt. ``--baseline REF``
adds the benchirt of git revision REF (its ``benchirt`` package extracted with ``git archive``, run in
a subprocess on the same matrix): ``cpu_vs_baseline``, ``memory_vs_baseline`` and how much higher
this version's log posterior is. ``--seed`` draws other matrices (default 11). The closing table prints both
CPU ratios, against mirt on its default 21 nodes (``cpu_ratio``) and on as many nodes as benchirt's grid
(``cpu_ratio_same_nodes``), with benchirt's EM steps per grid (``benchirt_grid_steps``, nodes:steps).
benchirt runs its default two EM starts; the
``1 start`` columns show the cost of one. ``cpu_per_step_ratio``: benchirt's CPU per EM step (one start)
over mirt's per EM cycle. ``gain_after_mirt_cycles``: how much benchirt's log posterior (one start) still
rose after as many EM steps as mirt took cycles — what stopping there would have left behind.
``loglik_benchirt_minus_mirt``: how much higher benchirt's
fit's marginal log-likelihood is, both evaluated on an equally spaced grid refined until two successive
refinements differ by less than 0.1 (``quadrature_nodes``, ``quadrature_accuracy``; :func:`accurate_log_likelihood`):
mirt stops after fewer EM cycles (log-likelihood change < 1e-4, 21 nodes) and keeps a >= 0.

Part 3b (``--part poolcost``) — the default fit (3PL items and the 1PL that scores) against mirt on the 50 reference
pools, per pool and in total: CPU seconds, mirt also on as many nodes as benchirt's grid, peak traced memory.

Part 4 (``--part optimum``) — the EM starts (issue 14, item 1): on simulated 2PL/3PL matrices with
θ, a, b ~ N(0, 1) (half the items negative; 1000 x 50, seeds 0-4) the fitted log-likelihood against
the one at the true parameters and the θ correlation (sign-aligned), and on the 50 reference pools
each start's final log posterior: how often the classical sum-score start, or the principal-component
start, ends in a worse optimum, and by how much.

Part 5 (``--part starts``) — the start strategy (issue 22, item 1): on the 50 reference pools and the embedded
suite's calibration matrices (built with the response stage), the default fit against a ``--deep``-start search
(20): how much higher the search's log posterior is (``gap``), CPU of each, the distinct optima each found, the
first starts that reached the default's best and how many starts reached the search's best. ``--jobs N`` fits N pools at a time.

Part 5b (``--part compare``) — the model comparison (issue 23): per pool, the CPU of the 1PL/2PL/3PL comparison
over the 3PL alone with nested starts (the default: 2PL from the 3PL's solution, 1PL from the 2PL's) and with a start
search for every model, and how far the nested fits' log-likelihoods end from the search's.

Part 6 (``--part priors``) — the reference pools with and without the priors: log-likelihood, items at a bound.

Part 7 (``--part quadrature``) — the calibration grid: one start on the scale matrices with the grid the estimator
refines to against fixed grids of 41, 31 and 21 nodes (nodes, how much a doubling still changes the log posterior,
CPU, change of the estimates, marginal log-likelihood on an accurate grid), and on the embedded suite's participation
matrix the marginal log posterior along a shift of every difficulty on 41, 81 and 161 nodes (the coarse grid's ripple).

Part 8 (``--part perturb``) — the stationarity test (issue 22, item 2) with its values: each embedded dataset fitted
with perturbed ``_MAX_STEP``, ``_M_STEPS`` and start order; the spread of the six log posteriors and the grids used.

Run:  .venv/bin/python benchmarks/irt_fit.py [--limit N] [--no-mirt]
      [--part sim|ref|scale|poolcost|optimum|starts|compare|priors|quadrature|perturb|both] [--baseline REF] [--deep K] [--jobs N]
"""
from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from benchirt.irt import IRTConfig, dataset_rankings, fit_irt, item_summary
from benchirt.irt.simulate import simulate_responses
from benchirt.irt.starts import item_rest_correlations

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "decodirt-reference"
SIM_CASES = [(132, 500, 0.0), (132, 500, 0.1), (500, 500, 0.1), (1000, 1000, 0.1)]


def fit_mirt(matrix: np.ndarray):
    """PyPI mirt's 3PL by EM; returns (seconds, cpu_seconds, a, b, c) or None without mirt."""
    try:
        import mirt
    except ImportError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start, cpu = time.perf_counter(), time.process_time()
        result = mirt.fit_mirt(matrix, model="3PL", compute_standard_errors=False, verbose=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    params = result.model.parameters
    return seconds, cpu, *(np.asarray(params[k], float).ravel() for k in ("discrimination", "difficulty", "guessing"))


def _corr(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _rmse(x, y) -> float:
    return float(np.sqrt(np.mean((np.asarray(x, float) - np.asarray(y, float)) ** 2)))


def simulated(use_mirt: bool) -> pd.DataFrame:
    rows = []
    for n, m, neg in SIM_CASES:
        sim = simulate_responses(n, n_items=m, model="3PL", negative_fraction=neg, seed=11)
        cpu = time.process_time()
        fit = fit_irt(sim.responses)
        cpu = time.process_time() - cpu
        items = fit.items
        theta = fit.abilities(sim.responses)
        row = {
            "matrix": f"sim 3PL neg={neg:.0%}",
            "n x m": f"{n}x{m}",
            "benchirt_s": fit.seconds,
            "benchirt_cpu_s": cpu,
            "converged": fit.converged,
            "corr_b": _corr(items["difficulty"], sim.b),
            "rmse_b": _rmse(items["difficulty"], sim.b),
            "corr_a": _corr(items["discrimination"], sim.a),
            "rmse_a": _rmse(items["discrimination"], sim.a),
            "corr_c": _corr(items["guessing"], sim.c),
            "corr_theta": _corr(theta, sim.theta),
            "rmse_theta": _rmse(theta, sim.theta),
            "rmse_c": _rmse(items["guessing"], sim.c),
            "neg_a_kept": float((items["discrimination"][sim.a < 0] < 0).mean()) if neg else float("nan"),
        }
        other = fit_mirt(sim.responses.to_numpy()) if use_mirt else None
        if other is not None:
            seconds, mirt_cpu, a, b, c = other
            row.update(
                mirt_s=seconds,
                mirt_cpu_s=mirt_cpu,
                ratio=seconds / fit.seconds,
                mirt_corr_b=_corr(b, sim.b),
                mirt_rmse_b=_rmse(b, sim.b),
                mirt_corr_a=_corr(a, sim.a),
                mirt_neg_a_kept=float((a[sim.a < 0] < 0).mean()) if neg else float("nan"),
            )
        rows.append(row)
        print(_fmt(pd.DataFrame([row])), flush=True)
    return pd.DataFrame(rows)


SCALE_SIZES = [(132, 500), (132, 2000), (132, 8000), (1000, 500), (5000, 500)]
#: ``--part scale``'s closing table: both CPU ratios against mirt and the EM steps per grid.
BOTH_RATIOS = ["n x m", "benchirt_cpu_s", "benchirt_nodes", "benchirt_grid_steps", "mirt_cpu_s", "cpu_ratio",
               "mirt_same_nodes_cpu_s", "cpu_ratio_same_nodes", "cpu_vs_baseline", "log_posterior_minus_baseline"]


def _measure(fn) -> tuple[float, int]:
    """CPU seconds of ``fn()`` and peak traced bytes of a second call. Two calls: tracing costs every
    allocation time (the more so the more small arrays a fit makes), so it must not be timed."""
    cpu = time.process_time()
    fn()
    cpu = time.process_time() - cpu
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return cpu, peak


#: Run in a subprocess on a baseline checkout: fit the matrix of ``argv[1]`` (.npy) as this
#: benchmark does (warmed up, one BLAS thread, timed untraced, memory traced in a second call).
_BASELINE_FIT = """
import json, sys, time, tracemalloc
import numpy as np
from threadpoolctl import threadpool_limits
from benchirt.irt import fit_irt
from benchirt.irt.simulate import simulate_responses
fit_irt(simulate_responses(60, n_items=40, model="3PL", seed=1).responses)
matrix = np.load(sys.argv[1])
with threadpool_limits(1, user_api="blas"):
    cpu = time.process_time()
    fit = fit_irt(matrix)
    cpu = time.process_time() - cpu
    tracemalloc.start()
    fit_irt(matrix)
    peak = tracemalloc.get_traced_memory()[1]
import benchirt
print(json.dumps({"cpu": cpu, "peak": peak, "log_posterior": fit.log_posterior, "package": benchirt.__file__,
                  "em_steps": "+".join(str(run["n_iter"]) for run in fit.starts["runs"])}))
"""


def baseline_checkout(ref: str, into: Path) -> Path:
    """The ``benchirt`` package of git revision ``ref`` (e.g. ``main``), extracted under ``into``."""
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", ref, "benchirt"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def baseline_fit(checkout: Path, matrix: np.ndarray, scratch: Path) -> dict:
    """CPU seconds, peak traced bytes and log posterior of the baseline's default fit of ``matrix``."""
    import json
    import os
    import subprocess
    import sys

    path = scratch / "matrix.npy"
    np.save(path, matrix)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    # run from the checkout: ``-c`` puts the working directory first on sys.path
    out = subprocess.run([sys.executable, "-c", _BASELINE_FIT, str(path)], env=env, cwd=checkout, check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    if not Path(result["package"]).resolve().is_relative_to(checkout.resolve()):
        raise RuntimeError(f"the baseline ran {result['package']}, not the checkout in {checkout}")
    return result


def scaling(use_mirt: bool, negative_fraction: float = 0.1, baseline: str | None = None,
            sizes: list[tuple[int, int]] = SCALE_SIZES, deep: int = 0, *, seed: int = 11) -> pd.DataFrame:
    import tempfile

    mirt = None
    if use_mirt:
        try:
            import mirt
        except ImportError:
            print("mirt is not installed (pip install -e '.[bench]'): benchirt only")
    fit_irt(simulate_responses(60, n_items=40, model="3PL", seed=1).responses)
    with tempfile.TemporaryDirectory(prefix="irt_fit_baseline_") as tmp:
        scratch = Path(tmp)
        checkout = baseline_checkout(baseline, scratch) if baseline else None
        rows = _scaling_rows(mirt, negative_fraction, checkout, scratch, sizes, deep, seed=seed)
    return pd.DataFrame(rows)


def _scaling_rows(mirt, negative_fraction: float, checkout: Path | None, scratch: Path,
                  sizes: list[tuple[int, int]], deep: int = 0, *, seed: int = 11) -> list[dict]:
    from threadpoolctl import threadpool_limits

    warm = simulate_responses(60, n_items=40, model="3PL", seed=1).responses
    rows = []
    with threadpool_limits(1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mirt is not None:
            mirt.fit_mirt(warm.to_numpy(), model="3PL", compute_standard_errors=False, verbose=False)
        for n, m in sizes:
            sim = simulate_responses(n, n_items=m, model="3PL", negative_fraction=negative_fraction, seed=seed)
            matrix = sim.responses.to_numpy()
            cells = n * m
            fits = []
            cpu, peak = _measure(lambda: fits.append(fit_irt(sim.responses)))
            ones = []
            cpu1, peak1 = _measure(lambda: ones.append(fit_irt(sim.responses, config=IRTConfig(starts=1))))
            nodes_used = fits[0].quadrature_nodes
            row = {"n x m": f"{n}x{m}", "benchirt_cpu_s": cpu, "benchirt_bytes_per_cell": peak / cells,
                   "benchirt_em_steps": "+".join(str(run["n_iter"]) for run in fits[0].starts["runs"]),
                   "benchirt_nodes": nodes_used,
                   "benchirt_grid_steps": "+".join(f"{g['nodes']}:{g['n_iter']}" for g in fits[0].grid_steps),
                   "1start_cpu_s": cpu1, "1start_bytes_per_cell": peak1 / cells}
            if deep:  # the default's optimum against a deeper search's (the monotone default climbs once)
                search = fit_irt(sim.responses, config=IRTConfig(starts=deep))
                row.update({f"search{deep}_minus_default": search.log_posterior - fits[0].log_posterior,
                            f"search{deep}_optima": len(search.starts["optima"])})
            if checkout is not None:
                base = baseline_fit(checkout, matrix, scratch)
                row.update(baseline_cpu_s=base["cpu"], baseline_bytes_per_cell=base["peak"] / cells,
                           baseline_em_steps=base["em_steps"],
                           cpu_vs_baseline=cpu / base["cpu"], memory_vs_baseline=peak / base["peak"],
                           log_posterior_minus_baseline=fits[0].log_posterior - base["log_posterior"])
            if mirt is not None:
                results = []
                mcpu, mpeak = _measure(lambda: results.append(mirt.fit_mirt(
                    matrix, model="3PL", compute_standard_errors=False, verbose=False)))
                params = results[0].model.parameters
                a, b, c = (np.asarray(params[k], float).ravel() for k in ("discrimination", "difficulty", "guessing"))
                items = fits[0].items
                # both fits' marginal log-likelihood on a grid refined until it is accurate: how far each got
                ours_ll, ours_err, nodes = accurate_log_likelihood(
                    matrix, items["discrimination"], items["difficulty"], items["guessing"])
                mirt_ll, mirt_err, _ = accurate_log_likelihood(matrix, a, b, c)
                gap = ours_ll - mirt_ll
                cycles = results[0].n_iterations
                row.update(quadrature_nodes=nodes, quadrature_accuracy=max(ours_err, mirt_err))
                # mirt on as many nodes as benchirt's grid (its default of 21 errs by tens of units here)
                mcpu_k, mpeak_k = _measure(lambda: mirt.fit_mirt(matrix, model="3PL", compute_standard_errors=False,
                                                                 verbose=False, n_quadpts=nodes_used))
                row.update(mirt_same_nodes_cpu_s=mcpu_k, cpu_ratio_same_nodes=cpu / mcpu_k,
                           memory_ratio_same_nodes=peak / mpeak_k)
                row.update(mirt_cpu_s=mcpu, mirt_bytes_per_cell=mpeak / cells, mirt_em_cycles=cycles,
                           cpu_ratio=cpu / mcpu, memory_ratio=peak / mpeak, cpu_ratio_1start=cpu1 / mcpu,
                           memory_ratio_1start=peak1 / mpeak, loglik_benchirt_minus_mirt=gap,
                           cpu_per_step_ratio=(cpu1 / ones[0].n_iter) / (mcpu / cycles),
                           gain_after_mirt_cycles=_gain_after(ones[0].history, cycles))
            rows.append(row)
            print(_fmt(pd.DataFrame([row])), flush=True)
    return rows


def accurate_log_likelihood(matrix: np.ndarray, a, b, c, tolerance: float = 0.1) -> tuple[float, float, int]:
    """The marginal log-likelihood on equally spaced nodes over [-6, 6], the grid refined (161, 321,
    641, … nodes; each contains the previous one) until two successive values differ by less than
    ``tolerance``: returns the value, that last difference (its accuracy) and the number of nodes.
    With many items a respondent's posterior of θ is a few hundredths wide, and an 81-node grid was
    off by 29-378 units at 132 x 8000 and 1000 x 10,000 (issue 23)."""
    from benchirt.irt.models import marginal_log_likelihood, quadrature

    k = 161
    value = marginal_log_likelihood(matrix, a, b, c, *quadrature(k, 6.0))
    while True:
        k = 2 * k - 1
        finer = marginal_log_likelihood(matrix, a, b, c, *quadrature(k, 6.0))
        if abs(finer - value) < tolerance or k > 5000:
            return finer, abs(finer - value), k
        value = finer


def _gain_after(history: np.ndarray, steps: int) -> float:
    """How much the log posterior still rose after EM step ``steps`` of a fit whose ``history`` holds the
    log posterior before each step (and at the end): what stopping after that many steps leaves behind."""
    return float(history[-1] - history[min(steps, len(history) - 1)])


def quadrature_nodes(negative_fraction: float = 0.1) -> pd.DataFrame:
    """One start on fixed grids of 21 (mirt's), 31 and 41 nodes against the refined grid the estimator
    chooses (``refine_quadrature``): the nodes chosen, how much a doubling changes the log posterior at
    each fit (``quadrature_error``), the CPU, the estimates' change against the refined fit and each
    fit's marginal log-likelihood on an accurate grid (:func:`accurate_log_likelihood`)."""
    rows = []
    for n, m in SCALE_SIZES:
        sim = simulate_responses(n, n_items=m, model="3PL", negative_fraction=negative_fraction, seed=11)
        matrix = sim.responses.to_numpy()
        fits, cpu = {}, {}
        for label, config in (("refined", IRTConfig(starts=1)),
                              *((points, IRTConfig(quadrature=points, refine_quadrature=False, starts=1))
                                for points in (41, 31, 21))):
            start = time.process_time()
            fits[label] = fit_irt(sim.responses, config=config)
            cpu[label] = time.process_time() - start
        ref = fits["refined"].items
        accurate = {label: accurate_log_likelihood(matrix, fit.items["discrimination"], fit.items["difficulty"],
                                                   fit.items["guessing"])[0] for label, fit in fits.items()}
        for label, fit in fits.items():
            items = fit.items
            rows.append({"n x m": f"{n}x{m}", "grid": label, "nodes": fit.quadrature_nodes,
                         "quadrature_error": fit.quadrature_error, "cpu_s": cpu[label],
                         **{f"mean|d{name}|": float((items[k] - ref[k]).abs().mean())
                            for name, k in (("a", "discrimination"), ("b", "difficulty"), ("c", "guessing"))},
                         "max|db|": float((items["difficulty"] - ref["difficulty"]).abs().max()),
                         "accurate_loglik_minus_refined": accurate[label] - accurate["refined"]})
            print(_fmt(pd.DataFrame([rows[-1]])), flush=True)
    return pd.DataFrame(rows)


def perturbation(expanded_em: bool = False) -> None:
    """The stationarity test of ``tests/test_irt_stationary.py`` with its values printed (issue 22, item 2):
    every embedded dataset's calibration matrix fitted with the default constants, ``mstep.MAX_STEP`` 0.25,
    ``mstep.M_STEPS`` 1 and 3, the starts reversed, and ``mstep.MAX_STEP`` 0.5 with ``mstep.M_STEPS`` 3 and
    the starts reversed; the spread of the six log posteriors must stay below 0.1 (``expanded_em``: every fit
    with the parameter-expanded EM move)."""
    import benchirt.irt.mstep as mstep
    import benchirt.irt.multistart as multistart

    original = multistart.start_scores, mstep.MAX_STEP, mstep.M_STEPS

    def reversed_starts(*args, **kwargs):
        scores, reason = original[0](*args, **kwargs)
        return scores[::-1], reason

    variants = {"default": (1.0, 2, original[0]), "max_step_0.25": (0.25, 2, original[0]),
                "m_steps_1": (1.0, 1, original[0]), "reversed": (1.0, 2, reversed_starts),
                "m_steps_3": (1.0, 3, original[0]), "mixed": (0.5, 3, reversed_starts)}
    rows = []
    try:
        for name, matrix in _embedded_matrices().items():
            row, nodes = {"dataset": name}, set()
            for label, (max_step, m_steps, order) in variants.items():
                mstep.MAX_STEP, mstep.M_STEPS, multistart.start_scores = max_step, m_steps, order
                fit = fit_irt(matrix, config=IRTConfig(expanded_em=expanded_em))
                row[label] = fit.log_posterior
                nodes.add(fit.quadrature_nodes)
            values = [row[label] for label in variants]
            row.update(spread=max(values) - min(values), nodes="/".join(map(str, sorted(nodes))))
            rows.append(row)
            print(_fmt(pd.DataFrame([row])), flush=True)
    finally:
        multistart.start_scores, mstep.MAX_STEP, mstep.M_STEPS = original
    table = pd.DataFrame(rows)
    print("\n" + _fmt(table))
    print(f"spread below 0.1 on {int((table['spread'] < 0.1).sum())} of {len(table)} datasets; largest "
          f"{table['spread'].max():.4f} ({table.loc[table['spread'].idxmax(), 'dataset']})")


def grid_ripple() -> None:
    """The embedded suite's participation matrix: the best optimum on the coarsest grid (41 nodes), every
    difficulty shifted by s, the marginal log posterior on 41, 81 and 161 nodes (relative to each grid's
    largest value): the coarse grid's second maximum along the scale, and the refined fit."""
    from benchirt.irt.models import shifted_log_posterior

    matrix = _embedded_matrices("participation")["participation"]
    coarse = fit_irt(matrix, config=IRTConfig(refine_quadrature=False))
    refined = fit_irt(matrix)
    items = coarse.items[coarse.informative]
    a, b, c = (items[name].to_numpy() for name in ("discrimination", "difficulty", "guessing"))
    answers = matrix[items.index].to_numpy()
    shifts = np.linspace(-0.45, 0.45, 19)
    config, table = coarse.config, {}
    for nodes in (41, 81, 161):
        values = shifted_log_posterior(answers, a, b, c, shifts, nodes, config.theta_max, config.prior_difficulty)
        table[f"{nodes} nodes"] = values - values.max()
    print(_fmt(pd.DataFrame(table, index=pd.Index(shifts.round(2), name="shift")).reset_index()))
    print(f"participation: coarse fit {coarse.log_posterior:.2f} on 41 nodes (a doubling changes it by "
          f"{coarse.quadrature_error:.2f}); refined fit {refined.log_posterior:.2f} on {refined.quadrature_nodes} "
          f"nodes ({refined.quadrature_error:.3f}); optima found {len(coarse.optima)} and {len(refined.optima)}")


def optimum() -> None:
    """Simulated 2PL/3PL with half the items negative: the fit against the truth (issue 14, item 1)."""
    from benchirt.irt.models import marginal_log_likelihood, quadrature

    rows = []
    for model in ("2PL", "3PL"):
        config = IRTConfig(model=model)
        for seed in range(5):
            sim = simulate_responses(1000, n_items=50, model=model, seed=seed, discrimination="normal")
            fit = fit_irt(sim.responses, config=config)
            nodes, log_w = quadrature(fit.quadrature_nodes, config.theta_max)  # the fit's grid
            sign = np.sign(_corr(fit.items["discrimination"], sim.a))
            rows.append({
                "model": model, "seed": seed,
                "loglik_fit - loglik_true": fit.log_likelihood - marginal_log_likelihood(
                    sim.responses.to_numpy(), sim.a, sim.b, sim.c, nodes, log_w),
                "optima_found": len(fit.starts["optima"]),
                "corr_theta": sign * _corr(fit.abilities(sim.responses), sim.theta),
                "status": fit.status,
            })
    table = pd.DataFrame(rows)
    print("== simulated 1000 x 50, a ~ N(0, 1) ==\n" + _fmt(table))
    print(_fmt(table.groupby("model")[["loglik_fit - loglik_true", "corr_theta"]].mean().reset_index()))




def _pools(limit: int | None, embedded: bool) -> list[tuple[str, pd.DataFrame]]:
    """The reference pools (every ``len / limit``-th with ``--limit``) and, with ``embedded``, the
    calibration matrices (MLP ladder and real classifiers) of the embedded suite, built with the
    pipeline's response stage at its defaults."""
    pools = []
    if REFERENCE.is_dir():
        folders = sorted(p for p in REFERENCE.iterdir() if (p / "responses_pool.csv").is_file())
        if limit:
            folders = folders[:: max(1, len(folders) // limit)][:limit]
        pools += [(folder.name, pd.read_csv(folder / "responses_pool.csv")) for folder in folders]
    else:
        print(f"reference data not found at {REFERENCE}: the reference pools are skipped")
    if embedded:
        pools += [(f"embedded:{name}", matrix) for name, matrix in _embedded_matrices().items()]
    return pools


def _embedded_matrices(*names: str) -> dict[str, pd.DataFrame]:
    """The calibration matrices (MLP ladder and real classifiers) of the embedded suite's datasets
    ``names`` (all without names), built with the pipeline's response stage at its defaults."""
    from benchirt.data.local import embedded_specs
    from benchirt.responses.stage import respond

    matrices = {}
    for spec in embedded_specs():
        if names and spec.name not in names:
            continue
        result = respond(spec.load())
        calibrate = result.roles.reindex(result.responses.index).isin(IRTConfig().calibration_roles)
        matrices[spec.name] = result.responses[calibrate.to_numpy()]
    return matrices


def priors(limit: int | None) -> None:
    """What the priors cost: each reference pool fitted with and without them (issue 23, item 1)."""
    rows = []
    for name, pool in _pools(limit, embedded=False):
        fits = {}
        for prior in (True, False):
            cpu = time.process_time()
            fits[prior] = fit_irt(pool, config=IRTConfig(prior=prior))
            fits[prior].cpu = time.process_time() - cpu
        rows.append({"pool": name[:28], "loglik_without_minus_with": fits[False].log_likelihood - fits[True].log_likelihood,
                     "at_bound_with": int((fits[True].items["flag"] == "at_bound").sum()),
                     "at_bound_without": int((fits[False].items["flag"] == "at_bound").sum()),
                     "max_abs_a_without": float(fits[False].items["discrimination"].abs().max()),
                     "cpu_with": fits[True].cpu, "cpu_without": fits[False].cpu})
        print(_fmt(pd.DataFrame(rows[-1:])), flush=True)
    table = pd.DataFrame(rows)
    print("\n== 3PL with and without priors ==\n" + _fmt(table))
    print(f"median log-likelihood gain without priors {table['loglik_without_minus_with'].median():.1f}; items at a "
          f"bound: {table['at_bound_with'].sum()} with priors, {table['at_bound_without'].sum()} without")


def _start_row(name: str, pool: pd.DataFrame, deep: int, expanded_em: bool = False, fixed_grid: bool = False) -> dict:
    """One pool of :func:`start_strategy`: the default fit and the ``deep``-start search, CPU timed (both
    with the parameter-expanded EM move where ``expanded_em``, both on the coarsest grid where
    ``fixed_grid``)."""
    fits = {}
    options = {"expanded_em": expanded_em, "refine_quadrature": not fixed_grid}
    for label, config in (("default", IRTConfig(**options)), ("deep", IRTConfig(starts=deep, **options))):
        cpu = time.process_time()
        fits[label] = fit_irt(pool, config=config)
        fits[label].cpu = time.process_time() - cpu
    default, search = fits["default"], fits["deep"]
    optima = search.starts["optima"]
    row = {"pool": name[:28], "gap": search.log_posterior - default.log_posterior,
           "default_cpu": default.cpu, "deep_cpu": search.cpu,
           "default_starts": len(default.starts["runs"]),
           "default_optima": len(default.starts["optima"]), "deep_optima": len(optima),
           "default_best_by": ",".join(default.starts["optima"][0]["starts"][:3]),
           "deep_best_reached_by": len(optima[0]["starts"]),
           "deep_second_below": optima[0]["log_posterior"] - optima[1]["log_posterior"]
           if len(optima) > 1 else float("nan"),
           "default_max_gradient": default.max_gradient, "status": default.status,
           "nodes": default.quadrature_nodes, "deep_nodes": search.quadrature_nodes,
           "quadrature_error": default.quadrature_error}
    print(_fmt(pd.DataFrame([row])), flush=True)
    return row


def start_strategy(limit: int | None, deep: int, embedded: bool, jobs: int, expanded_em: bool = False,
                   fixed_grid: bool = False) -> None:
    """The default start strategy against a ``deep``-start search, pool by pool (issue 22, item 1);
    ``jobs`` pools at a time (CPU is timed in each worker process)."""
    pools = _pools(limit, embedded)
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as executor:
            rows = list(executor.map(_start_row, *zip(*pools), [deep] * len(pools), [expanded_em] * len(pools),
                                     [fixed_grid] * len(pools)))
    else:
        rows = [_start_row(name, pool, deep, expanded_em, fixed_grid) for name, pool in pools]
    table = pd.DataFrame(rows)
    print(f"\n== default start strategy against a {deep}-start search (gap: how much higher the search's log "
          "posterior is) ==\n" + _fmt(table))
    print(f"pools: {len(table)}; default within 0.1 of the {deep}-start search on "
          f"{int((table['gap'] <= 0.1).sum())}; gap > 1 on {int((table['gap'] > 1).sum())}; largest gap "
          f"{table['gap'].max():.2f}; default above the search (gap < -0.1) on {int((table['gap'] < -0.1).sum())}")
    print(f"CPU seconds in total: default {table['default_cpu'].sum():.1f}, {deep}-start search "
          f"{table['deep_cpu'].sum():.1f} (median per pool {table['default_cpu'].median():.2f} and "
          f"{table['deep_cpu'].median():.2f}); all default fits stationary: {bool((table['status'] == 'converged').all())}")
    nodes = table["nodes"].value_counts().sort_index()
    print("quadrature nodes of the default (pools): " + ", ".join(f"{k}: {v}" for k, v in nodes.items())
          + f"; same grid in both searches on {int((table['nodes'] == table['deep_nodes']).sum())}; largest change "
          f"of the default's log posterior on a grid with twice the nodes {table['quadrature_error'].max():.3f}")


def _compare_row(name: str, pool: pd.DataFrame) -> dict:
    """One pool of :func:`model_comparison`: the 3PL with the default start search, the default comparison
    that reuses it (:func:`benchirt.irt.compare.compare_models`), one with a start search for every model,
    and the nested starts alone (2PL from the 3PL's solution, 1PL from that 2PL's), CPU timed."""
    from benchirt.irt.compare import compare_models

    def timed(fn):
        cpu = time.process_time()
        out = fn()
        return out, time.process_time() - cpu

    fit3, cpu3 = timed(lambda: fit_irt(pool))
    default, cpu_default = timed(lambda: compare_models(pool, config=IRTConfig(), fitted=fit3))
    search, cpu_search = timed(lambda: compare_models(pool, config=IRTConfig(), fitted=fit3, nested_starts=False))
    nested2 = fit_irt(pool, config=IRTConfig(model="2PL"), initial=fit3.items)
    nested = {"2PL": nested2, "1PL": fit_irt(pool, config=IRTConfig(model="1PL"), initial=nested2.items)}
    default, search = default.set_index("model"), search.set_index("model")
    row = {"pool": name[:28], "optima_3pl": len(fit3.optima), "cpu_3pl": cpu3,
           "ratio_default": (cpu3 + cpu_default) / cpu3, "ratio_search": (cpu3 + cpu_search) / cpu3,
           "cpu_default": cpu3 + cpu_default, "cpu_search": cpu3 + cpu_search}
    for model in ("2PL", "1PL"):  # log posterior (what picks the optimum) over the search's
        row[f"gap_{model}_default"] = default.loc[model, "log_posterior"] - search.loc[model, "log_posterior"]
        row[f"gap_{model}_nested"] = nested[model].log_posterior - search.loc[model, "log_posterior"]
    row["bic_default"] = default.index[default["best_bic"]][0]
    row["bic_search"] = search.index[search["best_bic"]][0]
    row["aic_same"] = default.index[default["best_aic"]][0] == search.index[search["best_aic"]][0]
    print(_fmt(pd.DataFrame([row])), flush=True)
    return row


def model_comparison(limit: int | None, embedded: bool, jobs: int) -> None:
    """The model comparison (1PL, 2PL, 3PL) with nested starts against a start search for every model,
    pool by pool (issue 23): CPU over the 3PL alone and how far the nested fits end from the search's."""
    pools = _pools(limit, embedded)
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as executor:
            rows = list(executor.map(_compare_row, *zip(*pools)))
    else:
        rows = [_compare_row(name, pool) for name, pool in pools]
    table = pd.DataFrame(rows)
    print("\n== model comparison: default (nested starts) against a start search per model; gap_*: log posterior "
          "minus the search's ==\n" + _fmt(table))
    print(f"pools: {len(table)} (the 3PL's search reached one optimum on {int((table['optima_3pl'] == 1).sum())}); "
          f"CPU of the comparison over the 3PL alone, in total: default "
          f"{table['cpu_default'].sum() / table['cpu_3pl'].sum():.2f}x, search for every model "
          f"{table['cpu_search'].sum() / table['cpu_3pl'].sum():.2f}x (per pool, median "
          f"{table['ratio_default'].median():.2f}x and {table['ratio_search'].median():.2f}x, largest "
          f"{table['ratio_default'].max():.2f}x and {table['ratio_search'].max():.2f}x)")
    for model in ("2PL", "1PL"):
        for kind in ("default", "nested"):
            gap = table[f"gap_{model}_{kind}"]
            print(f"{model}, {kind:7s}: within 0.1 of the search or above on {int((gap >= -0.1).sum())} pools "
                  f"(above by more than 0.1 on {int((gap > 0.1).sum())}); below by more than 0.1 on "
                  f"{int((gap < -0.1).sum())} (by {', '.join(f'{-g:.2f}' for g in sorted(gap[gap < -0.1])) or '-'})")
    print(f"BIC picks the same model on {int((table['bic_default'] == table['bic_search']).sum())} pools, "
          f"AIC on {int(table['aic_same'].sum())}")


def _reported_names(folder: Path) -> list[str]:
    return pd.read_csv(folder / "test_accuracy.csv").iloc[:, 0].tolist()


def pool_cost(limit: int | None) -> pd.DataFrame:
    """The default fit (3PL items and the 1PL that scores, as the irt stage fits them) against PyPI mirt's
    3PL on its default 21 nodes and on as many nodes as benchirt's grid, pool by pool and in total: CPU
    seconds (one BLAS thread; mirt's Rust threads all counted by ``process_time``), peak traced memory, and
    each fit's marginal log-likelihood on one accurate grid (:func:`accurate_log_likelihood`)."""
    import mirt
    from threadpoolctl import threadpool_limits

    from benchirt.irt.scorer import fit_scoring_model

    folders = sorted(p for p in REFERENCE.iterdir() if (p / "responses_pool.csv").is_file())[:limit]
    rows = []
    with threadpool_limits(1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for folder in folders:
            pool = pd.read_csv(folder / "responses_pool.csv")
            matrix = pool.to_numpy()
            fits = []
            cpu, peak = _measure(lambda: fits.append(fit_scoring_model(pool, fit_irt(pool))))
            scoring = fits[0]
            nodes = scoring.quadrature_nodes
            results = []
            mcpu, mpeak = _measure(lambda: results.append(mirt.fit_mirt(matrix, model="3PL",
                                                                        compute_standard_errors=False, verbose=False)))
            kcpu, kpeak = _measure(lambda: results.append(mirt.fit_mirt(matrix, model="3PL", n_quadpts=nodes,
                                                                        compute_standard_errors=False, verbose=False)))
            rows.append({"pool": folder.name, "shape": f"{matrix.shape[0]}x{matrix.shape[1]}", "nodes": nodes,
                         "benchirt_cpu_s": cpu, "mirt_cpu_s": mcpu, "mirt_same_nodes_cpu_s": kcpu,
                         "benchirt_peak_mb": peak / 2**20, "mirt_peak_mb": mpeak / 2**20,
                         "mirt_same_nodes_peak_mb": kpeak / 2**20})
            print(_fmt(pd.DataFrame(rows[-1:])), flush=True)
    frame = pd.DataFrame(rows)
    total = frame[["benchirt_cpu_s", "mirt_cpu_s", "mirt_same_nodes_cpu_s"]].sum()
    print(f"\ntotal over {len(frame)} pools: benchirt {total.benchirt_cpu_s:.1f} CPU-s, mirt {total.mirt_cpu_s:.1f} "
          f"({total.benchirt_cpu_s / total.mirt_cpu_s:.2f}x), mirt on benchirt's nodes {total.mirt_same_nodes_cpu_s:.1f} "
          f"({total.benchirt_cpu_s / total.mirt_same_nodes_cpu_s:.2f}x); pools where benchirt's peak memory <= mirt's: "
          f"{int((frame.benchirt_peak_mb <= frame.mirt_peak_mb).sum())} of {len(frame)}")
    return frame


def reference(use_mirt: bool, limit: int | None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    folders = sorted(p for p in REFERENCE.iterdir() if (p / "responses_pool.csv").is_file())
    if limit:
        folders = folders[:: max(1, len(folders) // limit)][:limit]
    rows, ours_summary, ltm_summary = [], {}, {}
    for folder in folders:
        pool = pd.read_csv(folder / "responses_pool.csv")
        ltm = pd.read_csv(folder / "ltm_item_params.csv", index_col=0)
        ltm.columns = ["a", "b", "c"]
        cpu = time.process_time()
        fit = fit_irt(pool)
        cpu = time.process_time() - cpu
        items = fit.items
        ours_summary[folder.name] = item_summary(items)
        ltm_summary[folder.name] = item_summary(
            ltm.rename(columns={"a": "discrimination", "b": "difficulty", "c": "guessing"}).assign(flag="ok")
        )
        rest = item_rest_correlations(pool.to_numpy(float))
        clear = np.abs(rest) > 0.2  # items whose classical discrimination has a clear sign
        ltm_agree = float((np.sign(ltm["a"].to_numpy()[clear]) == np.sign(rest[clear])).mean())
        flip = ltm_agree < 0.5  # ltm returned the mirror solution (theta -> -theta)
        sign = -1.0 if flip else 1.0
        ok = (ltm["a"].abs() < 10) & (ltm["b"].abs() < 10) & (items["flag"] == "ok").to_numpy()
        ltm_neg = (sign * ltm["a"] < 0).to_numpy()
        reported = pd.read_csv(folder / "responses_reported.csv")
        reported.index = _reported_names(folder)
        ours = fit.ability_table(reported)["true_score"]
        theirs = pd.read_csv(folder / "true_scores.csv").set_index("Clf")["Score"].reindex(ours.index)
        row = {
            "matrix": folder.name[:24],
            "n x m": f"{pool.shape[0]}x{pool.shape[1]}",
            "benchirt_s": fit.seconds,
            "benchirt_cpu_s": cpu,
            "converged": fit.converged,
            "n_iter": fit.n_iter,
            "max|a|": items["discrimination"].abs().max(),
            "max|b|": items["difficulty"].abs().max(),
            "flagged": int((items["flag"] != "ok").sum()),
            "sign_agree": float((np.sign(items["discrimination"].to_numpy()[clear]) == np.sign(rest[clear])).mean()),
            "ltm_sign_agree": ltm_agree,
            "ltm_flip": flip,
            "n_ltm_ok": int(ok.sum()),
            "corr_b_ltm": _corr(items["difficulty"][ok], sign * ltm["b"][ok]),
            "ltm_neg": int(ltm_neg.sum()),
            "neg_kept": float((items["discrimination"].to_numpy()[ltm_neg] < 0).mean()) if ltm_neg.any() else float("nan"),
            # ltm negatives made non-negative here although the item-rest correlation is clearly negative
            "neg_lost_clear": int((ltm_neg & (items["discrimination"].to_numpy() >= 0) & (rest < -0.2)).sum()),
            "neg_lost_rest_pos": int((ltm_neg & (items["discrimination"].to_numpy() >= 0) & (rest > 0.2)).sum()),
            "ts_spearman": float(spearmanr(ours.to_numpy(), theirs.to_numpy())[0]),
        }
        other = fit_mirt(pool.to_numpy()) if use_mirt else None
        if other is not None:
            seconds, mirt_cpu, a, b, c = other
            row.update(mirt_s=seconds, mirt_cpu_s=mirt_cpu, ratio=seconds / fit.seconds, mirt_corr_b_ltm=_corr(b[ok], sign * ltm["b"][ok]))
        rows.append(row)
        print(_fmt(pd.DataFrame([row])), flush=True)
    return pd.DataFrame(rows), pd.DataFrame(ours_summary).T, pd.DataFrame(ltm_summary).T


def rankings_report(ours: pd.DataFrame, ltm: pd.DataFrame) -> None:
    """Seed 003 §4.5 rankings from benchirt's and from ltm's parameters, side by side."""
    for column in ("pct_difficulty_gt", "pct_discrimination_gt", "pct_guessing_gt", "pct_negative_discrimination"):
        rho = spearmanr(ours[column], ltm[column])[0]
        top_ours = ", ".join(ours[column].sort_values(ascending=False).index[:5])
        top_ltm = ", ".join(ltm[column].sort_values(ascending=False).index[:5])
        print(f"{column}: Spearman(benchirt, ltm) = {rho:.2f}\n  top 5 benchirt: {top_ours}\n  top 5 ltm:      {top_ltm}")
    print("\nbenchirt dataset rankings (Cardoso et al. 2021 §4.5), first 10 by difficulty:")
    print(dataset_rankings(ours).head(10).to_string(float_format=lambda v: f"{v:.1f}"))


def _fmt(frame: pd.DataFrame) -> str:
    return frame.to_string(index=False, float_format=lambda v: f"{v:.3f}")


def _sizes(text: str) -> list[tuple[int, int]]:
    """``--sizes``: ``132x500,1000x500`` -> [(132, 500), (1000, 500)]."""
    try:
        sizes = [tuple(int(part) for part in size.split("x")) for size in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or any(len(size) != 2 or min(size) < 2 for size in sizes):
        raise argparse.ArgumentTypeError(f"expected sizes like 132x500,1000x500, got {text!r}")
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, help="use this many reference pools (spread over the 50)")
    parser.add_argument("--no-mirt", action="store_true", help="skip the mirt baseline")
    parser.add_argument("--part", default="both",
                        choices=("sim", "ref", "scale", "poolcost", "optimum", "starts", "compare", "priors",
                                 "quadrature", "perturb", "both"))
    parser.add_argument("--deep", type=int, default=20, help="--part starts: starts of the deep search (default 20)")
    parser.add_argument("--scale-deep", type=int, default=0,
                        help="--part scale: also run a search of this many starts and print how much higher it ends")
    parser.add_argument("--fixed-grid", action="store_true",
                        help="--part starts: both searches on the coarsest quadrature grid (refine_quadrature off)")
    parser.add_argument("--expanded-em", action="store_true",
                        help="--part starts/perturb: every fit with the parameter-expanded EM move (IRTConfig.expanded_em)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="--part starts/compare: pools fitted in parallel (default 1)")
    parser.add_argument("--no-embedded", action="store_true",
                        help="--part starts/compare: leave out the embedded suite's pools (built first, ~1 min)")
    parser.add_argument("--baseline", metavar="REF",
                        help="--part scale: also fit with the benchirt of git revision REF (e.g. main), side by side")
    parser.add_argument("--sizes", type=_sizes, default=SCALE_SIZES, metavar="NxM,...",
                        help="--part scale: the matrix sizes (default " + ",".join(f"{n}x{m}" for n, m in SCALE_SIZES)
                             + ")")
    parser.add_argument("--seed", type=int, default=11,
                        help="--part scale: the seed of the simulated matrices (default 11; run another draw in a "
                             "fresh process)")
    parser.add_argument("--negative-fraction", type=float, default=0.1,
                        help="--part scale: share of negatively discriminating items (default 0.1)")
    args = parser.parse_args()
    use_mirt = not args.no_mirt
    print(f"benchirt IRTConfig defaults: {IRTConfig()}\n")
    if args.part == "optimum":
        optimum()
        return
    if args.part == "poolcost":
        print("== the default fit against mirt on the 50 reference pools ==")
        pool_cost(args.limit)
        return
    if args.part == "priors":
        priors(args.limit)
        return
    if args.part == "starts":
        start_strategy(args.limit, args.deep, not args.no_embedded, args.jobs, args.expanded_em, args.fixed_grid)
        return
    if args.part == "compare":
        model_comparison(args.limit, not args.no_embedded, args.jobs)
        return
    if args.part == "perturb":
        print("== the optimum under perturbed step constants and start order (embedded suite) ==")
        perturbation(args.expanded_em)
        return
    if args.part == "quadrature":
        print("== quadrature grid: the refined grid against fixed ones, one start ==")
        print("\n" + _fmt(quadrature_nodes(args.negative_fraction)))
        print("\n== the coarse grid's ripple along the scale (participation) ==")
        grid_ripple()
        return
    if args.part == "scale":
        print("== scaling: simulated 3PL, ratios benchirt / mirt (below 1: benchirt cheaper) ==")
        table = scaling(use_mirt, args.negative_fraction, args.baseline, args.sizes, args.scale_deep, seed=args.seed)
        print("\n" + _fmt(table))
        both = [column for column in BOTH_RATIOS if column in table]
        print("\n== CPU against mirt at its 21 nodes (cpu_ratio) and on benchirt's nodes (cpu_ratio_same_nodes) ==\n"
              + _fmt(table[both]))
        return
    if args.part in ("sim", "both"):
        print("== simulated 3PL (seed 11) ==")
        sim = simulated(use_mirt)
        print("\n" + _fmt(sim) + "\n")
    if args.part in ("ref", "both"):
        if not REFERENCE.is_dir():
            print(f"reference data not found at {REFERENCE}; skipping part 2")
            return
        print("== decodIRT reference pools ==")
        ref, ours_summary, ltm_summary = reference(use_mirt, args.limit)
        print("\n" + _fmt(ref) + "\n")
        rankings_report(ours_summary, ltm_summary)
        print()
        summary = {
            "pools": len(ref),
            "all converged": bool(ref["converged"].all()),
            "benchirt median s": ref["benchirt_s"].median(),
            "benchirt max s": ref["benchirt_s"].max(),
            "benchirt median CPU s": ref["benchirt_cpu_s"].median(),
            "median corr(b, ltm b) on ltm-ok items": ref["corr_b_ltm"].median(),
            "median sign agreement with item-rest corr.": ref["sign_agree"].median(),
            "ltm: median sign agreement (raw)": ref["ltm_sign_agree"].median(),
            "ltm negatives kept negative (pooled)": float(
                (ref["neg_kept"] * ref["ltm_neg"]).sum() / ref["ltm_neg"][ref["neg_kept"].notna()].sum()
            ),
            "ltm negatives made >= 0 with item-rest r < -0.2": int(ref["neg_lost_clear"].sum()),
            "ltm negatives made >= 0 with item-rest r > +0.2": int(ref["neg_lost_rest_pos"].sum()),
            "ltm negatives (all pools)": int(ref["ltm_neg"].sum()),
            "median True-Score Spearman vs decodIRT": ref["ts_spearman"].median(),
        }
        if "mirt_s" in ref:
            summary.update(
                {
                    "mirt median s": ref["mirt_s"].median(),
                    "mirt median CPU s": ref["mirt_cpu_s"].median(),
                    "median speed ratio mirt/benchirt": ref["ratio"].median(),
                    "mirt median corr(b, ltm b)": ref["mirt_corr_b_ltm"].median(),
                }
            )
        for key, value in summary.items():
            print(f"{key:>45}: {value:.3f}" if isinstance(value, float) else f"{key:>45}: {value}")


if __name__ == "__main__":
    main()

"""Would a compiled (numba) kernel make benchirt's EM step several times cheaper? (issue 23, item 1)

Two measurements, on simulated 3PL matrices (10 % negative items) of 132 x {500, 2000, 8000}:

1. Where a one-start fit's CPU goes (``--part profile``): the CPU of the step's parts, timed by wrapping
   the estimator's functions (``benchirt/irt/estep.py``, ``mstep.py``, ``problem.py``, ``climb.py``) — the
   item x node tables (``Terms.of_block``: exp, log1p, log per cell), the gradient and information
   (``gradient_information``), the item objectives (``item_objective``, ``log_prior``), the small solves, the
   two matrix products of the E-step
   (``LogJoint.add``, ``expected_correct``: BLAS) and the item search (``escape_item_modes``).
2. A fused numba kernel for the elementwise parts (``--part kernel``): one loop over items and nodes for the
   tables, one for gradient, information and objective together, against the numpy code on the same
   block (every item of the matrix), CPU per call; and what numba costs before it runs: ``import
   numba`` and the JIT compilation of the two kernels (``cache=False``: a read-only install cannot keep
   numba's cache next to the package and compiles in every process).

The kernel is a measurement, not part of benchirt (see benchmarks/results/irt-cost.md, "Cost of an EM step"); it needs
``pip install numba`` (the ``bench`` extra).

    nice -n 10 python benchmarks/irt_kernel.py
"""
from __future__ import annotations

import argparse
import collections
import time

import numpy as np

SIZES = ((132, 500), (132, 2000), (132, 8000))
#: The estimator's functions whose CPU is summed, by the module that defines them; nested calls (the objective's
#: prior) are counted in both.
PARTS = {"expected_correct": "estep", "gradient_information": "mstep",
         "item_objective": "mstep", "log_prior": "problem", "solve_small": "mstep", "escape_item_modes": "climb"}


def profile() -> None:
    """CPU share of the step's parts in a one-start 3PL fit at each size."""
    import importlib
    import sys

    import benchirt.irt.estimation  # noqa: F401 (imports every module of the estimator)
    from benchirt.irt import IRTConfig, fit_irt
    from benchirt.irt.estep import LogJoint, Terms
    from benchirt.irt.simulate import simulate_responses

    spent: collections.Counter = collections.Counter()

    def timed(name, function):
        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start
        return wrapper

    originals = {name: getattr(importlib.import_module(f"benchirt.irt.{module}"), name) for name, module in PARTS.items()}
    # each function is wrapped wherever a module of benchirt.irt holds it (its own and those that import it)
    holders = [(module, name) for module in list(sys.modules.values()) if module.__name__.startswith("benchirt.irt.")
               for name, function in originals.items() if getattr(module, name, None) is function]
    of_block, add = Terms.__dict__["of_block"], LogJoint.add
    for module, name in holders:
        setattr(module, name, timed(name, originals[name]))
    Terms.of_block = classmethod(timed("Terms.of_block", of_block.__func__))
    LogJoint.add = timed("LogJoint.add", add)
    try:
        fit_irt(simulate_responses(60, n_items=40, model="3PL", seed=1).responses)
        for n, m in SIZES:
            responses = simulate_responses(n, n_items=m, model="3PL", negative_fraction=0.1, seed=11).responses
            spent.clear()
            start = time.process_time()
            fit = fit_irt(responses, config=IRTConfig(starts=1))
            total = time.process_time() - start
            shares = ", ".join(f"{name.strip('_')} {100 * spent[name] / total:.0f} %"
                               for name in ("Terms.of_block", "LogJoint.add", *PARTS))
            print(f"{n} x {m}: {total:.2f} CPU s, {fit.n_iter} EM steps, {1000 * total / fit.n_iter:.1f} ms per step; "
                  f"{shares}")
    finally:
        for module, name in holders:
            setattr(module, name, originals[name])
        Terms.of_block = of_block
        LogJoint.add = add


def kernel() -> None:
    """The fused numba kernels against the numpy code, and numba's import and compile time."""
    start = time.perf_counter()
    try:
        import numba
    except ImportError:
        print("numba is not installed (pip install -e '.[bench]'): the kernel part is skipped")
        return
    import_seconds = time.perf_counter() - start

    from benchirt.irt.config import IRTConfig
    from benchirt.irt.estep import Terms
    import benchirt.irt.mstep as mstep
    from benchirt.irt.problem import Problem
    from benchirt.irt.models import terms_from_logit

    @numba.njit(cache=False)
    def tables(a, b, c, nodes, s, log_p, log_q):
        for j in range(s.shape[0]):
            log_1mc = np.log1p(-c[j])
            for q in range(s.shape[1]):
                z = a[j] * (nodes[q] - b[j])
                e = np.exp(-abs(z))
                log_sig = min(z, 0.0) - np.log1p(e)
                sig = 1.0 / (1.0 + e) if z >= 0 else e / (1.0 + e)
                s[j, q] = sig
                log_q[j, q] = log_sig - z + log_1mc
                log_p[j, q] = np.log(c[j] + (1 - c[j]) * sig) if c[j] > 0 else log_sig

    @numba.njit(cache=False)
    def gradient_information(a, b, c, s, log_p, log_q, r, n_k, nodes, grad, info, objective):
        for j in range(s.shape[0]):
            g1 = gt = gc = i22 = k1 = kt = h1 = ht = htt = value = 0.0
            cj = c[j]
            for q in range(s.shape[1]):
                sig, n, theta = s[j, q], n_k[q], nodes[q]
                p = cj + (1 - cj) * sig
                e = (r[j, q] - n * p) / p
                gc += e
                g1 += e * sig
                gt += e * sig * theta
                i22 += n * (1 - sig) / p
                w = n * sig * (1 - sig) / p
                k1 += w
                kt += w * theta
                w *= sig
                h1 += w
                ht += w * theta
                htt += w * theta * theta
                value += r[j, q] * (log_p[j, q] - log_q[j, q]) + n * log_q[j, q]
            h1, ht, htt = h1 * (1 - cj), ht * (1 - cj), htt * (1 - cj)
            k1, kt = k1 * (1 - cj) * cj, kt * (1 - cj) * cj
            grad[j, 0], grad[j, 1], grad[j, 2] = gt - b[j] * g1, -a[j] * g1, cj * gc
            info[j, 0, 0] = htt - 2 * b[j] * ht + b[j] ** 2 * h1
            info[j, 0, 1] = info[j, 1, 0] = -a[j] * (ht - b[j] * h1)
            info[j, 1, 1] = a[j] ** 2 * h1
            info[j, 2, 2] = (1 - cj) * cj ** 2 * i22
            info[j, 0, 2] = info[j, 2, 0] = kt - b[j] * k1
            info[j, 1, 2] = info[j, 2, 1] = -a[j] * k1
            objective[j] = value

    def cpu_ms(function, repeats):
        start = time.process_time()
        for _ in range(repeats):
            function()
        return 1000 * (time.process_time() - start) / repeats

    config = IRTConfig(prior=False)  # the kernels leave the prior out; so does the numpy code here
    nodes = np.linspace(-config.theta_max, config.theta_max, config.quadrature)
    compiled = None
    for n, m in SIZES:
        rng = np.random.default_rng(m)
        a, b, c = rng.normal(size=m), rng.normal(size=m), rng.uniform(0.05, 0.3, size=m)
        s, log_p, log_q = (np.empty((m, len(nodes))) for _ in range(3))
        r = rng.uniform(0, 1, size=(m, len(nodes))) * n / len(nodes)
        n_k = np.full(len(nodes), n / len(nodes))
        grad, info, objective = np.empty((m, 3)), np.empty((m, 3, 3)), np.empty(m)
        if compiled is None:
            start = time.perf_counter()
            tables(a, b, c, nodes, s, log_p, log_q)
            gradient_information(a, b, c, s, log_p, log_q, r, n_k, nodes, grad, info, objective)
            compiled = time.perf_counter() - start
            print(f"numba {numba.__version__}: import {import_seconds:.2f} s, JIT compilation of the two kernels "
                  f"{compiled:.2f} s (wall)")
        problem = Problem(items=np.zeros((m, n), np.int8), counts=np.ones(n), multiplicity=np.ones(m), nodes=nodes,
                          log_weights=-0.5 * nodes**2, config=config)
        params = np.stack([a, b, np.log(c / (1 - c))], axis=1)
        repeats = max(3, 200_000 // m)
        numpy_tables = cpu_ms(lambda: terms_from_logit(a[:, None] * (nodes[None, :] - b[:, None]), c[:, None]), repeats)
        numba_tables = cpu_ms(lambda: tables(a, b, c, nodes, s, log_p, log_q), repeats)
        # the numpy gradient reads s and P from the tables: built once the kernel has filled them
        terms = Terms(log_p, log_q, s, c[:, None] + (1 - c[:, None]) * s)
        expected = terms_from_logit(a[:, None] * (nodes[None, :] - b[:, None]), c[:, None])
        tables_error = max(np.abs(s - expected[0]).max(), np.abs(log_p - expected[2]).max(),
                           np.abs(log_q - expected[3]).max())
        numpy_gradient = cpu_ms(lambda: (mstep.gradient_information(params, r, n_k, problem, terms=terms),
                                         mstep.item_objective(params, terms, r, n_k, problem)), repeats)
        numba_gradient = cpu_ms(lambda: gradient_information(a, b, c, s, log_p, log_q, r, n_k, nodes, grad, info,
                                                             objective), repeats)
        expected_grad, expected_info = mstep.gradient_information(params, r, n_k, problem, terms=terms)
        gradient_error = max(np.abs(grad - expected_grad).max(), np.abs(info - expected_info).max())
        print(f"{n} x {m} (a block of all {m} items): tables numpy {numpy_tables:.2f} ms, numba {numba_tables:.2f} ms "
              f"({numpy_tables / numba_tables:.1f}x; largest difference {tables_error:.1e}); gradient, information "
              f"and objective numpy {numpy_gradient:.2f} ms, numba {numba_gradient:.2f} ms "
              f"({numpy_gradient / numba_gradient:.1f}x; largest difference {gradient_error:.1e})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("profile", "kernel", "both"), default="both")
    args = parser.parse_args()
    if args.part in ("profile", "both"):
        print("== where a one-start 3PL fit's CPU goes (share of the fit's CPU; nested parts counted in both) ==")
        profile()
    if args.part in ("kernel", "both"):
        print("\n== fused numba kernels against the numpy code (CPU per call) ==")
        kernel()


if __name__ == "__main__":
    main()

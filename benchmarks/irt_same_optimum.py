"""Does a change to the EM step leave the optimum of a fit where it was? (issue 23)

Fits five decodIRT reference pools (``../shared/data/decodirt-reference``: pc1, wilt, banknote-authentication,
tic-tac-toe, kc2) and three simulated 3PL matrices (10 % negative items; 132 x 500, 132 x 2000, 1000 x 500) with the
1PL, 2PL and 3PL (one start; the 1PL and 3PL also with the default start search) with this checkout's benchirt
and with the benchirt of git revision ``--baseline`` (its package extracted with ``git archive`` and run in a
subprocess), and prints per fit both log posteriors, their relative difference, the EM steps and the CPU of each.
``--all-pools``: the default 3PL fit (start search) of every reference pool instead, with the EM steps of all its
starts, and a summary line (pools where this checkout's log posterior is higher / lower by more than 0.1, total CPU
and EM steps of each).

    nice -n 10 python benchmarks/irt_same_optimum.py --baseline 4eced33 [--all-pools]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "decodirt-reference"
POOLS = ("pc1", "wilt", "banknote-authentication", "tic-tac-toe", "kc2")
SIMULATED = ((132, 500), (132, 2000), (1000, 500))

#: Run with the benchirt on ``PYTHONPATH``: every fit's log posterior, EM steps and CPU as JSON.
_FITS = """
import json, sys, time
import pandas as pd
from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.simulate import simulate_responses
reference, pools, simulated = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
cases = [(name, pd.read_csv(f"{reference}/{name}/responses_pool.csv")) for name in pools]
cases += [(f"simulated {n} x {m}", simulate_responses(n, n_items=m, model="3PL", negative_fraction=0.1, seed=11).responses)
          for n, m in simulated]
variants = ([("3PL", "auto")] if sys.argv[4] == "default" else
            [("1PL", 1), ("1PL", "auto"), ("2PL", 1), ("3PL", 1), ("3PL", "auto")])
out = {}
for name, data in cases:
    for model, starts in variants:
        cpu = time.process_time()
        fit = fit_irt(data, config=IRTConfig(model=model, starts=starts))
        steps = sum(run["n_iter"] for run in fit.starts["runs"]) if sys.argv[4] == "default" else fit.n_iter
        out[f"{name} {model} starts={starts}"] = {"log_posterior": fit.log_posterior, "n_iter": steps,
                                                  "cpu": time.process_time() - cpu}
print(json.dumps(out))
"""


def fits(package_root: Path, pools: list[str], default_only: bool = False) -> dict:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    simulated = [] if default_only else SIMULATED
    done = subprocess.run([sys.executable, "-c", _FITS, str(REFERENCE), json.dumps(pools), json.dumps(simulated),
                           "default" if default_only else "all"],
                          env=env, cwd=package_root, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, metavar="REF", help="git revision to compare with")
    parser.add_argument("--all-pools", action="store_true",
                        help="the default 3PL fit of every reference pool (and nothing else)")
    args = parser.parse_args()
    if args.all_pools:
        pools = sorted(folder.name for folder in REFERENCE.glob("*") if (folder / "responses_pool.csv").is_file())
        print(f"{len(pools)} reference pools under {REFERENCE}")
    else:
        pools = [name for name in POOLS if (REFERENCE / name / "responses_pool.csv").is_file()]
        if len(pools) < len(POOLS):
            print(f"reference pools not found under {REFERENCE}: {sorted(set(POOLS) - set(pools))} skipped")
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="irt_same_optimum_") as folder:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", args.baseline, "benchirt"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        before = fits(Path(folder), pools, args.all_pools)
    after = fits(repo, pools, args.all_pools)
    print(f"{'fit':<52} {'log posterior: ' + args.baseline:>26} {'this checkout':>16} {'relative diff.':>14} "
          f"{'EM steps':>10} {'CPU s':>12}")
    for key, old in before.items():
        new = after[key]
        relative = abs(new["log_posterior"] - old["log_posterior"]) / abs(old["log_posterior"])
        print(f"{key:<52} {old['log_posterior']:>26.6f} {new['log_posterior']:>16.6f} {relative:>14.1e} "
              f"{old['n_iter']:>4} → {new['n_iter']:<4} {old['cpu']:>5.2f} → {new['cpu']:<5.2f}")
    if args.all_pools:
        change = [after[key]["log_posterior"] - old["log_posterior"] for key, old in before.items()]
        total = {name: [sum(run[field] for run in side.values()) for field in ("cpu", "n_iter")]
                 for name, side in (("before", before), ("after", after))}
        print(f"{len(change)} pools: log posterior higher by > 0.1 on {sum(d > 0.1 for d in change)}, lower by > 0.1 "
              f"on {sum(d < -0.1 for d in change)} (largest drop {-min(change):.2f}); CPU {total['before'][0]:.1f} s → "
              f"{total['after'][0]:.1f} s, EM steps {total['before'][1]} → {total['after'][1]}")


if __name__ == "__main__":
    main()

"""Does a change to the EM step leave the optimum of a fit where it was? (issue 23)

Fits five decodIRT reference pools (``../shared/data/decodirt-reference``: pc1, wilt, banknote-authentication,
tic-tac-toe, kc2) and three simulated 3PL matrices (10 % negative items; 132 x 500, 132 x 2000, 1000 x 500) with the
1PL, 2PL and 3PL (one start; the 1PL and 3PL also with the default start search) with this checkout's benchirt
and with the benchirt of git revision ``--baseline`` (its package extracted with ``git archive`` and run in a
subprocess), and prints per fit both log posteriors, their relative difference, the EM steps and the CPU of each.

    nice -n 10 python benchmarks/irt_same_optimum.py --baseline 4eced33
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
cases += [(f"simulated {n} x {m}", simulate_responses(n, m, model="3PL", negative_fraction=0.1, seed=11).responses)
          for n, m in simulated]
out = {}
for name, data in cases:
    for model in ("1PL", "2PL", "3PL"):
        for starts in ([1] if model == "2PL" else [1, "auto"]):
            cpu = time.process_time()
            fit = fit_irt(data, IRTConfig(model=model, starts=starts))
            out[f"{name} {model} starts={starts}"] = {"log_posterior": fit.log_posterior, "n_iter": fit.n_iter,
                                                      "cpu": time.process_time() - cpu}
print(json.dumps(out))
"""


def fits(package_root: Path, pools: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    done = subprocess.run([sys.executable, "-c", _FITS, str(REFERENCE), json.dumps(pools), json.dumps(SIMULATED)],
                          env=env, cwd=package_root, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, metavar="REF", help="git revision to compare with")
    args = parser.parse_args()
    pools = [name for name in POOLS if (REFERENCE / name / "responses_pool.csv").is_file()]
    if len(pools) < len(POOLS):
        print(f"reference pools not found under {REFERENCE}: {sorted(set(POOLS) - set(pools))} skipped")
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="irt_same_optimum_") as folder:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", args.baseline, "benchirt"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        before = fits(Path(folder), pools)
    after = fits(repo, pools)
    print(f"{'fit':<52} {'log posterior: ' + args.baseline:>26} {'this checkout':>16} {'relative diff.':>14} "
          f"{'EM steps':>10} {'CPU s':>12}")
    for key, old in before.items():
        new = after[key]
        relative = abs(new["log_posterior"] - old["log_posterior"]) / abs(old["log_posterior"])
        print(f"{key:<52} {old['log_posterior']:>26.6f} {new['log_posterior']:>16.6f} {relative:>14.1e} "
              f"{old['n_iter']:>4} → {new['n_iter']:<4} {old['cpu']:>5.2f} → {new['cpu']:<5.2f}")


if __name__ == "__main__":
    main()

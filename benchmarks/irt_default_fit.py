"""When the default monotone model does not fit: the share :func:`benchirt.irt.summary.default_model_check` judges,
on simulated pools with half the items falling with ability and on decodIRT's reference pools (issue 44, item 5).

Simulated: :func:`benchirt.irt.simulate.simulate_responses` 2PL with ``negative_fraction=0.5`` (Cardoso et al.
2021 eq. 1, half the discriminations negative), at 400 x 30 (the test's size) and 1,000 x 50 (the issue's), five
seeds each, fitted with the default config (monotone 3PL, 1PL scoring) and with ``model_family="decodirt"``; per
fit the share of informative items falling with ability or held at a = 0, and the absolute correlation of the
scored abilities with the generating ones. Reference: every ``responses_pool.csv`` of
``../shared/data/decodirt-reference`` with the default config, the same share, and how many exceed
:data:`benchirt.irt.summary.MISMATCH_SHARE`.

    python benchmarks/irt_default_fit.py            # both parts (about a minute on 2 shared cores)
    python benchmarks/irt_default_fit.py --part simulated
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.matrix_file import read_responses_csv
from benchirt.irt.scorer import fit_scoring_model
from benchirt.irt.simulate import simulate_responses
from benchirt.irt.summary import MISMATCH_SHARE, default_model_check

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "decodirt-reference"


def simulated(sizes=((400, 30), (1000, 50)), seeds=range(5)) -> None:
    print(f"{'size':>9} {'seed':>4}  {'monotone share':>14} {'r(theta)':>8}  {'decodirt r(theta)':>17}")
    for n, m in sizes:
        shares, mono, free = [], [], []
        for seed in seeds:
            sim = simulate_responses(n, n_items=m, model="2PL", negative_fraction=0.5, seed=seed)
            row = []
            for family in ("monotone", "decodirt"):
                config = IRTConfig(model_family=family)
                fit = fit_irt(sim.responses, config=config)
                theta = fit_scoring_model(sim.responses, fit).ability_table(sim.responses, method=config.ability)["theta"]
                row.append(abs(float(np.corrcoef(theta.to_numpy(), sim.theta)[0, 1])))
                if family == "monotone":
                    share = default_model_check(fit.items, config)["share_misfit"]
            shares.append(share)
            mono.append(row[0])
            free.append(row[1])
            print(f"{n:>4}x{m:<4} {seed:>4}  {share:>14.2f} {row[0]:>8.2f}  {row[1]:>17.2f}")
        print(f"{n} x {m}: share {min(shares):.2f}-{max(shares):.2f}, monotone r {min(mono):.2f}-{max(mono):.2f}, "
              f"decodirt r {min(free):.2f}-{max(free):.2f}")


def reference() -> None:
    if not REFERENCE.is_dir():
        print(f"{REFERENCE} not found: reference part skipped")
        return
    shares = {}
    for folder in sorted(REFERENCE.iterdir()):
        responses = read_responses_csv(folder / "responses_pool.csv")
        config = IRTConfig()
        shares[folder.name] = default_model_check(fit_irt(responses, config=config).items, config)["share_misfit"]
    over = {name: share for name, share in shares.items() if share > MISMATCH_SHARE}
    values = list(shares.values())
    print(f"decodIRT reference pools: {len(shares)}, share {min(values):.2f}-{max(values):.2f}; above "
          f"{MISMATCH_SHARE}: {len(over)} (" + ", ".join(f"{k} {v:.2f}" for k, v in over.items()) + ")")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["simulated", "reference", "all"], default="all")
    args = parser.parse_args()
    if args.part in ("simulated", "all"):
        simulated()
    if args.part in ("reference", "all"):
        reference()


if __name__ == "__main__":
    main()

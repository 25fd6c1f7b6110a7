"""Peak memory of benchirt's default IRT fit beside PyPI ``mirt``'s, each in a fresh process (issue 32, item 3).

``benchmarks/irt_fit.py --part scale`` reports ``tracemalloc`` peaks, which see every numpy allocation of
benchirt's fit but none of mirt's Rust core: mirt's figure there is a floor. This benchmark measures what the
operating system sees instead. Each fit runs in its own process that first imports numpy, benchirt and mirt
(so both sides carry the same libraries), loads the matrix from a ``.npy`` file and warms the fitter up on a
small matrix; it then resets the peak resident set size to the current one (``/proc/self/clear_refs``, Linux
4.0 and later), reads its resident set size (``/proc/self/status`` ``VmRSS``), fits once, and reports
the growth of the peak resident set size (``VmHWM``) over the resident size before the fit — the memory the
fit itself needed at its highest point. A third process does everything but the fit (``none``): its growth
is the measurement's floor.

The growth of one fit varies between fresh processes (by up to 0.3 MiB at 132 x 500: which freed blocks the
allocator hands back to the system differs from run to run), so each fit runs ``--repeats`` times (default 3),
each in its own process, and the table gives the median (``*_range``: the smallest and largest).

The matrices are the scale table's: simulated 3PL, 10 % negatively discriminating items, seed 11, at
132 x {500, 2000, 8000}, 1000 x 500 and 5000 x 500. mirt runs on its default grid (21 nodes) and on as many
nodes as benchirt's refined grid used (``n_quadpts``), as ``--part scale`` does for CPU.

Run:  python benchmarks/irt_memory.py [--sizes 132x500 1000x500] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

SIZES = ["132x500", "132x2000", "132x8000", "1000x500", "5000x500"]

#: The child: ``argv[1]`` the fitter (benchirt, mirt, none), ``argv[2]`` the matrix (.npy), ``argv[3]`` nodes.
_CHILD = """
import json, sys, warnings
import numpy as np
from threadpoolctl import threadpool_limits
import mirt
from benchirt.irt import fit_irt
from benchirt.irt.simulate import simulate_responses

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)

warnings.simplefilter("ignore")
who, path, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
matrix = np.load(path)
warm = simulate_responses(60, n_items=40, model="3PL", seed=1).responses
with threadpool_limits(1, user_api="blas"):
    if who == "benchirt":
        fit_irt(warm)
    elif who.startswith("mirt"):
        mirt.fit_mirt(warm.to_numpy(), model="3PL", compute_standard_errors=False, verbose=False)
    try:  # the high-water mark restarts here (Linux >= 4.0), so the warm-up's peak cannot hide the fit's
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        pass
    before = status("VmRSS")
    if who == "benchirt":
        out = {"nodes": fit_irt(matrix).quadrature_nodes}
    elif who == "mirt":
        mirt.fit_mirt(matrix, model="3PL", compute_standard_errors=False, verbose=False)
        out = {}
    elif who == "mirt_same_nodes":
        mirt.fit_mirt(matrix, model="3PL", compute_standard_errors=False, verbose=False, n_quadpts=nodes)
        out = {}
    else:
        out = {}
print(json.dumps({**out, "growth": status("VmHWM") - before}))
"""


def child(who: str, path: Path, nodes: int = 21) -> dict:
    """Run one fit of the ``.npy`` matrix at ``path`` in a fresh process; its peak growth in bytes."""
    done = subprocess.run([sys.executable, "-c", _CHILD, who, str(path), str(nodes)], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(size: str, scratch: Path, repeats: int = 3) -> dict:
    """The peak growth (median of ``repeats`` fresh processes each) of the three fits and the floor on the
    simulated matrix of ``size`` ("n x m")."""
    from benchirt.irt.simulate import simulate_responses

    n, m = (int(part) for part in size.split("x"))
    path = scratch / f"{size}.npy"
    np.save(path, simulate_responses(n, n_items=m, model="3PL", negative_fraction=0.1, seed=11).responses.to_numpy())
    runs = [child("benchirt", path) for _ in range(repeats)]
    nodes = runs[0]["nodes"]
    growth = {"benchirt": [run["growth"] for run in runs]}
    growth["mirt"] = [child("mirt", path)["growth"] for _ in range(repeats)]
    growth["mirt_same_nodes"] = [child("mirt_same_nodes", path, nodes)["growth"] for _ in range(repeats)]
    growth["floor"] = [child("none", path)["growth"] for _ in range(repeats)]
    mib = 2 ** 20
    median = {who: float(np.median(values)) / mib for who, values in growth.items()}
    row = {"n x m": size, "benchirt_MiB": median["benchirt"], "benchirt_nodes": nodes, "mirt_MiB": median["mirt"],
           "mirt_same_nodes_MiB": median["mirt_same_nodes"], "floor_MiB": median["floor"],
           "ratio_vs_mirt": median["benchirt"] / max(median["mirt"], 1 / mib),
           "ratio_vs_mirt_same_nodes": median["benchirt"] / max(median["mirt_same_nodes"], 1 / mib)}
    for who in ("benchirt", "mirt", "mirt_same_nodes"):
        row[f"{who}_range"] = f"{min(growth[who]) / mib:.2f}-{max(growth[who]) / mib:.2f}"
    return row


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=SIZES, help="matrices as NxM (default: the scale table's)")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per fit; the table gives the median")
    args = parser.parse_args(argv)
    try:
        import mirt  # noqa: F401
    except ImportError:
        sys.exit("mirt is not installed: pip install -e '.[bench]'")
    rows = []
    with tempfile.TemporaryDirectory(prefix="irt_memory_") as tmp:
        for size in args.sizes:
            rows.append(measure(size, Path(tmp), args.repeats))
            print(pd.DataFrame(rows[-1:]).round(2).to_string(index=False), flush=True)
    table = pd.DataFrame(rows).round(2)
    print(f"\nPeak resident-set growth of one fit, median of {args.repeats} fresh processes each (MiB):")
    print(table.to_string(index=False))
    return table


if __name__ == "__main__":
    main()

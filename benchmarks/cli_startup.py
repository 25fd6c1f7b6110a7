"""How long ``benchirt <command> --help`` takes, and its peak memory (issue 23, item 3: goal < 0.3 s).

Each sub-command's help runs ``--repeats`` times in a fresh interpreter (as the ``benchirt`` script
runs it: ``benchirt.cli.main``); the table prints the median wall time of the whole process (start-up
of Python included), the part after the interpreter started (``benchirt``: imports and the help), the
peak resident memory and the heavy libraries it imported (none expected: tests/test_cli.py fails
when one is). The ``benchirt`` imported is the first on the path: run it from outside the repository
with ``PYTHONPATH`` set to compare revisions (e.g. a ``git archive`` of an older one).

    python benchmarks/cli_startup.py [--repeats 5]
    cd /tmp && PYTHONPATH=/path/to/old python /path/to/benchmarks/cli_startup.py   # another revision
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from benchirt.cli import COMMANDS

CHILD = ("import time\n"
         "start = time.perf_counter()\n"
         "import contextlib, io, json, resource, sys\n"
         "from benchirt.cli import main\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n"
         "    try:\n"
         "        main([sys.argv[1], '--help'])\n"
         "    except SystemExit:\n"
         "        pass\n"
         "heavy = ('numpy', 'pandas', 'scipy', 'sklearn', 'matplotlib', 'seaborn', 'scikit_posthocs', 'pyarrow')\n"
         "print(json.dumps([time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,\n"
         "                  [m for m in heavy if m in sys.modules]]))")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"benchirt <command> --help: median of {args.repeats} fresh processes")
    print(f"{'command':<12} {'seconds':>8} {'benchirt':>9} {'peak MiB':>9}  heavy imports")
    bare = [_timed([sys.executable, "-c", "pass"]) for _ in range(args.repeats)]
    print(f"{'(python)':<12} {statistics.median(bare):>8.3f} {'':>9} {'':>9}  interpreter start-up alone, for scale")
    for name in COMMANDS:
        times, inside, memory, heavy = [], [], [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", CHILD, name], capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if done.returncode:
                heavy = ["FAILED: " + (done.stderr.strip().splitlines() or ["?"])[-1]]
                break
            seconds, kib, heavy = json.loads(done.stdout.strip().splitlines()[-1])
            inside.append(seconds)
            memory.append(kib / 1024)
        peak = f"{statistics.median(memory):>9.1f}" if memory else f"{'':>9}"
        own = f"{statistics.median(inside):>9.3f}" if inside else f"{'':>9}"
        print(f"{name:<12} {statistics.median(times):>8.3f} {own} {peak}  {', '.join(heavy) or '-'}")


def _timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()

"""How long the README's test command takes: wall time, CPU time of the run and its children, the machine's load.

    python benchmarks/suite_time.py            # the default suite (python -m pytest -q)
    python benchmarks/suite_time.py -m slow    # any further pytest arguments are passed on

CPU seconds are the stable figure (wall time grows with the machine's load, printed before and after).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = done.stdout.splitlines()
    closing = [line for line in lines if " passed" in line or " failed" in line]
    print("\n".join(line for line in lines if line.startswith(("FAILED", "ERROR"))))
    print(closing[-1] if closing else done.stdout[-2000:])
    print(f"wall {wall / 60:.1f} min ({wall:.0f} s); CPU {usage.ru_utime + usage.ru_stime:.0f} s "
          f"(user {usage.ru_utime:.0f}, system {usage.ru_stime:.0f}); load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after; {os.cpu_count()} cores; exit status {done.returncode}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Peak memory of benchirt's readers on a junk text file, and of the 1 GB junk case (issue 25, item 6).

A junk file is text that passes the 64 KiB sniff of :mod:`benchirt.sniff` (no NUL byte, line breaks, a
first line that looks like a header) but is no table benchirt can use: lines of random comma-separated
words. Each reader runs in a fresh process (``python -m benchirt.cli …``); its peak resident memory is
that process's ``ru_maxrss`` (the kernel's own high-water mark, not a sample) and its wall time is
measured around it. Readers: ``benchirt irt FILE`` (a response matrix), ``benchirt rate FILE`` (a
scores table) and ``benchirt datasets FOLDER`` (a CSV dataset in a local folder suite).

Every reader parses the whole file with pandas before it can judge it, so its peak grows with the file
(the slope printed: MiB of peak per MiB of input). ``BENCHIRT_MAX_INPUT_MB``'s default is chosen from
that slope so that the worst reader stays under 1.5 GiB at the limit; a 1 GB junk file is then refused
by its size alone, at the interpreter's own footprint, and the script checks that it is.

    python benchmarks/junk_input.py --sizes 16 128   # what benchirt/sniff.py and docs/benchmarks.md quote
    python benchmarks/junk_input.py                  # 16 and 64 MiB per reader, then the 1 GB case
    python benchmarks/junk_input.py --part names     # long names and big descriptions (issue 44, item 4)

``--part names``: one name of ``--name-mb`` MiB (default 100, whole MiB) where a reader copies it — a respondent of a
response matrix (``benchirt irt``), a classifier of a scores table (``benchirt rate``), the flow name of a
stored run's ``description.xml`` (``benchirt import-runs``, refused by the description limit of
:mod:`benchirt.stored_runs.descriptions`) — and the worst description the parser may still read (4 MiB of
empty elements); each must end within 1 GiB of peak memory, one line of error or a result, and the script
checks that it does.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Runs a benchirt command in this process and prints its exit status and peak RSS (KiB) on the last line.
_PEAK = ("import resource, sys\nfrom benchirt.cli import main\ntry:\n    code = main(sys.argv[1:])\n"
         "except SystemExit as stop:\n    code = stop.code or 0\n"
         "print('PEAK', code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")


def write_junk(path: Path, megabytes: float, seed: int = 0) -> None:
    """``megabytes`` MiB of lines of 12 random lower-case words separated by commas, under a word header."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(5000)]
    block = "\n".join(",".join(rng.choice(words) for _ in range(12)) for _ in range(20000)) + "\n"
    target = int(megabytes * 2**20)
    with path.open("w") as handle:
        handle.write(",".join(f"c{i}" for i in range(12)) + "\n")
        written = 0
        while written < target:
            piece = block[: target - written]
            handle.write(piece)
            written += len(piece)


def peak(args: list[str], env: dict | None = None) -> tuple[int, float, float, str]:
    """(exit status, peak RSS in MiB, wall seconds, first stderr line) of ``benchirt ARGS`` in a fresh process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    seconds = time.perf_counter() - start
    last = [line for line in done.stderr.splitlines() if line.startswith("PEAK ")]
    if not last:
        raise RuntimeError(f"benchirt {' '.join(args)} crashed: {done.stderr[-2000:]}")
    _, code, kib = last[-1].split()
    lines = [line.split("\r")[-1] for line in done.stderr.replace("\r\n", "\n").split("\n")]  # past progress bars
    message = next((line for line in lines if line.strip() and not line.startswith("PEAK ") and "%|" not in line), "")
    if not message and done.stdout.strip():  # `benchirt datasets` prints a dataset's problem in its table
        message = done.stdout.strip().splitlines()[-1].split("  ")[-1].strip()
    return int(code), int(kib) / 1024, seconds, message


def readers(folder: Path, junk: Path) -> dict[str, list[str]]:
    suite = folder / "suite"
    suite.mkdir(exist_ok=True)
    link = suite / "junk.csv"
    if link.exists() or link.is_symlink():
        link.unlink()
    link.symlink_to(junk)
    return {"irt (response matrix)": ["irt", str(junk), "--out", str(folder / "irt")],
            "rate (scores table)": ["rate", str(junk), "--out", str(folder / "rate")],
            "datasets (CSV in a folder suite)": ["datasets", str(suite)]}


def _write_with_name(path: Path, before: str, megabytes: float, after: str, unit: str = "n") -> Path:
    """``before``, a name of ``megabytes`` MiB of ``unit`` written 1 MiB at a time (this process never holds it:
    a child's peak RSS starts from its parent's), then ``after``."""
    block = (unit * (2**20 // len(unit) + 1))[:2**20]
    with path.open("w", encoding="utf-8") as handle:
        handle.write(before)
        for _ in range(int(megabytes)):
            handle.write(block)
        handle.write(after)
    return path


def _runs_folder(root: Path, flow_mb: float = 0, elements: int = 0) -> Path:
    """A stored-runs folder of one task and three runs, run 3's description holding a flow name of ``flow_mb`` MiB
    (or, with ``elements``, that many empty elements after its fields)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from runs_samples import write_small_task

    write_small_task(root, 7, 40, "diabetes", (1, 2, 3))
    description = root / "runs" / "3" / "description.xml"
    before, after = description.read_text().split("flow-2", 1)
    if flow_mb:
        _write_with_name(description, before, flow_mb, after)
    if elements:
        description.write_text((before + "flow-2" + after).replace("</oml:run>", "<e/>" * elements + "</oml:run>"))
    return root


def names(folder: Path, megabytes: float) -> None:
    """Peak memory of every reader of a name of ``megabytes`` MiB, and of the largest description read."""
    matrix = _write_with_name(folder / "matrix.csv", "respondent,V1,V2,V3\n", megabytes,
                              ",1,0,1\n" + "".join(f"r{i},{i % 2},1,0\n" for i in range(12)))
    scores = _write_with_name(folder / "scores.csv", "dataset,classifier,score\nd0,", megabytes, ",0.9\n" + "".join(
        f"d{d},{c},{0.9 - 0.1 * k}\n" for d in range(3) for k, c in enumerate(("svm", "knn", "mlp"), 1)))
    quoted = _write_with_name(folder / "quoted.csv", 'dataset,classifier,score\nd0,"', megabytes, '",0.9\n' + "".join(
        f"d{d},{c},{0.9 - 0.1 * k}\n" for d in range(3) for k, c in enumerate(("svm", "knn", "mlp"), 1)), unit="a,\n")
    cases = {
        f"irt: a respondent name of {megabytes:g} MiB": ["irt", str(matrix), "--out", str(folder / "irt")],
        f"rate: a quoted name of {megabytes:g} MiB of a,<newline>": ["rate", str(quoted), "--out", str(folder / "q")],
        f"rate: a classifier name of {megabytes:g} MiB": ["rate", str(scores), "--out", str(folder / "rate"),
                                                          "--permutations", "0"],
        f"import-runs: a flow name of {megabytes:g} MiB": [
            "import-runs", str(_runs_folder(folder / "big", flow_mb=megabytes)), "--out", str(folder / "big-out")],
        "import-runs: a 4 MiB description of empty elements": [
            "import-runs", str(_runs_folder(folder / "many", elements=(4 * 2**20 - 2048) // 4)),
            "--out", str(folder / "many-out")],
    }
    print(f"{'case':<52}{'exit':>5}{'peak MiB':>10}{'seconds':>9}  message")
    for label, command in cases.items():
        code, rss, seconds, message = peak(command)
        print(f"{label:<52}{code:>5}{rss:>10.0f}{seconds:>9.1f}  {message[:100]}")
        if rss > 1024:
            raise SystemExit(f"{label}: peak {rss:.0f} MiB, over 1 GiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["junk", "names"], default="junk",
                        help="junk tables (default) or long names and big descriptions")
    parser.add_argument("--sizes", type=float, nargs="+", default=[16, 64], help="junk sizes in MiB under the limit")
    parser.add_argument("--big-mb", type=float, default=1000, help="the big junk file (MiB), refused by its size")
    parser.add_argument("--name-mb", type=float, default=100, help="the long name (MiB), --part names")
    args = parser.parse_args()
    if args.part == "names":
        with tempfile.TemporaryDirectory() as tmp:
            names(Path(tmp), args.name_mb)
        return
    from benchirt.sniff import DEFAULT_MAX_INPUT_MB

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        baseline = peak(["--version"])[1]
        print(f"python + benchirt --version peak: {baseline:.0f} MiB; default input limit {DEFAULT_MAX_INPUT_MB} MiB")
        print(f"{'reader':<34}{'junk MiB':>9}{'exit':>6}{'peak MiB':>10}{'seconds':>9}  message")
        slopes: dict[str, list[tuple[float, float]]] = {}
        for size in args.sizes:
            junk = folder / f"junk-{size:g}.csv"
            write_junk(junk, size)
            for name, command in readers(folder, junk).items():
                code, rss, seconds, message = peak(command, env={"BENCHIRT_MAX_INPUT_MB": str(10 * max(args.sizes))})
                slopes.setdefault(name, []).append((size, rss))
                print(f"{name:<34}{size:>9g}{code:>6}{rss:>10.0f}{seconds:>9.1f}  {message[:90]}")
            junk.unlink()
        print("peak MiB per input MiB (slope between the sizes) and the projected peak at the default limit:")
        worst = 0.0
        for name, points in slopes.items():
            (s0, r0), (s1, r1) = points[0], points[-1]
            slope = (r1 - r0) / (s1 - s0) if s1 > s0 else r1 / s1
            projected = r1 + slope * (DEFAULT_MAX_INPUT_MB - s1)
            worst = max(worst, projected)
            print(f"  {name:<34}{slope:6.2f}  -> {projected:,.0f} MiB at {DEFAULT_MAX_INPUT_MB} MiB")
        print(f"worst projected peak at the limit: {worst:,.0f} MiB ({'within' if worst <= 1536 else 'OVER'} 1.5 GiB)")
        big = folder / "junk-big.csv"
        write_junk(big, args.big_mb)
        for name, command in readers(folder, big).items():
            code, rss, seconds, message = peak(command)
            print(f"{args.big_mb:g} MiB junk, {name:<34} exit {code}, peak {rss:.0f} MiB, {seconds:.1f} s: {message[:110]}")
            if code != 2 or rss > 1536:
                raise SystemExit(f"the {args.big_mb:g} MiB junk file was not refused within 1.5 GiB by {name}")


if __name__ == "__main__":
    main()

"""Refresh the report screenshots under docs/img/: the first two screens of a report, and time the run.

Runs `benchirt run` with the packaged default config (the embedded suite, every stage, offline) into a
fresh folder — or reuses ``--run DIR`` — then opens report.html in headless Chromium at 1280 × 800,
checks it as the browser test does (no console error, every image decoded, nothing wider than the
viewport, every figure's text at least 10 px on screen, conclusions first) and saves its first two screens
(1280 × 800 each) as docs/img/report-<name>-1.png and -2.png.

    python benchmarks/report_screenshots.py                  # run + screenshots (about a minute on 2 cores)
    python benchmarks/report_screenshots.py --run runs/default
    python benchmarks/report_screenshots.py --run runs/cc18 --name cc18-offline

Needs Playwright and a system Chromium (Debian: apt-get install chromium-headless-shell). Prints the
run's wall time per stage, its CPU time and the machine's load average: on a shared machine the wall time
grows with the load, the CPU time hardly.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from benchirt.pipeline import load_config, run_pipeline
from benchirt.report.browser import check_page

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "img"
#: Colours kept in the full-size screens (a palette PNG: a fraction of the size, text stays crisp).
SCREEN_COLOURS = 128


def _cpu_seconds() -> float:
    """User + system CPU of this process, of its finished children and of its live workers (joblib keeps
    its workers alive), which unlike the wall time hardly grows when other jobs share the machine."""
    import resource

    import psutil

    total = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                for field in ("ru_utime", "ru_stime"))
    for process in psutil.Process().children(recursive=True):
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, help="an existing run directory (default: run the default study now)")
    parser.add_argument("--name", default="default", help="the two screens go to docs/img/report-NAME-1.png, -2.png")
    args = parser.parse_args(argv)
    run_dir = args.run
    if run_dir is None:
        run_dir = Path(tempfile.mkdtemp(prefix="benchirt-default-")) / "run"
        load_before = os.getloadavg()[0]
        start, cpu_start = time.perf_counter(), _cpu_seconds()
        outcome = run_pipeline(load_config(None), out=run_dir, show_progress=False)
        wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu_start
        stages = ", ".join(f"{name} {report.seconds:.1f} s" for name, report in outcome.manifest.stages.items())
        print(f"default run: {wall:.1f} s wall, {cpu:.1f} s CPU in this process and its workers ({stages}); "
              f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs")
    screens = [IMAGES / f"report-{args.name}-{k}.png" for k in (1, 2)]
    check = check_page(run_dir / "report.html", width=1280, height=800, screens=screens)
    for screen in screens:
        with Image.open(screen) as image:
            palette = image.convert("RGB").quantize(colors=SCREEN_COLOURS)
        palette.save(screen, optimize=True)
        print(f"wrote {screen} ({screen.stat().st_size // 1024} KB)")
    problems = check.problems()
    for problem in problems:
        print("problem:", problem, file=sys.stderr)
    print(f"{check.images} images, smallest figure text "
          f"{min((size for _, size in check.figure_text_px), default=float('nan')):.1f} px on screen, "
          f"first section {check.first_section!r}, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The one-screen summary ``benchirt run`` prints at the end (from the manifest and the stored results)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from benchirt.humanize import short_name
from benchirt.pipeline.manifest import Manifest, ResultEntry
from benchirt.safe_text import printable

#: Widest dataset reason shown on the terminal (the report and the manifest keep the whole text).
REASON_WIDTH = 90


def format_summary(run_dir: str | Path, manifest: Manifest, *, glicko=None, top: int = 5, verdict: str | None = None,
                   command: str | None = None) -> str:
    """Stage table (status, seconds, computed / reused / skipped / failed), leaders, skips, where to look.

    ``glicko``: the rate stage's Glicko-2 table (``RatingResult.tournament.table``), adding its ``top`` classifiers with
    95 % intervals; ``verdict``: the leaderboard's one-sentence verdict (:func:`benchirt.rating.leaderboard_verdict`),
    printed first; ``command``: the command that made the run, named with ``--retry-failed`` when a dataset failed (a
    plain rerun records it as failed again without trying it).
    """
    lines = [f"benchirt run: {manifest.status or '?'} — {run_dir}"]
    lines += _stage_table(manifest)
    if verdict:
        score = manifest.rating_score or "true_score"
        lines += textwrap.wrap(f"Leaderboard (Bradley–Terry on {score}): {verdict}", width=110, subsequent_indent="  ")
    if glicko is not None:
        lines += _glicko_leaders(glicko, top)
    lines += _problem_lines(manifest)
    empty = manifest.stages_without_result()
    if empty and manifest.status != "explained":
        lines.append(f"No result from the {', '.join(empty)} stage{'s' if len(empty) > 1 else ''} (skipped for "
                     "every dataset; the reasons above): exit status 1")
    lines += left_out_lines(manifest)
    retry = retry_names(manifest)
    if retry and command:
        lines.append(f"To try {', '.join(retry[:4])}{' and more' if len(retry) > 4 else ''} again: {command} "
                     "--retry-failed  (a plain rerun does not retry a failed dataset)")
    run_dir = Path(run_dir)
    if (run_dir / "report.html").is_file():
        lines.append(f"Report: {run_dir / 'report.html'}  (summary: {run_dir / 'summary.md'})")
    lines.append(f"Manifest: {run_dir / 'manifest.json'}")
    return printable("\n".join(lines))  # classifier and dataset names come from files: no raw terminal escapes


def _stage_table(manifest: Manifest) -> list[str]:
    """One line per stage (status, seconds, computed / reused / skipped / failed) under a header, and the total."""
    lines = [f"  {'stage':<9}{'status':<10}{'seconds':>9}{'computed':>10}{'reused':>8}{'skipped':>9}{'failed':>8}"]
    total = 0.0
    for stage, report in manifest.stages.items():
        total += report.get("seconds") or 0.0
        lines.append(
            f"  {stage:<9}{report.get('status', ''):<10}{report.get('seconds', 0):>9.1f}{report.get('computed', 0):>10}"
            f"{report.get('reused', 0):>8}{report.get('skipped', 0):>9}{report.get('failed', 0):>8}"
        )
    lines.append(f"  {'total':<19}{total:>9.1f}")
    return lines


def _glicko_leaders(glicko, top: int) -> list[str]:
    """The Glicko-2 table's ``top`` classifiers with their 95 % intervals."""
    table = glicko.sort_values("rating", ascending=False).head(top)
    lines = [f"Glicko-2 leaders (rating ± 95 % interval) over {int(glicko['n_played'].max())} datasets:"]
    for _, row in table.iterrows():
        lines.append(f"  {int(row['rank']):>3}. {short_name(str(row['classifier'])):<22}{row['rating']:8.1f}  "
                     f"[{row['low']:.0f}, {row['high']:.0f}]")
    return lines


def _problems(manifest: Manifest) -> list[tuple[str, str, ResultEntry]]:
    """``(dataset, stage, entry)`` of every skipped or failed result: per dataset, over all datasets
    (``(all datasets)``), and stages skipped or failed as a whole (``(stage)``)."""
    problems = [(name, stage, entry) for name, stages in sorted(manifest.datasets.items())
                for stage, entry in stages.items() if entry.get("status") in ("skipped", "failed")]
    for stage, entry in manifest.artifacts.items():
        if entry.get("status") in ("skipped", "failed"):
            problems.append(("(all datasets)", stage, entry))
    for stage, report in manifest.stages.items():
        if report.get("note") and report.get("status") in ("skipped", "failed") and stage not in manifest.artifacts:
            problems.append(("(stage)", stage, {"status": report["status"], "reason": report["note"]}))
    return problems


def _problem_lines(manifest: Manifest) -> list[str]:
    """``Skipped or failed:`` and one line per problem with the first line of its reason (empty if none)."""
    lines = [f"  {entry['status']:<8}{stage:<8}{name}: {_first_line(entry.get('reason') or '')}"
             for name, stage, entry in _problems(manifest)]
    return ["Skipped or failed:", *lines] if lines else []


def _first_line(text: str) -> str:
    """The first line of ``text`` (empty for none), cut to :data:`REASON_WIDTH` characters with an ellipsis."""
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= REASON_WIDTH else line[: REASON_WIDTH - 1] + "…"


def left_out_classifiers(manifest: Manifest) -> dict[str, dict[str, str]]:
    """Classifier -> {dataset: the error of its fit} for every configured classifier a kept result lacks (the
    manifest's ``left_out`` entries; a dataset failed by ``--strict`` is listed among the failures instead)."""
    found: dict[str, dict[str, str]] = {}
    for name, stages in sorted(manifest.datasets.items()):
        for entry in stages.values():
            if entry.get("status") == "failed":  # under --strict: the failure itself names the classifier
                continue
            for clf, error in (entry.get("left_out") or {}).items():
                found.setdefault(clf, {})[name] = error
    return found


def left_out_lines(manifest: Manifest) -> list[str]:
    """The summary's lines naming each left-out classifier, its datasets and its first error (empty if none)."""
    found = left_out_classifiers(manifest)
    if not found:
        return []
    lines = ["Classifiers LEFT OUT (their fit failed; --strict fails the dataset instead):"]
    for clf, errors in sorted(found.items()):
        first = _first_line(next(iter(errors.values())))
        lines.append(f"  {clf} on {len(errors)} dataset(s) ({', '.join(errors)}): {first}")
    return lines


def retry_names(manifest: Manifest) -> list[str]:
    """Datasets with a stage that failed and that ``--retry-failed`` would run again (not those ``--strict`` failed)."""
    return sorted(name for name, stages in manifest.datasets.items()
                  if any(e.get("status") == "failed" and not e.get("left_out") for e in stages.values()))

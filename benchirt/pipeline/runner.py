"""The stage runner: computes what a run directory lacks, reuses what it has, records everything.

:class:`Run` is the engine of every pipeline: per-dataset stages go through an executor (local joblib or Dask), each
result stored the moment it arrives; stages over all datasets run in the driver. Each (stage, dataset) result is keyed
by its options and inputs (:mod:`benchirt.pipeline.store`), so a rerun — after a kill, a crash or a change of options —
computes only the missing or changed results. The manifest is rewritten atomically after every result, so it always
describes what is on disk. Each manifest entry carries a ``decision``: ``"reused"``, or ``"recomputed because …"``
naming what changed (options, input, a source file, a library version —
:func:`benchirt.pipeline.fingerprint.changes`), that there was no result, or ``--force``. With ``explain=True``
(``benchirt run --explain``) the run decides the same way but computes and writes nothing ("would recompute because …").
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence, cast

from benchirt.bars import tqdm

from benchirt.pipeline import fingerprint
from benchirt.pipeline.eta import RunEta, format_duration
from benchirt.pipeline.executors import TaskOutcome
from benchirt.pipeline.progress import FOLDER as PROGRESS_FOLDER
from benchirt.pipeline.progress import StagePostfix
from benchirt.pipeline.manifest import Manifest, ResultEntry, StageEntry
from benchirt.pipeline.store import ArtifactStore, environment_versions, key_parts
from benchirt.safe_text import printable
from benchirt.stage_plan import DatasetInput

#: Options that change how fast a result is computed, never the result: left out of artifact keys.
NOT_IN_KEY = frozenset({"n_jobs", "show_progress"})


@dataclass
class StageReport:
    """Counts and timing of one stage in one run (manifest and summary): ``seconds`` its wall time,
    ``task_cpu_seconds`` the CPU time of the tasks it computed, summed."""

    status: str = "pending"
    seconds: float = 0.0
    task_cpu_seconds: float = 0.0
    computed: int = 0
    reused: int = 0
    skipped: int = 0
    failed: int = 0
    left_out: int = 0
    note: str | None = None


@dataclass
class Run:
    """A run in progress over one run directory.

    ``config`` is the plain-data configuration recorded in the manifest; ``force`` recomputes even complete artifacts
    with the same key. ``retry_failed`` tries again the results that failed in the previous run with the same key; by
    default they are recorded as failed again without running (a dataset that killed its worker would otherwise cost
    the same on every rerun). ``show_progress``: tqdm bars and one stderr line per skipped/failed dataset.
    ``explain``: decide and record why, without computing or writing. ``strict`` (``execution.strict``): a result
    lacking something asked for (its ``left_out()``, e.g. a failed classifier) fails its dataset instead of being
    kept; either way the manifest entry lists it under ``left_out``.
    """

    store: ArtifactStore
    executor: Any
    config: dict = field(default_factory=dict)
    force: bool = False
    retry_failed: bool = False
    show_progress: bool = True
    explain: bool = False
    strict: bool = False
    manifest: Manifest = field(default_factory=Manifest)
    previous: Manifest = field(default_factory=Manifest, repr=False)
    begun: bool = False  # start() made this run's manifest (a refusal before that leaves the directory alone)
    stage_reports: dict[str, StageReport] = field(default_factory=dict)
    started: dict[str, float] = field(default_factory=dict, repr=False)
    kept: dict = field(default_factory=dict, repr=False)

    def start(self, stages: Sequence[str], *, carry: bool = False) -> None:
        """Lock the run directory, drop leftovers of a killed run, write the initial manifest; ``carry`` continues
        the previous run's manifest (``stages`` added), for work that extends a finished run (``benchirt add``)."""
        leftovers = 0
        if not self.explain:
            self.store.claim(self.force)
            self.store.lock()
            self.kept = self.store.snapshot()
            leftovers = self.store.clean_temporary()
        previous: Manifest | None
        try:
            previous = self.store.read_manifest()
        except Exception:  # noqa: BLE001 - a missing or unreadable old manifest just starts afresh
            previous = None
        self.previous = previous if previous is not None else Manifest.from_json({})
        self.manifest = Manifest.begin(
            config=self.config, versions=environment_versions(), executor=self.executor.describe(),
            stages={name: _public(StageReport()) for name in stages}, created=self.previous.created,
            removed_partial_artifacts=leftovers)
        self.begun = True
        if carry and previous is not None:
            self.manifest.carry(previous)
        if not self.manifest.created:
            self.manifest.created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self.stage_reports = {name: StageReport() for name in stages}
        self._log(f"executor: {self.manifest.executor}")  # a Dask scheduler's dashboard address among it
        self._save_manifest()

    # -- stages over datasets --------------------------------------------------------------------
    def per_dataset(self, stage: str, options: dict, items: Sequence[DatasetInput], fn: Callable,
                    *, preflight: Callable[[str], Any] | None = None, progress: Path | None = None,
                    split: Callable | None = None) -> dict[str, str]:
        """Run ``fn(*item.build_args())`` for every item lacking a complete artifact; dataset name -> artifact key for
        every dataset whose result now exists (reused or computed).

        ``split(executor, tasks, call=call)``, when given, cuts the datasets' tasks ``(name, (fn, *args))`` finer and
        yields one :class:`TaskOutcome` per dataset (:func:`benchirt.pipeline.fits.response_fits`). ``preflight(name)``
        is asked before loading about every dataset to compute: a :class:`~benchirt.pipeline.preflight.Preflight` with
        ``skip_reason`` records it as skipped without an artifact (a rerun with more memory tries it), and the expected
        seconds feed the ETA (:class:`~benchirt.pipeline.eta.RunEta`). ``progress`` is the folder of
        :func:`progress_folder` the tasks write their fits to (:mod:`benchirt.pipeline.progress`), shown by the bar.
        """
        report = self._begin(stage)
        done: dict[str, str] = {}
        todo: list[tuple[DatasetInput, str]] = []
        parts: dict[str, dict] = {}
        for item in items:
            parts[item.name] = stage_parts(stage, options, item.inputs)
            key = fingerprint.digest(parts[item.name])
            if not self._settled(stage, item.name, key, report, done):
                todo.append((item, key))
        why = {item.name: self._why(stage, item.name, parts[item.name]) for item, _ in todo}
        self._log_decisions(stage, why)
        if self.explain:
            for item, key in todo:
                self._record(stage, item.name, key, "would recompute", decision=f"would recompute because {why[item.name]}")
            self._end(stage, report)
            return {**done, **{item.name: key for item, key in todo}}
        eta = (self._preflight(stage, todo, preflight, report, split is not None)
               if preflight is not None and todo else None)
        todo = [(item, key) for item, key in todo if eta is None or item.name in eta.expected]
        self._save_manifest()
        done.update(self._compute(stage, todo, fn, split, progress, eta, report, parts, why))
        self._end(stage, report)
        return done

    def _compute(self, stage: str, todo: list[tuple[DatasetInput, str]], fn: Callable, split: Callable | None,
                 progress: Path | None, eta: RunEta | None, report: StageReport, parts: dict[str, dict],
                 why: dict[str, str]) -> dict[str, str]:
        """Run the datasets of ``todo`` through the executor (``split`` cuts them finer), store each outcome as it
        arrives, show the bar and the ETA; dataset -> key of those whose result is now stored."""
        tasks = [(item.name, (fn, *item.build_args())) for item, _ in todo]
        keys = {item.name: key for item, key in todo}
        done: dict[str, str] = {}
        bar = tqdm(total=len(tasks), desc=f"{stage:>8}", unit="dataset", disable=not self.show_progress or not tasks,
                   file=sys.stderr, leave=True)
        expect = getattr(self.executor, "expect", None)  # an executor that plans its workers per stage (slurm)
        if expect is not None:
            self._log(expect(stage, list(keys), report.reused))
        with bar, StagePostfix(bar, progress if tasks and self.show_progress else None) as postfix:
            outcomes = self.executor.map(_call, tasks) if split is None else split(self.executor, tasks, call=_call)
            for outcome in outcomes:
                key = keys[outcome.name]
                if self._store_outcome(stage, key, outcome, report, parts[outcome.name], why[outcome.name]):
                    done[outcome.name] = key
                postfix.done(outcome.name, eta=_eta_text(eta, outcome))
                bar.update(1)
        return done

    def _settled(self, stage: str, name: str, key: str, report: StageReport, done: dict[str, str]) -> bool:
        """Record the (stage, dataset) result that needs no computing — reused, skipped before, failed strictly,
        or failed in the previous run and not retried — and say so; False when it is to be computed."""
        if not self.force and self.store.has(stage, name, key):
            self._reuse(stage, name, key, report, done)
            return True
        if not self.force and not self.retry_failed and self._failed_before(stage, name, key):
            entry = self.previous.entry(stage, name=name)
            reason = f"failed in the previous run (not retried; --retry-failed tries again): {entry.get('reason')}"
            self._record(stage, name, key, "failed", reason=reason, attempts=0,
                         previous_attempts=entry.get("attempts"), decision="not retried: it failed in the previous run")
            report.failed += 1
            self._log(f"{stage}: {name} failed in the previous run; not retried (use --retry-failed)")
            return True
        return False

    def _reuse(self, stage: str, name: str, key: str, report: StageReport, done: dict[str, str]) -> None:
        """Record the stored result of (stage, dataset): a skip stays a skip, a result missing what was asked
        fails under ``strict``, any other is verified and reused."""
        marker = self.store.marker(stage, name, key)
        if marker.get("status") == "skipped":
            self._record(stage, name, key, "skipped", reason=marker.get("reason"), reused=True, decision="reused")
            report.skipped += 1
        elif marker.get("left_out") and self.strict:
            self._fail_strict(stage, name, key, marker["left_out"], report, decision="reused")
        else:
            self.store.verify(stage, name, key)
            self._record(stage, name, key, "reused", decision="reused", **_left_out_info(marker))
            report.reused += 1
            report.left_out += len(marker.get("left_out") or {})
            done[name] = key

    def _preflight(self, stage: str, todo: list, preflight: Callable[[str], Any], report: StageReport,
                   fine: bool) -> RunEta:
        """Skip the datasets ``preflight`` refuses (recorded, no artifact); the ETA of the others, printed
        (``fine``: the stage runs as (dataset, fit) tasks, and the ETA schedules them one by one)."""
        expected, tasks, irt = {}, {}, 0.0
        for item, key in todo:
            check = preflight(item.name)
            if check.skip_reason:
                self._record(stage, item.name, key, "skipped", reason=check.skip_reason,
                             decision="not loaded: projected over the memory limit")
                report.skipped += 1
                self._log(f"{stage}: skipped {item.name} before loading it: {check.skip_reason}")
                continue
            expected[item.name] = check.expected_seconds
            if check.expected_tasks is not None:
                tasks[item.name] = check.expected_tasks
            irt += check.irt_seconds or 0.0
        eta = RunEta(expected, getattr(self.executor, "workers", 1), irt, tasks if fine else None)
        if expected:
            self._log(eta.describe())
        return eta

    def _fail_strict(self, stage: str, name: str, key: str, left_out: dict, report: StageReport, decision: str) -> None:
        """Record a result that lacks classifiers as failed (``strict``): it stays stored but is not used downstream."""
        self._record(stage, name, key, "failed", reason=strict_failure(left_out), decision=decision,
                     left_out=dict(left_out))
        report.failed += 1
        self._log(f"{stage}: FAILED {name}: {strict_failure(left_out).splitlines()[0]}")

    def progress_folder(self) -> Path:
        """Where worker processes write their progress during a stage (removed when it ends)."""
        return self.store.root / PROGRESS_FOLDER

    def _failed_before(self, stage: str, name: str, key: str) -> bool:
        entry = self.previous.entry(stage, name=name)
        return entry.get("status") == "failed" and entry.get("key") == key

    def _store_outcome(self, stage: str, key: str, outcome: TaskOutcome, report: StageReport, parts: dict,
                       why: str) -> bool:
        """Store and record one dataset's outcome; whether its result was stored (False: skipped, failed, or its
        result could not be saved — a full disk fails that dataset only, and the next stages leave it out)."""
        info = {"seconds": round(outcome.seconds, 3), "cpu_seconds": round(outcome.cpu_seconds, 3),
                "attempts": outcome.attempts, "lost_workers": outcome.lost_workers}
        stored = {**info, "provenance": parts}
        decision = f"recomputed because {why}"
        if outcome.lost_workers:
            self._log(f"{stage}: {outcome.name} lost its worker {outcome.lost_workers} time(s) (process killed or out "
                      f"of memory); attempts: {outcome.attempts}")
        left_out = _left_out(outcome.value) if outcome.status == "ok" else {}
        report.task_cpu_seconds = round(report.task_cpu_seconds + outcome.cpu_seconds, 3)
        if outcome.status == "ok":
            stored.update(_left_out_info({"left_out": left_out}))
            try:
                path = self.store.save(stage, outcome.name, key, result=outcome.value, info=stored)
            except OSError as exc:  # a full disk, a lost mount: this dataset fails, the others go on
                outcome = TaskOutcome(outcome.name, "failed", error=f"could not save the result: {_os_reason(exc)}",
                                      seconds=outcome.seconds, attempts=outcome.attempts,
                                      lost_workers=outcome.lost_workers)
        if outcome.status == "ok" and left_out and self.strict:  # stored (a rerun without --strict reuses it), not used
            self._fail_strict(stage, outcome.name, key, left_out, report, decision=decision)
        elif outcome.status == "ok":
            self._record(stage, outcome.name, key, "computed", path=path, decision=decision, **info,
                         **_left_out_info({"left_out": left_out}))
            report.computed += 1
            report.left_out += len(left_out)
            for clf, error in left_out.items():
                self._log(f"{stage}: {outcome.name}: classifier {clf!r} LEFT OUT, its fit failed: {error.splitlines()[0]}")
        elif outcome.status == "skipped":
            assert outcome.error is not None  # a skipped or failed outcome says why (executors)
            self._save_skip(stage, outcome.name, key, outcome.error, stored)
            self._record(stage, outcome.name, key, "skipped", reason=outcome.error, decision=decision, **info)
            report.skipped += 1
            self._log(f"{stage}: skipped {outcome.name}: {outcome.error}")
        else:  # failures leave no artifact, only a manifest entry (a rerun tries again with --retry-failed)
            assert outcome.error is not None
            self._record(stage, outcome.name, key, "failed", reason=outcome.error, decision=decision, **info)
            report.failed += 1
            self._log(f"{stage}: FAILED {outcome.name} after {outcome.attempts} attempt(s): {outcome.error.splitlines()[0]} "
                      "(a rerun with --retry-failed tries it again)")
        self.manifest.set_stage(stage, _public(report))  # live counts for anyone watching the manifest
        self._save_manifest()
        return outcome.status == "ok"

    def _save_skip(self, stage: str, name: str, key: str, reason: str, info: dict) -> None:
        """Store the decision to skip (a rerun reuses it); a full disk leaves it unstored, said, and the run goes
        on (the rerun decides again)."""
        try:
            self.store.save(stage, name, key, status="skipped", reason=reason, info=info)
        except OSError as exc:
            self._log(f"{stage}: the decision to skip {name} could not be saved ({_os_reason(exc)}); a rerun decides "
                      "again")

    # -- stages over all datasets ----------------------------------------------------------------
    def whole(self, stage: str, options: dict, inputs: Any, fn: Callable, args_builder: Callable[[], tuple]) -> str | None:
        """Run a stage over every dataset at once in the driver; returns its artifact key or None."""
        report = self._begin(stage)
        parts = stage_parts(stage, options, inputs)
        key = fingerprint.digest(parts)
        try:
            if not self.force and self.store.has(stage, "all", key):
                marker = self.store.marker(stage, "all", key)
                if marker.get("status") == "skipped":  # the same inputs, options and code: the same reason
                    report.skipped, report.note = 1, marker.get("reason")
                    self.manifest.record_suite(stage, {"key": key, "status": "skipped", "reason": marker.get("reason"),
                                                       "decision": "reused"})
                    self._log(f"{stage}: skipped (stored decision): {marker.get('reason')}")
                    return None
                self.store.verify(stage, "all", key)
                report.reused = 1
                self.manifest.record_suite(stage, {"key": key, "status": "reused", "decision": "reused",
                                                   "path": str(self.store.path(stage, "all", key).relative_to(self.store.root))})
                return key
            why = self._why(stage, "all", parts)
            self._log_decisions(stage, {"all": why})
            if self.explain:
                self.manifest.record_suite(stage, {"key": key, "status": "would recompute",
                                                   "decision": f"would recompute because {why}"})
                return key
            with tqdm(total=1, desc=f"{stage:>8}", unit="stage", disable=not self.show_progress, file=sys.stderr) as bar:
                outcome = _attempt_whole(fn, args_builder)
                bar.update(1)
            report.task_cpu_seconds = round(outcome.cpu_seconds, 3)
            if outcome.status == "ok":
                try:
                    path = self.store.save(stage, "all", key, result=outcome.value,
                                           info={"seconds": round(outcome.seconds, 3), "provenance": parts})
                except OSError as exc:
                    outcome = TaskOutcome("all", "failed", error=f"could not save the result: {_os_reason(exc)}",
                                          seconds=outcome.seconds)
            if outcome.status == "ok":
                report.computed = 1
                entry: ResultEntry = {"key": key, "status": "computed", "decision": f"recomputed because {why}",
                                      "path": str(path.relative_to(self.store.root))}
                notes = getattr(outcome.value, "notes", None)
                if notes:  # what the suite-wide result adapted or used (e.g. AIRT's algorithms), beside its entry
                    entry["notes"] = [str(note) for note in notes]
                self.manifest.record_suite(stage, entry)
                return key
            assert outcome.error is not None  # a skipped or failed outcome says why (executors)
            if outcome.status == "skipped":
                report.skipped, report.note = 1, outcome.error
                self._save_skip(stage, "all", key, outcome.error, {"provenance": parts})
            else:
                report.failed, report.note = 1, outcome.error
            self.manifest.record_suite(stage, {"key": key, "status": outcome.status, "reason": outcome.error,
                                               "decision": f"recomputed because {why}"})
            self._log(f"{stage}: {outcome.status}: {outcome.error.splitlines()[0]}")
            return None
        finally:
            self._end(stage, report)

    def lookup(self, stage: str, options: dict, items: Sequence[DatasetInput]) -> dict[str, str]:
        """Dataset -> key of the stored results of a stage this run does not compute (recorded as ``stored``)."""
        found = {}
        for item in items:
            key = stage_key(stage, options, item.inputs)
            if not self.store.has(stage, item.name, key):
                continue
            marker = self.store.marker(stage, item.name, key)
            if marker.get("status") == "ok":
                found[item.name] = key
                self._record(stage, item.name, key, "stored", **_left_out_info(marker))
            else:
                self._record(stage, item.name, key, "skipped", reason=marker.get("reason"), reused=True)
        return found

    def adopt(self, stage: str, options: dict, inputs: Any) -> str | None:
        """Record the stored result of a suite-wide stage this run does not compute, if it matches."""
        key = stage_key(stage, options, inputs)
        if not self.store.has(stage, "all", key) or self.store.marker(stage, "all", key).get("status") != "ok":
            return None
        self.manifest.record_suite(stage, {"key": key, "status": "stored",
                                           "path": str(self.store.path(stage, "all", key).relative_to(self.store.root))})
        return key

    def document(self, stage: str, parts: dict, fn: Callable[[], None]) -> bool:
        """Run a stage that writes its own files (the report) unless the stored ones were built from ``parts``
        (``results``, ``options``, ``code`` digests); the decision goes to the manifest's ``documents``. True when
        the stage ran."""
        report = self._begin(stage)
        try:
            why = "--force was given" if self.force else self.store.report_change(parts)
            if why is None:
                report.reused = 1
                self.manifest.record_document(stage, {"status": "reused", "decision": "reused"})
                return False
            verb = "would rebuild" if self.explain else "rebuilt"
            self.manifest.record_document(stage, {"status": verb, "decision": f"{verb} because {why}"})
            if why != "no report is stored" or self.explain:
                self._log(f"{stage}: {'would rebuild' if self.explain else 'rebuilding'} because {why}")
            if self.explain:
                return False
            outcome = _attempt_whole(fn, tuple)
            report.task_cpu_seconds = round(outcome.cpu_seconds, 3)
            if outcome.status == "ok":
                self.store.save_report_key(parts)
                report.computed = 1
                return True
            assert outcome.error is not None  # a skipped or failed outcome says why (executors)
            if outcome.status == "skipped":
                report.skipped, report.note = 1, outcome.error
            else:
                report.failed, report.note = 1, outcome.error
            self._log(f"{stage}: {outcome.status}: {outcome.error.splitlines()[0]}")
            return False
        finally:
            self._end(stage, report)

    def note(self, message: str) -> None:
        """A note about the whole run (e.g. a config read under former names): on stderr and in the manifest."""
        self.manifest.add_note(message)
        self._log(message)
        self._save_manifest()

    def skip_stage(self, stage: str, reason: str) -> None:
        """Record that a requested stage could not run (e.g. its input stage produced nothing)."""
        report = self.stage_reports.setdefault(stage, StageReport())
        report.status, report.note = "skipped", reason
        self.manifest.set_stage(stage, _public(report))
        self._log(f"{stage}: skipped: {reason}")
        self._save_manifest()

    def abandon(self, reason: str) -> None:
        """Stop after a refusal (a changed artifact, a bad input): the previous run's manifest and config.yaml are put
        back, so ``benchirt report`` still shows that run; a first run records ``stopped: reason``. Results this run
        stored stay on disk; nothing the previous manifest names is removed."""
        if self.kept.get("manifest.json") is not None:
            self.store.restore(self.kept)
            self.store.unlock()
        else:
            self.finish(f"stopped: {reason.splitlines()[0] if reason else 'error'}")

    def finish(self, status: str | None = None) -> None:
        record = getattr(self.executor, "scheduler_record", None)  # the jobs of a batch scheduler (slurm)
        if record is not None:
            self.manifest.record_scheduler(record())
        failed = any(r.failed for r in self.stage_reports.values())
        left_out = any(r.left_out for r in self.stage_reports.values())
        empty = [] if self.explain else self.manifest.stages_without_result()
        self.manifest.status = status or ("explained" if self.explain else "finished with failures" if failed
                                             else "finished with classifiers left out" if left_out
                                             else f"finished without a result from {', '.join(empty)}" if empty
                                             else "finished")
        self._save_manifest()
        self.store.unlock()

    # -- bookkeeping -----------------------------------------------------------------------------
    def _why(self, stage: str, name: str, parts: dict) -> str:
        """Why (stage, name) has no reusable result: --force, no stored result, or what changed."""
        if self.force:
            return "--force was given"
        marker = self._previous_marker(stage, name)
        if marker is None:
            return "no result is stored"
        if marker.get("provenance") is None:
            return "the stored result was written by an older benchirt (no provenance)"
        return "; ".join(fingerprint.changes(marker["provenance"], parts)) or "the stored result does not match"

    def _previous_marker(self, stage: str, name: str) -> dict | None:
        """The marker of the result the previous run used for (stage, name), else of the latest one stored."""
        key = self.previous.entry(stage, name=name).get("key")
        if key and self.store.has(stage, name, key):
            return self.store.marker(stage, name, key)
        return self.store.previous(stage, name)

    def _log_decisions(self, stage: str, why: dict[str, str]) -> None:
        """One console line per distinct reason a stage recomputes (not for a first run)."""
        counts: dict[str, list[str]] = {}
        for name, reason in why.items():
            counts.setdefault(reason, []).append(name)
        verb = "would recompute" if self.explain else "recomputing"
        for reason, names in counts.items():
            if reason != "no result is stored" or self.explain:
                shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
                self._log(f"{stage}: {verb} {shown} because {reason}")

    def _begin(self, stage: str) -> StageReport:
        report = self.stage_reports.setdefault(stage, StageReport())
        report.status = "running"
        self.started[stage] = time.perf_counter()
        self.manifest.set_stage(stage, _public(report))
        self._save_manifest()
        return report

    def _end(self, stage: str, report: StageReport) -> None:
        report.seconds = round(time.perf_counter() - self.started.pop(stage), 3)
        succeeded = report.computed or report.reused
        report.status = "failed" if report.failed and not succeeded else "skipped" if report.skipped and not succeeded else "done"
        self.manifest.set_stage(stage, _public(report))
        self._save_manifest()

    def _record(self, stage: str, name: str, key: str, status: str, path=None, reason=None, reused=False, **info) -> None:
        entry: ResultEntry = {"status": status, "key": key}
        if path is not None:
            entry["path"] = str(path.relative_to(self.store.root))
        else:
            entry["path"] = str(self.store.path(stage, name, key).relative_to(self.store.root))
        if reason:
            entry["reason"] = reason
        if reused:
            entry["reused"] = True
        entry.update(cast(ResultEntry, info))
        self.manifest.record(stage, name, entry)

    def _save_manifest(self) -> None:
        if not self.explain:
            self.store.write_manifest(self.manifest)

    def _log(self, message: str) -> None:
        if self.show_progress:
            tqdm.write(printable(message), file=sys.stderr)  # names from files and configs: no raw escapes


def _eta_text(eta: RunEta | None, outcome: TaskOutcome) -> str | None:
    """``ETA …`` of the stage once ``outcome``'s dataset has finished (None without an estimate)."""
    if eta is None:
        return None
    eta.finished(outcome.name, outcome.seconds)
    remaining = eta.remaining_seconds()
    return f"ETA {format_duration(remaining)}" if remaining is not None else None


def _left_out(value: Any) -> dict[str, str]:
    """What a computed result lacks of what the user asked for (its ``left_out()``, e.g. classifiers whose fit failed)."""
    method = getattr(value, "left_out", None)
    return {str(k): str(v) for k, v in method().items()} if callable(method) else {}


def _left_out_info(entry: dict) -> dict:
    """``{"left_out": {...}}`` for a manifest entry or marker when something is left out, else nothing."""
    return {"left_out": dict(entry["left_out"])} if entry.get("left_out") else {}


def strict_failure(left_out: dict[str, str]) -> str:
    """The failure reason of a dataset whose result lacks classifiers under ``execution.strict``."""
    names = ", ".join(repr(name) for name in left_out)
    first = next(iter(left_out.values())).splitlines()[0]
    return (f"classifier(s) {names} could not be fitted ({first}); execution.strict / --strict fails the dataset — "
            "fix or remove the classifier in the config, or run without --strict to keep the others")


def _os_reason(exc: OSError) -> str:
    return f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else "")


def _call(fn: Callable, *args):
    """Task body: the stage function travels with its arguments (so one executor serves every stage)."""
    return fn(*args)


def _attempt_whole(fn: Callable, args_builder: Callable[[], tuple]) -> TaskOutcome:
    from benchirt.pipeline.executors import attempt

    return attempt(lambda: fn(*args_builder()), "all", ())


def stage_parts(stage: str, options: dict, inputs: Any) -> dict:
    """What the key of a stage result covers: options (less :data:`NOT_IN_KEY`), inputs, code, libraries."""
    return key_parts(stage, {k: v for k, v in (options or {}).items() if k not in NOT_IN_KEY}, inputs)


def stage_key(stage: str, options: dict, inputs: Any) -> str:
    """The artifact key of a stage result: the digest of :func:`stage_parts`."""
    return fingerprint.digest(stage_parts(stage, options, inputs))


def _public(report: StageReport) -> StageEntry:
    """The manifest's entry of a stage: its report's fields."""
    return cast(StageEntry, asdict(report))

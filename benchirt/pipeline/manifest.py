"""A run directory's ``manifest.json``: read, validated and written here, and read and changed through typed fields.

The manifest says what a run holds: per (dataset, stage) and per suite-wide stage the artifact key and its status
(``computed``, ``reused``, ``stored``, ``skipped``, ``failed``, ``would recompute``), the stages' counts and timings,
the config, versions and notes. :class:`Manifest` is that JSON object as a dataclass with one typed field per
top-level entry; readers' questions (:meth:`Manifest.result_keys`, :meth:`Manifest.suite_key`, :meth:`Manifest.entry`)
and the engine's changes (:meth:`Manifest.record`, :meth:`Manifest.set_stage`, …) are methods, so no code outside
spells the layout out. Entries (:class:`ResultEntry`, :class:`StageEntry`) are ``TypedDict``. :meth:`Manifest.read`
refuses a file that is not a run manifest, naming what is wrong; :meth:`Manifest.write` writes back exactly the
entries it has, so a manifest read and written again is the same JSON and unknown entries are kept.
"""
from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping, TypedDict

from benchirt.errors import ArtifactError, BenchirtError
from benchirt.io import atomic_write_json

FILE = "manifest.json"
#: ``benchirt_run`` of the manifests this benchirt writes.
FORMAT = 1
#: Statuses of a result that exists in the run directory.
PRESENT = ("computed", "reused", "stored")
#: The sections that map names to entries (each entry a mapping with a ``status``).
_ENTRY_SECTIONS = ("artifacts", "stages", "documents")


class StageEntry(TypedDict, total=False):
    """One stage's counts and timing: :class:`benchirt.pipeline.runner.StageReport` as JSON."""

    status: str
    seconds: float
    task_cpu_seconds: float
    computed: int
    reused: int
    skipped: int
    failed: int
    left_out: int
    note: str | None


class ResultEntry(TypedDict, total=False):
    """The record of one result (per dataset or suite-wide) or of one document stage's files."""

    status: str  # computed, reused, stored, skipped, failed, would recompute; a document's rebuilt, reused, …
    key: str
    path: str
    reason: str | None
    decision: str  # why it was reused or recomputed
    reused: bool  # a skip decided by an earlier run
    seconds: float
    cpu_seconds: float
    attempts: int
    lost_workers: int
    previous_attempts: int | None
    left_out: dict[str, str]  # classifier -> the error of its fit
    notes: list[str]


#: What ``benchirt add`` recorded for one classifier (its spec, datasets measured and predicted, standing, notes).
AddedEntry = dict[str, Any]
#: The entries a run carries over from the run it extends (``benchirt add``), beside the ones it has not set.
_CARRIED = ("config", "datasets", "artifacts")


@dataclass(eq=True)
class Manifest:
    """The manifest of one run directory (see the module docstring); one field per top-level JSON entry."""

    benchirt_run: int = FORMAT
    created: str | None = None
    updated: str | None = None
    status: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    config_source: str | None = None
    rating_score: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    executor: str | None = None
    #: Stage -> its counts and timing (:class:`benchirt.pipeline.runner.StageReport` as JSON).
    stages: dict[str, StageEntry] = field(default_factory=dict)
    #: Dataset -> stage -> the record of that result.
    datasets: dict[str, dict[str, ResultEntry]] = field(default_factory=dict)
    #: Suite-wide stage -> the record of its result.
    artifacts: dict[str, ResultEntry] = field(default_factory=dict)
    #: Stage writing files (the report) -> whether it rebuilt them and why.
    documents: dict[str, ResultEntry] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Classifier -> what ``benchirt add`` measured and predicted for it.
    added: dict[str, AddedEntry] = field(default_factory=dict)
    removed_partial_artifacts: int = 0
    #: A batch scheduler's record of the run (``backend: slurm``): each stage's submission and each job's state.
    slurm: dict[str, Any] = field(default_factory=dict)
    #: Top-level entries this benchirt does not know, kept as read.
    unknown: dict[str, Any] = field(default_factory=dict, repr=False)
    #: The entries the JSON object has (those read, those a run starts with, those set since).
    _present: set[str] = field(default_factory=set, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self._present:  # made here with every entry; from_json and begin say which ones it has
            self._present = set(_KEYS)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in _KEYS and "_present" in self.__dict__:
            self._present.add(name)

    # -- reading and writing ---------------------------------------------------------------------
    @classmethod
    def begin(cls, config: dict[str, Any], versions: dict[str, str], executor: str, stages: dict[str, StageEntry],
              created: str | None, removed_partial_artifacts: int) -> "Manifest":
        """The manifest a run starts with (status ``running``, no results yet)."""
        manifest = cls(created=created, config=config, versions=versions, executor=executor, stages=stages,
                       removed_partial_artifacts=removed_partial_artifacts, status="running")
        manifest._present = {"benchirt_run", "created", "config", "versions", "executor", "stages", "datasets",
                             "artifacts", "removed_partial_artifacts", "status"}
        return manifest

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Manifest":
        """The manifest of a JSON object (checked by :func:`layout_problem` when read from a file)."""
        known = {key: value for key, value in data.items() if key in _KEYS}
        manifest = cls(**copy.deepcopy(known), unknown=copy.deepcopy({k: v for k, v in data.items() if k not in _KEYS}))
        manifest._present = set(known)  # an empty set too: the object has no entries
        return manifest

    def to_json(self) -> dict[str, Any]:
        """The JSON object: every entry the manifest has, and the unknown ones as read."""
        data = {key: getattr(self, key) for key in _KEYS if key in self._present}
        return {**self.unknown, **data}

    @classmethod
    def read(cls, run_dir: str | os.PathLike) -> "Manifest":
        """The validated manifest of ``run_dir``: BenchirtError without one (not a run directory), ArtifactError when
        not JSON or not a run manifest's layout (what is wrong is named)."""
        path = Path(run_dir) / FILE
        if not path.is_file():
            raise BenchirtError(f"{Path(run_dir)} is not a benchirt run directory (no {FILE}); "
                                f"run `benchirt run --out {Path(run_dir)}` first")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ArtifactError(f"{path}: not JSON ({exc}); the run directory was altered — rerun `benchirt run` "
                                "with --force, or delete the folder") from None
        problem = layout_problem(data)
        if problem:
            raise ArtifactError(f"{path}: not a benchirt run manifest ({problem}); rerun `benchirt run` with --force, "
                                "or delete the folder")
        return cls.from_json(data)

    def write(self, run_dir: str | os.PathLike) -> None:
        """Write atomically into ``run_dir`` (the caller stamps ``updated``)."""
        atomic_write_json(Path(run_dir) / FILE, self.to_json())

    # -- what readers ask ----------------------------------------------------------------------
    def entry(self, stage: str, *, name: str = "all") -> ResultEntry:
        """The record of one result: dataset ``name``'s for a per-dataset stage, else the suite-wide one (a copy;
        empty when the run has none)."""
        if name == "all":
            return ResultEntry(**(self.artifacts.get(stage) or {}))
        return ResultEntry(**(self.datasets.get(name, {}).get(stage) or {}))

    def stage_report(self, stage: str) -> StageEntry:
        """The counts and timing of ``stage`` (a copy; empty when the run does not list it)."""
        return StageEntry(**(self.stages.get(stage) or {}))

    def result_keys(self, stage: str) -> dict[str, str]:
        """Dataset -> artifact key of every result of a per-dataset ``stage`` the run holds."""
        return {name: stages[stage]["key"] for name, stages in sorted(self.datasets.items())
                if stages.get(stage, {}).get("status") in PRESENT}

    def suite_key(self, stage: str) -> str | None:
        """The artifact key of a suite-wide ``stage``'s result the run holds, or None."""
        entry = self.entry(stage)
        return entry["key"] if entry.get("status") in PRESENT else None

    def stages_without_result(self) -> list[str]:
        """The stages asked for that have no result at all: every dataset skipped, the stage could not run, or (in a
        finished run) it never started for want of input."""
        return [stage for stage, report in self.stages.items() if report.get("status") in ("skipped", "pending")]

    def problems(self) -> dict[str, dict[str, str]]:
        """Dataset -> {stage: "status: reason"} of every per-dataset result skipped or failed."""
        found: dict[str, dict[str, str]] = {}
        for name, stages in sorted(self.datasets.items()):
            for stage, entry in stages.items():
                if entry.get("status") in ("skipped", "failed"):
                    found.setdefault(name, {})[stage] = f"{entry['status']}: {entry.get('reason')}"
        return found

    # -- what the engine changes ---------------------------------------------------------------
    def record(self, stage: str, name: str, entry: ResultEntry) -> None:
        """Set the record of dataset ``name``'s result of ``stage``."""
        self.datasets.setdefault(name, {})[stage] = entry
        self._present.add("datasets")

    def record_suite(self, stage: str, entry: ResultEntry) -> None:
        """Set the record of a suite-wide ``stage``'s result."""
        self.artifacts[stage] = entry
        self._present.add("artifacts")

    def record_document(self, stage: str, entry: ResultEntry) -> None:
        """Set whether a stage that writes files (the report) rebuilt them, and why."""
        self.documents[stage] = entry
        self._present.add("documents")

    def record_added(self, name: str, entry: AddedEntry) -> None:
        """Set what ``benchirt add`` measured and predicted for classifier ``name``."""
        self.added[name] = entry
        self._present.add("added")

    def set_stage(self, stage: str, report: StageEntry) -> None:
        """Set the counts and timing of ``stage``."""
        self.stages[stage] = report
        self._present.add("stages")

    def record_scheduler(self, record: dict[str, Any]) -> None:
        """Set what the batch scheduler's jobs did (:meth:`benchirt.pipeline.slurm.SlurmExecutor.scheduler_record`)."""
        self.slurm = record
        self._present.add("slurm")

    def add_note(self, message: str) -> None:
        """A note about the whole run."""
        self.notes.append(message)
        self._present.add("notes")

    def carry(self, previous: "Manifest") -> None:
        """Continue ``previous`` (the run this one extends): its config, results and records, the entries this
        manifest has not set, and its stages before this run's."""
        for key in previous._present:
            if key not in self._present or key in _CARRIED:
                setattr(self, key, copy.deepcopy(getattr(previous, key)))
        self.unknown = {**copy.deepcopy(previous.unknown), **self.unknown}
        self.stages = {**copy.deepcopy(previous.stages), **self.stages}


#: The top-level JSON entries, one per field of :class:`Manifest`.
_KEYS = tuple(f.name for f in fields(Manifest) if f.name not in ("unknown", "_present"))


def is_run_manifest(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a JSON object with a ``benchirt_run`` entry (a manifest some benchirt wrote)."""
    try:
        return "benchirt_run" in json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return False


def layout_problem(data: Any) -> str | None:
    """What keeps ``data`` from being a run manifest, in words (None: nothing)."""
    if not isinstance(data, Mapping):
        return f"a JSON {type(data).__name__}, not an object"
    if data.get("benchirt_run") != FORMAT:
        return f"benchirt_run is {data.get('benchirt_run')!r}, expected {FORMAT}"
    if not isinstance(data.get("config"), Mapping):
        return "no config object"
    return _datasets_problem(data.get("datasets", {})) or _sections_problem(data)


def _datasets_problem(datasets: Any) -> str | None:
    """What keeps the ``datasets`` section from being dataset -> stage -> entry with a status and a text key."""
    if not isinstance(datasets, Mapping):
        return "datasets is not an object"
    for name, stages in datasets.items():
        if not isinstance(stages, Mapping):
            return f"datasets.{name} is not an object"
        for stage, entry in stages.items():
            if not (isinstance(entry, Mapping) and isinstance(entry.get("status"), str)
                    and isinstance(entry.get("key", ""), str)):
                return f"datasets.{name}.{stage} has no status or a key that is not text"
    return None


def _sections_problem(data: Mapping) -> str | None:
    """What keeps a section of named entries (artifacts, stages, documents) from having a status in each."""
    for section in _ENTRY_SECTIONS:
        entries = data.get(section, {})
        if not isinstance(entries, Mapping) or not all(isinstance(e, Mapping) and isinstance(e.get("status"), str)
                                                       for e in entries.values()):
            return f"{section} is not an object of entries with a status"
    return None

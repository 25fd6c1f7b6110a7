"""A run directory's ``manifest.json``: read, validated and written here, and read through named accessors.

The manifest says what a run holds: per (dataset, stage) and per suite-wide stage the artifact key and
its status (``computed``, ``reused``, ``stored``, ``skipped``, ``failed``, ``would recompute``), the
stages' counts and timings, the config, versions and notes. :class:`Manifest` is that JSON object (a
``dict``, so it is written as it is) with the questions readers ask as methods —
:meth:`Manifest.result_keys`, :meth:`Manifest.suite_key`, :meth:`Manifest.entry` — so that no reader
spells the layout out. :meth:`Manifest.read` refuses a file that is not a run manifest, naming what
is wrong.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from benchirt.errors import ArtifactError, BenchirtError
from benchirt.io import atomic_write_json

FILE = "manifest.json"
#: ``benchirt_run`` of the manifests this benchirt writes.
FORMAT = 1
#: Statuses of a result that exists in the run directory.
PRESENT = ("computed", "reused", "stored")
#: The sections that map names to entries (each entry a mapping with a ``status``).
_ENTRY_SECTIONS = ("artifacts", "stages", "documents")


class Manifest(dict):
    """The manifest of one run directory (a JSON object; see the module docstring)."""

    @classmethod
    def read(cls, run_dir: str | os.PathLike) -> "Manifest":
        """The validated manifest of ``run_dir``.

        Raises
        ------
        BenchirtError
            No manifest: not a run directory.
        ArtifactError
            Not JSON, or not the layout of a run manifest (what is wrong is named).
        """
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
        return cls(data)

    def write(self, run_dir: str | os.PathLike) -> None:
        """Write atomically into ``run_dir`` (the caller stamps ``updated``)."""
        atomic_write_json(Path(run_dir) / FILE, dict(self))

    # -- what readers ask ----------------------------------------------------------------------
    def entry(self, stage: str, name: str = "all") -> dict:
        """The record of one result: dataset ``name``'s for a per-dataset stage, else the suite-wide one."""
        if name == "all":
            return dict((self.get("artifacts") or {}).get(stage) or {})
        return dict((self.get("datasets") or {}).get(name, {}).get(stage) or {})

    def result_keys(self, stage: str) -> dict[str, str]:
        """Dataset -> artifact key of every result of a per-dataset ``stage`` the run holds."""
        return {name: stages[stage]["key"] for name, stages in sorted((self.get("datasets") or {}).items())
                if stages.get(stage, {}).get("status") in PRESENT}

    def suite_key(self, stage: str) -> str | None:
        """The artifact key of a suite-wide ``stage``'s result the run holds, or None."""
        entry = self.entry(stage)
        return entry["key"] if entry.get("status") in PRESENT else None

    def problems(self) -> dict[str, dict[str, str]]:
        """Dataset -> {stage: "status: reason"} of every per-dataset result skipped or failed."""
        found: dict[str, dict[str, str]] = {}
        for name, stages in sorted((self.get("datasets") or {}).items()):
            for stage, entry in stages.items():
                if entry.get("status") in ("skipped", "failed"):
                    found.setdefault(name, {})[stage] = f"{entry['status']}: {entry.get('reason')}"
        return found

    @property
    def config(self) -> dict:
        """The plain-data configuration of the run (what :func:`benchirt.pipeline.load_config` reads)."""
        return self["config"]


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

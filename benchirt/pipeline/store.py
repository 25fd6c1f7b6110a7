"""The on-disk layout of a run: a manifest plus one artifact folder per (stage, dataset) result.

::

    RUN_DIR/
      manifest.json                     config, package versions, per-stage status and timings,
                                        per-dataset status (computed / reused / skipped / failed)
      config.yaml                       the validated configuration of the latest run
      artifacts/<stage>/<name>-<key16>/ one result; <name> is the dataset (or "all" for stages over
                                        every dataset), <key16> the first 16 hex digits of its key
        _COMPLETE.json                  written last: the full key and what produced it
      report.html, summary.md           written by the report stage
      report.key.json                   what the report was built from (code, options, results) and
                                        the digests of the two files: a rerun with the same reuses them

An artifact's key is the sha256 of the stage name, its option section, the input's fingerprint (dataset content, or
the upstream artifacts' keys), the source of the code that produced it, the versions of numpy/scipy/scikit-learn/pandas
(:mod:`benchirt.pipeline.fingerprint`) and the artifact schema version, so a changed option, input or code gives a new
folder while an unchanged one is found again. The marker keeps these parts (``provenance``), so a rerun can say which
changed, and a digest of every file (``files``): an artifact changed after writing is refused
(:class:`~benchirt.errors.ArtifactError`), never read.

Writes are atomic: a result is serialised into a hidden temporary folder inside the stage folder, the marker written
last, and the folder renamed into place in one ``os.rename``. A run killed at any moment leaves a complete artifact or
a ``.tmp-*`` folder that no reader looks at and the next run deletes. Readers trust only folders whose marker holds
the expected key.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from benchirt import __version__
from benchirt.errors import ArtifactError, BenchirtError
from benchirt.io import atomic_open, atomic_write_json, atomic_write_text, safe_name
from benchirt.pipeline import fingerprint
from benchirt.pipeline.manifest import FILE as MANIFEST_FILE
from benchirt.pipeline.manifest import Manifest, is_run_manifest

#: Bump when the artifact layout or a result's serialised form changes: old artifacts are then ignored.
#: 2: no pickles, a registry of result types, code fingerprints and file digests in the marker.
SCHEMA_VERSION = 2
MARKER = "_COMPLETE.json"
MANIFEST = MANIFEST_FILE
REPORT_KEY = "report.key.json"
REPORT_FILES = ("report.html", "summary.md")
#: Every name a run writes at the top of its directory (the exports of ``benchirt run`` / ``respond``,
#: the progress folder, ``benchirt add``'s folder included): in a folder that is not a run, none may exist.
RUN_NAMES = frozenset({MANIFEST, "config.yaml", REPORT_KEY, *REPORT_FILES, ".lock", "artifacts", "irt", "responses",
                       "added", ".progress", "slurm"})


def key_parts(stage: str, options: Any, inputs: Any) -> dict:
    """What an artifact key covers: stage, option and input digests, code, libraries, schema, version."""
    return {"stage": stage, "options": fingerprint.digest(options), "inputs": fingerprint.digest(inputs),
            **fingerprint.provenance(stage), "schema": SCHEMA_VERSION, "benchirt": __version__}


def artifact_key(stage: str, options: Any, inputs: Any) -> str:
    """sha256 over :func:`key_parts` as canonical JSON."""
    return fingerprint.digest(key_parts(stage, options, inputs))


class ArtifactStore:
    """A run directory: reads and atomically writes artifacts, keeps the manifest. Only the run's driver writes it;
    workers return their results rather than writing, so a cluster needs no shared file system."""

    _lock_handle: IO[str] | None  # the open lock file while :meth:`lock` holds it (set by lock only)

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.artifacts = self.root / "artifacts"

    # -- artifacts -------------------------------------------------------------------------------
    def path(self, stage: str, name: str, key: str) -> Path:
        return self.artifacts / stage / f"{safe_name(name)}-{key[:16]}"

    def has(self, stage: str, name: str, key: str) -> bool:
        """True when a complete artifact with exactly this key exists."""
        marker = self.path(stage, name, key) / MARKER
        try:
            return json.loads(marker.read_text(encoding="utf-8")).get("key") == key
        except (OSError, ValueError):
            return False

    def marker(self, stage: str, name: str, key: str) -> dict:
        return json.loads((self.path(stage, name, key) / MARKER).read_text(encoding="utf-8"))

    def load(self, stage: str, name: str, key: str) -> Any:
        """The result object of a complete artifact; refuses incomplete or foreign ones."""
        if not self.has(stage, name, key):
            raise BenchirtError(
                f"{self.root}: no complete {stage} artifact for {name!r} (key {key[:16]}); rerun the `benchirt run` "
                f"command that made it with --retry-failed to compute it (a plain rerun does not retry a failed dataset)"
            )
        marker = self.marker(stage, name, key)
        if marker.get("status") == "skipped":
            raise BenchirtError(f"{stage} of {name!r} was skipped: {marker.get('reason')}")
        self.verify(stage, name, key)
        from benchirt.pipeline import serialize

        return serialize.load(self.path(stage, name, key) / "result")

    def load_frame(self, stage: str, name: str, key: str, path: str):
        """One table of a complete artifact (``serialize.load_frame``), after the same checks as :meth:`load`."""
        if not self.has(stage, name, key) or self.marker(stage, name, key).get("status") != "ok":
            raise BenchirtError(f"{self.root}: no complete {stage} artifact for {name!r} (key {key[:16]})")
        self.verify(stage, name, key)
        from benchirt.pipeline import serialize

        return serialize.load_frame(self.path(stage, name, key) / "result", path)

    def verify(self, stage: str, name: str, key: str) -> None:
        """Refuse an artifact whose files differ from the digests its marker recorded at writing."""
        folder = self.path(stage, name, key)
        recorded = self.marker(stage, name, key).get("files")
        if recorded is None:
            raise ArtifactError(f"{folder}: its marker records no file digests; delete the folder or rerun with --force")
        found = _file_digests(folder / "result") if (folder / "result").is_dir() else {}
        if found != recorded:
            changed = sorted(f for f in set(found) | set(recorded) if found.get(f) != recorded.get(f))
            raise ArtifactError(
                f"{folder}: refused — {', '.join(changed[:3])} changed after benchirt wrote the artifact; "
                "delete the folder or rerun with --force to recompute it"
            )

    def previous(self, stage: str, name: str) -> dict | None:
        """The marker of the latest complete artifact of (stage, name) under any key, or None."""
        folder = self.artifacts / stage
        latest, latest_time = None, -1
        for candidate in folder.glob(f"{safe_name(name)}-*") if folder.is_dir() else ():
            try:
                written = (candidate / MARKER).stat().st_mtime_ns
                marker = json.loads((candidate / MARKER).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if marker.get("name") == name and written > latest_time:
                latest, latest_time = marker, written
        return latest

    def save(self, stage: str, name: str, key: str, *, result: Any = None, status: str = "ok",
             reason: str | None = None, info: dict | None = None) -> Path:
        """Atomically store ``result`` (or a skip record) under (stage, name, key); returns its folder."""
        final = self.path(stage, name, key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.parent / f".tmp-{final.name}-{uuid.uuid4().hex[:8]}"
        try:
            tmp.mkdir()
            files = {}
            if status == "ok":
                from benchirt.pipeline import serialize

                serialize.dump(result, tmp / "result")
                files = _file_digests(tmp / "result")
            marker = {"key": key, "stage": stage, "name": name, "status": status, "reason": reason,
                      "written": _now(), "files": files, **(info or {})}
            _write_synced(tmp / MARKER, json.dumps(marker, indent=1, sort_keys=True, default=str))
            if final.exists():  # a forced recompute replaces the old artifact
                trash = final.parent / f".tmp-old-{final.name}-{uuid.uuid4().hex[:8]}"
                os.rename(final, trash)
                shutil.rmtree(trash, ignore_errors=True)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return final

    def clean_temporary(self) -> int:
        """Delete ``.tmp-*`` folders left by a killed run; returns how many there were."""
        count = 0
        if self.artifacts.is_dir():
            for stage_dir in self.artifacts.iterdir():
                for leftover in stage_dir.glob(".tmp-*"):
                    shutil.rmtree(leftover, ignore_errors=True)
                    count += 1
        return count

    def claim(self, force: bool = False) -> None:
        """Refuse a run directory that holds someone else's files, before anything is written.

        The rule of every writing command (:func:`benchirt.out_folder.refuse_foreign_out`): a missing or empty
        folder, a benchirt run (a manifest with ``benchirt_run``) or a folder ``run --dry-run`` claimed
        (:func:`benchirt.out_folder.claim_out`) is fine; any other non-empty folder is refused unless ``force``, and
        even then a name among :data:`RUN_NAMES` is refused: benchirt never overwrites what it did not write.
        """
        from benchirt.out_folder import refuse_foreign_out

        refuse_foreign_out(self.root, "run", force=force, writes=RUN_NAMES, own=self.is_run() or None)

    def is_run(self) -> bool:
        """Whether the folder holds a manifest written by ``benchirt run``."""
        return is_run_manifest(self.root / MANIFEST)

    def lock(self) -> None:
        """Take the run directory for this process (an advisory ``flock`` on ``RUN_DIR/.lock``, released by the OS
        however the process ends); another live run on it is a clear error."""
        import fcntl

        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self._lock_handle = open(self.root / ".lock", "w")  # noqa: SIM115 - held for the life of the run
        except OSError as exc:
            existing_file = self.root.is_file() or isinstance(exc, (FileExistsError, NotADirectoryError))
            problem = "it is an existing file, not a folder" if existing_file else exc.strerror or str(exc)
            raise BenchirtError(f"cannot use {self.root} as the run directory ({problem}); give --out a folder "
                                "you can write") from None
        try:
            fcntl.flock(self._lock_handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_handle.close()
            raise BenchirtError(f"{self.root} is in use by another benchirt run; wait for it to finish or give "
                                "another --out") from None

    def ensure_idle(self) -> None:
        """Refuse a run directory that a running ``benchirt run`` holds (its lock), without taking it."""
        if not (self.root / ".lock").is_file():
            return
        try:
            self.lock()
        except BenchirtError:
            raise BenchirtError(f"{self.root} is in use by a benchirt run in progress; wait for it to finish, then "
                                "run this command again") from None
        self.unlock()

    def unlock(self) -> None:
        handle = getattr(self, "_lock_handle", None)
        if handle is not None:
            handle.close()  # closing releases the flock
            self._lock_handle = None

    # -- the report ------------------------------------------------------------------------------
    def report_change(self, parts: dict) -> str | None:
        """None when the stored report was built from ``parts`` and is unchanged; else why it is not reusable."""
        try:
            recorded = json.loads((self.root / REPORT_KEY).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "no report is stored"
        current = {name: _digest_file(self.root / name) for name in REPORT_FILES}
        if recorded.get("files") != current:
            return "report.html or summary.md is missing or was changed after it was written"
        changed = [what for what in ("results", "options", "code") if recorded.get("parts", {}).get(what) != parts.get(what)]
        if changed:
            return f"its {', '.join(changed)} changed"
        return None

    def save_report_key(self, parts: dict) -> None:
        """Record what the report just written was built from."""
        files = {name: _digest_file(self.root / name) for name in REPORT_FILES}
        atomic_write_json(self.root / REPORT_KEY, {"parts": parts, "files": files, "written": _now()})

    # -- manifest --------------------------------------------------------------------------------
    def read_manifest(self) -> Manifest:
        """The run's validated manifest (:meth:`benchirt.pipeline.manifest.Manifest.read`)."""
        return Manifest.read(self.root)

    def write_manifest(self, manifest: Manifest) -> None:
        """Stamp ``updated`` and write the manifest atomically."""
        manifest.updated = _now()
        manifest.write(self.root)

    def write_config(self, text: str) -> None:
        atomic_write_text(self.root / "config.yaml", text)

    def snapshot(self) -> dict[str, bytes | None]:
        """The bytes of the files that describe the run (manifest, config.yaml) as they are now; None: absent."""
        kept: dict[str, bytes | None] = {}
        for name in (MANIFEST, "config.yaml"):
            try:
                kept[name] = (self.root / name).read_bytes()
            except OSError:
                kept[name] = None
        return kept

    def restore(self, kept: dict[str, bytes | None]) -> None:
        """Put back the files of a :meth:`snapshot` that existed then (atomically)."""
        for name, content in kept.items():
            if content is not None:
                with atomic_open(self.root / name, mode="wb") as handle:
                    handle.write(content)


def environment_versions() -> dict:
    """Versions of Python and the libraries whose behaviour a result depends on."""
    from importlib import metadata

    versions = {"benchirt": __version__, "python": platform.python_version()}
    for package in ("numpy", "scipy", "pandas", "scikit-learn", "glicko2", "scikit-posthocs", "openml", "dask", "distributed"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return versions


def _file_digests(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder``, by path relative to it."""
    digests = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        with path.open("rb") as handle:
            digests[path.relative_to(folder).as_posix()] = hashlib.file_digest(handle, "sha256").hexdigest()
    return digests


def _digest_file(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def _write_synced(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")

"""Progress inside datasets that run in other processes: small files the driver reads beside its bar.

A response task in a loky or Dask worker cannot draw on the driver's terminal, so it writes how many of its
(classifier, fit) pairs are done to ``RUN_DIR/.progress/<dataset>.json`` (atomically, at most once a second and at
the end; for (dataset, fit) tasks, :mod:`benchirt.pipeline.fits`, the driver writes it), and a driver thread reads the
folder every second and shows the datasets in flight beside the stage's bar (``a 9/13 · b 4/13 fits``) with the ETA.
A worker on another machine cannot write there; its datasets show no fits (a failed write is dropped: progress is
display, not a result).
"""
from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Callable

from benchirt.io import atomic_write_json
from benchirt.safe_text import printable

#: The folder of a run directory that holds the progress files (removed when the stage ends).
FOLDER = ".progress"


def progress_writer(path: str | os.PathLike, *, every: float = 1.0) -> Callable[[int, int], None]:
    """A ``(done, total)`` callback that writes ``{"done", "total"}`` to ``path`` at most every ``every`` s. The first
    call always writes (``time.monotonic()`` may count from boot, so a zero start could drop it)."""
    last: list[float | None] = [None]

    def write(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and last[0] is not None and now - last[0] < every:
            return
        last[0] = now
        try:
            atomic_write_json(path, {"done": done, "total": total})
        except OSError:
            return  # no shared run directory on this worker: the driver shows the dataset's end only

    return write


def read_progress(folder: str | os.PathLike) -> dict[str, tuple[int, int]]:
    """Dataset -> (done, total) of every progress file in ``folder`` (unreadable ones left out)."""
    found = {}
    for path in sorted(Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text())
            found[path.stem] = (int(data["done"]), int(data["total"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


class StagePostfix:
    """The text beside a stage's bar: fits of the datasets in flight (from the files) and the ETA. As a context
    manager it starts the thread that reads ``folder`` every ``interval`` seconds and removes the folder at the end."""

    def __init__(self, bar, folder: str | os.PathLike | None, interval: float = 1.0) -> None:
        self.bar = bar
        self.folder = Path(folder) if folder is not None else None
        self.interval = interval
        self.eta = ""
        self.finished: set[str] = set()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def text(self) -> str:
        """``a 9/13 · b 4/13 fits | ETA 3.5 min`` (each part only when known)."""
        parts = []
        if self.folder is not None:
            flight = {name: value for name, value in read_progress(self.folder).items() if name not in self.finished}
            if flight:
                parts.append(" · ".join(f"{name} {done}/{total}" for name, (done, total) in flight.items()) + " fits")
        if self.eta:
            parts.append(self.eta)
        return " | ".join(parts)

    def refresh(self) -> None:
        with self._lock:
            self.bar.set_postfix_str(printable(self.text()), refresh=True)  # dataset names: no raw escapes

    def done(self, name: str, *, eta: str | None = None) -> None:
        """A dataset finished: drop it from the text; ``eta`` replaces the ETA shown."""
        self.finished.add(name)
        if eta is not None:
            self.eta = eta
        self.refresh()

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            self.refresh()

    def __enter__(self) -> "StagePostfix":
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)  # a killed run's files would show datasets not in flight
            self.folder.mkdir(parents=True)
            self._thread = threading.Thread(target=self._watch, name="benchirt-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

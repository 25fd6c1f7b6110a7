"""Worker processes that end with the process that started them.

A ``benchirt run`` killed with SIGKILL cannot clean up: its loky workers (each holding a dataset and scikit-learn)
would wait for work forever. Every pool benchirt starts runs :func:`exit_with_parent` in each worker (the pool's
``initializer``): a daemon thread that checks every ``interval`` whether the starting process is still its parent and
ends the worker with ``os._exit`` when not; loky's resource tracker then exits by itself. Why not Linux's
``prctl(PR_SET_PDEATHSIG)``: it fires when the *thread* that forked the worker ends, and loky forks replacement workers
from its manager thread, so a worker could be killed while its parent lives; it is Linux-only too. The thread costs one
``getppid`` per interval and works on every POSIX system.
"""
from __future__ import annotations

import os
import threading
import time

#: Exit status of a worker that found its parent gone.
ORPHANED = 70
#: Seconds between two checks of the parent (a killed run leaves no worker after about this long).
INTERVAL = 0.5

#: The process whose parent a thread already watches (the pool's initializer may run more than once in it).
_watching: int | None = None


def exit_with_parent(parent_pid: int, *, interval: float = INTERVAL) -> None:
    """Start (once per process) a daemon thread that ends this process when ``parent_pid`` stops being its parent."""
    global _watching
    if _watching == os.getpid():
        return
    _watching = os.getpid()

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(interval)
        os._exit(ORPHANED)

    threading.Thread(target=watch, name="benchirt-exit-with-parent", daemon=True).start()


def initializer() -> tuple:
    """``(initializer, initargs)`` for a process pool started by this process: its workers end with it."""
    return exit_with_parent, (os.getpid(),)

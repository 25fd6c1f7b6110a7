"""Ctrl-C and SIGTERM that cannot be lost.

Python raises ``KeyboardInterrupt`` wherever the main thread is when SIGINT arrives. Raised inside a finaliser
(an object's ``__del__``, a weakref callback, which the garbage collector may run at any line), it is printed as
"Exception ignored in …" and the command carries on as if nothing happened — a run that finishes with status 0
after Ctrl-C. So the handlers here record the signal before they raise, and the long loops (the executors'
scheduling, between tasks) call :func:`check`, which raises again at the next task boundary what a finaliser
swallowed. A record that was raised and handled is cleared by :func:`reset` when the next command starts.
"""
from __future__ import annotations

import signal

#: The signals received since :func:`reset` (in order).
_received: list[int] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is so that it stops as after Ctrl-C (cleanup, manifest, workers)."""


def on_sigint(signum, frame) -> None:
    """The SIGINT handler: record it, then raise ``KeyboardInterrupt`` (Python's default, plus the record)."""
    _received.append(signum)
    raise KeyboardInterrupt


def on_sigterm(signum, frame) -> None:
    """The SIGTERM handler: record it, then raise :class:`Terminated`."""
    _received.append(signum)
    raise Terminated


def check() -> None:
    """Raise again an interrupt that was received but swallowed (:class:`Terminated` after SIGTERM)."""
    if _received:
        raise Terminated if signal.SIGTERM in _received else KeyboardInterrupt


def reset() -> None:
    """Forget the signals received (a command starts)."""
    _received.clear()

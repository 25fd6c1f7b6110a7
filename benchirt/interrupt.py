"""Ctrl-C and SIGTERM that cannot be lost.

Python raises ``KeyboardInterrupt`` wherever the main thread is when SIGINT arrives; raised inside a finaliser (a
``__del__``, a weakref callback), it is printed as "Exception ignored in …" and the command carries on — finishing
with status 0 after Ctrl-C. So the handlers record the signal before raising, and the long loops call :func:`check`
between tasks, which raises again what a finaliser swallowed; :func:`reset` clears the record when a command starts.
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

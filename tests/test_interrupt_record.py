"""An interrupt a finaliser swallows is raised again at the next task boundary (benchirt.interrupt)."""
from __future__ import annotations

import gc
import signal

import pytest

from benchirt import interrupt
from benchirt.pipeline.executors import LocalExecutor


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")   # the swallowing is the point
def test_a_sigint_swallowed_by_a_finaliser_stops_the_next_task():
    class Swallows:
        def __del__(self):
            interrupt.on_sigint(signal.SIGINT, None)   # as if Ctrl-C arrived while the collector ran this

    interrupt.reset()
    try:
        Swallows()
        gc.collect()                 # "Exception ignored in ... __del__": nothing propagates here
        ran = []
        executor = LocalExecutor(n_jobs=1)
        with pytest.raises(KeyboardInterrupt):
            for outcome in executor.map(lambda x: ran.append(x) or x, [("a", (1,)), ("b", (2,))]):
                pass
        assert ran == []
    finally:
        interrupt.reset()


def test_a_recorded_sigterm_is_raised_as_terminated_and_reset_forgets_it():
    interrupt.reset()
    with pytest.raises(interrupt.Terminated):
        interrupt.on_sigterm(signal.SIGTERM, None)
    with pytest.raises(interrupt.Terminated):
        interrupt.check()
    interrupt.reset()
    interrupt.check()   # nothing recorded: no exception

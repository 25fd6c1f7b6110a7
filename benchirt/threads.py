"""One thread per fit, everywhere: the rule that makes a run's results independent of where it runs.

Native thread pools change results: scikit-learn's nearest-neighbour search resolves distance ties differently with
1 and 2 OpenMP threads, and a multi-threaded BLAS may sum in another order. How many threads a fit gets depends on the
executor and the machine, so benchirt pins every pool — BLAS *and* OpenMP — to one thread inside every task and
suite-wide stage (:func:`one_thread`); parallelism comes from tasks side by side, never from threads inside a fit.
threadpoolctl only limits the libraries loaded when the limit is entered, so :func:`one_thread` imports scikit-learn
first (loading NumPy's and SciPy's BLAS and its OpenMP runtime). Inside a fit, the small matrix products of a Newton or
EM step run with one BLAS thread too (:func:`blas_one_thread`), which inspects the process's libraries once and reuses
the result, as each inspection re-reads every loaded shared library.
"""
from __future__ import annotations

import functools
from contextlib import AbstractContextManager, contextmanager
from typing import Iterator


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the ``with`` body with every BLAS and OpenMP thread pool of the process limited to 1 thread."""
    import sklearn  # noqa: F401 - loads NumPy's and SciPy's BLAS and the OpenMP runtime
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def blas_one_thread() -> AbstractContextManager:
    """A ``with`` block in which the BLAS pools (NumPy's, and SciPy's when loaded by the first call) use 1 thread."""
    return _blas_controller().limit(limits=1, user_api="blas")


@functools.cache
def _blas_controller():
    """The process's native thread pools, inspected once (module docstring)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()

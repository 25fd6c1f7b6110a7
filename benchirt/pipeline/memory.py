"""The per-dataset memory limit of a run: ``execution.memory_limit_gb``, else this machine's share per worker
(a SLURM job's share per worker under ``backend: slurm``).

Read by the memory guard (:mod:`benchirt.pipeline.preflight`) and ``--estimate`` (:mod:`benchirt.pipeline.estimate`).
"""
from __future__ import annotations

import os

#: Bytes per GB in the limit and the messages (decimal, as ``--estimate`` prints).
GB = 1e9


def available_memory_bytes() -> int:
    """Memory this machine can give now without swapping (psutil's ``available``, else free pages)."""
    try:
        import psutil
    except ImportError:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return int(psutil.virtual_memory().available)


def memory_limit(execution, workers: int) -> tuple[float | None, str]:
    """The per-dataset memory limit in bytes (None: no limit) and where it comes from (for the console)."""
    if execution.memory_limit_gb is not None:
        return execution.memory_limit_gb * GB, f"execution.memory_limit_gb {execution.memory_limit_gb:g}"
    if execution.backend == "slurm":
        from benchirt.pipeline.slurm_options import memory_bytes

        slurm = execution.slurm
        return (memory_bytes(slurm.memory) / slurm.cores,
                f"execution.slurm.memory {slurm.memory} / {slurm.cores} worker(s) per job")
    if execution.scheduler:
        return None, "none (an external Dask scheduler's workers' memory is not known here)"
    workers = max(1, workers)
    available = available_memory_bytes()
    return available / workers, f"available memory {available / GB:.1f} GB / {workers} worker(s)"

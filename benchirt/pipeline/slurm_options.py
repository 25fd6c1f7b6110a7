"""The ``execution.slurm`` block: how a run's tasks become SLURM jobs (:mod:`benchirt.pipeline.slurm`).

Declared like every option (:mod:`benchirt.options`), so each value is checked before anything is submitted. The
extra sbatch directives are data, never run: each must be one ``--key=value`` (or ``--flag``) of letters, digits and
``-_.:,=/@+%``, so no shell metacharacter, space or newline reaches the batch script; the directives benchirt writes
(partition, memory, time, CPUs, job name, output) cannot be given twice, nor those that change what the job runs
(``--export``, e.g. ``LD_PRELOAD``). Imports nothing heavy: validating a config never imports dask-jobqueue.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import Constraint, Integer, Number, Text, checked_options, require, validate_fields

#: One sbatch directive as a config may add it: ``--key=value`` or ``--flag`` (no space, quote or shell character).
DIRECTIVE = re.compile(r"--[a-z][a-z0-9-]*(=[A-Za-z0-9_.:,=/@+%-]+)?")
#: The directives benchirt writes from the block's own options (or dask-jobqueue writes): not repeatable.
OWN_DIRECTIVES = ("partition", "mem", "time", "cpus-per-task", "ntasks", "job-name", "output", "error")
#: Directives that change what a job runs (its environment, e.g. ``LD_PRELOAD``, or its command): refused.
RUNNING_DIRECTIVES = ("export", "export-file", "get-user-env", "wrap")
#: SLURM's time-limit forms benchirt accepts: ``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH``, ``D-HH:MM``, ``D-HH:MM:SS``.
WALLTIME = re.compile(r"\d+(:\d{2}){0,2}|\d+-\d{1,2}(:\d{2}){0,2}")
#: A job's memory as sbatch's ``--mem`` reads it: a whole number and a unit K, M, G or T.
MEMORY = re.compile(r"[1-9]\d*[KMGT]")


@dataclass(frozen=True, kw_only=True)
class Pattern(Text):
    """A text matching ``pattern`` whole (``what`` says the form)."""

    pattern: re.Pattern

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and self.pattern.fullmatch(value) is not None

    def invalid_values(self) -> tuple[Any, ...]:
        return (5, ["x"], " ", "1 GB; rm -rf ~")


@dataclass(frozen=True, kw_only=True)
class Directives(Constraint):
    """A list of extra sbatch directives, each matching :data:`DIRECTIVE` and none of :data:`OWN_DIRECTIVES`;
    kept as a tuple."""

    def expected(self) -> str:
        return ("a list of sbatch directives, each --key=value or --flag without spaces or shell characters, "
                f"none of --{', --'.join(OWN_DIRECTIVES)} (set by the block's own options) or "
                f"--{', --'.join(RUNNING_DIRECTIVES)} (they change what the job runs)")

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (list, tuple)) and all(
            isinstance(v, str) and DIRECTIVE.fullmatch(v) is not None
            and v[2:].split("=")[0] not in OWN_DIRECTIVES + RUNNING_DIRECTIVES for v in value)

    def normal(self, value: Any) -> Any:
        return tuple(value)

    def invalid_values(self) -> tuple[Any, ...]:
        return ("--account=x", [5], ["--account=x; rm -rf ~"], ["--comment=$(id)"], ["-A x"], ["--mem=4G"],
                ["--export=ALL,LD_PRELOAD=/tmp/x.so"])


@dataclass(frozen=True)
class SlurmOptions:
    """The ``slurm`` block of ``execution`` (``backend: slurm``).

    Attributes
    ----------
    partition : str or None
        The partition the jobs go to (``#SBATCH -p``); None: the cluster's default.
    memory, walltime : str
        Memory (``--mem``, e.g. ``4G``) and time limit (``-t``, e.g. ``01:00:00`` or ``1-00:00:00``) of one job.
    cores : int
        CPUs of one job: that many single-threaded Dask workers, one task at a time each.
    max_jobs : int
        The most jobs at once (a job array's ``%N``); caps the job count planned from the cost model.
    job_minutes : float
        The target wall time of one job: the run asks for ``ceil(estimated CPU / (job_minutes × cores))`` jobs
        (:func:`benchirt.pipeline.slurm.plan_jobs`); must fit in ``walltime``.
    directives : tuple of str
        Further sbatch directives, e.g. ``["--account=proj42", "--qos=short"]`` (checked, never run).
    """

    partition: str | None = None
    memory: str = "4G"
    walltime: str = "01:00:00"
    cores: int = 1
    max_jobs: int = 20
    job_minutes: float = 30.0
    directives: tuple[str, ...] = ()

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "partition": Pattern(pattern=re.compile(r"[A-Za-z0-9_.,-]+"), what="a partition name (letters, digits, _.,-)",
                             optional=True),
        "memory": Pattern(pattern=MEMORY, what="a memory size such as 4G (a whole number, then K, M, G or T)"),
        "walltime": Pattern(pattern=WALLTIME, what="a SLURM time limit such as 01:00:00 or 1-00:00:00"),
        "cores": Integer(minimum=1),
        "max_jobs": Integer(minimum=1),
        "job_minutes": Number(above=0, unit="minutes"),
        "directives": Directives(),
    }

    def __post_init__(self) -> None:
        validate_fields("execution.slurm", self, self.OPTIONS)
        require(self.job_minutes * 60 <= walltime_seconds(self.walltime), "execution.slurm", "job_minutes",
                self.job_minutes, f"at most the job time limit walltime ({self.walltime})")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "SlurmOptions":
        return cls(**checked_options("execution.slurm", d, cls))


def walltime_seconds(text: str) -> int:
    """Seconds of a SLURM time limit (:data:`WALLTIME`): ``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH[:MM[:SS]]``.

    Examples
    --------
    >>> walltime_seconds("01:30:00"), walltime_seconds("45"), walltime_seconds("1-02")
    (5400, 2700, 93600)
    """
    days, _, rest = text.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    if days:
        scale = (3600, 60, 1)[:len(parts)]
        return int(days) * 86400 + sum(p * s for p, s in zip(parts, scale))
    scale = {1: (60,), 2: (60, 1), 3: (3600, 60, 1)}[len(parts)]
    return sum(p * s for p, s in zip(parts, scale))


def memory_bytes(text: str) -> int:
    """Bytes of a memory size as sbatch reads it (:data:`MEMORY`; K, M, G, T are powers of 1024).

    Examples
    --------
    >>> memory_bytes("4G"), memory_bytes("512M")
    (4294967296, 536870912)
    """
    return int(text[:-1]) * 1024 ** ("KMGT".index(text[-1]) + 1)


@dataclass(frozen=True, kw_only=True)
class SlurmBlock(Constraint):
    """``execution.slurm``: a mapping of :class:`SlurmOptions` (checked by it), kept as a :class:`SlurmOptions`."""

    def expected(self) -> str:
        return "a mapping of SLURM options (" + ", ".join(SlurmOptions.OPTIONS) + ")"

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (Mapping, SlurmOptions))

    def normal(self, value: Any) -> Any:
        return value if isinstance(value, SlurmOptions) else SlurmOptions.from_dict(value)

    def invalid_values(self) -> tuple[Any, ...]:
        return (3, ["x"])

"""``execution: {backend: slurm, slurm: {...}}``: a run's tasks on SLURM jobs, through dask-jobqueue's ``SLURMCluster``.

Why dask-jobqueue and not submitit's job arrays: benchirt already runs its tasks on Dask
(:class:`benchirt.pipeline.executors.DaskExecutor`, with its retry and lost-worker policy), and a ``SLURMCluster`` only
starts Dask workers as jobs, so the same engine, task sources (:mod:`benchirt.pipeline.fits`) and results come back
to the driver as from any Dask worker. submitit would add a second engine, and hands every call to its jobs as a
pickled file in a shared folder, where benchirt keeps pickle out of what a run writes. The driver (``benchirt run``)
runs where the jobs can reach it (a login node, or a job of its own) and starts the Dask scheduler; each job runs
``cores`` single-threaded Dask workers with the driver's Python (the environment must be on a shared file system).

Workers pull tasks one at a time, so the run only decides *how many* jobs to ask for (:func:`plan_jobs`):
``ceil(estimated CPU / (job_minutes × cores))`` from the cost model (:mod:`benchirt.pipeline.estimate`), at most
``max_jobs`` (a job array's ``%N``), planned per stage. ``benchirt run --dry-run`` writes that plan and the batch
script (:mod:`benchirt.pipeline.slurm_dry_run`).

A rerun submits only what the run folder lacks: stored results with unchanged inputs, options and code are reused
(:mod:`benchirt.pipeline.runner`), so only datasets without a result (never computed, or whose job was preempted,
timed out or killed first; jobs end soon after losing their driver, dask-jobqueue's ``--death-timeout``) become
tasks, and nothing is submitted when there are none. A dataset recorded as failed is tried again with
``--retry-failed``. The console says per stage how many datasets were submitted and reused; the manifest's ``slurm``
entry records each submission and each job's final ``sacct`` state (a job benchirt cancelled itself, idle, is marked
so). A job lost mid-run is a lost worker: its task is retried alone (:mod:`benchirt.pipeline.executors`) and a job
is submitted in its place. Each attempt runs single-threaded (:func:`benchirt.threads.one_thread`), so the results
are those of ``--n-jobs 1`` bit for bit.
"""
from __future__ import annotations

import heapq
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from benchirt.errors import BenchirtError
from benchirt.pipeline.eta import format_duration
from benchirt.pipeline.executors import DaskExecutor, TaskOutcome, task_source
from benchirt.pipeline.slurm_options import SlurmOptions

#: Where a run keeps its SLURM files: the batch script, the dry run's plan, the jobs' logs.
FOLDER = "slurm"
#: The name of the jobs (``#SBATCH -J``).
JOB_NAME = "benchirt"
#: How long the first submission may take before the run stops (sbatch refused the script or is missing).
SUBMIT_SECONDS = 60.0
#: The scheduler address a dry run's batch script shows (the real run writes the driver's).
PLACEHOLDER_ADDRESS = "tcp://DRIVER-ADDRESS:8786"


@dataclass(frozen=True)
class JobPlan:
    """How many jobs a stage asks for, from the estimated CPU seconds of its tasks (:func:`plan_jobs`).

    ``cpu_seconds``: the tasks' estimates in task order; ``needed``: ``ceil(sum(cpu_seconds) / (job_minutes × 60 ×
    cores))`` (at least 1 with a task); ``jobs``: ``min(needed, max_jobs)`` (0 without tasks); ``job_of``: the job each
    task is expected on (longest first, each to the least busy worker) — what the dry run lists; at run time the
    workers decide.
    """

    cpu_seconds: tuple[float, ...]
    jobs: int
    needed: int
    job_of: tuple[int, ...]


def plan_jobs(cpu_seconds: Sequence[float], options: SlurmOptions) -> JobPlan:
    """The jobs of a stage whose tasks cost ``cpu_seconds`` (estimated, one thread each).

    Examples
    --------
    >>> plan = plan_jobs([600.0, 1500.0, 300.0], SlurmOptions(job_minutes=20, max_jobs=5))
    >>> plan.needed, plan.jobs, plan.job_of        # 2400 CPU-s / 1200 s per job: 2 jobs
    (2, 2, (1, 0, 1))
    >>> plan_jobs([3600.0] * 10, SlurmOptions(job_minutes=30, max_jobs=4)).jobs   # 20 needed, 4 at most
    4
    """
    cpu = tuple(float(s) for s in cpu_seconds)
    if not cpu:
        return JobPlan((), 0, 0, ())
    needed = max(1, math.ceil(sum(cpu) / (options.job_minutes * 60 * options.cores)))
    jobs = min(needed, options.max_jobs)
    return JobPlan(cpu, jobs, needed, _assign(cpu, jobs, options.cores))


def _assign(cpu: Sequence[float], jobs: int, cores: int) -> tuple[int, ...]:
    """Each task's job: longest first, each to the least busy of the ``jobs × cores`` workers."""
    workers = [(0.0, job, core) for job in range(jobs) for core in range(cores)]
    heapq.heapify(workers)
    placed: dict[int, int] = {}
    for index in sorted(range(len(cpu)), key=lambda i: (-cpu[i], i)):
        load, job, core = heapq.heappop(workers)
        placed[index] = job
        heapq.heappush(workers, (load + cpu[index], job, core))
    return tuple(placed[i] for i in range(len(cpu)))


#: The CPU seconds a task counts when the cost model has no figure for it (no shape, or no estimate at all).
UNKNOWN_TASK_SECONDS = 60.0


class StageCosts:
    """``costs(stage, datasets)``: each dataset's estimated CPU seconds in ``stage`` (respond or irt) from the cost
    model (:func:`benchirt.pipeline.estimate.estimate_run`, computed at the first call). A dataset without a shape
    counts as the stage's longest estimated one, so the plan errs towards more jobs; when no estimate can be made
    (``problem`` says why) every dataset counts :data:`UNKNOWN_TASK_SECONDS`."""

    COLUMNS = {"respond": "respond_s", "irt": "irt_s"}

    def __init__(self, config) -> None:
        self.config = config
        self.problem: str | None = None
        self._known: dict[str, dict[str, float]] | None = None

    def __call__(self, stage: str, datasets: Sequence[str]) -> list[float]:
        per_dataset = self._table().get(self.COLUMNS.get(stage, "respond_s"), {})
        fallback = max(per_dataset.values(), default=UNKNOWN_TASK_SECONDS)
        return [per_dataset.get(name, fallback) for name in datasets]

    def _table(self) -> dict[str, dict[str, float]]:
        if self._known is None:
            from benchirt.pipeline.estimate import estimate_run, load_cost_model

            self._known = {}
            try:
                table = estimate_run(self.config, 1, load_cost_model())[0]
            except BenchirtError as exc:
                self.problem = f"no cost estimate ({str(exc).splitlines()[0]}): {UNKNOWN_TASK_SECONDS:g} s per task assumed"
                return self._known
            for column in self.COLUMNS.values():
                known = table.dropna(subset=[column]) if column in table else table.iloc[0:0]
                self._known[column] = dict(zip(known["dataset"], known[column].astype(float))) if len(known) else {}
        return self._known


def slurm_executor(config, run_dir: str | Path) -> "SlurmExecutor":
    """The executor of a config with ``execution.backend: slurm`` over the run folder ``run_dir``."""
    execution = config.execution
    executor = SlurmExecutor(execution.slurm, retries=execution.retries, costs=StageCosts(config),
                             folder=Path(run_dir) / FOLDER)
    if execution.n_jobs != 1:  # said in the executor line (console and manifest), not dropped silently
        executor.note = f"execution.n_jobs {execution.n_jobs} is not read: the jobs are planned from the cost model"
    return executor


def job_kwargs(options: SlurmOptions, log_folder: Path | None) -> dict[str, Any]:
    """The keyword arguments of dask-jobqueue's ``SLURMCluster`` (and ``SLURMJob``) for ``options``: ``cores``
    single-threaded worker processes per job, the driver's Python, the block's directives."""
    return {"queue": options.partition, "cores": options.cores, "processes": options.cores,
            "memory": options.memory + "iB", "job_mem": options.memory, "walltime": options.walltime,
            "job_cpu": options.cores, "job_name": JOB_NAME, "python": sys.executable,
            "job_extra_directives": list(options.directives),
            "log_directory": str(Path(log_folder).resolve()) if log_folder is not None else None}


def batch_script(options: SlurmOptions, *, log_folder: Path | None = None) -> str:
    """The batch script a job runs (dask-jobqueue's ``SLURMJob.job_script``), the scheduler's address left as
    :data:`PLACEHOLDER_ADDRESS` (the run writes its own into ``RUN_DIR/slurm/job.sh`` when it starts)."""
    SLURMJob = _jobqueue().SLURMJob
    return SLURMJob(scheduler=PLACEHOLDER_ADDRESS, name="benchirt-worker", **job_kwargs(options, log_folder)).job_script()


def check_submission(options: SlurmOptions, folder: Path) -> None:
    """Have ``sbatch --test-only`` check the batch script (``folder/job.sh``, written here) before any job is submitted;
    BenchirtError when sbatch is not on PATH or refuses it (its message, one line)."""
    script = folder / "job.sh"
    script.write_text(batch_script(options, log_folder=folder / "logs"), encoding="utf-8")
    try:
        answer = subprocess.run(["sbatch", "--test-only", str(script)], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BenchirtError(f"cannot run sbatch ({exc}); execution.backend slurm runs on a node of the SLURM cluster, "
                            "with sbatch on PATH") from None
    if answer.returncode != 0:
        said = (answer.stderr.strip() or answer.stdout.strip() or f"exit status {answer.returncode}").splitlines()[-1]
        raise BenchirtError(f"sbatch refuses the batch script {script} ({said}); check execution.slurm: partition, "
                            "memory, walltime, directives")


def _jobqueue():
    """dask_jobqueue's ``slurm`` module, or a one-line error saying how to install it."""
    try:
        import dask_jobqueue.slurm
    except ImportError:
        raise BenchirtError("execution.backend slurm needs dask-jobqueue: pip install 'benchirt[slurm]' "
                            "(or pip install dask-jobqueue)") from None
    return dask_jobqueue.slurm


def job_states(job_ids: Sequence[str]) -> dict[str, str]:
    """Job id -> its state as ``sacct`` reports it (``sacct -j IDS -n -P -o JobID,State``; the first word of the
    state: ``CANCELLED by 123`` is CANCELLED). A job sacct does not list is ``UNKNOWN``; sacct missing or failing
    gives ``UNKNOWN (sacct: …)`` for every job."""
    if not job_ids:
        return {}
    try:
        answer = subprocess.run(["sacct", "-j", ",".join(job_ids), "-n", "-P", "-o", "JobID,State"],
                                capture_output=True, text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return {job: f"UNKNOWN (sacct: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
                for job in job_ids}
    found: dict[str, str] = {}
    for line in answer.splitlines():
        job, _, state = line.partition("|")
        if job in job_ids and state.strip():  # job steps (123.batch) are left out
            found[job] = state.split()[0]
    return {job: found.get(job, "UNKNOWN") for job in job_ids}


class SlurmExecutor(DaskExecutor):
    """Dask workers started as SLURM jobs (module docstring); the cluster starts with the first stage that has
    tasks, so a run with nothing to compute submits nothing.

    ``options`` is the ``execution.slurm`` block, ``retries`` ``execution.retries``; ``costs(stage, datasets)`` gives
    the datasets' estimated CPU seconds (:class:`StageCosts`, whose ``problem`` is said with the plan); ``folder``
    holds the batch script and the jobs' logs (``RUN_DIR/slurm``).
    """

    def __init__(self, options: SlurmOptions, *, retries: int, costs: Callable[[str, Sequence[str]], list[float]],
                 folder: Path) -> None:
        self.options, self.retries, self.costs, self.folder = options, retries, costs, Path(folder)
        self.scheduler_reruns = 0
        self.note = ""
        self._refused = False
        self._cluster: Any = None
        self._own_client = True
        self._planned = 0
        self.submissions: list[dict[str, Any]] = []
        self.jobs: dict[str, str] = {}  # SLURM job id -> its worker's name, in submission order

    @property
    def workers(self) -> int:
        """The workers the planned jobs bring (tasks beyond the connected ones wait in Dask's queue); before the
        first plan, the most at once (``max_jobs × cores``, as ``--estimate`` counts them)."""
        self._keep_jobs()
        return max(1, (self._planned or self.options.max_jobs) * self.options.cores)

    def expect(self, stage: str, datasets: Sequence[str], reused: int) -> str:
        """Plan and ask for the jobs of ``stage``'s ``datasets`` (those without a stored result); the console line."""
        plan = plan_jobs(self.costs(stage, datasets), self.options)
        self.submissions.append({"stage": stage, "datasets": len(datasets), "reused": reused,
                                 "estimated_cpu_seconds": round(sum(plan.cpu_seconds), 1), "jobs": plan.jobs,
                                 "jobs_needed": plan.needed})
        self._start(plan.jobs)
        if not datasets:
            return f"slurm: {stage}: nothing to submit, {reused} dataset(s) reused from the run folder"
        capped = f" (capped by max_jobs {self.options.max_jobs}; {plan.needed} needed)" if plan.needed > plan.jobs else ""
        problem = getattr(self.costs, "problem", None)
        capped += f"; {problem}" if problem else ""
        return (f"slurm: {stage}: {len(datasets)} dataset(s) submitted, {reused} reused from the run folder; "
                f"estimated {format_duration(sum(plan.cpu_seconds))} CPU on {plan.jobs} job(s) of "
                f"{self.options.cores} core(s), target {self.options.job_minutes:g} min each{capped}")

    def map(self, fn: Callable, tasks) -> Iterator[TaskOutcome]:
        source = task_source(tasks)
        if source.done:  # nothing to run: no job
            return
        if self._cluster is None:  # tasks no plan was asked for (:meth:`expect`): one job
            self._start(1)
        yield from super().map(fn, source)

    def _start(self, jobs: int) -> None:
        """Start the cluster (the scheduler in this process) if need be, and ask for ``jobs`` jobs."""
        if jobs == 0:
            return
        first = self._cluster is None
        if first:
            import dask
            from distributed import Client

            self.folder.mkdir(parents=True, exist_ok=True)
            check_submission(self.options, self.folder)
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):  # benchirt counts every loss
                self._cluster = _jobqueue().SLURMCluster(**job_kwargs(self.options, self.folder / "logs"),
                                                         silence_logs="critical")  # the console is benchirt's
            (self.folder / "job.sh").write_text(self._cluster.job_script(), encoding="utf-8")
            self.client = Client(self._cluster)
        self._planned = jobs
        self._cluster.scale(jobs=jobs)
        if first:
            self._await_submission(SUBMIT_SECONDS)

    def _await_submission(self, seconds: float) -> None:
        """Wait until sbatch has accepted a first job (its id known), as a refusal would leave the run waiting
        forever; BenchirtError when there is no job id after ``seconds``."""
        import time

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if any(getattr(job, "job_id", None) for job in list(self._cluster.workers.values())):
                return
            time.sleep(0.1)
        self._planned = 0
        self._refused = True
        script = self.folder / "job.sh"
        raise BenchirtError(f"sbatch submitted no job in {seconds:g} s; check the partition, memory, time limit and "
                            f"directives of execution.slurm with `sbatch --test-only {script}`")

    def _keep_jobs(self) -> None:
        """Remember every job submitted so far (the cluster forgets a job once it is gone), and submit a job in place
        of each one lost (dask's cluster drops a lost worker's job after ``distributed.deploy.lost-worker-timeout``)."""
        if self._cluster is None:
            return
        for name, job in list(self._cluster.workers.items()):
            if getattr(job, "job_id", None):
                self.jobs.setdefault(str(job.job_id), str(name))
        if set(self._cluster.worker_spec) - set(self._cluster.workers):
            self._cluster.scale(jobs=self._planned)

    def scheduler_record(self) -> dict[str, Any]:
        """What the manifest's ``slurm`` entry holds: the submissions and each job's state from ``sacct`` (the jobs
        still running are cancelled first, and marked as ended by benchirt)."""
        if self._cluster is None:
            return {"submissions": self.submissions, "jobs": {}}
        self._keep_jobs()
        live = {job for job, state in job_states(list(self.jobs)).items() if state in ("RUNNING", "PENDING")}
        self._planned = 0
        self._cluster.scale(0)
        self._wait_for_cancel(live)
        states = job_states(list(self.jobs))
        ended = {"ended_by": "benchirt, when the run's work was done"}
        return {"submissions": self.submissions,
                "jobs": {job: {"worker": name, "state": states[job], **(ended if job in live else {})}
                         for job, name in self.jobs.items()}}

    def _wait_for_cancel(self, live: set[str], seconds: float = 10.0) -> None:
        """Wait (a few seconds at most) until sacct no longer reports the jobs benchirt cancelled as running."""
        import time

        end = time.monotonic() + seconds
        while live and time.monotonic() < end:
            if all(state not in ("RUNNING", "PENDING") for state in job_states(sorted(live)).values()):
                return
            time.sleep(0.2)

    def close(self) -> None:
        if self._cluster is not None:
            self.client.close()
            try:
                self._cluster.close()
            except AssertionError:  # distributed asserts that every job it created started: not so when sbatch refused
                if not self._refused:
                    raise
            self._cluster = None

    def describe(self) -> str:
        where = f"partition {self.options.partition}" if self.options.partition else "the default partition"
        return (f"slurm (dask-jobqueue) on {where}: jobs of {self.options.cores} core(s), {self.options.memory}, "
                f"{self.options.walltime}, at most {self.options.max_jobs} at once" + (f" ({self.note})" if self.note else ""))

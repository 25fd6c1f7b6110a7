"""``benchirt run CONFIG --dry-run``: the SLURM jobs a run would submit, written down, nothing submitted.

The run decides what it would compute as ``--explain`` does (a rerun lists only what is missing); the per-dataset
stages' datasets to compute are its tasks, each with its estimated CPU seconds
(:class:`benchirt.pipeline.slurm.StageCosts`), and each stage's jobs are planned by
:func:`benchirt.pipeline.slurm.plan_jobs`. Written into ``RUN_DIR/slurm/``: ``jobs.csv`` (``stage, dataset,
estimated_cpu_s, job``: a row per task and the job expected to serve it; at run time the workers pull the tasks) and
``job.sh`` (the batch script, dask-jobqueue's ``job_script()``, with ``DRIVER-ADDRESS`` where the run writes its
scheduler's address). The suite-wide stages run in the driver, not in jobs.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchirt.errors import ConfigError
from benchirt.io import atomic_write_csv, atomic_write_text
from benchirt.pipeline.eta import format_duration
from benchirt.pipeline.slurm import FOLDER, StageCosts, batch_script, plan_jobs

#: The stages whose datasets become tasks on the jobs (the others run in the driver).
JOB_STAGES = ("respond", "irt")


def dry_run(config, run_dir: str | Path, *, force: bool = False) -> str:
    """Write the job list and the batch script of ``config``'s run into ``run_dir/slurm``; the console text.
    ConfigError when the backend is not slurm."""
    from benchirt.out_folder import claim_out
    from benchirt.pipeline.run import run_pipeline
    from benchirt.pipeline.store import RUN_NAMES, ArtifactStore

    options = config.execution.slurm
    if config.execution.backend != "slurm" or options is None:
        raise ConfigError(f"--dry-run writes SLURM jobs, but execution.backend is {config.execution.backend!r}; "
                          "set execution: {backend: slurm} in the config (or run --estimate)")
    run_dir, store = Path(run_dir), ArtifactStore(run_dir)
    store.claim(force)
    manifest = run_pipeline(config, out=run_dir, force=force, show_progress=False, explain=True).manifest
    costs = StageCosts(config)
    frames, lines = [], []
    for stage in JOB_STAGES:
        names = sorted(name for name, entries in manifest.datasets.items()
                       if entries.get(stage, {}).get("status") == "would recompute")
        plan = plan_jobs(costs(stage, names), options)
        frames.append(pd.DataFrame({"stage": stage, "dataset": names, "estimated_cpu_s": plan.cpu_seconds,
                                    "job": plan.job_of}))
        if stage in config.stages:
            reused = sum(1 for entries in manifest.datasets.values() if stage in entries) - len(names)
            lines.append(f"  {stage}: {len(names)} task(s) ({reused} kept from the run folder), estimated "
                         f"{format_duration(sum(plan.cpu_seconds))} CPU, {plan.jobs} job(s)"
                         + (f" (max_jobs {options.max_jobs}; {plan.needed} needed)" if plan.needed > plan.jobs else ""))
    if not store.is_run():  # a folder the dry run writes first is the run's own (store.claim reads its mark)
        claim_out(run_dir, "run", force=force, writes=RUN_NAMES)
    folder = run_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_csv(folder / "jobs.csv", pd.concat(frames, ignore_index=True).round({"estimated_cpu_s": 3}))
    atomic_write_text(folder / "job.sh", batch_script(options, log_folder=folder / "logs"))
    lines += [f"  {costs.problem}"] if costs.problem else []
    return "\n".join([f"benchirt run --dry-run: nothing was submitted. Jobs of {options.cores} core(s), "
                      f"{options.memory}, {options.walltime}, target {options.job_minutes:g} min each:", *lines,
                      f"Job list: {folder / 'jobs.csv'}", f"Batch script: {folder / 'job.sh'}",
                      "The suite-wide stages run in the driver (benchirt run), not in jobs."])

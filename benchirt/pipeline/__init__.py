"""Run the whole benchirt study: configuration, artifact store, executors and the stage wiring.

Usage (not run as a doctest)::

    from benchirt.pipeline import load_config, run_pipeline, load_run
    outcome = run_pipeline(load_config("configs/default.yaml"))     # or load_config(None): the default
    results = load_run(outcome.run_dir)
"""
from benchirt.lazy import lazy_exports

__all__ = ["STAGES", "ExecutionConfig", "PipelineConfig", "RunOutcome", "RunResults", "load_config", "load_run",
           "run_pipeline"]

lazy_exports(__name__, {
    "ExecutionConfig": "benchirt.pipeline.config",
    "PipelineConfig": "benchirt.pipeline.config",
    "RunOutcome": "benchirt.pipeline.run",
    "RunResults": "benchirt.pipeline.results",
    "STAGES": "benchirt.pipeline.config",
    "load_config": "benchirt.pipeline.config",
    "load_run": "benchirt.pipeline.results",
    "run_pipeline": "benchirt.pipeline.run",
})

"""Run the whole benchirt study: configuration, artifact store, executors and the stage wiring.

>>> from benchirt.pipeline import load_config, run_pipeline, load_run
>>> outcome = run_pipeline(load_config("configs/default.yaml"))     # or load_config(None): the default
>>> results = load_run(outcome.run_dir)
"""
from benchirt.pipeline.config import STAGES, ExecutionConfig, PipelineConfig, load_config
from benchirt.pipeline.run import RunOutcome, RunResults, load_run, run_pipeline

__all__ = ["STAGES", "ExecutionConfig", "PipelineConfig", "RunOutcome", "RunResults", "load_config", "load_run",
           "run_pipeline"]

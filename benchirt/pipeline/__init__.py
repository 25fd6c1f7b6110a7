"""Run the whole benchirt study: configuration, artifact store, executors and the stage wiring.

Usage (not run as a doctest)::

    from benchirt.pipeline import load_config, run_pipeline, load_run
    outcome = run_pipeline(load_config("configs/default.yaml"))     # or load_config(None): the default
    results = load_run(outcome.run_dir)
"""
from benchirt.lazy import attach_stub

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)

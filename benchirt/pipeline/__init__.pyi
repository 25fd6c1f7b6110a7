"""Type stub of :mod:`benchirt.pipeline`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from benchirt.pipeline.config import ExecutionConfig as ExecutionConfig
from benchirt.pipeline.config import PipelineConfig as PipelineConfig
from benchirt.pipeline.config import STAGES as STAGES
from benchirt.pipeline.config import load_config as load_config
from benchirt.pipeline.results import RunResults as RunResults
from benchirt.pipeline.results import load_run as load_run
from benchirt.pipeline.run import RunOutcome as RunOutcome
from benchirt.pipeline.run import run_pipeline as run_pipeline

"""Type stub of :mod:`benchirt.data`: its lazy public names (benchirt.lazy, PEP 562) as type checkers see them.

The package's one list of public names: ``__init__.py`` derives its ``__all__`` and lazy table from this
file (:func:`benchirt.lazy.attach_stub`).
"""
from pathlib import Path

from benchirt.data.arff import ArffData as ArffData
from benchirt.data.arff import read_arff as read_arff
from benchirt.data.builtin import BUILTIN_DATASETS as BUILTIN_DATASETS
from benchirt.data.builtin import load_builtin as load_builtin
from benchirt.data.dataset import Dataset as Dataset
from benchirt.data.files import load_file as load_file
from benchirt.data.names import METADATA_COLUMNS as METADATA_COLUMNS
from benchirt.data.spec import DatasetSpec as DatasetSpec
from benchirt.data.suite_file import SuiteFile as SuiteFile
from benchirt.data.suite_file import read_suite_file as read_suite_file
from benchirt.data.suite_file import write_suite_file as write_suite_file
from benchirt.data.suites import resolve_suite as resolve_suite

def set_openml_cache(path: str | Path) -> None: ...

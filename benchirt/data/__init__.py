"""Dataset type and the sources that produce it (OpenML, local files, scikit-learn builtins).

Public API::

    resolve_suite(spec, base=None) -> list[DatasetSpec]     # every accepted form: benchirt.data.suites
    DatasetSpec(...).load() -> Dataset; .fingerprint() -> str
    load_file(path, target=None, ...) -> Dataset             # one ARFF/CSV/parquet file
    load_builtin(name) -> Dataset                            # wdbc, digits, wine, iris
    read_arff(path) -> ArffData
    write_suite_file(path, name, specs) / read_suite_file(path) -> SuiteFile
    set_openml_cache(path)                                   # openml-python's download cache

OpenML support (``benchirt.data.openml_source``) is imported on first use.
"""
from pathlib import Path

from benchirt.lazy import lazy_exports


def set_openml_cache(path: str | Path) -> None:
    """Make openml-python keep its downloads under ``path`` (see :mod:`benchirt.data.openml_source`)."""
    from benchirt.data.openml_source import set_openml_cache as _set

    _set(path)


__all__ = [
    "ArffData",
    "BUILTIN_DATASETS",
    "Dataset",
    "DatasetSpec",
    "METADATA_COLUMNS",
    "SuiteFile",
    "load_builtin",
    "load_file",
    "read_arff",
    "read_suite_file",
    "resolve_suite",
    "set_openml_cache",
    "write_suite_file",
]

lazy_exports(__name__, {
    "ArffData": "benchirt.data.arff",
    "BUILTIN_DATASETS": "benchirt.data.builtin",
    "Dataset": "benchirt.data.dataset",
    "DatasetSpec": "benchirt.data.spec",
    "METADATA_COLUMNS": "benchirt.data.names",
    "SuiteFile": "benchirt.data.suite_file",
    "load_builtin": "benchirt.data.builtin",
    "load_file": "benchirt.data.files",
    "read_arff": "benchirt.data.arff",
    "read_suite_file": "benchirt.data.suite_file",
    "resolve_suite": "benchirt.data.suites",
    "write_suite_file": "benchirt.data.suite_file",
})

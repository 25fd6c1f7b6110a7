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

from benchirt.lazy import attach_stub


def set_openml_cache(path: str | Path) -> None:
    """Make openml-python keep its downloads under ``path`` (see :mod:`benchirt.data.openml_source`)."""
    from benchirt.data.openml_source import set_openml_cache as _set

    _set(path)


# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)

"""Which reader an offline stored-runs source goes to: OpenML's cache layout or respondents × items matrix files.

A source is a path or a list of paths. A folder in OpenML's cache layout (``runs/``, ``org/openml/www``,
``tasks/``, a run folder, or sub-folders holding ``predictions.arff``) is read by
:func:`benchirt.stored_runs.folder.read_runs_folder`; a CSV file, a list of them, or a folder of ``*.csv`` files by
:func:`benchirt.stored_runs.matrices.read_matrices` (one dataset per file).
"""
from __future__ import annotations

from pathlib import Path

from benchirt.errors import ConfigError, DataError
from benchirt.stored_runs.respondent_names import RespondentNaming


def source_paths(source, *, base_dir: str | Path = ".") -> list[Path]:
    """The paths of ``source`` (one or a list), each relative to ``base_dir`` unless absolute, ``~`` expanded."""
    paths = [source] if isinstance(source, (str, Path)) else list(source)
    if not paths:
        raise DataError("no source given; give a runs folder, matrix CSV files or a folder of them")
    out = []
    for path in paths:
        path = Path(path).expanduser()
        out.append(path if path.is_absolute() else Path(base_dir) / path)
    return out


def read_offline(source, *, naming: RespondentNaming | None = None, base_dir: str | Path = ".") -> list:
    """The :class:`~benchirt.stored_runs.matrix.RunMatrix` of every dataset an offline source holds (module docstring)."""
    naming = naming or RespondentNaming()
    from benchirt.stored_runs.matrices import is_matrix_source, read_matrices

    paths = source_paths(source, base_dir=base_dir)
    if len(paths) > 1 or is_matrix_source(paths[0]):
        return read_matrices(paths, naming=naming)
    if naming.pattern is not None:
        raise ConfigError(f"{paths[0]}: a runs folder in OpenML's layout names its flows and runs in each run's "
                          "description; the respondent pattern applies to matrix files only: leave it out")
    from benchirt.stored_runs.folder import read_runs_folder

    return read_runs_folder(paths[0])


def is_offline(source) -> bool:
    """Whether ``source`` names local paths (not OpenML task ids or a suite)."""
    return not isinstance(source, (str, Path)) or Path(source).exists()

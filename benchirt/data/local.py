"""Local suites: a folder of data files (optionally with a manifest) and the offline CC18 mirror.

A folder may hold ``manifest.csv``, which then defines the suite (unlisted files are ignored). Columns, all optional
except ``file``:

===============================  ==========================================================
``file``                         file name, relative to the folder
``name``                         dataset name (default: the file name without suffix)
``openml_did`` or ``openml_id``  OpenML dataset id
``task_id``                      OpenML task id
``target``                       target column (default: the last column)
``ignore``                       columns to drop, separated by ``;``
``sha256``                       expected file checksum, verified when the dataset loads
===============================  ==========================================================

Other columns are ignored. Without a manifest every ``.arff``, ``.csv``, ``.tsv`` and ``.parquet`` file of the folder
(not its sub-folders) is a dataset, named after its file, sorted by name.

``cc18-offline`` is the ARFF files of ``<shared data>/cc18-arff`` (with its manifest's OpenML names and ids) plus
scikit-learn's breast_cancer as ``wdbc`` (OpenML 1510). The shared data folder is ``$BENCHIRT_SHARED_DATA``, else
``../shared/data`` relative to the working directory or the project root.

``embedded``, what ``benchirt run`` runs with no argument, is the scikit-learn builtins plus small real datasets shipped
in ``benchirt/data/embedded_suite/`` (with a manifest of sources, licences and sha256 checksums checked at load;
README there): enough for the AIRT stage and subsets of several sizes, with no network and no ``../shared``.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pandas as pd

from benchirt.data.builtin import builtin_info
from benchirt.data.files import dataset_name, file_format
from benchirt.data.spec import DatasetSpec
from benchirt.errors import DataError

MANIFEST = "manifest.csv"
CC18_MIRROR = "cc18-arff"
SHARED_DATA_ENV = "BENCHIRT_SHARED_DATA"
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


def shared_data_candidates() -> list[Path]:
    """Where the shared offline data folder is looked for, in order."""
    if os.environ.get(SHARED_DATA_ENV):
        return [Path(os.environ[SHARED_DATA_ENV]).expanduser()]
    return list(dict.fromkeys([Path.cwd() / ".." / "shared" / "data", _PROJECT_ROOT.parent / "shared" / "data"]))


def cc18_mirror_dir() -> Path:
    """The folder of the offline CC18 ARFF mirror (holding ``manifest.csv``); DataError listing the places searched
    when it is not found."""
    searched = []
    for base in shared_data_candidates():
        for folder in (base / CC18_MIRROR, base):
            searched.append(folder)
            if (folder / MANIFEST).is_file():
                return folder.resolve()
    raise DataError(
        "the offline CC18 mirror (cc18-arff/manifest.csv) was not found; looked in "
        + ", ".join(str(p) for p in dict.fromkeys(searched))
        + f". Set {SHARED_DATA_ENV} to the shared data folder, or use the suite 'embedded', 'builtin' or a folder PATH"
    )


def cc18_offline_specs() -> list[DatasetSpec]:
    """The 27-dataset offline CC18 suite: the mirror's manifest plus builtin ``wdbc``."""
    wdbc = builtin_info("wdbc")
    return read_manifest(cc18_mirror_dir()) + [
        DatasetSpec(name=wdbc.name, kind="builtin", location=wdbc.loader, openml_id=wdbc.openml_id)
    ]


#: The folder of the embedded suite's CSV files and manifest (package data).
EMBEDDED_DIR = Path(__file__).resolve().parent / "embedded_suite"


def embedded_specs() -> list[DatasetSpec]:
    """The 12-dataset embedded suite: the scikit-learn builtins, then the package's own CSVs."""
    builtins = [builtin_info(name) for name in ("wdbc", "digits", "wine", "iris")]
    return [DatasetSpec(name=i.name, kind="builtin", location=i.loader, openml_id=i.openml_id) for i in builtins] + \
        read_manifest(EMBEDDED_DIR)


def directory_specs(folder: str | Path, *, target: str | None = None) -> list[DatasetSpec]:
    """The datasets of a folder: its manifest when there is one, else every data file in it; ``target`` for every file
    the manifest gives none (default: last column)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder")
    if (folder / MANIFEST).is_file():
        specs = read_manifest(folder)
        if target is not None:
            specs = [s if s.target else _with_target(s, target) for s in specs]
        return specs
    files = sorted(p for p in folder.iterdir() if p.is_file() and file_format(p) is not None)
    if not files:
        raise DataError(f"{folder}: no .arff, .csv, .tsv or .parquet files (and no {MANIFEST}) in this folder")
    return [DatasetSpec(name=dataset_name(p), kind="file", location=str(p.resolve()), target=target) for p in files]


def read_manifest(folder: str | Path) -> list[DatasetSpec]:
    """Read ``folder/manifest.csv`` (columns in the module docstring) into specs."""
    folder = Path(folder)
    path = folder / MANIFEST
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"{path}: cannot read the manifest ({exc})") from None
    if "file" not in table.columns:
        raise DataError(f"{path}: the manifest needs a 'file' column; it has {list(table.columns)}")
    specs = []
    for number, row in enumerate(table.to_dict("records"), start=2):
        where = f"{path}, line {number}"
        file = folder / row["file"].strip()
        if file_format(file) is None:
            raise DataError(f"{where}: {row['file']!r} is not an .arff, .csv, .tsv or .parquet file")
        if not file.is_file():
            raise DataError(f"{where}: listed file {row['file']!r} does not exist in {folder}")
        specs.append(DatasetSpec(
            name=row.get("name", "").strip() or dataset_name(file),
            kind="file",
            location=str(file.resolve()),
            openml_id=_optional_int(row.get("openml_did") or row.get("openml_id"), where),
            task_id=_optional_int(row.get("task_id"), where),
            target=row.get("target", "").strip() or None,
            ignore=_split_list(row.get("ignore", "")),
            sha256=row.get("sha256", "").strip().lower() or None,
        ))
    if not specs:
        raise DataError(f"{path}: the manifest lists no files")
    return specs


def _with_target(spec: DatasetSpec, target: str) -> DatasetSpec:
    return replace(spec, target=target)


def _optional_int(value: str | None, where: str) -> int | None:
    if value is None or not str(value).strip():
        return None
    try:
        return int(float(str(value).strip()))
    except ValueError:
        raise DataError(f"{where}: {value!r} is not an integer id") from None


def _split_list(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if not value:
        return ()
    items = value.split(";") if isinstance(value, str) else value
    return tuple(s.strip() for s in items if str(s).strip())

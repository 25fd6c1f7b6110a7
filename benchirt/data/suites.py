"""``resolve_suite``: every way a user can name a set of datasets, turned into a list of :class:`DatasetSpec`.

Accepted forms (strings are what ``--suite`` and YAML configs carry):

=====================================  ===========================================================
``"builtin"``                          wdbc (OpenML 1510), digits, wine, iris from scikit-learn
``"builtin:iris,wine"``                some of them
``"embedded"``                         the builtins + 8 small real CSVs shipped in the package (12)
``"cc18-offline"``                     the 26-file CC18 ARFF mirror + builtin wdbc (27 datasets)
``"OpenML-CC18"``, ``99``, ``"99"``,   an OpenML benchmark suite by id or alias
``"openml:99"``, ``"openml:OpenML100"``
``"openml-dataset:31"``                one OpenML dataset (default target)
``"openml-task:3913"``                 the dataset and target of one OpenML task
a folder path                          its data files, or its ``manifest.csv`` (:mod:`.local`)
a ``.yaml``/``.yml``/``.json`` path    a suite file (:mod:`.suite_file`)
an ``.arff``/``.csv``/… path           that one file
a list of any of these                 their concatenation
a :class:`DatasetSpec`                 itself
a dict (YAML config)                   exactly one source key of :data:`DICT_SOURCES` plus the
                                       options of :data:`DICT_OPTIONS`, e.g.
                                       ``{"builtin": ["iris", "wine"]}``,
                                       ``{"directory": "data/", "include": ["a"], "target": "y"}``,
                                       ``{"openml_suite": 99, "cache": "~/.openml"}``,
                                       ``{"suite": "cc18-offline", "exclude": ["letter"]}``
=====================================  ===========================================================

Names are unique in the result: the same spec given twice is kept once, two different datasets
with one name are an error. Relative paths are taken from ``base`` (default: the working folder).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from benchirt.data.builtin import BUILTIN_DATASETS, builtin_info
from benchirt.data.files import dataset_name, file_format
from benchirt.data.local import cc18_offline_specs, directory_specs, embedded_specs
from benchirt.data.spec import DatasetSpec
from benchirt.data.names import FORMS_HELP, OPENML_SUITE_ALIASES
from benchirt.data.suite_file import is_suite_file, read_suite_file
from benchirt.errors import ConfigError, DataError
from benchirt.options import checked_options

#: Keys naming where a dict-form suite comes from (exactly one per dict).
DICT_SOURCES = ("builtin", "suite", "directory", "suite_file", "file", "openml_suite", "openml_datasets",
                "openml_tasks")
#: A dataset name or OpenML id, or a list of them (``include``, ``exclude``, ``openml_datasets``, ...).
Names = str | int | Iterable[object]

#: Keys modifying a dict-form suite.
DICT_OPTIONS = ("include", "exclude", "target", "name", "cache")



def resolve_suite(spec: object, *, base: str | Path | None = None) -> list[DatasetSpec]:
    """Turn a suite description (module docstring; ``base``: the folder relative paths start from, default the
    working folder) into its datasets, in the order given, names unique; nothing is loaded yet.

    Raises
    ------
    DataError
        Unknown form, missing path or mirror, OpenML unreachable (:class:`OpenMLUnavailableError`).
    ConfigError
        A malformed dict form or suite file.
    """
    base_dir = Path(base) if base is not None else Path.cwd()
    return _unique(_resolve(spec, base_dir))


def _resolve(spec: object, base: Path) -> list[DatasetSpec]:
    if isinstance(spec, DatasetSpec):
        return [spec]
    if isinstance(spec, bool):
        raise DataError(f"{spec!r} is not a suite; {FORMS_HELP}")
    if isinstance(spec, int):
        return _openml().suite_specs(spec)
    if isinstance(spec, Path):
        return _from_path(spec if spec.is_absolute() else base / spec, str(spec))
    if isinstance(spec, str):
        return _from_string(spec.strip(), base)
    if isinstance(spec, Mapping):
        return _from_dict(spec, base)
    if isinstance(spec, Iterable):
        items = list(spec)
        if not items:
            raise DataError(f"an empty list is not a suite; {FORMS_HELP}")
        return [s for item in items for s in _resolve(item, base)]
    raise DataError(f"{spec!r} ({type(spec).__name__}) is not a suite; {FORMS_HELP}")


def _from_string(text: str, base: Path) -> list[DatasetSpec]:
    lowered = text.lower()
    if lowered == "builtin":
        return [_builtin_spec(name) for name in BUILTIN_DATASETS]
    if lowered.startswith("builtin:"):
        return [_builtin_spec(name.strip()) for name in text.split(":", 1)[1].split(",") if name.strip()]
    if lowered == "cc18-offline":
        return cc18_offline_specs()
    if lowered == "embedded":
        return embedded_specs()
    if lowered.startswith("openml:"):
        return _openml().suite_specs(text.split(":", 1)[1].strip())
    if lowered.startswith("openml-dataset:"):
        return [_openml().dataset_spec(_int(text.split(":", 1)[1], text))]
    if lowered.startswith("openml-task:"):
        return [_openml().task_spec(_int(text.split(":", 1)[1], text))]
    if text.isdigit() or lowered in OPENML_SUITE_ALIASES:
        return _openml().suite_specs(text)
    path = Path(text).expanduser()
    return _from_path(path if path.is_absolute() else base / path, text)


def _from_path(path: Path, given: str) -> list[DatasetSpec]:
    if path.is_dir():
        return directory_specs(path)
    if path.is_file():
        if is_suite_file(path):
            return list(read_suite_file(path).specs)
        if file_format(path) is not None:
            return [DatasetSpec(name=dataset_name(path), kind="file", location=str(path.resolve()))]
        raise DataError(f"{path}: unknown format {''.join(path.suffixes)!r}; {FORMS_HELP}")
    looks_like_path = "/" in given or "\\" in given or Path(given).suffix != ""
    if looks_like_path:
        raise DataError(f"{given}: no such file or folder (looked at {path})")
    raise DataError(f"unknown suite {given!r}; {FORMS_HELP}")


def _from_dict(spec: Mapping, base: Path) -> list[DatasetSpec]:
    """The datasets of a suite given as a mapping: one source key, then ``cache``, ``include``, ``exclude``."""
    checked_options("suite", spec, DICT_SOURCES + DICT_OPTIONS)
    sources = [k for k in DICT_SOURCES if k in spec]
    if len(sources) != 1:
        raise ConfigError(f"suite: give exactly one of {list(DICT_SOURCES)}, got {sources or 'none'}")
    cache = None
    if spec.get("cache"):
        cache = str(_path(spec["cache"], base).resolve())
        from benchirt.data.openml_source import set_openml_cache  # imports openml: only when a cache is named

        set_openml_cache(cache)
    specs = _source_specs(sources[0], spec, base)
    if cache is not None:  # workers read the same cache as this process
        specs = [replace(s, openml_cache=cache) if s.kind == "openml" else s for s in specs]
    return _select(specs, spec.get("include"), spec.get("exclude"))


def _source_specs(source: str, spec: Mapping, base: Path) -> list[DatasetSpec]:
    """The datasets the mapping's source key ``source`` (one of :data:`DICT_SOURCES`) names."""
    value, target = spec[source], spec.get("target")
    if source == "builtin":
        names = list(BUILTIN_DATASETS) if value is True or value in ("all", None) else _as_list(value)
        return [_builtin_spec(str(n)) for n in names]
    if source == "suite":
        return _resolve(value, base)
    if source == "directory":
        return directory_specs(_path(value, base), target=target)
    if source == "suite_file":
        return list(read_suite_file(_path(value, base)).specs)
    if source == "file":
        path = _path(value, base)
        if not path.is_file():
            raise DataError(f"{value}: no such file (looked at {path})")
        return [DatasetSpec(name=str(spec.get("name") or dataset_name(path)), kind="file",
                            location=str(path.resolve()), target=target)]
    if source == "openml_suite":
        return _openml().suite_specs(value)
    if source == "openml_datasets":
        return [_openml().dataset_spec(_int(v, "openml_datasets"), target=target) for v in _as_list(value)]
    return [_openml().task_spec(_int(v, "openml_tasks")) for v in _as_list(value)]


def _select(specs: list[DatasetSpec], include: Names | None, exclude: Names | None) -> list[DatasetSpec]:
    """Keep the datasets ``include`` names (in suite order) and drop those ``exclude`` names (by name or OpenML id)."""
    _check_named(specs, include, exclude)
    if include is not None:
        wanted = {str(w) for w in _as_list(include)}
        specs = [s for s in specs if _match_keys(s) & wanted]
    if exclude is not None:
        unwanted = {str(w) for w in _as_list(exclude)}
        specs = [s for s in specs if not _match_keys(s) & unwanted]
    if not specs:
        raise DataError("the suite is empty after include/exclude")
    return specs


def _check_named(specs: list[DatasetSpec], include: Names | None, exclude: Names | None) -> None:
    """A ``DataError`` when ``include`` or ``exclude`` names a dataset the suite does not have."""
    available = set().union(*(_match_keys(s) for s in specs)) if specs else set()
    for option, wanted in (("include", include), ("exclude", exclude)):
        unknown = [str(w) for w in _as_list(wanted) if str(w) not in available] if wanted is not None else []
        if unknown:
            raise DataError(f"suite {option}: {unknown} not in the suite; its datasets are "
                            f"{[s.name for s in specs]}")


def _match_keys(spec: DatasetSpec) -> set[str]:
    """What ``include``/``exclude`` may name a dataset by: its name and its OpenML id."""
    return {spec.name} | ({str(spec.openml_id)} if spec.openml_id is not None else set())


def _unique(specs: list[DatasetSpec]) -> list[DatasetSpec]:
    kept: dict[str, DatasetSpec] = {}
    for spec in specs:
        if spec.name in kept and kept[spec.name] != spec:
            raise DataError(
                f"two different datasets are named {spec.name!r} ({kept[spec.name].location} and {spec.location}); "
                "dataset names must be unique in a suite — rename one (manifest 'name' column or suite file)"
            )
        kept.setdefault(spec.name, spec)
    return list(kept.values())


def _builtin_spec(name: str) -> DatasetSpec:
    info = builtin_info(name)
    return DatasetSpec(name=info.name, kind="builtin", location=info.loader, openml_id=info.openml_id)


def _openml():
    """The OpenML spec module, imported on first use (importing openml takes seconds)."""
    from benchirt.data import openml_specs

    return openml_specs


def _as_list(value: Names) -> list:
    if isinstance(value, (str, int)):
        return [value]
    return list(value)


def _path(value: object, base: Path) -> Path:
    path = Path(str(value)).expanduser()
    return path if path.is_absolute() else base / path


def _int(value: object, where: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise DataError(f"{where}: {value!r} is not an integer OpenML id") from None

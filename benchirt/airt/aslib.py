"""AIRT inputs: ASlib scenarios and wide performance matrices, as "higher is better" in [0, 1].

AIRT (Kandanaarachchi & Smith-Miles 2023, Algorithm 1) takes a matrix ``Y`` of N instances/datasets (rows) by n
algorithms (columns) whose values grow with good performance in a bounded range. This module turns a wide matrix (CSV or
DataFrame, e.g. :func:`benchirt.responses.accuracy_matrix`) or an ASlib scenario directory (``description.txt``,
``algorithm_runs.arff``, optional ``cv.arff``) into it, saying in ``notes`` what it changed.

"Lower is better" runtimes and PAR10 scores are transformed as in Kandanaarachchi & Smith-Miles 2023 §5.2 ("multiplying
with -1 and scaling to the interval [0, 1]"): one min-max scaling over the whole matrix, not per algorithm, so
algorithms stay comparable on every instance and a portfolio's performance gap keeps its meaning:
``y = (max(x) - x) / (max(x) - min(x))``. ``transform="log"`` (a benchirt option, not in the paper) scales
``log10(x + 1)`` instead, for heavy-tailed runtimes."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.airt.config import TRANSFORMS
from benchirt.errors import DataError
from benchirt.sniff import check_field_sizes, check_names, check_text_table

#: ASlib run status meaning the algorithm solved the instance within its limits.
OK_STATUS = "ok"
#: Accepted ways to aggregate repeated runs of one (instance, algorithm) pair.
AGGREGATES = ("mean", "median")
#: Columns of ``algorithm_runs.arff`` that are not performance measures.
_RUN_KEY_COLUMNS = ("instance_id", "repetition", "algorithm", "runstatus")


@dataclass
class ASlibScenario:
    """One ASlib scenario read for AIRT.

    Attributes
    ----------
    name : str
        ``scenario_id`` of ``description.txt`` (the folder name when absent).
    measure, maximize : str, bool
        The performance column used (e.g. ``"runtime"``, ``"PAR10"``) and whether larger raw values are better (from
        ``description.txt``).
    cutoff : float | None
        ``algorithm_cutoff_time`` in seconds, ``None`` when the scenario gives none.
    raw : pd.DataFrame
        The runs in long form: ``instance_id, repetition, algorithm, <measure>, runstatus`` as read.
    raw_performance : pd.DataFrame, shape (n_instances, n_algorithms)
        The measure per instance and algorithm after penalising failed runs (PAR-k) and aggregating repetitions, in raw
        units. Index ``instance_id``, columns algorithms.
    performance : pd.DataFrame, shape (n_instances, n_algorithms)
        ``raw_performance`` as "higher is better" in [0, 1]: the AIRT input.
    folds : pd.Series | None
        Instance -> fold number (1..10) from ``cv.arff`` (repetition 1), aligned with ``performance.index``; ``None``
        without ``cv.arff``.
    notes : list[str]
        Each transformation applied, in words."""

    name: str
    measure: str
    maximize: bool
    cutoff: float | None
    raw: pd.DataFrame
    raw_performance: pd.DataFrame
    performance: pd.DataFrame
    folds: pd.Series | None
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------------------------------------
# wide matrices
# ----------------------------------------------------------------------------------------------------------
def check_performance(perf: pd.DataFrame, *, where: str = "performance matrix", missing: bool = False) -> pd.DataFrame:
    """Validate an AIRT input matrix: numeric, finite, in [0, 1], at least 2 instances and 2 algorithms; returns it as
    float64 with string labels. ``where`` names the input in error messages; ``missing`` accepts NaN (a cell not
    observed, fitted on the observed cells). Raises :class:`DataError` for non-numeric, missing or infinite entries,
    values outside [0, 1] (runtimes, PAR10 — use :func:`to_unit_interval`), duplicated labels, or fewer than 2 rows
    or 2 columns."""
    if not isinstance(perf, pd.DataFrame):
        raise DataError(f"{where}: expected a pandas DataFrame (rows datasets, columns algorithms), "
                        f"got {type(perf).__name__}")
    if perf.shape[0] < 2:
        raise DataError(f"{where}: AIRT needs at least 2 datasets/instances (rows), found {perf.shape[0]}; "
                        "a latent trait cannot be estimated from one dataset")
    if perf.shape[1] < 2:
        names = (f"; the first column ({perf.index.name!r}) is read as the dataset/instance names — put "
                 "the names first" if perf.index.name is not None else "")
        raise DataError(f"{where}: AIRT needs at least 2 algorithms (columns), found {perf.shape[1]} "
                        f"{list(map(str, perf.columns))}{names}")
    for axis, labels in (("row", perf.index), ("column", perf.columns)):
        duplicated = labels[labels.duplicated()].unique()
        if len(duplicated):
            raise DataError(f"{where}: duplicated {axis} names {list(map(str, duplicated[:5]))}; "
                            f"give every {axis} a unique name")
    converted = perf.apply(pd.to_numeric, errors="coerce")
    bad = converted.isna() & perf.notna()
    if bad.any().any():
        column = bad.any()[bad.any()].index[0]
        row = bad[column][bad[column]].index[0]
        raise DataError(f"{where}: non-numeric value {perf.loc[row, column]!r} at row {row!r}, column "
                        f"{column!r}; every entry must be a number")
    values = converted.to_numpy(dtype=float)
    if np.isnan(values).any() and not missing:
        rows, cols = np.nonzero(np.isnan(values))
        raise DataError(f"{where}: {rows.size} missing value(s), first at row {converted.index[rows[0]]!r}, "
                        f"column {converted.columns[cols[0]]!r}; fill or drop them before AIRT")
    if np.isinf(values).any():
        raise DataError(f"{where}: infinite values; AIRT needs finite performance values")
    low, high = np.nanmin(values, initial=np.inf), np.nanmax(values, initial=-np.inf)
    if low < 0.0 or high > 1.0:
        raise DataError(f"{where}: values range over [{low:g}, {high:g}] but AIRT needs 'higher is better' in "
                        "[0, 1]; rescale with benchirt.airt.aslib.to_unit_interval(perf, maximize=...) "
                        "(or `benchirt airt --lower-is-better/--rescale`) for runtimes, PAR10 or other scales")
    out = pd.DataFrame(values, index=perf.index.map(str), columns=perf.columns.map(str))
    out.index.name = perf.index.name
    return out


def to_unit_interval(raw: pd.DataFrame, *, maximize: bool, transform: str = "linear") -> pd.DataFrame:
    """Map a performance matrix to "higher is better" in [0, 1] (Kandanaarachchi & Smith-Miles 2023 §5.2).

    Parameters
    ----------
    raw : pd.DataFrame, shape (N, n)
        Finite raw performance values (accuracy, runtime, PAR10, ...).
    maximize : bool
        ``True`` when larger raw values are better; ``False`` for runtimes/PAR10 (multiplied by -1 first).
    transform : {"linear", "log"}
        ``"linear"``: min-max scaling over the whole matrix, as the paper does. ``"log"``: the same on ``log10(x + 1)``
        (needs ``x >= 0``).

    Returns
    -------
    pd.DataFrame, shape (N, n)
        Values in [0, 1], 1 = best raw value in the matrix. A constant matrix maps to all 1; a missing cell stays
        missing (the observed ones set the scale)."""
    if transform not in TRANSFORMS:
        raise DataError(f"unknown transform {transform!r}; use one of {TRANSFORMS}")
    values = raw.to_numpy(dtype=float)
    if np.isinf(values).any() or np.isnan(values).all():
        raise DataError("cannot rescale a performance matrix with infinite values or no value at all")
    if transform == "log":
        if (values < 0).any():
            raise DataError("transform='log' needs non-negative raw values (runtimes, PAR10); "
                            "use transform='linear'")
        values = np.log10(values + 1.0)
    if not maximize:
        values = -values
    low, high = np.nanmin(values), np.nanmax(values)
    scaled = np.where(np.isnan(values), np.nan, 1.0) if high == low else (values - low) / (high - low)
    return pd.DataFrame(scaled, index=raw.index, columns=raw.columns)


def load_performance(source: str | Path | pd.DataFrame, *, maximize: bool = True,
                     rescale: bool = False, transform: str = "linear", missing: bool = False) -> pd.DataFrame:
    """Read a wide performance matrix (rows datasets, columns algorithms) as an AIRT input: float, higher is better, in
    [0, 1].

    Parameters
    ----------
    source : path or pd.DataFrame
        A CSV file whose first column holds the dataset names (the ``benchirt airt PERF.csv`` contract), or a DataFrame.
    maximize : bool
        ``False`` when smaller values are better (runtimes, PAR10, error rates); implies rescaling.
    rescale : bool
        Min-max scale with :func:`to_unit_interval` even when ``maximize`` is true; without it, values outside [0, 1]
        are an error.
    transform : {"linear", "log"}
        Passed to :func:`to_unit_interval` when rescaling.
    missing : bool
        Accept empty cells (an algorithm not run on a dataset), kept as NaN (:mod:`benchirt.airt.observed`); refused
        otherwise."""
    where = "performance matrix"
    if isinstance(source, pd.DataFrame):
        frame = source
    else:
        path = Path(source)
        where = str(path)
        if not path.is_file():
            raise DataError(f"{path}: performance file not found; give a CSV with one row per dataset "
                            "(first column = name) and one column per algorithm")
        check_text_table(path, what="performance CSV")
        check_field_sizes(path, what="performance CSV")
        try:
            frame = pd.read_csv(path, index_col=0)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise DataError(f"{path}: cannot be read as CSV ({exc}); expected rows = datasets, "
                            "first column = dataset name, other columns = algorithms") from None
        check_names(frame.index, "dataset name", path)
        check_names(frame.columns, "algorithm name", path)
    if maximize and not rescale:
        return check_performance(frame, where=where, missing=missing)
    # validate everything but the range, then rescale
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    if (numeric.isna() & frame.notna()).any().any() or (numeric.isna().any().any() and not missing):
        check_performance(frame, where=where)  # raises the precise message
    scaled = to_unit_interval(numeric, maximize=maximize, transform=transform)
    return check_performance(scaled, where=where, missing=missing)


# ----------------------------------------------------------------------------------------------------------
# ASlib
# ----------------------------------------------------------------------------------------------------------
def _read_arff(path: Path) -> pd.DataFrame:
    """Read an ARFF file into a DataFrame with liac-arff (scipy.io.arff refuses ASlib's string attributes)."""
    import arff  # liac-arff

    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            content = arff.load(handle)
    except arff.ArffException as exc:
        raise DataError(f"{path}: not a readable ARFF file ({exc}); ASlib files follow the ARFF format "
                        "of coseal/aslib_data") from None
    columns = [name for name, _ in content["attributes"]]
    return pd.DataFrame(content["data"], columns=columns)


def _read_description(path: Path) -> dict:
    import yaml

    from benchirt.safe_yaml import safe_load

    try:
        description = safe_load(path.read_text(encoding="utf-8", errors="replace"), str(path))
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: not valid YAML ({exc}); ASlib description.txt is a YAML document") from None
    if not isinstance(description, dict):
        raise DataError(f"{path}: expected YAML key/value pairs (scenario_id, performance_measures, maximize, "
                        "algorithm_cutoff_time, ...)")
    return description


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _as_bool(value, *, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"true", "yes", "1"}:
        return True
    if text in {"false", "no", "0"}:
        return False
    raise DataError(f"{where}: 'maximize' must be true/false, got {value!r}")


def _as_cutoff(value) -> float | None:
    try:
        cutoff = float(value)
    except (TypeError, ValueError):
        return None  # '?' in ASlib means "unknown"
    return cutoff if np.isfinite(cutoff) and cutoff > 0 else None


def _read_folds(path: Path, instances: pd.Index, notes: list[str]) -> pd.Series | None:
    if not path.is_file():
        notes.append("no cv.arff: cross-validation folds will be drawn at random (seeded)")
        return None
    cv = _read_arff(path)
    missing_columns = {"instance_id", "fold"} - set(cv.columns)
    if missing_columns:
        raise DataError(f"{path}: missing column(s) {sorted(missing_columns)}; ASlib cv.arff has "
                        "instance_id, repetition, fold")
    if "repetition" in cv.columns:
        first = pd.to_numeric(cv["repetition"], errors="coerce").min()
        cv = cv[pd.to_numeric(cv["repetition"], errors="coerce") == first]
    cv = cv.assign(instance_id=cv["instance_id"].astype(str)).drop_duplicates("instance_id")
    folds = pd.to_numeric(cv.set_index("instance_id")["fold"], errors="coerce").reindex(instances)
    if folds.isna().any():
        notes.append(f"cv.arff has no fold for {int(folds.isna().sum())} instance(s); folds ignored, "
                     "random folds will be drawn")
        return None
    folds = folds.astype(int).rename("fold")
    folds.index.name = instances.name
    return folds


def load_aslib(directory: str | Path, *, measure: str | None = None, par_factor: float = 10.0,
               aggregate: str = "mean", transform: str = "linear") -> ASlibScenario:
    """Read an ASlib scenario directory as an AIRT input (Kandanaarachchi & Smith-Miles 2023 §5.2 and Appendix A).

    Steps, each recorded in ``notes``:

    1. ``description.txt`` (YAML): ``scenario_id``, ``performance_measures``, ``maximize``, ``performance_type``,
       ``algorithm_cutoff_time``.
    2. ``algorithm_runs.arff``: runs whose ``runstatus`` is not ``ok`` get the ASlib PAR-k penalty
       ``par_factor x cutoff`` when the measure is a runtime (``performance_type: runtime``, ``maximize: false``), else
       the worst value observed for the measure. Runtimes above the cutoff are also penalised; a PAR10 measure is
       unchanged by this rule.
    3. Repeated runs of one (instance, algorithm) pair are combined by ``aggregate`` (mean: the expected PAR-k score;
       median: robust to an outlying repetition).
    4. Pairs without any run count as failed runs (runtime measures), else drop the instance.
    5. The matrix is mapped to [0, 1] by :func:`to_unit_interval`.
    6. ``cv.arff`` (repetition 1) gives the official 10 folds when present.

    Parameters
    ----------
    directory : path
        The scenario folder (e.g. ``../shared/data/aslib/ASP-POTASSCO``).
    measure : str, optional
        Performance column to use; default the first of ``performance_measures``.
    par_factor : float
        Penalty factor k of PAR-k for failed runtime runs (10 = PAR10, ASlib's convention).
    aggregate : {"mean", "median"}
    transform : {"linear", "log"}
        See :func:`to_unit_interval`.

    Raises
    ------
    DataError
        Missing directory or files (names the file), unknown measure, unreadable ARFF/YAML, fewer than 2 instances or
        algorithms left."""
    directory = Path(directory)
    description_path, runs_path = _scenario_files(directory, aggregate, transform)
    description = _read_description(description_path)
    name = str(description.get("scenario_id") or directory.name)
    raw = _read_arff(runs_path)
    missing_columns = {"instance_id", "algorithm"} - set(raw.columns)
    if missing_columns:
        raise DataError(f"{runs_path}: missing column(s) {sorted(missing_columns)}; ASlib algorithm_runs.arff "
                        "has instance_id, repetition, algorithm, <measures>, runstatus")
    measure, maximize, is_runtime = _chosen_measure(description, raw, measure, runs_path, description_path)
    notes: list[str] = []
    runs, penalty, cutoff = _penalised_runs(raw, measure, maximize, is_runtime,
                                            _as_cutoff(description.get("algorithm_cutoff_time")), par_factor,
                                            name, notes)
    table = _performance_table(runs, aggregate, is_runtime, penalty, notes)
    if table.shape[0] < 2 or table.shape[1] < 2:
        raise DataError(f"{name}: {table.shape[0]} instance(s) x {table.shape[1]} algorithm(s) left; AIRT needs "
                        "at least 2 of each")
    constant = [c for c in table.columns if table[c].nunique() == 1]
    if constant:
        notes.append(f"algorithm(s) with the same {measure} on every instance (no information for IRT): {constant}")
    performance = to_unit_interval(table, maximize=maximize, transform=transform)
    direction = "larger is better" if maximize else "multiplied by -1"
    notes.append(f"{measure} ({direction}) scaled to [0, 1] by one {transform} min-max over the whole matrix "
                 "(Kandanaarachchi & Smith-Miles 2023 §5.2)")
    folds = _read_folds(directory / "cv.arff", table.index, notes)
    return ASlibScenario(name=name, measure=measure, maximize=maximize, cutoff=cutoff, raw=raw,
                         raw_performance=table, performance=performance, folds=folds, notes=notes)


def _scenario_files(directory: Path, aggregate: str, transform: str) -> tuple[Path, Path]:
    """The paths of ``description.txt`` and ``algorithm_runs.arff`` after checking the options and the folder."""
    if aggregate not in AGGREGATES:
        raise DataError(f"unknown aggregate {aggregate!r}; use one of {AGGREGATES}")
    if transform not in TRANSFORMS:
        raise DataError(f"unknown transform {transform!r}; use one of {TRANSFORMS}")
    if not directory.is_dir():
        raise DataError(f"{directory}: ASlib scenario directory not found; give a folder holding "
                        "description.txt, algorithm_runs.arff and optionally cv.arff")
    description_path = directory / "description.txt"
    runs_path = directory / "algorithm_runs.arff"
    for path in (description_path, runs_path):
        if not path.is_file():
            raise DataError(f"{directory.name}: ASlib scenario has no {path.name} (looked for {path}); "
                            "AIRT needs the algorithm runs and the description of the scenario — get the complete "
                            "scenario from coseal/aslib_data")
    return description_path, runs_path


def _chosen_measure(description: dict, raw: pd.DataFrame, measure: str | None, runs_path: Path,
                    description_path: Path) -> tuple[str, bool, bool]:
    """``(measure, maximize, is_runtime)``: the measure asked for (default: the description's first) and how the
    description says to read it (step 1 of :func:`load_aslib`)."""
    measures = [str(m) for m in _as_list(description.get("performance_measures"))]
    maximize_flags = _as_list(description.get("maximize"))
    types = [str(t) for t in _as_list(description.get("performance_type"))]
    measure_columns = [c for c in raw.columns if c not in _RUN_KEY_COLUMNS]
    if not measures:
        measures = measure_columns[:1]
    if measure is None:
        measure = measures[0] if measures else None
    if measure is None or measure not in raw.columns:
        raise DataError(f"{runs_path}: performance measure {measure!r} not found; available: {measure_columns}")
    position = measures.index(measure) if measure in measures else 0
    if not maximize_flags:
        raise DataError(f"{description_path}: no 'maximize' entry; say whether larger {measure} is better")
    maximize = _as_bool(maximize_flags[min(position, len(maximize_flags) - 1)], where=str(description_path))
    measure_type = types[min(position, len(types) - 1)] if types else ""
    is_runtime = (not maximize) and (measure_type == "runtime" or measure.lower() in {"runtime", "par10"})
    return measure, maximize, is_runtime


def _penalised_runs(raw: pd.DataFrame, measure: str, maximize: bool, is_runtime: bool, cutoff: float | None,
                    par_factor: float, name: str, notes: list[str]) -> tuple[pd.DataFrame, float, float | None]:
    """The runs with a ``value`` column where failed runs carry the penalty (step 2 of :func:`load_aslib`), the penalty
    and the cutoff (the largest successful runtime when the description gives none, noted)."""
    runs = raw.copy()
    runs["instance_id"] = runs["instance_id"].astype(str)
    runs["algorithm"] = runs["algorithm"].astype(str)
    runs["value"] = pd.to_numeric(runs[measure], errors="coerce")
    status = (runs["runstatus"].astype(str).str.strip().str.lower() if "runstatus" in runs.columns
              else pd.Series(OK_STATUS, index=runs.index))
    failed = (status != OK_STATUS) | runs["value"].isna()
    if is_runtime:
        if cutoff is None:
            cutoff = _observed_cutoff(runs.loc[~failed, "value"], measure, name, notes)
        failed |= runs["value"] > cutoff
        penalty = par_factor * cutoff
    else:
        valid = runs.loc[~failed, "value"]
        if valid.empty:
            raise DataError(f"{name}: no successful run with a numeric {measure}")
        penalty = float(valid.min() if maximize else valid.max())
    if failed.any():
        counts = status[failed].value_counts().to_dict()
        rule = f"PAR{par_factor:g} = {par_factor:g} x cutoff {cutoff:g}" if is_runtime else "the worst observed value"
        notes.append(f"{int(failed.sum())} run(s) not ok {counts} set to {rule} ({penalty:g})")
    runs.loc[failed, "value"] = penalty
    return runs, penalty, cutoff


def _observed_cutoff(observed: pd.Series, measure: str, name: str, notes: list[str]) -> float:
    """The largest successful runtime, the cutoff of a scenario whose description has none (noted)."""
    if observed.empty:
        raise DataError(f"{name}: no successful run and no algorithm_cutoff_time; cannot penalise failed runs")
    cutoff = float(observed.max())
    notes.append(f"no algorithm_cutoff_time: cutoff taken as the largest successful {measure} ({cutoff:g})")
    return cutoff


def _performance_table(runs: pd.DataFrame, aggregate: str, is_runtime: bool, penalty: float,
                       notes: list[str]) -> pd.DataFrame:
    """Instances x algorithms of the aggregated run values (steps 3-4 of :func:`load_aslib`)."""
    if "repetition" in runs.columns:
        n_rep = runs.groupby(["instance_id", "algorithm"]).size()
        if (n_rep > 1).any():
            notes.append(f"{int((n_rep > 1).sum())} (instance, algorithm) pair(s) have up to {int(n_rep.max())} "
                         f"repetitions: combined with the {aggregate}")
    table = runs.groupby(["instance_id", "algorithm"])["value"].agg(aggregate).unstack("algorithm")
    table = table.sort_index().sort_index(axis=1)
    missing = table.isna()
    if missing.any().any():
        n_missing = int(missing.to_numpy().sum())
        if is_runtime:
            table = table.fillna(penalty)
            notes.append(f"{n_missing} (instance, algorithm) pair(s) without a run counted as failed ({penalty:g})")
        else:
            dropped = int(missing.any(axis=1).sum())
            table = table[~missing.any(axis=1)]
            notes.append(f"{n_missing} (instance, algorithm) pair(s) without a run: {dropped} instance(s) dropped")
    table.index.name = "instance_id"
    table.columns.name = None
    return table

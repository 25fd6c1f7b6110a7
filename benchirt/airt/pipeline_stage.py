"""The AIRT stage in a run: on the run's accuracy matrix, or on an ASlib scenario (``airt.input``)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from benchirt.errors import DataError
from benchirt.stage_plan import StageContext, SuiteWork, Unavailable

if TYPE_CHECKING:
    import pandas as pd

    from benchirt.airt.analysis import AIRTResult
    from benchirt.airt.config import AIRTConfig
    from benchirt.responses.stage import ResponseResult

#: Keys of the ``airt`` config section that say where its input comes from (not ``AIRTConfig`` options).
INPUT_KEYS = ("input", "which")


def airt_from_accuracy(responses: Mapping[str, ResponseResult], config: AIRTConfig,
                       which: str = "test") -> AIRTResult:  # positional: the pipeline calls it with SuiteWork's args
    """AIRT (Kandanaarachchi & Smith-Miles 2023) on the datasets × real classifiers accuracy matrix of the run.

    With responses imported from stored runs the algorithms are OpenML flows (the notes say so). A classifier or flow
    absent from some datasets is fitted on its observed cells (:mod:`benchirt.airt.observed`; the notes say how many
    cells and which datasets or flows have too few results). The R package's estimator (``compat: airt-r``) needs a
    complete matrix: a classifier absent from some dataset is left out, or, when that would leave fewer than two, the
    largest complete block is kept (:func:`benchirt.responses.complete_block.largest_complete_block`); the notes name
    what was left out."""
    import dataclasses

    from benchirt.airt import fit_airt
    from benchirt.responses import accuracy_matrix

    results = [responses[name] for name in sorted(responses)]
    notes: list[str] = []
    if config.compat is None:
        perf = accuracy_matrix(results, role="real", which=which, keep_missing=True)
    else:
        perf, notes = _complete_matrix(results, which)
    input_note = _input_note(results, perf, which)
    notes = [input_note, *notes] if input_note else notes
    result = fit_airt(perf, config=config)
    return dataclasses.replace(result, notes=(*notes, *result.notes))


def _complete_matrix(results: Sequence[ResponseResult], which: str) -> tuple[pd.DataFrame, list[str]]:
    """The accuracy matrix without a missing cell, for the R package's estimator: the classifiers on every dataset, or
    the largest complete block when fewer than two are; with the notes saying what was left out."""
    import warnings

    from benchirt.responses import accuracy_matrix
    from benchirt.responses.complete_block import largest_complete_block

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        perf = accuracy_matrix(results, role="real", which=which)
    notes = [str(w.message) for w in caught if "accuracy_matrix" in str(w.message)]
    if perf.shape[1] < 2:
        block = largest_complete_block(accuracy_matrix(results, role="real", which=which, keep_missing=True))
        perf = block.table
        notes = [f"the R package's estimator (compat airt-r) needs every algorithm on every dataset and no "
                 f"classifier is on all {len(results)}: "
                 + (block.note(rows="datasets", columns="flows or classifiers") or "")]
    return perf, notes


def _input_note(results: Sequence[ResponseResult], perf: pd.DataFrame, which: str) -> str | None:
    """What AIRT's algorithms are when some responses were imported: OpenML flows, and any classifiers of benchirt's
    pool beside them (``provenance.source``); None for benchirt's own pool alone."""
    sources: dict[str, str] = {}
    for result in results:
        provenance = getattr(result, "provenance", None)
        if provenance is not None and "source" in provenance.columns:
            sources.update(zip(provenance["respondent"].astype(str), provenance["source"].astype(str)))
    if not sources:
        return None
    own = sum(1 for name in perf.columns if sources.get(str(name), "").startswith("benchirt"))
    beside = f" and {own} classifiers of benchirt's pool" if own else ""
    measure = "accuracy on the items" if which == "test" else "accuracy over all rows (OpenML's)"
    complete = bool(perf.notna().all().all())
    where = "on every dataset" if complete else "each on the datasets it has runs for"
    return (f"algorithms: the {perf.shape[1] - own} OpenML flows imported {where} (one stored run per flow "
            f"and dataset, chosen by the import's rule){beside}; performance: their {measure} on "
            f"{'each of' if complete else 'the'} {perf.shape[0]} datasets")


def airt_from_aslib(directory: str, config):
    """AIRT (Kandanaarachchi & Smith-Miles 2023 §5.2) on an ASlib scenario's performance, mapped to higher-is-better in [0, 1]."""
    from benchirt.airt import fit_airt
    from benchirt.airt.aslib import load_aslib

    return fit_airt(load_aslib(directory).performance, config=config)


def input_kind(section: Mapping) -> str:
    """``accuracy`` or ``aslib``: ``airt.input``, by default ``aslib`` when ``airt.aslib`` is given."""
    return section.get("input", "aslib" if section.get("aslib") else "accuracy")


def needs(config) -> tuple[str, ...]:
    """The stages AIRT reads under ``config``: the responses, unless its input is an ASlib scenario."""
    return () if input_kind(config.section("airt")) == "aslib" else ("respond",)


def plan(context: StageContext) -> SuiteWork | Unavailable | None:
    """AIRT keyed by its options and its input: the response keys, or the scenario folder's content."""
    config = context.config.stage_config("airt")
    section = context.config.section("airt")
    options = {**context.options, **{k: section[k] for k in INPUT_KEYS if k in section}}
    if input_kind(section) == "aslib":
        if not context.selected and not context.stored("airt"):
            return None
        directory = aslib_dir(context.config)
        return SuiteWork(options, {"aslib": directory_fingerprint(directory)}, airt_from_aslib,
                         lambda: (str(directory), config))
    responses = context.upstream("respond")
    if not responses:
        return Unavailable("no dataset has responses (run the respond stage)")
    which = section.get("which", "test")
    return SuiteWork(options, {"respond": responses}, airt_from_accuracy,
                     lambda: (context.load("respond", responses), config, which))


def aslib_dir(config) -> Path:
    """The scenario folder; a relative path is relative to the config file (as suite paths are)."""
    given = config.section("airt")["aslib"]
    directory = Path(config.base_dir) / given
    if not directory.is_dir():
        raise DataError(f"{config.source}: airt.aslib {given!r} is not a folder ({directory}); give the "
                        "ASlib scenario folder, relative to the config file or absolute")
    return directory


def directory_fingerprint(directory: Path) -> str:
    """sha256 over the names and bytes of a folder's files (an ASlib scenario's content key)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(directory).rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(directory)).encode())
        with path.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()

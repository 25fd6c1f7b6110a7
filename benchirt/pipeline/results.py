"""A run directory's results read back as the stages' own objects (:func:`load_run`).

Generic over :mod:`benchirt.pipeline.registry`: a per-dataset stage's results are ``{dataset: result}``, a suite-wide
stage's its one result or None. Imports no report (the report reads runs through it).

Usage (not run as a doctest)::

    from benchirt.pipeline.results import load_run
    results = load_run("runs/default")
    results.rate.ratings.head()          # results.rating, the former name, reads the same with a FutureWarning
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchirt.pipeline import registry
from benchirt.pipeline.manifest import Manifest
from benchirt.pipeline.store import ArtifactStore

@dataclass
class RunResults:
    """Every result of a run directory, read back as the stages' own objects.

    A stage's results are the attribute named as the stage (:data:`benchirt.pipeline.registry.STAGES`): ``respond``
    and ``irt`` are ``{dataset: result}``, ``rate``, ``subset`` and ``airt`` one result or None. The former names
    ``responses``, ``irts``, ``rating`` and ``subsets`` read the same with a :class:`FutureWarning`
    (:func:`benchirt.pipeline.registry.canonical`). Besides ``run_dir``, ``manifest`` and ``config``: ``per_dataset``
    (stage -> {dataset: result}), ``suite`` (stage -> result or None) and ``skipped`` (dataset -> {stage: reason} for
    every dataset some stage skipped or failed).
    """

    run_dir: Path
    manifest: Manifest
    config: Any
    per_dataset: dict = field(default_factory=dict)
    suite: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)

    def __getattr__(self, name: str):
        current = registry.canonical(name)
        if name.startswith("_") or current not in registry.BY_NAME:
            raise AttributeError(name)
        if current != name:
            warnings.warn(f"results.{name}: {registry.alias_note(name, 'results')}; use results.{current}",
                          FutureWarning, stacklevel=2)
        stage = registry.BY_NAME[current]
        if stage.scope == "dataset":
            return self.__dict__.get("per_dataset", {}).setdefault(stage.name, {})
        return self.__dict__.get("suite", {}).get(stage.name)


def load_run(run_dir: str | os.PathLike) -> RunResults:
    """Read every result of a run directory back (what the report and notebooks use), each as the run's config shows
    it (:meth:`benchirt.pipeline.registry.Stage.as_configured`: the IRT tables under the run's thresholds)."""
    from benchirt.pipeline.config import load_config

    store = ArtifactStore(run_dir)
    manifest = store.read_manifest()
    results = RunResults(Path(run_dir), manifest, load_config(manifest.config), skipped=manifest.problems())
    for stage in registry.REGISTRY:
        if stage.scope == "dataset":
            results.per_dataset[stage.name] = {name: stage.as_configured(store.load(stage.name, name, key), results.config)
                                               for name, key in manifest.result_keys(stage.name).items()
                                               if store.has(stage.name, name, key)}
        elif stage.scope == "suite":
            results.suite[stage.name] = _suite_result(store, manifest, stage.name, store.load)
    return results


def load_stage_result(run_dir: str | os.PathLike, stage: str):
    """The stored result of one suite-wide stage (``rate``, ``subset``, ``airt``: its name, else a KeyError) of a run, or None."""
    store = ArtifactStore(run_dir)
    return _suite_result(store, store.read_manifest(), registry.BY_NAME[stage].name, store.load)


def load_stage_table(run_dir: str | os.PathLike, stage: str, path: str):
    """One table of a suite-wide stage's stored result (e.g. ``("rate", "tournament/table")``), or None; reads the
    parquet file alone, importing no stage module."""
    store = ArtifactStore(run_dir)
    return _suite_result(store, store.read_manifest(), registry.BY_NAME[stage].name,
                         lambda stage, name, key: store.load_frame(stage, name, key, path))


def _suite_result(store: ArtifactStore, manifest: Manifest, stage: str, read):
    """``read(stage, "all", key)`` of the suite-wide result the manifest lists, when it is stored; else None."""
    key = manifest.suite_key(stage)
    return read(stage, "all", key) if key and store.has(stage, "all", key) else None

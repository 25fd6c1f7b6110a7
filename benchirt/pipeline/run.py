"""``run_pipeline``: respond → irt → rate → subset → airt → report over one run directory.

>>> from benchirt.pipeline import load_config, run_pipeline, load_run
>>> outcome = run_pipeline(load_config("configs/default.yaml"), out="runs/default")
>>> results = load_run(outcome.run_dir)          # every stored result, as the stages' objects
>>> results.rating.ratings.head()

Each stage can be left out (``stages``); a stage that runs reads its inputs from the run directory
when their stage was left out, so ``stages: [rate, report]`` re-rates stored True-Scores without
touching the classifiers. Datasets a stage cannot use are recorded as skipped with the reason and
the run goes on with the others.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from benchirt.errors import BenchirtError, DataError
from benchirt.pipeline import fingerprint
from benchirt.pipeline import stages as stage_functions
from benchirt.pipeline.config import PipelineConfig, to_plain
from benchirt.pipeline.executors import make_executor
from benchirt.pipeline.runner import DatasetInput, Run
from benchirt.pipeline.store import ArtifactStore

#: Stages whose input is the suite's datasets.
SUITE_STAGES = ("respond", "irt", "rate", "subset")


@dataclass
class RunOutcome:
    """What :func:`run_pipeline` returns: where the run is, its manifest and the exit status."""

    run_dir: Path
    manifest: dict
    exit_code: int


@dataclass
class RunResults:
    """Every result of a run directory, read back as the stages' own objects.

    Attributes
    ----------
    run_dir : Path
    manifest : dict
    config : PipelineConfig
    responses : dict of str to ResponseResult
    irts : dict of str to DatasetIRT
    rating : RatingResult or None
    subsets : SubsetEvaluation or None
    airt : AIRTResult or None
    skipped : dict of str to dict
        Dataset -> {stage: reason} for every dataset some stage skipped or failed.
    """

    run_dir: Path
    manifest: dict
    config: PipelineConfig
    responses: dict = field(default_factory=dict)
    irts: dict = field(default_factory=dict)
    rating: Any = None
    subsets: Any = None
    airt: Any = None
    skipped: dict = field(default_factory=dict)


def default_run_dir(config: PipelineConfig) -> Path:
    """``config.out`` or ``runs/<config file stem>`` (``runs/default`` for the packaged default)."""
    if config.out:
        return Path(config.out)
    stem = Path(config.source).stem if config.source.endswith((".yaml", ".yml")) else "default"
    return Path("runs") / stem


def run_pipeline(config: PipelineConfig, out: str | os.PathLike | None = None, *, force: bool = False,
                 show_progress: bool = True, client=None, retry_failed: bool = False,
                 explain: bool = False, strict: bool | None = None) -> RunOutcome:
    """Run the configured stages, reusing every stored result whose key matches.

    Parameters
    ----------
    config : PipelineConfig
        From :func:`benchirt.pipeline.load_config`.
    out : path, optional
        Run directory; default :func:`default_run_dir`.
    force : bool
        Recompute every selected stage even when its stored result matches.
    show_progress : bool
        Progress bars and skip/failure lines on stderr.
    client : distributed.Client, optional
        Run the per-dataset work on this Dask client (overrides ``execution``).
    retry_failed : bool
        Run again the (dataset, stage) results that failed in the previous run of ``out`` (by default
        they are recorded as failed again without running).
    explain : bool
        Compute and write nothing: the returned manifest says, per (dataset, stage) and for the report,
        whether the stored result would be reused or why it would be recomputed.
    strict : bool, optional
        A dataset on which a configured classifier could not be fitted fails instead of being kept
        without it; default ``config.execution.strict``.

    Returns
    -------
    RunOutcome
        ``exit_code`` is 0 when everything asked for is in the results, 1 when some dataset or stage
        failed after its retries or a configured classifier was left out of some dataset because its
        fit failed (skips, which are the data's fault, do not count).
    """
    run_dir = Path(out) if out is not None else default_run_dir(config)
    executor = make_executor(config.execution, client) if not explain else _NoExecutor()
    run = Run(ArtifactStore(run_dir), executor, config=to_plain(config.to_dict()), force=force, show_progress=show_progress,
              retry_failed=retry_failed, explain=explain,
              strict=config.execution.strict if strict is None else strict)
    try:
        run.start(config.stages)
        run.manifest["config_source"] = config.source
        run.manifest["rating_score"] = config.stage_config("rating").score
        if not explain:
            run.store.write_config(yaml.safe_dump(to_plain(config.to_dict()), sort_keys=False))
        _Pipeline(config, run, executor.parallel).execute()
        run.finish()
    except BenchirtError as exc:
        if run.manifest and not explain:  # refused: the previous run stays what the directory describes
            run.abandon(str(exc))
        raise
    except BaseException:
        if run.manifest:  # started: record why it stopped
            run.finish("interrupted")
        raise
    finally:
        executor.close()
    incomplete = any(report.failed or report.left_out for report in run.stage_reports.values())
    return RunOutcome(run_dir, run.manifest, 1 if incomplete else 0)


class _NoExecutor:
    """The executor of ``explain=True``: nothing is computed, so no workers are started."""

    parallel = False

    def describe(self) -> str:
        return "none (explain)"

    def close(self) -> None:
        return None


class _Pipeline:
    """The wiring of one run: keys, inputs and the stage calls, in order."""

    def __init__(self, config: PipelineConfig, run: Run, outer_parallel: bool) -> None:
        self.config = config
        self.run = run
        self.outer_parallel = outer_parallel
        self.selected = set(config.stages)
        self.options = {name: stage_options(config.stage_config(name)) for name in config.stage_configs}
        self.options["airt"].update({k: config.section("airt")[k] for k in ("input", "which") if k in config.section("airt")})

    def execute(self) -> None:
        """Compute the selected stages; adopt the stored results of the others that match this config.

        Stages left out of this run still appear in the manifest (status ``stored``) when the run
        directory holds their result for exactly these options and inputs, so ``benchirt report`` and
        ``--stages report`` show every matching result, and never a stale one.
        """
        stored_suite = (self.run.store.artifacts / "respond").is_dir()
        needs_suite = bool(self.selected & set(SUITE_STAGES)) or (
            "airt" in self.selected and self._airt_input() == "accuracy") or ("report" in self.selected and stored_suite)
        if needs_suite and self._imports_runs():
            respond_keys = self._import_runs()
        else:
            specs = resolve_specs(self.config) if needs_suite else []
            respond_keys = self._respond(specs) if specs else {}
        irt_keys = self._irt(respond_keys) if respond_keys else {}
        self._rate(respond_keys, irt_keys)
        self._subset(respond_keys, irt_keys)
        self._airt(respond_keys)
        if "report" in self.selected:
            self._report()

    # -- per dataset -----------------------------------------------------------------------------
    def _respond(self, specs) -> dict[str, str]:
        config = self.config.stage_config("responses")
        if self.outer_parallel:
            config = replace(config, n_jobs=1)  # the datasets are already spread over the cores
        inner = self.run.show_progress and not self.outer_parallel  # a bar per (classifier, fit) when fits run here
        # in worker processes the fits are counted in files the driver shows beside the stage bar
        folder = self.run.progress_folder() if self.run.show_progress and self.outer_parallel else None
        items = [DatasetInput(spec.name, {"dataset": spec.fingerprint()},
                              lambda spec=spec: (spec, config, inner, str(folder / f"{spec.name}.json") if folder else None))
                 for spec in specs]
        if "respond" not in self.selected:
            return self.run.lookup("respond", self.options["responses"], items)
        split = None
        if self.outer_parallel and self.config.execution.tasks == "fits":
            from benchirt.pipeline.fits import response_fits as split
        return self.run.per_dataset("respond", self.options["responses"], items, stage_functions.respond_dataset,
                                    preflight=self._preflight(specs, config), progress=folder, split=split)

    def _imports_runs(self) -> bool:
        return type(self.config.stage_config("responses")).__name__ == "ImportConfig"

    def _import_runs(self) -> dict[str, str]:
        """Responses imported from stored runs (``responses: {source: openml-runs, …}``, :mod:`benchirt.runs`)
        instead of trained: read and selected here, stored as the respond stage's results."""
        from benchirt.runs.responses import imported_results, source_fingerprint

        config = self.config.stage_config("responses")
        fingerprint = source_fingerprint(config, self.config.base_dir)
        results = imported_results(config, self.config.base_dir)
        items = [DatasetInput(name, {"imported": fingerprint}, lambda result=result: (result,))
                 for name, result in sorted(results.items())]
        if "respond" not in self.selected:
            return self.run.lookup("respond", self.options["responses"], items)
        return self.run.per_dataset("respond", self.options["responses"], items, stage_functions.imported_dataset)

    def _preflight(self, specs, config):
        """``name -> Preflight`` of :mod:`benchirt.pipeline.preflight` under this run's memory limit."""
        from benchirt.pipeline.estimate import load_cost_model
        from benchirt.pipeline.preflight import checker, memory_limit

        limit, source = memory_limit(self.config.execution, getattr(self.run.executor, "workers", 1))
        return checker(specs, config, limit, load_cost_model(), source)

    def _irt(self, respond_keys: dict[str, str]) -> dict[str, str]:
        config = self.config.stage_config("irt")
        store = self.run.store
        items = [DatasetInput(name, {"respond": key}, lambda name=name, key=key: (store.load("respond", name, key), config))
                 for name, key in sorted(respond_keys.items())]
        return self._per_dataset("irt", self.options["irt"], items, stage_functions.irt_dataset)

    def _per_dataset(self, stage: str, options: dict, items, fn) -> dict[str, str]:
        if stage in self.selected:
            return self.run.per_dataset(stage, options, items, fn)
        return self.run.lookup(stage, options, items)

    # -- over the suite --------------------------------------------------------------------------
    def _rate(self, respond_keys, irt_keys) -> None:
        if not irt_keys:
            return self._cannot("rate", "no dataset has an IRT result (run the respond and irt stages)")
        used = _subset_of(respond_keys, irt_keys)
        self._whole("rate", self.options["rating"], {"irt": irt_keys, "respond": used}, stage_functions.rate_suite,
                    lambda: (self._load("irt", irt_keys), self._load("respond", used), self.config.stage_config("rating")))

    def _subset(self, respond_keys, irt_keys) -> None:
        if len(irt_keys) < 2:
            return self._cannot("subset", f"subsets need at least 2 datasets with IRT results, have {len(irt_keys)}")
        options = {"subsets": self.options["subsets"], "rating": self.options["rating"]}
        used = _subset_of(respond_keys, irt_keys)
        self._whole("subset", options, {"irt": irt_keys, "respond": used}, stage_functions.subset_suite,
                    lambda: (self._load("irt", irt_keys), self._load("respond", used),
                             self.config.stage_config("subsets"), self.config.stage_config("rating")))

    def _airt(self, respond_keys) -> None:
        config = self.config.stage_config("airt")
        if self._airt_input() == "aslib":
            if "airt" not in self.selected and not (self.run.store.artifacts / "airt").is_dir():
                return None
            directory = self._aslib_dir()
            self._whole("airt", self.options["airt"], {"aslib": directory_fingerprint(directory)},
                        stage_functions.airt_from_aslib, lambda: (str(directory), config))
            return None
        if not respond_keys:
            return self._cannot("airt", "no dataset has responses (run the respond stage)")
        which = self.config.section("airt").get("which", "test")
        self._whole("airt", self.options["airt"], {"respond": respond_keys}, stage_functions.airt_from_accuracy,
                    lambda: (self._load("respond", respond_keys), config, which))
        return None

    def _whole(self, stage: str, options: dict, inputs, fn, args_builder) -> None:
        if stage in self.selected:
            self.run.whole(stage, options, inputs, fn, args_builder)
        else:
            self.run.adopt(stage, options, inputs)

    def _cannot(self, stage: str, reason: str) -> None:
        if stage in self.selected:
            self.run.skip_stage(stage, reason)

    def _report(self) -> None:
        def write() -> None:
            from benchirt.report import build_report

            self.run.store.write_manifest(self.run.manifest)  # the report reads this run's manifest
            build_report(self.run.store.root, self.config.stage_config("report"))

        self.run.document("report", report_parts(self.run.manifest, self.options["report"]), write)

    # -- helpers ---------------------------------------------------------------------------------
    def _load(self, stage: str, keys: dict[str, str]) -> dict:
        return {name: self.run.store.load(stage, name, key) for name, key in sorted(keys.items())}

    def _airt_input(self) -> str:
        section = self.config.section("airt")
        return section.get("input", "aslib" if section.get("aslib") else "accuracy")

    def _aslib_dir(self) -> Path:
        """The scenario folder; a relative path is relative to the config file (as suite paths are)."""
        given = self.config.section("airt")["aslib"]
        directory = Path(self.config.base_dir) / given
        if not directory.is_dir():
            raise DataError(f"{self.config.source}: airt.aslib {given!r} is not a folder ({directory}); give the "
                            "ASlib scenario folder, relative to the config file or absolute")
        return directory


def stage_options(stage_config) -> dict:
    """The canonical option dict of a stage config (its ``to_dict`` when it has one): the key's input."""
    if hasattr(stage_config, "to_dict"):
        return to_plain(stage_config.to_dict())
    return to_plain(stage_config)


def report_parts(manifest: dict, options: dict) -> dict:
    """What the report shows, as digests: the results (every recorded key, status and reason), its options, the code.

    A result counts the same whether this run computed, reused or adopted it, and timings are left
    out, so an unchanged rerun finds the report it wrote before and reuses it (a reused report shows
    the run that built it).
    """
    def entry(e: dict) -> list:
        status = "ok" if e.get("status") in ("computed", "reused", "stored") else e.get("status")
        return [status, e.get("key"), e.get("reason")]

    results = {
        "datasets": {name: {stage: entry(e) for stage, e in stages.items()} for name, stages in manifest["datasets"].items()},
        "artifacts": {stage: entry(e) for stage, e in manifest["artifacts"].items()},
        "stages": {name: [r["status"], r["note"], r["skipped"], r["failed"]] for name, r in manifest["stages"].items()
                   if name != "report"},
        "config_source": manifest.get("config_source"),
        "versions": manifest.get("versions"),
    }
    code = fingerprint.provenance("report")
    return {"results": fingerprint.digest(results), "options": fingerprint.digest(options), "code": fingerprint.digest(code)}


def resolve_specs(config: PipelineConfig) -> list:
    """The suite's :class:`~benchirt.data.DatasetSpec` list (relative paths: beside the config file)."""
    from benchirt.data import resolve_suite

    specs = resolve_suite(config.suite, base=config.base_dir)
    if not specs:
        raise DataError(f"{config.source}: suite {config.suite!r} has no dataset")
    return specs


def directory_fingerprint(directory: Path) -> str:
    """sha256 over the names and bytes of a folder's files (an ASlib scenario's content key)."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in Path(directory).rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(directory)).encode())
        with path.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def load_run(run_dir: str | os.PathLike) -> RunResults:
    """Read every result of a run directory back (what the report and notebooks use)."""
    from benchirt.pipeline.config import load_config

    store = ArtifactStore(run_dir)
    manifest = store.read_manifest()
    config = load_config(manifest["config"])
    results = RunResults(Path(run_dir), manifest, config)
    for name, stages in sorted(manifest.get("datasets", {}).items()):
        for stage, entry in stages.items():
            if entry["status"] in ("computed", "reused", "stored") and store.has(stage, name, entry["key"]):
                target = results.responses if stage == "respond" else results.irts
                target[name] = store.load(stage, name, entry["key"])
            elif entry["status"] in ("skipped", "failed"):
                results.skipped.setdefault(name, {})[stage] = f"{entry['status']}: {entry.get('reason')}"
    for stage, attribute in (("rate", "rating"), ("subset", "subsets"), ("airt", "airt")):
        setattr(results, attribute, load_stage_result(run_dir, stage))
    return results


def load_stage_result(run_dir: str | os.PathLike, stage: str):
    """The stored result of one suite-wide stage (``rate``, ``subset``, ``airt``) of a run, or None."""
    store = ArtifactStore(run_dir)
    entry = store.read_manifest().get("artifacts", {}).get(stage)
    if entry and entry["status"] in ("computed", "reused", "stored") and store.has(stage, "all", entry["key"]):
        return store.load(stage, "all", entry["key"])
    return None


def load_stage_table(run_dir: str | os.PathLike, stage: str, path: str):
    """One table of a suite-wide stage's stored result (e.g. ``("rate", "tournament/table")``), or None.

    Reads the parquet file alone — no stage module is imported (the end-of-run summary stays light).
    """
    store = ArtifactStore(run_dir)
    entry = store.read_manifest().get("artifacts", {}).get(stage)
    if entry and entry["status"] in ("computed", "reused", "stored") and store.has(stage, "all", entry["key"]):
        return store.load_frame(stage, "all", entry["key"], path)
    return None


def _subset_of(keys: dict[str, str], names) -> dict[str, str]:
    return {name: keys[name] for name in names if name in keys}

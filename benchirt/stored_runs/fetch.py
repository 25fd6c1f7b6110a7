"""Fetch evaluated runs from OpenML into benchirt's own cache, in OpenML's cache layout.

openml-python lists the runs (``openml.evaluations.list_evaluations("predictive_accuracy", …)``) one page of at most
:data:`PAGE_ROWS` rows at a time (the REST API serves no more per page than that). The files are downloaded here with
``requests`` and written where :mod:`benchirt.stored_runs.folder` reads them::

    <cache>/runs/<run_id>/description.xml, predictions.arff   (GET run/<id>, data/download/<file_id>)
    <cache>/tasks/<task_id>/task.xml, datasplits.arff         (GET task/<id>, the task's split URL)
    <cache>/datasets/<did>/description.xml [, dataset.arff]   (GET data/<did>; the ARFF only when a
                                                               predictions file has no 'correct' column)
    <cache>/listings/<task_id>-<filters>.json                 the filtered listing

never through openml-python's run or split objects (``OpenMLRun.from_filesystem`` and the split pickle load
pickles). A cached file is never asked for again, so a rerun makes no request. Server errors (HTTP 5xx) and timeouts
are retried with exponential back-off (:data:`RETRIES` tries); a run that still fails is recorded in
``<cache>/failures.json`` and :attr:`FetchResult.failures` while the others finish.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd
import requests

from benchirt.errors import DataError, OpenMLUnavailableError
from benchirt.io import atomic_open, atomic_write_json
from benchirt.stored_runs.descriptions import read_dataset_description, read_run_description, read_task_description

PAGE_ROWS = 1_000
RETRIES = 4
BACKOFF_SECONDS = 0.5
TIMEOUT_SECONDS = 60


@dataclass(frozen=True)
class FetchOptions:
    """Which runs of a task to fetch: only those of ``flows`` / ``uploaders`` ids (empty: all), with ``tag``, of the
    ``top_flows`` flows whose best run is most accurate, and at most ``max_runs`` per task, most accurate first."""

    flows: tuple[int, ...] = ()
    uploaders: tuple[int, ...] = ()
    tag: str | None = None
    top_flows: int | None = None
    max_runs: int | None = None

    def key(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]


@dataclass
class FetchResult:
    """Where the runs are and which could not be fetched (run id → one line why)."""

    folder: Path
    run_ids: list[int] = field(default_factory=list)
    requests: int = 0
    failures: dict[str, str] = field(default_factory=dict)


def default_cache() -> Path:
    """``$BENCHIRT_RUNS_CACHE``, else ``~/.cache/benchirt/openml-runs``."""
    return Path(os.environ.get("BENCHIRT_RUNS_CACHE", Path.home() / ".cache" / "benchirt" / "openml-runs"))


class _Client:
    """GET with retries and back-off on 5xx and timeouts; counts the requests it makes."""

    def __init__(self) -> None:
        import openml

        self.api = openml.config.server.rstrip("/")
        self.base = openml.config.get_server_base_url().rstrip("/")
        self.session = requests.Session()
        self.requests = 0

    def get(self, url: str) -> bytes:
        for attempt in range(RETRIES):
            self.requests += 1
            try:
                response = self.session.get(url, timeout=TIMEOUT_SECONDS)
            except (requests.Timeout, requests.ConnectionError) as exc:
                problem = type(exc).__name__
            else:
                if response.status_code == 200:
                    return response.content
                if response.status_code < 500:
                    raise DataError(f"OpenML answered {response.status_code} for {url}")
                problem = f"HTTP {response.status_code}"
            if attempt < RETRIES - 1:
                time.sleep(BACKOFF_SECONDS * 2 ** attempt)
        raise OpenMLUnavailableError(f"{url}: {problem} after {RETRIES} tries")

    def save(self, url: str, path: Path) -> Path:
        if not path.is_file():
            content = self.get(url)
            with atomic_open(path, mode="wb") as handle:
                handle.write(content)
        return path


def list_task_runs(task_id: int, options: FetchOptions) -> pd.DataFrame:
    """The evaluated runs of one task with their accuracy, through openml-python, page by page."""
    import openml
    from openml.exceptions import OpenMLServerNoResult

    pages, offset = [], 0
    while True:
        try:
            page = _retried(lambda: openml.evaluations.list_evaluations(
                "predictive_accuracy", offset=offset, size=PAGE_ROWS, tasks=[task_id],
                flows=list(options.flows) or None, uploaders=list(options.uploaders) or None, tag=options.tag,
                output_format="dataframe"))
        except OpenMLServerNoResult:
            page = pd.DataFrame()
        pages.append(page)
        if len(page) < PAGE_ROWS:
            break
        offset += PAGE_ROWS
    listing = pd.concat(pages, ignore_index=True) if any(len(p) for p in pages) else pd.DataFrame(
        columns=["run_id", "task_id", "setup_id", "flow_id", "flow_name", "data_id", "uploader", "value"])
    listing = listing.sort_values(["value", "run_id"], ascending=[False, True], ignore_index=True)
    if options.top_flows:
        best = listing.groupby("flow_id")["value"].max().reset_index()
        best = best.sort_values(["value", "flow_id"], ascending=[False, True])  # ties: the older flow
        listing = listing[listing["flow_id"].isin(best["flow_id"].head(options.top_flows))]
    if options.max_runs:
        listing = listing.head(options.max_runs)
    return listing.reset_index(drop=True)


def _retried(call):
    """``call()``, tried again with back-off on a transient failure: no connection, or a server error that is
    not one of OpenML's own answers (openml-python raises OpenMLServerError for a 5xx page it cannot parse)."""
    from openml.exceptions import OpenMLServerError, OpenMLServerException

    for attempt in range(RETRIES):
        try:
            return call()
        except OpenMLServerException:
            raise
        except (OpenMLServerError, requests.RequestException):
            if attempt == RETRIES - 1:
                raise
            time.sleep(BACKOFF_SECONDS * 2 ** attempt)


def task_ids(source: str, cache: Path) -> list[int]:
    """Task ids of SOURCE: ``3``, ``3,6,11`` or a suite (``OpenML-CC18``, ``suite:99``; its listing cached)."""
    text = source.strip()
    if text.replace(",", "").replace(" ", "").isdigit():
        return [int(part) for part in text.split(",") if part.strip()]
    from benchirt.data.openml_source import openml_errors, suite_id

    sid = suite_id(text.split(":", 1)[1] if text.lower().startswith("suite:") else text)
    cached = cache / "suites" / f"{sid}.json"
    if cached.is_file():
        return json.loads(cached.read_text())["tasks"]
    import openml

    with openml_errors(f"suite {text!r}"):
        tasks = [int(t) for t in (openml.study.get_suite(sid).tasks or [])]
    atomic_write_json(cached, {"suite": sid, "tasks": tasks})
    return tasks


def _cached_listing(cache: Path, task_id: int, options: FetchOptions) -> pd.DataFrame:
    path = cache / "listings" / f"{task_id}-{options.key()}.json"
    if path.is_file():
        return pd.read_json(path, orient="records")
    listing = list_task_runs(task_id, options)
    atomic_write_json(path, json.loads(listing.to_json(orient="records")))
    return listing


def fetch_task(task_id: int, options: FetchOptions, cache: Path, client: _Client, result: FetchResult) -> None:
    """Fetch the task's description and split, its dataset's description, and every listed run."""
    from benchirt.data.openml_source import openml_errors

    with openml_errors(f"the runs of task {task_id}"):
        listing = _cached_listing(cache, task_id, options)
    task_dir = cache / "tasks" / str(task_id)
    task = read_task_description(client.save(f"{client.api}/task/{task_id}", task_dir / "task.xml"))
    if task.splits_url:
        client.save(task.splits_url, task_dir / "datasplits.arff")
    if task.dataset_id is not None:
        client.save(f"{client.api}/data/{task.dataset_id}", cache / "datasets" / str(task.dataset_id) / "description.xml")
    needs_dataset = False
    for run_id in listing["run_id"].astype(int):
        folder = cache / "runs" / str(run_id)
        try:
            description = read_run_description(client.save(f"{client.api}/run/{run_id}", folder / "description.xml"))
            if description.predictions_file_id is None:
                raise DataError("its description names no predictions file")
            predictions = client.save(f"{client.base}/data/download/{description.predictions_file_id}",
                                      folder / "predictions.arff")
        except (DataError, OSError) as exc:
            result.failures[str(run_id)] = f"run {run_id} (task {task_id}): {exc}"
            continue
        result.run_ids.append(int(run_id))
        needs_dataset = needs_dataset or not _has_correct_column(predictions)
    if needs_dataset and task.dataset_id is not None:
        data_dir = cache / "datasets" / str(task.dataset_id)
        file_id = _dataset_file_id(data_dir / "description.xml")
        client.save(f"{client.base}/data/download/{file_id}", data_dir / "dataset.arff")


def _has_correct_column(path: Path) -> bool:
    """The predictions file's header declares a ``correct`` attribute (any case); False for an unreadable header."""
    from benchirt.data.arff import read_header

    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            attributes = read_header(handle, path).attributes
    except DataError:
        return False  # the dataset is fetched too; reading the predictions says what is wrong
    return any(attribute.name.lower() == "correct" for attribute in attributes)


def _dataset_file_id(path: Path) -> int:
    import xml.etree.ElementTree as ET

    node = ET.parse(path).getroot().find("oml:file_id", {"oml": "http://openml.org/openml"})
    text = "" if node is None else (node.text or "").strip()
    if not text.isdigit():
        raise DataError(f"{path}: names no data file id (needed: a predictions file has no 'correct' column)")
    read_dataset_description(path)
    return int(text)


def fetch_source(source: str, *, options: FetchOptions | None = None, cache: str | Path | None = None) -> FetchResult:
    """Fetch every task of SOURCE into ``cache`` (default :func:`default_cache`); failures recorded, not fatal."""
    options = options or FetchOptions()
    folder = Path(cache) if cache else default_cache()
    client = _Client()
    result = FetchResult(folder=folder)
    for task_id in task_ids(source, folder):
        fetch_task(task_id, options, folder, client, result)
    result.requests = client.requests
    failures_path = folder / "failures.json"
    previous = json.loads(failures_path.read_text()) if failures_path.is_file() else {}
    previous = {k: v for k, v in previous.items() if not (folder / "runs" / k / "predictions.arff").is_file()}
    previous.update(result.failures)
    atomic_write_json(failures_path, previous)
    for line in result.failures.values():
        print(f"  not fetched: {line}")
    return result

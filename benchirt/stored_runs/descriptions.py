"""OpenML's XML descriptions of runs, tasks and datasets, read with the standard library.

Only the fields an import needs are read, by tag name in OpenML's namespace; a missing field is None. The files are
the server's (``GET run/<id>``, ``task/<id>``, ``data/<id>``) as openml-python caches them. Bounded: a description
over :data:`DESCRIPTION_BYTES` is refused by its size before parsing, and a field over :data:`FIELD_CHARS` characters
before it is copied anywhere (a flow name goes into several CSVs and the report). The limit leaves the server's
descriptions ample room while bounding the parser's memory (``python benchmarks/junk_input.py --part names``;
docs/benchmarks.md).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from benchirt.errors import DataError
from benchirt.stored_runs.inputs import check_size
from benchirt.safe_text import printable
from benchirt.safe_text import MAX_NAME_LENGTH

T = TypeVar("T")
NS = {"oml": "http://openml.org/openml"}
#: Largest description file read (bytes).
DESCRIPTION_BYTES = 4 * 2**20
#: Longest field read from a description (characters): a flow, dataset or uploader name, a target, a URL —
#: the longest name read from any file (:data:`benchirt.sniff.MAX_NAME_LENGTH`).
FIELD_CHARS = MAX_NAME_LENGTH


class _FieldTooLong(DataError):
    """A field over :data:`FIELD_CHARS`; :func:`_described` adds the file."""


def _parse(path: Path, what: str) -> ET.Element:
    """The XML root of ``path``, size-capped (:func:`benchirt.stored_runs.inputs.check_size`); expat refuses entity
    expansion beyond its amplification limit and never fetches an external entity (XXE): both are a
    ParseError here, as is any other damage."""
    try:
        check_size(path, f"XML {what}")
        _check_description_size(path, what)
        return ET.parse(path).getroot()
    except FileNotFoundError:
        raise DataError(f"{path}: no such file (the {what})") from None
    except (ET.ParseError, ValueError) as exc:
        raise DataError(f"{path}: not a readable OpenML XML {what} ({printable(exc)}); download it again") from None
    except OSError as exc:
        raise DataError(f"{path}: the {what} cannot be read ({exc.strerror or type(exc).__name__})") from None


def _check_description_size(path: Path, what: str) -> None:
    """DataError when ``path`` is larger than any OpenML description (:data:`DESCRIPTION_BYTES`)."""
    size = path.stat().st_size
    if size > DESCRIPTION_BYTES:
        raise DataError(f"{path}: {size / 2**20:,.1f} MiB is over the {DESCRIPTION_BYTES // 2**20} MiB limit of an "
                        f"OpenML {what} (the server's are a few KiB); it is not one: download it again")


def _described(path: str | Path, what: str, build: Callable[[ET.Element], T]) -> T:
    """``build`` applied to the parsed ``path``; a field over :data:`FIELD_CHARS` is a DataError naming the file."""
    path = Path(path)
    root = _parse(path, what)
    try:
        return build(root)
    except _FieldTooLong as exc:
        raise DataError(f"{path}: {exc}; it is not an OpenML {what}: download it again") from None


def _text(node: ET.Element, path: str) -> str | None:
    found = node.find(path, NS)
    if found is None or found.text is None or not found.text.strip():
        return None
    if len(found.text) > FIELD_CHARS:
        raise _FieldTooLong(f"{path} has {len(found.text):,} characters, over the {FIELD_CHARS:,} a field may have")
    return found.text.strip()


def _int(node: ET.Element, path: str) -> int | None:
    text = _text(node, path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


@dataclass(frozen=True)
class RunDescription:
    """What ``runs/<run_id>/description.xml`` says about a run (None: not stated)."""

    run_id: int | None
    task_id: int | None
    flow_id: int | None
    flow_name: str | None
    setup_id: int | None
    uploader: int | None
    uploader_name: str | None
    dataset_id: int | None
    dataset_name: str | None
    predictions_file_id: int | None
    predictive_accuracy: float | None


def read_run_description(path: str | Path) -> RunDescription:
    """Parse a run description (``oml:run``); the accuracy is the run-level ``predictive_accuracy``."""
    return _described(path, "run description", _run_description)


def _run_description(root: ET.Element) -> RunDescription:
    file_id = None
    for node in root.findall("oml:output_data/oml:file", NS):
        if _text(node, "oml:name") == "predictions":
            file_id = _int(node, "oml:file_id")
    accuracy = None
    for node in root.findall("oml:output_data/oml:evaluation", NS):
        if _text(node, "oml:name") == "predictive_accuracy" and "fold" not in node.attrib:
            try:
                accuracy = float(_text(node, "oml:value") or "nan")
            except ValueError:
                accuracy = None
    return RunDescription(
        run_id=_int(root, "oml:run_id"), task_id=_int(root, "oml:task_id"), flow_id=_int(root, "oml:flow_id"),
        flow_name=_text(root, "oml:flow_name"), setup_id=_int(root, "oml:setup_id"),
        uploader=_int(root, "oml:uploader"), uploader_name=_text(root, "oml:uploader_name"),
        dataset_id=_int(root, "oml:input_data/oml:dataset/oml:did"),
        dataset_name=_text(root, "oml:input_data/oml:dataset/oml:name"),
        predictions_file_id=file_id, predictive_accuracy=accuracy,
    )


@dataclass(frozen=True)
class TaskDescription:
    """What ``tasks/<task_id>/task.xml`` says: dataset, target, estimation procedure, split URL."""

    task_id: int | None
    dataset_id: int | None
    target: str | None
    procedure: str | None
    repeats: int | None
    folds: int | None
    splits_url: str | None


def read_task_description(path: str | Path) -> TaskDescription:
    return _described(path, "task description", _task_description)


def _task_description(root: ET.Element) -> TaskDescription:
    procedure = root.find("oml:input/oml:estimation_procedure", NS)
    params = {}
    if procedure is not None:
        for node in procedure.findall("oml:parameter", NS):
            params[node.get("name")] = (node.text or "").strip()
    def number(key: str) -> int | None:
        return int(params[key]) if params.get(key, "").isdigit() else None
    return TaskDescription(
        task_id=_int(root, "oml:task_id"), dataset_id=_int(root, "oml:input/oml:data_set/oml:data_set_id"),
        target=_text(root, "oml:input/oml:data_set/oml:target_feature"),
        procedure=_text(procedure, "oml:type") if procedure is not None else None,
        repeats=number("number_repeats"), folds=number("number_folds"),
        splits_url=_text(procedure, "oml:data_splits_url") if procedure is not None else None,
    )


@dataclass(frozen=True)
class DatasetDescription:
    """What ``datasets/<did>/description.xml`` says: name, version, default target."""

    dataset_id: int | None
    name: str | None
    version: int | None
    default_target: str | None


def read_dataset_description(path: str | Path) -> DatasetDescription:
    return _described(path, "dataset description", _dataset_description)


def _dataset_description(root: ET.Element) -> DatasetDescription:
    return DatasetDescription(dataset_id=_int(root, "oml:id"), name=_text(root, "oml:name"),
                              version=_int(root, "oml:version"),
                              default_target=_text(root, "oml:default_target_attribute"))

"""Reading, checking and ordering the scores the rating stage consumes.

The rating stage works on a *long* table, one row per (dataset, classifier), columns ``dataset, classifier, score`` (the
``true_score_table`` of :mod:`benchirt.irt`). This module turns user files into it, rejects what cannot be rated (NaN,
duplicates, text) naming the dataset and classifier, and resolves the order of the rating periods (Cardoso et al. 2021
§4.7: one period per dataset).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from benchirt.errors import ConfigError, DataError
from benchirt.safe_text import name_problem, printable
from benchirt.sniff import check_field_sizes, check_names, check_text_table

#: File of a decodIRT dataset folder that holds each score.
DECODIRT_SCORE_FILES = {
    "true_score": "true_scores.csv",
    "score": "true_scores.csv",
    "test_accuracy": "test_accuracy.csv",
    "accuracy": "test_accuracy.csv",
    "cv_accuracy": "cv_accuracy.csv",
}

SCORE_COLUMNS = ("dataset", "classifier", "score")


def read_scores(path: str | os.PathLike, *, score: str | None = None) -> pd.DataFrame:
    """Read scores from a decodIRT-style folder tree or a long CSV, as a checked ``dataset, classifier, score`` table
    (:func:`validate_scores`), rows in the order read, folders in sorted order.

    ``path``: a directory with one sub-folder per dataset holding ``true_scores.csv`` (``Clf,Score``; also decodIRT's
    ``test_accuracy.csv``/``cv_accuracy.csv`` with ``Metodo,Acuracia``), or a CSV with columns ``dataset, classifier``
    and a score column. ``score``: for folders a key of :data:`DECODIRT_SCORE_FILES` (default ``true_score``), for a CSV
    the score column (default ``score``); a name the input lacks is refused with the valid ones (:func:`score_column`).
    """
    path = Path(path)
    if path.is_dir():
        return _read_score_folders(path, score or "true_score")
    if not path.is_file():
        raise DataError(f"scores not found: {path} is neither a directory of dataset folders nor a CSV file")
    check_text_table(path, what="scores CSV")
    check_field_sizes(path, what="scores CSV")
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read scores CSV {path}: {exc}") from exc
    missing = [c for c in ("dataset", "classifier") if c not in frame.columns]
    if missing:
        raise DataError(
            f"{path}: a long scores CSV needs the columns dataset, classifier and a score column; "
            f"missing {', '.join(missing)} (found: {', '.join(map(str, frame.columns))})"
        )
    for name in ("dataset", "classifier"):
        check_names(frame[name], f"{name} name", path)
    column = score_column(frame, score=score or "score", where=str(path))
    return validate_scores(frame[["dataset", "classifier", column]], column=column, where=str(path))


def _read_score_folders(root: Path, score: str) -> pd.DataFrame:
    if score not in DECODIRT_SCORE_FILES:
        raise ConfigError(
            f"score {score!r} has no file in decodIRT dataset folders; use one of "
            f"{', '.join(DECODIRT_SCORE_FILES)}"
        )
    file_name = DECODIRT_SCORE_FILES[score]
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise DataError(f"{root} holds no dataset folders (expected <dataset>/{file_name})")
    lacking = [p.name for p in folders if not (p / file_name).is_file()]
    if lacking:
        raise DataError(
            f"{len(lacking)} dataset folder(s) in {root} lack {file_name}: {', '.join(lacking[:5])}"
            f"{' ...' if len(lacking) > 5 else ''}; remove them or provide the file"
        )
    parts = []
    for folder in folders:
        file = folder / file_name
        check_text_table(file, what="scores CSV")
        check_field_sizes(file, what="scores CSV")
        try:
            table = pd.read_csv(file)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise DataError(f"cannot read {file}: {exc}") from exc
        if table.shape[1] != 2:
            raise DataError(
                f"{file} must have two columns (classifier, score), found {table.shape[1]}: "
                f"{', '.join(map(str, table.columns))}"
            )
        check_names(table.iloc[:, 0], "classifier name", file)
        parts.append(pd.DataFrame({"dataset": folder.name, "classifier": table.iloc[:, 0], "score": table.iloc[:, 1]}))
    return validate_scores(pd.concat(parts, ignore_index=True), column="score", where=str(root))


def score_column(frame: pd.DataFrame, *, score: str = "true_score", where: str = "scores") -> str:
    """The column of ``frame`` that holds the score named ``score``: ``score`` itself when the frame has that column;
    ``"score"`` when it is the frame's only value column (the long form holds the one score its caller names). No
    silent fallback to another column.

    Raises
    ------
    DataError
        Naming ``score`` and listing the score columns the frame has.
    """
    if score in frame.columns:
        return score
    values = [str(c) for c in frame.columns if c == "score" or (
        c not in ("dataset", "classifier") and pd.api.types.is_numeric_dtype(frame[c]))]
    if values == ["score"]:
        return "score"
    raise DataError(
        f"{where}: no score column {score!r}; the score columns here are {', '.join(values) or 'none'}"
    )


def _check_classifier_names(classifiers: pd.Series, where: str) -> None:
    """Refuse a classifier name :func:`benchirt.safe_text.name_problem` refuses (a classifier ``'x '`` would be
    another than ``'x'`` wherever names are compared), naming its row."""
    for name in classifiers.unique():
        problem = name_problem(name)
        if problem:
            first = int(np.flatnonzero(classifiers.to_numpy() == name)[0]) + 1
            raise DataError(f"{where}: classifier {printable(name[:80])!r} (data row {first}) {problem}; rename it "
                            "where the scores are written")


def validate_scores(frame: pd.DataFrame, *, column: str = "score", where: str = "scores") -> pd.DataFrame:
    """Check a long scores table and return it as ``dataset, classifier, score`` (float).

    Raises
    ------
    DataError
        When the table is empty, lacks a column, has duplicate (dataset, classifier) pairs, or holds a score that is not
        a finite number — naming the dataset and classifier.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"{where}: scores must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in ("dataset", "classifier", column) if c not in frame.columns]
    if missing:
        raise DataError(
            f"{where}: scores need the columns dataset, classifier, {column}; missing {', '.join(missing)}"
        )
    if frame.empty:
        raise DataError(f"{where}: the scores table is empty")
    classifiers = frame["classifier"].astype(str)
    _check_classifier_names(classifiers, where)
    out = pd.DataFrame(
        {
            "dataset": frame["dataset"].astype(str).to_numpy(),
            "classifier": classifiers.to_numpy(),
            "score": pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float),
        }
    )
    bad = ~np.isfinite(out["score"].to_numpy())
    if bad.any():
        rows = out[bad]
        listed = "; ".join(
            f"dataset {d!r}, classifier {c!r}: {_shown(frame[column].iloc[i])}"
            for i, (d, c) in zip(np.flatnonzero(bad)[:5], rows[["dataset", "classifier"]].itertuples(index=False))
        )
        raise DataError(
            f"{where}: {int(bad.sum())} score(s) are missing or not finite numbers ({listed}"
            f"{' ...' if bad.sum() > 5 else ''}); drop those rows to treat the classifier as absent there"
        )
    duplicated = out.duplicated(["dataset", "classifier"], keep=False)
    if duplicated.any():
        pairs = out.loc[duplicated, ["dataset", "classifier"]].drop_duplicates().head(5)
        listed = "; ".join(f"{d!r}/{c!r}" for d, c in pairs.itertuples(index=False))
        raise DataError(f"{where}: duplicate (dataset, classifier) rows: {listed}; keep one score per pair")
    return out


@dataclass(frozen=True)
class CheckedScores:
    """A long scores table :func:`validate_scores` has checked: ``table`` is ``dataset, classifier, score`` (float).

    Made by :func:`checked_scores` (or from a row subset of another one); the rating functions take it wherever they
    take a scores table and do not check it again.
    """

    table: pd.DataFrame


def checked_scores(scores: pd.DataFrame | CheckedScores, *, score: str = "score") -> CheckedScores:
    """``scores`` checked: a :class:`CheckedScores` as it is, a DataFrame by :func:`validate_scores` on the column that
    holds ``score`` (:func:`score_column`).

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"dataset": ["d1"], "classifier": ["a"], "true_score": [3]})
    >>> checked = checked_scores(frame, score="true_score")
    >>> checked.table.to_dict("records"), checked_scores(checked) is checked
    ([{'dataset': 'd1', 'classifier': 'a', 'score': 3.0}], True)
    """
    if isinstance(scores, CheckedScores):
        return scores
    return CheckedScores(validate_scores(scores, column=score_column(scores, score=score) if isinstance(scores, pd.DataFrame)
                                         else "score"))


def score_matrix(scores: pd.DataFrame, *, datasets: Sequence[str] | None = None) -> pd.DataFrame:
    """Pivot a checked long table (:func:`validate_scores`) to datasets × classifiers, NaN where a classifier is absent;
    rows in ``datasets`` order (default sorted), columns sorted."""
    matrix = scores.pivot(index="dataset", columns="classifier", values="score")
    matrix = matrix.reindex(columns=sorted(matrix.columns))
    matrix.columns.name = None
    matrix.index.name = "dataset"
    return matrix.reindex(list(datasets)) if datasets is not None else matrix.sort_index()


def resolve_order(datasets: Sequence[str], *, order: str | os.PathLike | Sequence[str] | None = None) -> list[str]:
    """The rating periods: a permutation of ``datasets`` (given in first-appearance order).

    ``order``: ``None``/``"sorted"``: sorted names (decodIRT's folder order); ``"given"``: as ``datasets``;
    ``"random:SEED"``: a seeded random permutation of the sorted names; any other string or path: a text file with one
    dataset name per line (blank lines and ``#`` comments skipped); a sequence: that order.

    Raises
    ------
    ConfigError
        For an unknown keyword, an unreadable file, or an order that is not a permutation of the datasets.
    """
    datasets = list(dict.fromkeys(datasets))
    if order is None or (isinstance(order, str) and order == "sorted"):
        return sorted(datasets)
    if isinstance(order, str) and order == "given":
        return datasets
    if isinstance(order, str) and order.startswith("random:"):
        return _random_order(datasets, order)
    if isinstance(order, (str, os.PathLike)):
        order = _order_file(order)
    order = [str(name) for name in order]
    _check_permutation(datasets, order)
    return order


def _random_order(datasets: list[str], order: str) -> list[str]:
    """``"random:SEED"``: the sorted names in a permutation drawn with ``SEED``."""
    seed_text = order.split(":", 1)[1]
    if not seed_text.lstrip("-").isdigit():
        raise ConfigError(f"order {order!r}: write random:SEED with an integer seed, e.g. random:0")
    rng = np.random.default_rng(int(seed_text))
    names = sorted(datasets)
    return [names[i] for i in rng.permutation(len(names))]


def _order_file(order: str | os.PathLike) -> list[str]:
    """The dataset names of an order file, one per line (blank lines and ``#`` comments skipped)."""
    path = Path(order)
    if not path.is_file():
        raise ConfigError(
            f"order {str(order)!r} is not sorted, given, random:SEED or an existing file of dataset names"
        )
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _check_permutation(datasets: list[str], order: list[str]) -> None:
    """A ``ConfigError`` naming the unknown, missing and repeated datasets unless ``order`` lists each once."""
    known, listed = set(datasets), set(order)
    problems = [f"{what} dataset(s) {', '.join(names[:5])}" for what, names in (
        ("unknown", [name for name in order if name not in known]),
        ("missing", [name for name in datasets if name not in listed]),
        ("repeated", sorted(name for name in listed if order.count(name) > 1)),
    ) if names]
    if problems:
        raise ConfigError(f"the rating order must list every dataset exactly once: {'; '.join(problems)}")


def artificial_roles(names) -> dict[str, str]:
    """Classifier → ``"artificial"`` for the names of decodIRT's artificial references (Cardoso et al. 2021
    §4.3: optimal, pessimal, majority, minority and three random classifiers, in benchirt's or decodIRT's
    spelling), so that a scores table read from files marks them as a run does."""
    from benchirt.pool import ARTIFICIAL_NAMES, DECODIRT_NAMES

    references = set(ARTIFICIAL_NAMES) | {name for name, ours in DECODIRT_NAMES.items() if ours in ARTIFICIAL_NAMES}
    return {str(name): "artificial" for name in names if str(name) in references}


def decodirt_to_benchirt_names(scores: pd.DataFrame) -> pd.DataFrame:
    """Rename decodIRT's (Portuguese) classifier names to benchirt's with ``benchirt.pool.DECODIRT_NAMES`` when the pool
    module provides it; otherwise return the table unchanged."""
    try:
        from benchirt.pool import DECODIRT_NAMES
    except ImportError:
        return scores
    renamed = scores.copy()
    renamed["classifier"] = renamed["classifier"].map(lambda name: DECODIRT_NAMES.get(name, name))
    return renamed


def _shown(raw) -> str:
    """A score cell as a message shows it: ``missing`` for an empty cell, else its text quoted."""
    return "missing" if pd.isna(raw) else repr(str(raw))

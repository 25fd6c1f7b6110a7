"""Options of a ``responses: {source: openml-runs, …}`` config section: imported runs instead of training."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import (
    AnyOf, Boolean, Choice, Constraint, Integer, MappingOf, Names, Text, checked_options, is_integer, require,
    validate_fields,
)
from benchirt.stored_runs.names import DEFAULT_RULE
from benchirt.stored_runs.respondent_names import RespondentNaming
from benchirt.stored_runs.select import SelectionOptions

#: The ``source`` value that selects this section's form.
SOURCE_NAME = "openml-runs"


@dataclass(frozen=True, kw_only=True)
class TaskIds(Constraint):
    """``respond.tasks``: OpenML task ids (``3``, ``[3, 6]``, ``"3,6"``) or a suite (``"OpenML-CC18"``); kept
    as text, ids joined by commas."""

    def expected(self) -> str:
        return "OpenML task ids (3, [3, 6] or '3,6') or a suite name"

    def accepts(self, value: Any) -> bool:
        ids = value if isinstance(value, list) else [value]
        return (isinstance(value, str) and bool(value.strip())) or (
            bool(ids) and all(is_integer(task) and task >= 1 for task in ids))

    def normal(self, value: Any) -> Any:
        return value if isinstance(value, str) else ",".join(str(task) for task in (
            value if isinstance(value, list) else [value]))

    def invalid_values(self) -> tuple[Any, ...]:
        return (0, [], ["x"], " ", 2.5)


@dataclass(frozen=True)
class ImportConfig:
    """Where the stored runs are and how respondents and items are chosen (see ``benchirt import-runs``).

    Attributes
    ----------
    source : str
        Always :data:`SOURCE_NAME`.
    path : str, tuple of str, or None
        A runs folder in OpenML's cache layout, a respondents × items matrix CSV, a folder or list of them (relative to
        the config file's folder; :mod:`benchirt.stored_runs.sources`), or None when ``tasks`` names tasks to fetch.
    respondent_pattern : str or None
        Matrix files: the regular expression (groups ``flow``, ``run``) mapping a respondent's name to its flow and
        run; None: ``<flow>||<run>`` (:mod:`benchirt.stored_runs.respondent_names`).
    tasks, cache : str or None
        OpenML task id(s) (``"3"``, ``"3,6"``) or a suite (``"OpenML-CC18"``), fetched into benchirt's runs ``cache``
        (default ``~/.cache/benchirt/openml-runs``).
    per_flow, min_accuracy, max_items, deduplicate, seed
        The selection (:class:`benchirt.stored_runs.select.SelectionOptions`).
    max_runs, top_flows : int or None
        Online filters (:class:`benchirt.stored_runs.fetch.FetchOptions`).
    pair_with_suite : bool
        Pair each imported dataset with the run's ``suite`` dataset of its name (a single one with a single one): the
        suspect-label table shows that dataset's labels, and rows differing from it are refused
        (:mod:`benchirt.stored_runs.beside`).
    pool : bool or mapping
        benchirt's own pool answers the same rows (implies ``pair_with_suite``): ``true`` with the default response
        options, or a mapping of them (the split options do not apply: the items are the import's, every other row
        trains). ``false`` (default): imported runs alone.
    """

    source: str = SOURCE_NAME
    path: str | tuple[str, ...] | None = None
    tasks: str | None = None
    respondent_pattern: str | None = None
    cache: str | None = None
    per_flow: str = DEFAULT_RULE
    min_accuracy: float | None = None
    max_items: int | None = None
    deduplicate: bool = True
    seed: int = 0
    max_runs: int | None = None
    top_flows: int | None = None
    pair_with_suite: bool = False
    pool: Any = False

    #: The declared constraint of every option (:func:`benchirt.options.validated`); the selection's are
    #: :class:`~benchirt.stored_runs.select.SelectionOptions`'.
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "source": Choice(choices=(SOURCE_NAME,)),
        "path": AnyOf(members=(Text(), Names(what="paths of matrix CSV files")), optional=True),
        "tasks": TaskIds(optional=True),
        "respondent_pattern": Text(optional=True),
        "cache": Text(optional=True),
        "per_flow": SelectionOptions.OPTIONS["rule"],
        "min_accuracy": SelectionOptions.OPTIONS["min_accuracy"],
        "max_items": SelectionOptions.OPTIONS["max_items"],
        "deduplicate": SelectionOptions.OPTIONS["deduplicate"],
        "seed": SelectionOptions.OPTIONS["seed"],
        "max_runs": Integer(minimum=1, optional=True),
        "top_flows": Integer(minimum=1, optional=True),
        "pair_with_suite": Boolean(),
        "pool": AnyOf(members=(Boolean(), MappingOf(what="a mapping of response options (pool, cv_folds, "
                                                         "ladder_epochs, ...)"))),
    }

    def __post_init__(self) -> None:
        validate_fields("respond", self, self.OPTIONS)
        self._check_sources()
        self.naming()
        self.pool_config()
        self.selection()

    def _check_sources(self) -> None:
        """Either ``path`` or ``tasks``, and a respondent pattern with matrix files only (rules between fields)."""
        require((self.path is None) != (self.tasks is None), "respond", "path", self.path,
                "either path (a runs folder, matrix CSV files or a folder of them) or tasks (OpenML task ids or a "
                "suite)")
        require(self.tasks is None or self.respondent_pattern is None, "respond", "respondent_pattern",
                self.respondent_pattern, "no pattern with tasks: OpenML's runs name their flows in their "
                "descriptions (the pattern applies to matrix files)")

    def naming(self) -> RespondentNaming:
        """How matrix files' respondent names map to flows and runs."""
        return RespondentNaming(self.respondent_pattern)

    def selection(self) -> SelectionOptions:
        return SelectionOptions(rule=self.per_flow, min_accuracy=self.min_accuracy, max_items=self.max_items,
                                deduplicate=self.deduplicate, seed=self.seed, pool_trains=self.pool is not False)

    @property
    def paired(self) -> bool:
        """Whether the imports are paired with the suite's datasets (``pair_with_suite`` or ``pool``)."""
        return bool(self.pair_with_suite or self.pool is not False)

    def pool_config(self):
        """The :class:`~benchirt.responses.ResponseConfig` of benchirt's own pool, or None without one."""
        if self.pool is False:
            return None
        from benchirt.responses.config import ResponseConfig

        options = {} if self.pool is True else dict(self.pool)
        for key in ("test_size", "max_test"):
            require(key not in options, "respond", f"pool.{key}", options.get(key),
                    "no split option: beside imported runs the items are the import's, every other row trains")
        return ResponseConfig.from_dict(options)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ImportConfig":
        return cls(**checked_options("respond", d, cls))

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if isinstance(out["path"], tuple):
            out["path"] = list(out["path"])
        return out

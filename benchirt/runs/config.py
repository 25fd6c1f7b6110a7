"""Options of a ``responses: {source: openml-runs, …}`` config section: imported runs instead of training."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.options import check_bool, check_choice, check_integer, check_text, checked_options, require
from benchirt.runs.select import DEFAULT_RULE, RULES, SelectionOptions

#: The ``source`` value that selects this section's form.
SOURCE_NAME = "openml-runs"


@dataclass(frozen=True)
class ImportConfig:
    """Where the stored runs are and how respondents and items are chosen (see ``benchirt import-runs``).

    Attributes
    ----------
    source : str
        Always :data:`SOURCE_NAME`.
    path : str or None
        A runs folder in OpenML's cache layout or a respondents × items CSV (relative to the config
        file's folder), or None when ``tasks`` names OpenML tasks to fetch.
    tasks : str or None
        OpenML task id(s) (``"3"``, ``"3,6"``) or a suite (``"OpenML-CC18"``), fetched into ``cache``.
    cache : str or None
        benchirt's runs cache for ``tasks`` (default: ``~/.cache/benchirt/openml-runs``).
    per_flow, min_accuracy, max_items, deduplicate, seed
        The selection (:class:`benchirt.runs.select.SelectionOptions`).
    max_runs, top_flows : int or None
        Online filters (:class:`benchirt.runs.fetch.FetchOptions`).
    """

    source: str = SOURCE_NAME
    path: str | None = None
    tasks: str | None = None
    cache: str | None = None
    per_flow: str = DEFAULT_RULE
    min_accuracy: float | None = None
    max_items: int | None = None
    deduplicate: bool = True
    seed: int = 0
    max_runs: int | None = None
    top_flows: int | None = None

    def __post_init__(self) -> None:
        section = "responses"
        check_choice(section, "source", self.source, (SOURCE_NAME,))
        require((self.path is None) != (self.tasks is None), section, "path", self.path,
                "either path (a runs folder or a respondents x items CSV) or tasks (OpenML task ids or a suite)")
        for key in ("path", "tasks", "cache"):
            if getattr(self, key) is not None:
                check_text(section, key, str(getattr(self, key)))
        check_choice(section, "per_flow", self.per_flow, RULES)
        check_bool(section, "deduplicate", self.deduplicate)
        check_integer(section, "seed", self.seed)
        check_integer(section, "max_items", self.max_items, 2, optional=True)
        check_integer(section, "max_runs", self.max_runs, 1, optional=True)
        check_integer(section, "top_flows", self.top_flows, 1, optional=True)
        self.selection()

    def selection(self) -> SelectionOptions:
        return SelectionOptions(rule=self.per_flow, min_accuracy=self.min_accuracy, max_items=self.max_items,
                                deduplicate=self.deduplicate, seed=self.seed)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "ImportConfig":
        d = checked_options("responses", d, cls)
        if isinstance(d.get("tasks"), (int, list)):
            d["tasks"] = ",".join(str(t) for t in (d["tasks"] if isinstance(d["tasks"], list) else [d["tasks"]]))
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

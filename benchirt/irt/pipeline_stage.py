"""The IRT stage in a run: one model per dataset with responses (:func:`benchirt.irt.irt_for_responses`)."""
from __future__ import annotations

from benchirt.stage_plan import DatasetInput, DatasetWork, StageContext


def irt_dataset(result, config):
    """Fit the IRT model of one dataset's responses (``benchirt.irt.irt_for_responses``)."""
    from benchirt.irt import irt_for_responses

    return irt_for_responses(result, config)


def plan(context: StageContext) -> DatasetWork | None:
    """One task per dataset whose responses this run has, keyed by their artifact key; None without any."""
    responses = context.upstream("respond")
    if not responses:
        return None
    config = context.config.stage_config("irt")
    items = [DatasetInput(name, {"respond": key},
                          lambda name=name, key=key: (context.load("respond", {name: key})[name], config))
             for name, key in sorted(responses.items())]
    return DatasetWork(context.options, items, irt_dataset)

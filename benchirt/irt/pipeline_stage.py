"""The IRT stage in a run: one model per dataset with responses (:func:`benchirt.irt.irt_for_responses`). A result is
keyed by the options its fit reads (:func:`benchirt.irt.config.fit_options`); the tables that read the summary
thresholds are derived again whenever a run loads it (:func:`derive`), so a threshold change reuses every fit."""
from __future__ import annotations

from benchirt.irt.config import fit_options
from benchirt.stage_plan import DatasetInput, DatasetWork, StageContext


def irt_dataset(result, config):
    """Fit the IRT model of one dataset's responses (``benchirt.irt.irt_for_responses``)."""
    from benchirt.irt import irt_for_responses

    return irt_for_responses(result, config=config)


def derive(result, config):
    """A stored result with the tables that read ``config``'s thresholds derived again
    (:meth:`benchirt.irt.stage.DatasetIRT.with_summaries`; no refit)."""
    return result.with_summaries(config)


def plan(context: StageContext) -> DatasetWork | None:
    """One task per dataset whose responses this run has, keyed by their artifact key and the fit's options; None
    without any."""
    responses = context.upstream("respond")
    if not responses:
        return None
    config = context.config.stage_config("irt")
    items = [DatasetInput(name, {"respond": key},
                          lambda name=name, key=key: (context.load("respond", {name: key})[name], config))
             for name, key in sorted(responses.items())]
    return DatasetWork(fit_options(context.options), items, irt_dataset)

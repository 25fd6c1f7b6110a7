"""Suite-wide tables read from the response results of many datasets (what the suite stages share)."""
from __future__ import annotations

from typing import Mapping, Protocol

import pandas as pd

from benchirt.errors import DataError


class DatasetResponses(Protocol):
    """What these tables read of one dataset's responses; :class:`benchirt.responses.ResponseResult` has it. A protocol,
    so that the suite stages reading these tables (rate, subset) do not depend on the response stage
    (:mod:`benchirt.pipeline.registry`)."""

    @property
    def responses(self) -> pd.DataFrame: ...

    @property
    def roles(self) -> pd.Series: ...

    @property
    def test_accuracy(self) -> pd.Series: ...

    @property
    def cv_accuracy(self) -> pd.Series: ...

    @property
    def metadata(self) -> dict: ...


def accuracy_scores(responses: Mapping[str, DatasetResponses], *, roles=("real", "artificial"),
                    which: str = "test") -> pd.DataFrame:
    """Long ``dataset, classifier, score`` table of test (``which="test"``) or cross-validated (``"cv"``) accuracies;
    classifiers without it (the artificial ones have no cross-validated one) are left out."""
    rows = []
    for name, result in responses.items():
        keep = result.roles.index[result.roles.isin(roles)]
        accuracy = (result.test_accuracy if which == "test" else result.cv_accuracy).reindex(keep).dropna()
        rows.append(pd.DataFrame({"dataset": name, "classifier": accuracy.index.astype(str), "score": accuracy.to_numpy()}))
    if not rows:
        raise DataError("no dataset has responses; nothing to rate")
    return pd.concat(rows, ignore_index=True)


def suite_roles(responses: Mapping[str, DatasetResponses]) -> pd.Series:
    """Classifier -> role over every dataset (a classifier keeps the role its responses give it)."""
    roles = pd.concat([result.roles for result in responses.values()])
    return roles[~roles.index.duplicated()].rename("role")


def suite_metadata(responses: Mapping[str, DatasetResponses]) -> pd.DataFrame:
    """One row per dataset of :meth:`benchirt.data.Dataset.metadata` (index ``dataset``)."""
    return pd.DataFrame({name: result.metadata for name, result in responses.items()}).T.rename_axis("dataset")

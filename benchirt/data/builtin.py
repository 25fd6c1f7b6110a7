"""Datasets that ship inside scikit-learn: the offline default suite of ``benchirt run``.

=========  =======================  ==========  ===========================================
name       scikit-learn loader      OpenML id   note
=========  =======================  ==========  ===========================================
wdbc       ``load_breast_cancer``   1510        CC18 member (569 × 30, 2 classes)
digits     ``load_digits``          —           the 1,797-image UCI test part, not OpenML 28
wine       ``load_wine``            187         178 × 13, 3 classes
iris       ``load_iris``            61          150 × 4, 3 classes
=========  =======================  ==========  ===========================================

Class labels are scikit-learn's ``target_names``; the files are read from the installation, never downloaded.
"""
from __future__ import annotations

from dataclasses import dataclass

from importlib import metadata

import pandas as pd

from benchirt.data.cleaning import prepare_dataset
from benchirt.data.dataset import Dataset
from benchirt.errors import DataError


@dataclass(frozen=True)
class BuiltinInfo:
    """A scikit-learn dataset: benchirt name, loader suffix (``load_<loader>``), OpenML id."""

    name: str
    loader: str
    openml_id: int | None


#: The builtin suite, in its default order.
BUILTIN_DATASETS: dict[str, BuiltinInfo] = {
    info.name: info
    for info in (
        BuiltinInfo("wdbc", "breast_cancer", 1510),
        BuiltinInfo("digits", "digits", None),
        BuiltinInfo("wine", "wine", 187),
        BuiltinInfo("iris", "iris", 61),
    )
}
_ALIASES = {info.loader: info.name for info in BUILTIN_DATASETS.values()}


def builtin_info(name: str) -> BuiltinInfo:
    """Look up a builtin dataset by benchirt name (``wdbc``) or scikit-learn name (``breast_cancer``)."""
    key = _ALIASES.get(name, name)
    if key not in BUILTIN_DATASETS:
        raise DataError(
            f"unknown builtin dataset {name!r}; builtin datasets are {sorted(BUILTIN_DATASETS)} "
            f"(scikit-learn names {sorted(_ALIASES)} work too)"
        )
    return BUILTIN_DATASETS[key]


def sklearn_version() -> str:
    """The installed scikit-learn version (part of a builtin dataset's fingerprint), read without importing it."""
    return metadata.version("scikit-learn")


def load_builtin(name: str) -> Dataset:
    """Load a builtin dataset (a key of :data:`BUILTIN_DATASETS` or a scikit-learn name such as ``breast_cancer``);
    ``source`` is ``"builtin:<loader>"`` and :mod:`benchirt.data.cleaning` applies (digits loses its blank pixels)."""
    from sklearn import datasets as sk_datasets

    info = builtin_info(name)
    bunch = getattr(sk_datasets, f"load_{info.loader}")(as_frame=True)
    frame = bunch.data.copy()
    frame["class"] = pd.Categorical.from_codes(bunch.target.to_numpy(), [str(t) for t in bunch.target_names])
    return prepare_dataset(
        frame, name=info.name, where=f"builtin dataset {info.name}", target="class",
        source=f"builtin:{info.loader}", openml_id=info.openml_id,
    )

"""Imported runs paired with the dataset they answered, and benchirt's own pool beside them on the same rows.

With ``responses: {source: openml-runs, pair_with_suite: true}`` each imported dataset is paired with the suite
dataset of the same name (a single import with a single suite dataset whatever the names). Pairing reads each item's
label from the data (so the suspect-label table shows it even for a source without labels) and refuses, in one line,
an import whose rows differ from the data: an item beyond the rows, a row without a label, a label the runs' task
gives differently (another data version).

With ``pool: true`` (or a mapping of response options) benchirt's pool also answers the import's items: it trains on
every other labelled row and predicts the items (:func:`benchirt.responses.respond` with ``test_rows``), and the two
matrices are joined, ``provenance["source"]`` telling a stored run from benchirt's own. Under ``best-held-out`` the
items are the odd folds' rows and the even folds' rows (those the runs were chosen on) train the pool, so no row both
trains (or chooses) and scores. The runs' predictions are out-of-fold on (k−1)/k of the rows, the pool's from one fit
on the other half, so the pool trains on fewer rows (said in the notes).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.stored_runs.responses import NO_LABELS, STORED_RUN

#: ``provenance["source"]`` of benchirt's own respondents, by role.
POOL_SOURCE = "benchirt {role}"


def pair_with_suite(names: list[str], specs: list) -> dict:
    """Imported dataset name → the suite's :class:`~benchirt.data.DatasetSpec` of that name (case-insensitive; also
    ``<id>-<name>``, as the CC18 ARFF files are named); a single import pairs with a single suite dataset whatever the
    names. DataError when an imported dataset has no suite dataset of its name, or several."""
    if len(names) == 1 and len(specs) == 1:
        return {names[0]: specs[0]}
    pairs, unpaired = {}, []
    for name in names:
        found = [spec for spec in specs if spec.name.lower() in (name.lower(), *_numbered(spec.name, name))]
        if len(found) == 1:
            pairs[name] = found[0]
        else:
            unpaired.append(name)
    if unpaired:
        raise DataError(f"imported dataset(s) {', '.join(unpaired)} have no single suite dataset of the same name "
                        f"(suite: {', '.join(spec.name for spec in specs)}); put the datasets the runs answered in "
                        "the suite")
    return pairs


def _numbered(spec_name: str, name: str) -> tuple[str, ...]:
    """``spec_name`` when it is ``<digits>-<name>`` (case-insensitive), else nothing."""
    head, _, tail = spec_name.lower().partition("-")
    return (spec_name.lower(),) if head.isdigit() and tail == name.lower() else ()


def dataset_labels(imported, dataset) -> pd.Series:
    """The dataset's label of each of the import's items (index: the items), read from the data; DataError when the
    rows differ (an item beyond the rows, without a label, or labelled otherwise than by the runs' task)."""
    items = np.asarray(imported.test_index, dtype=np.int64)
    labels = dataset.y.reset_index(drop=True)
    where = f"{imported.dataset}: the imported runs and the suite's dataset {dataset.name!r} differ"
    if len(items) and (items.min() < 0 or items.max() >= len(labels)):
        raise DataError(f"{where}: the runs answered row {int(items.max())} but the dataset has {len(labels)} "
                        "rows; pair the runs with the dataset (and version) they were made on")
    rows = imported.metadata.get("n_instances", float("nan"))
    if np.isfinite(rows) and int(rows) != len(labels):
        raise DataError(f"{where}: the runs' dataset has {int(rows)} rows, this one {len(labels)}; pair the runs "
                        "with the dataset (and version) they were made on")
    ours = labels.iloc[items]
    if ours.isna().any():
        row = int(items[ours.isna().to_numpy()][0])
        raise DataError(f"{where}: row {row} has no label in the dataset but the runs answered it; pair the runs "
                        "with the dataset (and version) they were made on")
    ours = pd.Series(ours.astype(str).to_numpy(), index=imported.responses.columns, name="label", dtype=str)
    theirs = getattr(imported, "test_labels", None)
    if theirs is not None and len(theirs):
        differ = ours.to_numpy() != theirs.reindex(ours.index).astype(str).to_numpy()
        if differ.any():
            item = ours.index[differ][0]
            raise DataError(f"{where}: row {item} is labelled {theirs[item]!r} by the runs' task but "
                            f"{ours[item]!r} by the dataset ({int(differ.sum())} rows differ); pair the runs with "
                            "the dataset (and version) they were made on")
    return ours


def beside_suite(imported, spec, *, pool_config=None):
    """The import paired with its suite dataset (labels from the data, rows checked), and with
    ``pool_config`` benchirt's pool answering the same items beside it (:func:`merge`)."""
    dataset = spec.load()
    labels = dataset_labels(imported, dataset)
    notes = [note for note in imported.notes if note != NO_LABELS]
    notes.append(f"paired with the suite's dataset {spec.name!r} ({len(dataset.y)} rows): the items' labels are "
                 "read from it")
    paired = replace(imported, test_labels=labels, notes=notes)
    if pool_config is None:
        return paired
    from benchirt.responses import respond

    items = np.asarray(imported.test_index, dtype=np.int64)
    train = int(dataset.y.notna().sum()) - len(items)
    if train < 2:
        raise DataError(f"{imported.dataset}: benchirt's pool has no row to train on: the imported items are every "
                        "row of the dataset; use respond.per_flow: best-held-out (its items are the odd folds' rows, "
                        "the even folds' rows train the pool)")
    pool = respond(dataset, config=pool_config, test_rows=items)
    return merge(paired, pool, n_train=train)


def merge(imported, pool, *, n_train: int | None = None):
    """One :class:`~benchirt.responses.ResponseResult` of benchirt's pool and the imported runs on the same items.

    The pool's respondents come first (roles kept), then the stored runs (``real``); ``provenance["source"]`` tells
    them apart. The runs' predicted labels are not kept, so there are no ``predictions`` (the suspect-label table's
    consensus column stays empty). DataError when the two answered different rows or a name is in both.
    """
    if list(pool.responses.columns) != list(imported.responses.columns):
        raise DataError(f"{imported.dataset}: benchirt's pool answered {pool.responses.shape[1]} rows, the imported "
                        f"runs {imported.responses.shape[1]} others; both must answer the same rows")
    clash = sorted(set(pool.responses.index) & set(imported.responses.index))
    if clash:
        raise DataError(f"{imported.dataset}: respondent name(s) {', '.join(clash[:3])}{' …' if len(clash) > 3 else ''} are both a pool classifier and an "
                        "imported flow; leave them out of respond.pool.pool")
    responses = pd.concat([pool.responses, imported.responses]).rename_axis(pool.responses.index.name)
    roles = pd.concat([pool.roles.reindex(pool.responses.index), imported.roles]).astype(str).rename("role")
    own = pd.DataFrame({"respondent": pool.responses.index.astype(str),
                        "source": [POOL_SOURCE.format(role=r) for r in pool.roles.reindex(pool.responses.index)],
                        "flow_name": pool.responses.index.astype(str),
                        "accuracy": pool.test_accuracy.reindex(pool.responses.index).to_numpy(float),
                        "n_identical": 1, "openml_url": ""})
    provenance = pd.concat([own, imported.provenance], ignore_index=True)
    for column in ("run_id", "flow_id", "setup_id", "uploader"):
        provenance[column] = provenance[column].fillna("").astype(str)
    n_pool = int((pool.roles == "real").sum())
    trained = f"{n_train} other rows" if n_train is not None else "the other rows"
    return replace(
        imported, responses=responses, roles=roles, predictions=None,
        cv_accuracy=pd.concat([pool.cv_accuracy, imported.cv_accuracy]).rename("cv_accuracy"),
        test_accuracy=pd.concat([pool.test_accuracy, imported.test_accuracy]).rename("test_accuracy"),
        metadata=pool.metadata, sizes=pool.sizes,
        provenance=provenance[_provenance_columns(provenance, imported.provenance)],
        notes=[*imported.notes,
               f"beside the {len(imported.responses)} {STORED_RUN}s: benchirt's pool ({n_pool} real classifiers, "
               f"{len(pool.responses) - n_pool} ladder or artificial) trained on the {trained} and answered the "
               "same items (each stored run's answers are out-of-fold predictions of its own cross-validation)",
               *(f"benchirt pool: {note}" for note in pool.notes)])


def _provenance_columns(provenance: pd.DataFrame, imported: pd.DataFrame) -> list[str]:
    """The imported provenance's column order, then any column only benchirt's rows have."""
    return list(imported.columns) + [c for c in provenance.columns if c not in imported.columns]

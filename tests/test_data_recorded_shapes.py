"""The recorded shapes of OpenML-CC18 (package data) against the 27 datasets this machine has."""
from __future__ import annotations

import pytest

from benchirt.data.recorded_shapes import CC18_SUITE_ID, recorded_shape, recorded_shapes, recorded_specs

#: The suite's 72 dataset ids, as OpenML lists suite 99 (../shared/data/README.md).
CC18_IDS = [3, 6, 11, 12, 14, 15, 16, 18, 22, 23, 28, 29, 31, 32, 37, 38, 44, 46, 50, 54, 151, 182, 188, 300, 307,
            458, 469, 554, 1049, 1050, 1053, 1063, 1067, 1068, 1461, 1462, 1464, 1468, 1475, 1478, 1480, 1485, 1486,
            1487, 1489, 1494, 1497, 1501, 1510, 1590, 4134, 4534, 4538, 6332, 23381, 23517, 40499, 40668, 40670,
            40701, 40923, 40927, 40966, 40975, 40978, 40979, 40982, 40983, 40984, 40994, 40996, 41027]


def test_the_table_holds_the_72_datasets_of_the_suite_in_order():
    assert CC18_SUITE_ID == 99
    assert list(recorded_shapes()) == CC18_IDS
    specs = recorded_specs()
    assert len({spec.name for spec in specs}) == 72 and all(spec.kind == "openml" for spec in specs)
    assert recorded_shape(40927) == (60000, 3072, 10)  # CIFAR_10: 3,073 attributes with the class
    assert recorded_shape(2) is None  # anneal is not in CC18


@pytest.mark.heavy
def test_recorded_shapes_equal_the_data_of_the_offline_mirror(shared_data):
    """Rows, features and classes of the 26 ARFF files and wdbc, loaded as a run loads them."""
    from benchirt.data import resolve_suite

    specs = resolve_suite("cc18-offline")
    assert len(specs) == 27
    by_id = {spec.openml_id: spec for spec in specs}
    assert set(by_id) <= set(CC18_IDS)
    mismatches = []
    for did, spec in by_id.items():
        dataset = spec.load()
        # OpenML counts the constant and empty columns benchirt drops on loading (and says so), not row identifiers
        dropped = dataset.extra.get("dropped_columns", {}).values()
        kept_by_openml = sum(not why.startswith("identifier") for why in dropped)
        loaded = (len(dataset.y), dataset.X.shape[1] + kept_by_openml, int(dataset.y.nunique()))
        if recorded_shape(did) != loaded:
            mismatches.append((spec.name, recorded_shape(did), loaded))
    assert mismatches == []

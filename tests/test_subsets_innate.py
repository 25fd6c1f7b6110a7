"""Innate-ability verdict and dataset characterisation on tables with a known answer."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import DataError
from benchirt.subsets.characterization import characterize, classify_datasets, share_table
from benchirt.subsets.innate import innate_ability, innate_wide


def ratings_table(values: dict[str, dict[str, tuple[float, float, float]]]) -> pd.DataFrame:
    """{scenario: {classifier: (rating, rd, volatility)}} -> the long ratings table."""
    rows = []
    for scenario, table in values.items():
        for name, (rating, rd, vol) in table.items():
            rows.append({"subset": scenario, "classifier": name, "role": "artificial" if name == "opt" else "real",
                         "rating": rating, "rd": rd, "volatility": vol, "low": rating - 2 * rd, "high": rating + 2 * rd})
    return pd.DataFrame(rows)


def test_clear_leader_on_every_suite():
    ratings = ratings_table({
        "full": {"opt": (1900, 30, .06), "rf": (1800, 30, .060), "mlp": (1650, 30, .07), "nb": (1500, 30, .08)},
        "decodirt-50": {"opt": (1900, 30, .06), "rf": (1790, 30, .061), "mlp": (1600, 30, .06), "nb": (1550, 30, .08)},
    })
    shares = {"full": pd.Series({"rf": 1.0, "mlp": 0.0, "nb": 0.0}),
              "decodirt-50": pd.Series({"rf": 0.97, "mlp": 0.03, "nb": 0.0})}
    table, leaders, verdict = innate_ability(ratings, ["full", "decodirt-50"], lead_shares=shares)
    assert list(leaders["leader"]) == ["rf", "rf"] and list(leaders["runner_up"]) == ["mlp", "mlp"]
    assert list(leaders["margin"]) == [150.0, 190.0]
    assert leaders["separable"].all()          # 1800 - 60 > 1650 + 60
    assert list(leaders["lowest_volatility"]) == ["rf", "mlp"]
    assert "opt" not in set(table["classifier"])
    assert table.query("subset == 'full'").set_index("classifier")["real_rank"].to_dict() == {"rf": 1, "mlp": 2, "nb": 3}
    assert verdict.startswith("Innate ability") and "rf leads" in verdict
    assert "leads 2 of 2 suites" in verdict and "separable by the R ± 2RD intervals on 2 of 2" in verdict
    assert "98 % of them on average" in verdict and "Verdict: a clear lead" in verdict


def test_lead_within_uncertainty_is_not_called_clear():
    ratings = ratings_table({
        "full": {"rf": (1700, 30, .06), "mlp": (1690, 30, .06)},
        "c-30": {"rf": (1705, 30, .06), "mlp": (1700, 30, .06)},
    })
    _, leaders, verdict = innate_ability(ratings, ["full", "c-30"])
    assert not leaders["separable"].any()
    assert "Verdict: a consistent lead, but within the rating uncertainty on 2 of 2 suites" in verdict
    assert "p_lead" not in leaders.columns


def test_changing_leaders_means_no_consistent_leader():
    ratings = ratings_table({
        "full": {"rf": (1700, 30, .06), "mlp": (1600, 30, .06), "knn": (1500, 30, .06)},
        "c-30": {"rf": (1500, 30, .06), "mlp": (1600, 30, .06), "knn": (1700, 30, .06)},
        "c-50": {"rf": (1650, 30, .06), "mlp": (1600, 30, .06), "knn": (1500, 30, .06)},
    })
    shares = {"full": pd.Series({"rf": .6, "mlp": .4, "knn": 0}), "c-30": pd.Series({"rf": 0, "mlp": .1, "knn": .9}),
              "c-50": pd.Series({"rf": .5, "mlp": .5, "knn": 0})}
    table, leaders, verdict = innate_ability(ratings, ["full", "c-30", "c-50"], lead_shares=shares)
    assert "rf leads the real classifiers most consistently" in verdict
    assert "leads 2 of 3 suites (full, c-50)" in verdict and "no consistent leader — knn" in verdict
    wide = innate_wide(table)
    assert list(wide.index) == ["rf", "mlp", "knn"]       # mean real rank 1.67, 2, 2.33
    assert wide.loc["knn", ("real_rank", "c-30")] == 1


def metadata() -> pd.DataFrame:
    return pd.DataFrame({
        "dataset": ["a", "b", "c", "d", "e"],
        "n_classes": [2, 2, 3, 10, 2],
        "n_features": [10, 20, 30, 40, 50],
        "pct_categorical_features": [100.0, 0.0, 50.0, 0.0, 0.0],
        "pct_numeric_features": [0.0, 100.0, 50.0, 100.0, 100.0],
        "pct_majority_class": [50.0, 90.0, 40.0, 10.0, 60.0],
        "dimensionality": [0.1, 0.2, 0.3, np.nan, 0.5],
    })


def test_classes_of_datasets():
    classes = classify_datasets(metadata().set_index("dataset"))
    assert classes["task"].tolist() == ["binary", "binary", "multiclass", "multiclass", "binary"]
    assert classes["data_type"].tolist() == ["categorical", "numeric", "mixed", "numeric", "numeric"]


def test_shares_and_metadata_means():
    shares, summary = characterize({"full": list("abcde"), "half": ["b", "c"]}, metadata())
    full = share_table(shares, "full")
    assert full.loc["numeric", "binary"] == 40.0 and full.loc["numeric", "multiclass"] == 20.0
    assert full.loc["total", "binary"] == 60.0 and full.loc["numeric", "total"] == 60.0
    assert full.loc["total", "total"] == 100.0
    half = share_table(shares, "half")
    assert half.loc["mixed", "multiclass"] == 50.0 and half.loc["categorical", "total"] == 0.0
    stats = summary.set_index(["subset", "metadata"])
    assert stats.loc[("full", "n_features"), "mean"] == 30.0
    assert stats.loc[("full", "n_features"), "sd"] == pytest.approx(np.std([10, 20, 30, 40, 50], ddof=1))
    assert stats.loc[("half", "pct_majority_class"), "median"] == 65.0
    assert stats.loc[("full", "dimensionality"), "mean"] == pytest.approx(0.275)   # the missing value is left out
    assert not summary.isna().any().any() and not shares.isna().any().any()


def test_metadata_errors():
    with pytest.raises(DataError, match="no metadata for dataset.*z"):
        characterize({"full": ["a", "z"]}, metadata())
    with pytest.raises(DataError, match="n_classes"):
        characterize({"full": ["a"]}, metadata().drop(columns="n_classes"))


def test_a_tie_at_the_top_is_no_lead():
    """decodIRT's decodirt-50 case: three real classifiers with identical ratings are tied, whatever their names."""
    rows = []
    for subset in ("full", "c-50"):
        for name, rating in (("mlp", 1871.72), ("svc", 1871.72), ("random_forest", 1871.72), ("knn", 1500.0)):
            rows.append({"subset": subset, "classifier": name, "role": "real", "rating": rating, "rd": 40.0,
                         "volatility": 0.06, "low": rating - 80, "high": rating + 80})
    table, leaders, verdict = innate_ability(pd.DataFrame(rows), ["full", "c-50"],
                                             lead_shares={s: pd.Series({"mlp": 0.0, "svc": 0.0, "random_forest": 0.0,
                                                                        "knn": 0.0})
                                                          for s in ("full", "c-50")})
    assert list(leaders["tied_with"]) == ["random_forest, svc", "random_forest, svc"]
    assert list(leaders["margin"]) == [0.0, 0.0]
    assert "leads 0 of 2 suites; it is tied for first (equal ratings) on 2 (full, c-50)" in verdict
    assert "leads alone in 0 % of them" in verdict
    assert verdict.endswith("Verdict: no leader — the top of the ratings is a tie.")

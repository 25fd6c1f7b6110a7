"""The conclusions block: sentences generated from numbers, ties and uncertainty stated honestly."""
from __future__ import annotations

import pandas as pd
import pytest

from benchirt.rating.statistics import friedman_nemenyi
from benchirt.report.conclusions import (
    airt_sentence, datasets_sentence, glicko_board, leader_sentence, leaderboard_table, pairwise_sentence,
    significance_sentence, strict_first_share, subsets_sentence, tiers,
)


def _ratings(rows):
    return pd.DataFrame(rows, columns=["classifier", "rating", "low", "high"])


def test_tiers_follow_the_intervals():
    # a: [1900, 2100]; b reaches a's low bound (1950 >= 1900) -> tier 1; c does not -> new tier, d reaches c
    table = _ratings([("a", 2000, 1900, 2100), ("b", 1850, 1750, 1950), ("c", 1700, 1650, 1750),
                      ("d", 1600, 1500, 1700), ("e", 1300, 1200, 1400)])
    assert tiers(table).to_dict() == {"a": 1, "b": 1, "c": 2, "d": 2, "e": 3}


def test_strict_first_share_does_not_count_shared_first_places():
    ranks = pd.DataFrame({"a": [1, 1, 1, 2], "b": [1, 2, 2, 1], "c": [3, 3, 3, 3]})
    # order 0: a and b share first place -> nobody is first alone
    assert strict_first_share(ranks).to_dict() == {"a": 0.5, "b": 0.25, "c": 0.0}


def test_a_tie_is_a_tie_not_a_lead_in_100_percent_of_orders():
    # decodIRT-style overclaim: three classifiers with identical ratings, all rank 1 in every order
    table = _ratings([("mlp", 1871.72, 1800, 1940), ("svc", 1871.72, 1800, 1940),
                      ("random_forest", 1871.72, 1800, 1940), ("knn", 1500, 1450, 1550)])
    ranks = pd.DataFrame({"mlp": [1] * 24, "svc": [1] * 24, "random_forest": [1] * 24, "knn": [4] * 24})
    text = leader_sentence(table, ranks, n_datasets=4)
    assert text.startswith("No single leader: mlp, random_forest and svc are tied at rating 1871.7")
    assert "first alone in 0 % of them and shares first place in 100 % more" in text
    assert "of the 24 possible" in text  # 4! orders exist, not 200
    board = glicko_board(table, ranks)
    assert board["Rank"].tolist() == ["=1", "=1", "=1", "4"]


def test_a_strict_lead_within_the_uncertainty_is_said_so():
    table = _ratings([("mlp", 2017.3, 1922, 2112), ("svc", 1926.4, 1846, 2007), ("rf", 1735, 1663, 1807)])
    ranks = pd.DataFrame({"mlp": [1] * 200, "svc": [2] * 200, "rf": [3] * 200})
    text = leader_sentence(table, ranks, n_datasets=12)
    assert "leader: mlp (rating 2017.3, 95 % interval 1922 – 2112)" in text
    assert "overlaps those of svc, so the top tier holds 2 classifiers" in text
    assert "Over 200 random dataset orders (of 12! possible), mlp is first alone in 100 % of them." in text
    few = leader_sentence(table, ranks, n_datasets=4)
    assert "(of the 24 possible; some drawn more than once)" in few


def test_significance_names_the_test_the_counts_and_the_pairs():
    # 6 datasets, 3 classifiers, ranks a=1, b=2, c=3 everywhere: chi2_F = 12/(6·3·4)·(6²+12²+18²) − 3·6·4 = 12,
    # p = exp(−12/2) = 0.0025 (χ² with 2 df)
    scores = pd.DataFrame([{"dataset": f"d{i}", "classifier": c, "score": s}
                           for i in range(6) for c, s in (("a", 0.9), ("b", 0.8 - 0.01 * (i % 2)), ("c", 0.5))])
    comparison = friedman_nemenyi(scores)
    text = significance_sentence(comparison, n_rated=5)
    assert text.startswith("Friedman test on true score, 3 real classifiers (Glicko-2 rates 5) over 6 datasets: "
                           "χ² = 12.0, p = 0.002.")
    assert "a (average rank 1.00) is significantly better than 1 of 2 others (c)" in text
    assert "not distinguishable from b" in text
    flat = pd.DataFrame([{"dataset": f"d{i}", "classifier": c, "score": 0.5 + 0.1 * ((i + j) % 3)}
                         for i in range(6) for j, c in enumerate("abc")])
    assert "not significantly different" in significance_sentence(friedman_nemenyi(flat), n_rated=3)


def test_datasets_sentence_states_model_and_thresholds_and_skips_a_constant_column():
    rankings = pd.DataFrame({"pct_difficulty_gt": [40.0, 20.0, 5.0], "pct_discrimination_gt": [60.0, 98.0, 97.0],
                             "pct_guessing_gt": [0.0, 0.0, 0.0]}, index=["crabs", "wine", "iris"])
    text = datasets_sentence(rankings, "2PL", {"difficulty": 1.0, "discrimination": 0.75})
    assert text.startswith("Most informative datasets (2PL per dataset)")
    assert "discrimination > 0.75: wine (98 %), iris (97 %)" in text
    assert "difficulty > 1: crabs (40 %), wine (20 %)" in text
    assert "guessing is not ranked (a 2PL has none)" in text and "3PL" not in text


def test_subsets_sentence_says_no_plainly():
    fidelity = pd.DataFrame({"subset": ["combined-50"], "n_datasets": [6], "kendall_tau": [0.91],
                             "kendall_tau_percentile": [93.0], "kendall_tau_p_value": [0.137]})
    text = subsets_sentence(fidelity, "combined")
    assert "? No: none of the 1 subsets chosen by the 'combined' rule" in text
    assert "τ = 0.91, percentile 93 of random subsets, p = 0.137" in text
    fidelity["kendall_tau_p_value"] = 0.01
    assert "? Yes: every subset" in subsets_sentence(fidelity, "discrimination")


@pytest.mark.parametrize("anomalous", [True, False])
def test_airt_sentence(anomalous):
    algorithms = pd.DataFrame({"algorithm": ["mlp", "svc", "nb"], "lto_strength": [0.5, 0.5, 0.0],
                               "anomalous": [False, False, anomalous],
                               "discrimination": [7.8, 8.1, -0.02 if anomalous else 0.3],
                               "consistency": [0.13, 0.12, 52.7],
                               "flag": ["ok", "ok", "consistency far above the rest"]})
    text = airt_sentence(algorithms)
    assert "mlp (50 % of it), svc (50 % of it)" in text
    if anomalous:
        assert "anomalous (better on harder datasets, discrimination clearly below 0) — nb (discrimination -0.02)" in text
    else:
        assert "no algorithm is anomalous (no discrimination is clearly below 0)" in text
    assert text.endswith("flat curves, whose consistency and difficulty limit are not meaningful — nb (discrimination "
                         + ("-0.02)." if anomalous else "0.30)."))


def test_leaderboard_table_marks_ties_and_shows_intervals():
    board = pd.DataFrame({"classifier": ["a", "b", "c"], "bt_rating": [1700.4, 1600.0, 1600.0],
                          "bt_low": [1650.0, 1550.0, float("nan")], "bt_high": [1750.0, 1650.0, float("nan")],
                          "rank": [1, 2, 2], "rank_low": [1, 2, float("nan")], "rank_high": [1, 3, float("nan")],
                          "tier": [1, 2, 1], "glicko_rating": [1710.0, 1590.0, 1601.0], "glicko_rd": [40.0, 35.0, 30.0]})
    table = leaderboard_table(board)
    assert table["Rank"].tolist() == ["1", "=2", "=2"]
    assert table["95 % interval"].tolist() == ["1650 – 1750", "1550 – 1650", ""]  # undefined stays blank
    assert table["Glicko-2 (R ± 2RD)"].tolist() == ["1710 ± 80", "1590 ± 70", "1601 ± 60"]


def test_pairwise_sentence_counts_holm_significant_wins_of_the_leader():
    pairwise = pd.DataFrame({"a": ["a", "a", "b", "a"], "b": ["b", "c", "c", "d"],
                             "mean_difference": [0.1, 0.2, 0.1, -0.05],
                             "wilcoxon_p_holm": [0.01, 0.2, 0.01, 0.01]})
    text = pairwise_sentence(pairwise, "a")
    # b: significant and a better -> beaten; c: not significant; d: significant but d better -> not beaten
    assert "(Holm-corrected for all 4 pairs, α = 0.05): a is significantly better than 1 of 3 classifiers" in text
    assert text.endswith("not separated from c.")


def test_airt_dataset_table_collapses_identical_rows():
    """ASP-POTASSCO: 80 instances every solver finds equally easy must not be 80 identical rows."""
    from benchirt.report.sections import airt_dataset_table

    datasets = pd.DataFrame({"dataset": [f"i{n:02d}" for n in range(82)],
                             "difficulty": [2.397] * 40 + [-2.397] * 40 + [0.5, 0.1]})
    datasets["easiness"] = -datasets["difficulty"]
    table, caption = airt_dataset_table(datasets)
    assert table["difficulty"].tolist() == [2.397, 0.5, 0.1, -2.397]
    assert table["n_datasets"].tolist() == [40, 1, 1, 40]
    assert table["datasets"].iloc[0] == "i00, i01, i02, i03, i04, … (35 more)"
    assert "82 rows with 4 distinct difficulties" in caption
    distinct, _ = airt_dataset_table(datasets.iloc[79:])  # all different: left as it is, hardest first
    assert distinct["dataset"].tolist() == ["i80", "i81", "i79"]

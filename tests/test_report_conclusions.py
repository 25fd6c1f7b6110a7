"""The conclusions block: sentences generated from numbers, ties and uncertainty stated honestly."""
from __future__ import annotations

import pandas as pd
import pytest

from benchirt.rating.statistics import friedman_nemenyi
from benchirt.rating.agreement import bayesian_check, glicko_check, nemenyi_check, smallest_holm_p, wilcoxon_check
from benchirt.rating.verdict import probability, probability_is
from benchirt.report.conclusions import airt_sentence, leaderboard_table
from benchirt.subsets.report_sections import subsets_sentence


def test_probabilities_are_never_rounded_to_one_or_zero():
    assert [probability(p) for p in (0.996, 1.0, 0.004, 0.0, 0.391, 0.99, 0.01)] == [
        "> 0.99", "> 0.99", "< 0.01", "< 0.01", "0.39", "0.99", "0.01"]
    assert probability_is(0.996) == "> 0.99" and probability_is(0.39) == "= 0.39"


def test_the_agreement_checks_count_only_the_pairs_they_tested():
    # pairs beyond rate.max_pairwise keep their counts with empty tests: not "pairs the check left unseparated"
    pairwise = pd.DataFrame({"a": ["a", "a", "b", "a"], "b": ["b", "c", "c", "d"], "n_datasets": 20,
                             "mean_difference": 0.1, "wilcoxon_p": [0.001, 0.001, 0.5, None],
                             "wilcoxon_p_holm": [0.003, 0.003, 0.5, None], "separated": [True, False, False, True],
                             "p_a_better": [0.99, 0.97, 0.5, None], "p_equivalent": [0.0, 0.01, 0.4, None],
                             "p_b_better": [0.01, 0.02, 0.1, None]})
    assert "over all 3 pairs (α = 0.05): separates 2 of 3 pairs, the primary 1; they agree on 2 of 3" \
        in wilcoxon_check(pairwise)
    assert "separates 2 of 3 pairs, the primary 1" in bayesian_check(pairwise)


def test_wilcoxon_check_says_when_it_cannot_reject_at_this_size():
    # 12 datasets, 171 pairs: the smallest exact two-sided p is 2 / 2^12, times 171 = 0.0835 > 0.05
    assert smallest_holm_p(12, 171) == pytest.approx(171 * 2 / 4096)
    pairwise = pd.DataFrame({"a": ["x"] * 171, "b": [f"y{i}" for i in range(171)], "n_datasets": 12,
                             "mean_difference": 1.0, "wilcoxon_p_holm": 1.0, "separated": False})
    text = wilcoxon_check(pairwise)
    assert "cannot reject anything at this size — with 12 datasets the smallest Holm-adjusted p-value it can " \
           "reach is 0.083 (2 / 2^12 × 171)" in text
    # 3 pairs over 20 datasets: it can reject; agreement counted pair by pair, disagreements named
    pairwise = pd.DataFrame({"a": ["a", "a", "b"], "b": ["b", "c", "c"], "n_datasets": 20,
                             "mean_difference": [0.1, 0.2, 0.05], "wilcoxon_p_holm": [0.01, 0.01, 0.3],
                             "separated": [False, True, False]})
    text = wilcoxon_check(pairwise)
    assert "separates 2 of 3 pairs, the primary 1; they agree on 2 of 3; only it separates a–b (its exact per-pair p-values " \
           "order the pairs differently" in text and "only the primary" not in text
    pairwise["wilcoxon_p_holm"] = [0.3, 0.3, 0.3]
    assert "; only the primary separates a–c (the step-down uses how the pairs' statistics move together" \
        in wilcoxon_check(pairwise)
    # one dataset: singular, and why it cannot reject
    assert "with 1 dataset the smallest" in wilcoxon_check(pairwise.assign(n_datasets=1))
    # when Wilcoxon–Holm is the primary it is no agreement check of itself, but its floor is still said
    holm = pairwise.assign(method="holm")
    assert wilcoxon_check(holm) == ""
    assert wilcoxon_check(holm.assign(n_datasets=3)).startswith(
        "The primary verdict, Wilcoxon signed-rank tests with Holm's correction over all 3 pairs (α = 0.05): cannot "
        "reject anything at this size")


def test_nemenyi_check_compares_its_decisions_with_the_primary():
    # 6 datasets, 3 classifiers, ranks a=1, b=2, c=3 everywhere: chi2_F = 12, p = exp(−6) = 0.0025; Nemenyi
    # separates a from c only (mean ranks 1 vs 3, CD = 1.35)
    scores = pd.DataFrame([{"dataset": f"d{i}", "classifier": c, "score": s}
                           for i in range(6) for c, s in (("a", 0.9), ("b", 0.8 - 0.01 * (i % 2)), ("c", 0.5))])
    comparison = friedman_nemenyi(scores)
    pairwise = pd.DataFrame({"a": ["a", "a", "b"], "b": ["b", "c", "c"], "separated": [False, True, True]})
    text = nemenyi_check(pairwise, comparison)
    assert text.startswith("Friedman/Nemenyi on true score (3 classifiers over 6 datasets, Friedman p = 0.002, "
                           "critical difference 1.35 mean ranks): separates 1 of 3 pairs, the primary 2; they "
                           "agree on 2 of 3; only the primary separates b–c (Nemenyi's ranks within a dataset ignore "
                           "the size of the differences")


def test_glicko_check_names_a_tie_or_a_different_leader():
    board = pd.DataFrame({"classifier": ["mlp", "svc", "knn"]})
    glicko = pd.DataFrame({"classifier": ["mlp", "svc", "knn"], "rating": [1871.7, 1871.7, 1500.0]})
    orders = pd.DataFrame({"classifier": ["mlp", "svc", "knn"], "p_first_alone": [0.5, 0.0, 0.0]})
    text = glicko_check(board, glicko, orders=orders, n_orders=4)
    assert "has no single leader: mlp and svc tie at rating 1871.7" in text
    assert "over 4 random dataset orders mlp is first alone in 50 % of them" in text
    glicko["rating"] = [1800.0, 1900.0, 1500.0]
    assert "puts svc first and mlp 2nd" in glicko_check(board, glicko)


def test_subsets_sentence_says_no_plainly():
    fidelity = pd.DataFrame({"subset": ["decodirt-50"], "n_datasets": [6], "kendall_tau": [0.91],
                             "kendall_tau_percentile": [93.0], "kendall_tau_p_value": [0.137]})
    text = subsets_sentence(fidelity, "decodirt")
    assert "? No: none of the 1 subsets chosen by the 'decodirt' rule" in text
    assert "so benchirt recommends none of them over a random choice." in text
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
    assert "overlap" not in text  # 50 % + 50 %: nothing to explain
    overlapping = airt_sentence(algorithms.assign(lto_strength=[0.56, 0.41, 0.08]))
    assert "nb (8 % of it) (the shares overlap: an algorithm within ε of the best counts as strongest there too)" in overlapping


def test_leaderboard_table_marks_ties_and_shows_intervals():
    board = pd.DataFrame({"classifier": ["a", "b", "c"], "bt_rating": [1700.4, 1600.0, 1600.0],
                          "bt_low": [1650.0, 1550.0, float("nan")], "bt_high": [1750.0, 1650.0, float("nan")],
                          "rank": [1, 2, 2], "rank_low": [1, 2, float("nan")], "rank_high": [1, 3, float("nan")],
                          "tier": [1, 2, 2], "glicko_rating": [1710.0, 1590.0, 1601.0], "glicko_rd": [40.0, 35.0, 30.0],
                          "n_datasets": [12, 12, 12]})
    table = leaderboard_table(board)
    assert table["Rank"].tolist() == ["1", "=2", "=2"]
    assert table["95 % interval"].tolist() == ["1650 – 1750", "1550 – 1650", ""]  # undefined stays blank
    assert table["Rank interval (joint)"].tolist() == ["1 – 1", "2 – 3", ""]
    assert table["Tier"].tolist() == [1, 2, 2]
    assert table["Glicko-2 (R ± 2RD)"].tolist() == ["1710 ± 80", "1590 ± 70", "1601 ± 60"]
    # one tier: no Tier column; one dataset: no Glicko-2 interval
    table = leaderboard_table(board.assign(tier=1, n_datasets=1))
    assert "Tier" not in table and "Glicko-2 (R ± 2RD)" not in table
    assert not any(column.startswith("Datasets") for column in table)  # a dense field: no Datasets column
    # a sparse field (issue 34): who met the others on fewer datasets is marked
    table = leaderboard_table(board.assign(n_datasets=[20, 7, 20]))
    assert table["Datasets (of 20)"].tolist() == [20, 7, 20]


def test_airt_dataset_table_collapses_identical_rows():
    """ASP-POTASSCO: 80 instances every solver finds equally easy must not be 80 identical rows."""
    from benchirt.airt.report_sections import airt_dataset_table

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


def test_report_sections_for_one_dataset_and_one_tier_say_no_interval_and_no_tier():
    from benchirt.document.context import SectionContext
    from benchirt.document.page import Paragraph, Table
    from benchirt.rating import RatingConfig, rate
    from benchirt.rating.report_sections import leaderboard, ratings

    scores = pd.DataFrame({"dataset": "d1", "classifier": ["a", "b", "c"], "score": [0.9, 0.5, 0.1]})
    rating = rate(scores, config=RatingConfig(n_bootstrap=50, n_permutations=10))
    section = ratings(rating, SectionContext(None))
    text = " ".join(block.text for block in section.blocks if isinstance(block, Paragraph))
    assert "(1 dataset, order" in text and "With a single rating period there is no interval" in text
    [table] = [block for block in section.blocks if isinstance(block, Table)]
    assert not {"low", "high"} & set(table.frame.columns)
    section = leaderboard(rating, SectionContext(None))
    text = " ".join(block.text for block in section.blocks if hasattr(block, "text"))
    assert "tier" not in text.lower()
    assert all("tier" not in table.frame.columns for table in section.blocks if isinstance(table, Table)
               and "rank_low" in table.frame.columns)

"""Subset selection rules: known answers, the paper's Table 5, and bad inputs."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from benchirt.errors import ConfigError, DataError
from benchirt.subsets import SubsetConfig, build_subsets, subset_size
from benchirt.subsets.selection import ranking, validate_cuts

# Per-dataset percentages of items with discrimination > 0.75 and difficulty > 1 for the 60
# OpenML-CC18 datasets of Cardoso et al. 2021, as published by decodIRT (IRT_OpenML repository,
# "BRACIS/Results BRACIS/IRT_param_freq.txt"; integer percentages): name, discrimination, difficulty.
PAPER_60 = """
banknote-authentication 100 0|analcatdata_authorship 99 1|texture 99 3|pendigits 99 0|har 98 2
mfeat-pixel 97 3|wilt 97 6|mfeat-karhunen 96 3|isolet 96 1|Internet-Advertisements 96 1|vowel 95 35
cnae-9 94 2|sick 92 0|letter 92 10|breast-w 91 1|climate-model-simulation-crashes 91 0|semeion 91 4
segment 90 2|spambase 89 5|balance-scale 87 1|ozone-level-8hr 87 1|wdbc 87 4|pc1 85 5
wall-robot-navigation 85 7|qsar-biodeg 85 4|splice 84 3|pc3 84 0|mfeat-factors 83 5|kc1 82 17
kr-vs-kp 81 3|dna 80 15|mfeat-fourier 78 10|kc2 78 17|blood-transfusion-service-center 76 1|phoneme 74 2
mfeat-zernike 72 20|ilpd 71 3|Bioresponse 70 9|jm1 67 12|credit-g 65 5|vehicle 53 26|analcatdata_dmft 52 73
first-order-theorem-proving 51 12|madelon 50 0|cmc 50 12|dresses-sales 47 7
GesturePhaseSegmentationProcessed 44 7|cylinder-bands 42 6|tic-tac-toe 34 89|steel-plates-fault 32 25
eucalyptus 20 52|car 20 49|diabetes 16 63|satimage 14 18|churn 12 54|mfeat-morphological 10 13
credit-approval 10 79|PhishingWebsites 7 40|optdigits 1 76|MiceProtein 0 32
"""


def paper_summaries() -> pd.DataFrame:
    rows = [entry.split() for line in PAPER_60.strip().splitlines() for entry in line.split("|")]
    return pd.DataFrame(
        {"dataset": [r[0] for r in rows],
         "pct_discrimination_gt": [float(r[1]) for r in rows],
         "pct_difficulty_gt": [float(r[2]) for r in rows]}
    )


def table5(summaries: pd.DataFrame, datasets) -> tuple[float, float, float, float]:
    values = summaries.set_index("dataset").loc[datasets]
    return (values["pct_discrimination_gt"].mean(), values["pct_discrimination_gt"].std(),
            values["pct_difficulty_gt"].mean(), values["pct_difficulty_gt"].std())


def synthetic() -> pd.DataFrame:
    # Ten datasets; d0 is both the most discriminating and the most difficult (overlap case).
    return pd.DataFrame(
        {
            "dataset": [f"d{i}" for i in range(10)],
            "pct_discrimination_gt": [99, 90, 80, 70, 60, 50, 40, 30, 20, 10],
            "pct_difficulty_gt": [95, 5, 10, 15, 20, 25, 30, 35, 40, 45],
            "pct_guessing_gt": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        }
    )


def test_paper_has_sixty_datasets():
    assert len(paper_summaries()) == 60 and paper_summaries()["dataset"].is_unique


def test_full_suite_reproduces_paper_table5_row_100():
    # Cardoso et al. 2021 Table 5, 100 %: discrimination 67.13 % ± 30.78 %, difficulty 15.93 % ± 22.56 %.
    summaries = paper_summaries()
    got = table5(summaries, summaries["dataset"])
    np.testing.assert_allclose(got, (67.13, 30.78, 15.93, 22.56), atol=0.006)


def test_combined_sizes_match_paper():
    # §5.4: the 30 % cut of 60 datasets is 9 + 9 = 18 datasets; Table 8's shares are thirtieths.
    subsets = build_subsets(paper_summaries(), cuts=(30, 50, 70))
    assert [len(v) for v in subsets.values()] == [18, 30, 42]


def test_combined_30_reproduces_paper_table5():
    # Cardoso et al. 2021 Table 5, 30 %: 58.5 % ± 41.91 % and 33 % ± 33.71 %. The published per-dataset
    # percentages are rounded to integers, so the difficulty row can differ by rounding only.
    summaries = paper_summaries()
    got = table5(summaries, build_subsets(summaries, cuts=30)["decodirt-30"])
    np.testing.assert_allclose(got[:2], (58.5, 41.91), atol=0.006)
    np.testing.assert_allclose(got[2:], (33.0, 33.71), atol=0.5)


@pytest.mark.parametrize("cut, expected", [(50, (62.06, 38.72, 25.19, 28.23)), (70, (65.16, 35.34, 20.44, 25.26))])
def test_combined_50_70_close_to_paper_table5(cut, expected):
    # Within one percentage point: which of the tied datasets the paper took is unknown.
    summaries = paper_summaries()
    got = table5(summaries, build_subsets(summaries, cuts=cut)[f"decodirt-{cut}"])
    np.testing.assert_allclose(got, expected, atol=1.0)


def test_combined_rule_fills_overlap_with_next_difficult():
    subsets = build_subsets(synthetic(), cuts=(40,))
    # n = 4: two most discriminating (d0, d1), then the most difficult not chosen: d9 (45), d8 (40);
    # d0 (difficulty 95) is already in.
    assert subsets == {"decodirt-40": ["d0", "d1", "d9", "d8"]}


def test_combined_odd_size_takes_extra_from_discrimination():
    assert build_subsets(synthetic(), cuts=(30,))["decodirt-30"] == ["d0", "d1", "d9"]


@pytest.mark.parametrize("rule, expected", [
    ("discrimination", ["d0", "d1", "d2"]),
    ("difficulty", ["d0", "d9", "d8"]),
    ("guessing", ["d9", "d8", "d7"]),
])
def test_single_parameter_rules(rule, expected):
    assert build_subsets(synthetic(), cuts=30, rule=rule) == {f"{rule}-30": expected}


def test_full_cut_keeps_every_dataset():
    subsets = build_subsets(synthetic(), cuts=100)
    assert sorted(subsets["decodirt-100"]) == [f"d{i}" for i in range(10)]


def test_ties_broken_by_name_independent_of_row_order():
    frame = pd.DataFrame({"dataset": ["b", "c", "a", "d"], "pct_discrimination_gt": [50, 50, 50, 10],
                          "pct_difficulty_gt": [1, 1, 1, 1]})
    assert ranking(frame.set_index("dataset"), "pct_discrimination_gt") == ["a", "b", "c", "d"]
    shuffled = frame.sample(frac=1, random_state=3)
    assert build_subsets(shuffled, cuts=50, rule="discrimination") == {"discrimination-50": ["a", "b"]}


def test_index_or_column_input_agree():
    frame = synthetic()
    assert build_subsets(frame) == build_subsets(frame.set_index("dataset"))


@pytest.mark.parametrize("n, cut, size", [(60, 30, 18), (50, 30, 15), (10, 70, 7), (10, 1, 1), (7, 50, 4), (3, 100, 3)])
def test_subset_size_is_ceil(n, cut, size):
    assert subset_size(n, cut) == size == max(1, math.ceil(round(n * cut / 100, 9)))


@pytest.mark.parametrize("cuts, expected", [
    ((0,), "percentages"), ((-5,), "percentages"), ((100.5,), "percentages"), ((30, 30), "each percentage once"),
    (("abc",), "percentages"), ((), "percentages"), ((float("nan"),), "percentages")])
def test_bad_cuts_are_config_errors(cuts, expected):
    with pytest.raises(ConfigError) as info:
        build_subsets(synthetic(), cuts=cuts)
    message = (f"subset.cuts: got {cuts!r}, expected percentages of the suite to keep (of its CPU for the budget "
               "rule, of its datasets for decodIRT's), each in (0, 100], e.g. 30,50,70") if expected == "percentages" else f"subset.cuts: got {cuts!r}, expected {expected}"
    assert str(info.value) == message


def test_cut_strings_with_percent_sign_accepted():
    assert validate_cuts(["30%", " 50", 70]) == (30.0, 50.0, 70.0)


def test_unknown_rule():
    with pytest.raises(ConfigError, match="^subset.rule: got 'hardest', expected one of budget, decodirt, discrimination"):
        build_subsets(synthetic(), cuts=30, rule="hardest")


def test_missing_column_names_it():
    with pytest.raises(DataError, match="pct_difficulty_gt"):
        build_subsets(synthetic().drop(columns="pct_difficulty_gt"))


def test_guessing_rule_needs_only_guessing_column():
    frame = synthetic()[["dataset", "pct_guessing_gt"]]
    assert build_subsets(frame, cuts=10, rule="guessing") == {"guessing-10": ["d9"]}


@pytest.mark.parametrize("value", [np.nan, 120.0, -1.0, "lots"])
def test_invalid_percentages_name_the_dataset(value):
    frame = synthetic().astype({"pct_difficulty_gt": object})
    frame.loc[3, "pct_difficulty_gt"] = value
    with pytest.raises(DataError, match="d3"):
        build_subsets(frame)


def test_duplicate_and_empty_summaries():
    frame = synthetic()
    with pytest.raises(DataError, match="more than once"):
        build_subsets(pd.concat([frame, frame.iloc[[2]]]))
    with pytest.raises(DataError, match="no dataset"):
        build_subsets(frame.iloc[:0])


def test_config_from_dict_and_errors():
    config = SubsetConfig.from_dict({"cuts": "20,40", "rule": "difficulty", "n_random": 50})
    assert config.cuts == (20.0, 40.0) and config.rule == "difficulty" and config.n_random == 50
    assert SubsetConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ConfigError, match="valid options: cuts, rule, n_random, seed, n_permutations"):
        SubsetConfig.from_dict({"cut": [30]})
    with pytest.raises(ConfigError, match=r"^subset.cuts: got \(0,\), expected percentages"):
        SubsetConfig(cuts=(0,))
    with pytest.raises(ConfigError, match="n_random"):
        SubsetConfig(n_random=-1)
    with pytest.raises(ConfigError, match="n_permutations"):
        SubsetConfig(n_permutations=1)

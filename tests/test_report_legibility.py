"""Figure text sizes in the page, overlapping labels, dataset usefulness on the real classifiers, and True-Score
rank checks — each against numbers worked by hand."""
from __future__ import annotations

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from benchirt.plotstyle import place_point_labels  # noqa: E402
from benchirt.document.figures import figure_block  # noqa: E402
from benchirt.document.legibility import (CONTENT_WIDTH_PX, MIN_TEXT_PX, laid_out, overlapping_texts,  # noqa: E402
                                        png_size, save_laid_out, visible_texts)
from benchirt.irt.score_checks import rank_disagreements  # noqa: E402
from benchirt.report.sections import _pipeline_order  # noqa: E402
from benchirt.irt.usefulness import mcnemar_share, real_classifier_spread, usefulness_sentence  # noqa: E402


def _figure(width: float, fontsize: float) -> Figure:
    fig = Figure(figsize=(width, 3), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.set_title("title", fontsize=fontsize)
    ax.tick_params(labelsize=fontsize)
    return fig


@pytest.mark.parametrize("width", [4.0, 30.0])   # 320 px: shown as is; 2400 px: the page halves it
def test_every_text_reaches_10_px_on_screen(width):
    fig = _figure(width, 5)
    png = figure_block(fig, dpi=80).png
    shown = min(CONTENT_WIDTH_PX, png_size(png)[0])
    for text in visible_texts(fig):
        # points -> PNG pixels (dpi / 72) -> page pixels (displayed width / PNG width)
        assert text.get_fontsize() * 80 / 72 * shown / png_size(png)[0] >= MIN_TEXT_PX - 1e-6
    if width == 4.0:   # small figure: 5 pt grows to 9 pt (10 px at 80 dpi), not more
        assert max(t.get_fontsize() for t in visible_texts(fig)) == pytest.approx(9 * 1.03)


@pytest.mark.parametrize("layout", ["constrained", None])
def test_the_png_drawn_from_a_layout_is_savefigs_tight_png_from_that_layout(layout):
    import io

    def figure():
        fig = Figure(figsize=(6, 3), layout=layout)
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 10_000])
        ax.set_ylabel("a long label on the left edge")
        ax.annotate("outside the axes", (1, 1), (1.05, 1.1), xycoords="axes fraction")
        return fig

    # savefig lays the figure out once more before drawing (constrained layout moves on each pass), so it is
    # given one layout fewer
    tight, fig = io.BytesIO(), figure()
    laid_out(fig, 80)
    fig.savefig(tight, format="png", dpi=80, bbox_inches="tight")
    fig = figure()
    laid_out(fig, 80)
    png = save_laid_out(fig, 80, laid_out(fig, 80))
    assert png == tight.getvalue()
    assert (fig.get_layout_engine() is None) == (layout is None)   # the paused engine is restored


def test_a_figure_no_wider_than_the_page_is_laid_out_once(monkeypatch):
    import benchirt.document.legibility as legibility

    layouts = []
    monkeypatch.setattr(legibility, "laid_out", lambda fig, dpi: layouts.append(dpi) or laid_out(fig, dpi))
    fig = _figure(5, 6)   # every text 6 pt: 6.7 px at 80 dpi
    legibility.legible_layout(fig, 80)
    assert layouts == [80]
    assert min(t.get_fontsize() for t in visible_texts(fig)) == pytest.approx(9 * 1.03)


def test_a_legible_figure_is_left_alone():
    fig = _figure(5, 12)
    block = figure_block(fig, caption="caption", dpi=80)
    assert {t.get_fontsize() for t in visible_texts(fig)} == {12.0}
    assert block.text_px == pytest.approx(12 * 80 / 72)


def test_crowded_scatter_labels_do_not_overlap():
    rng = np.random.default_rng(0)
    xs, ys = 0.5 + 0.05 * rng.normal(size=12), 0.5 + 0.05 * rng.normal(size=12)
    fig = Figure(figsize=(7, 7))
    ax = fig.add_subplot()
    ax.scatter(xs, ys)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    fig.set_dpi(80)
    place_point_labels(ax, xs, ys, [f"classifier_{k}" for k in range(12)], fontsize=10)
    assert overlapping_texts(fig, 80) == []
    naive = Figure(figsize=(7, 7))
    ax = naive.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    for k in range(12):
        ax.annotate(f"classifier_{k}", (xs[k], ys[k]), fontsize=10)
    assert overlapping_texts(naive, 80)   # the check finds what naive placement does
    assert figure_block(naive, caption="naive", dpi=80).overlapping


def test_stages_are_listed_in_pipeline_order():
    assert _pipeline_order(["airt", "irt", "rate", "respond", "subset"]) == ["respond", "irt", "rate", "subset", "airt"]


def _irt(name, thetas, scores, roles, n_items=10):
    abilities = pd.DataFrame({"respondent": list(thetas), "role": roles, "theta": list(thetas.values()),
                              "true_score": scores})
    return SimpleNamespace(dataset=name, abilities=abilities, fit=SimpleNamespace(items=pd.DataFrame(index=range(n_items))))


def test_usefulness_counts_pairs_of_real_classifiers_mcnemar_separates():
    roles = ["real", "real", "real", "artificial"]
    # "easy": a, b, c answer alike (one failing classifier would be needed to separate anything)
    easy_answers = pd.DataFrame([[1] * 20, [1] * 20, [1] * 19 + [0], [0] * 20], index=["a", "b", "c", "random"])
    # "hard": a right on 20, b on 10 of them, c on none: McNemar a-b: 10 vs 0 discordant, p = 2 / 2**10 < .05;
    # b-c: 10 vs 0, separated; a-c: 20 vs 0, separated -> 3 of 3 pairs
    hard_answers = pd.DataFrame([[1] * 20, [1] * 10 + [0] * 10, [0] * 20, [1] * 20], index=["a", "b", "c", "random"])
    easy = _irt("easy", {"a": 1.0, "b": 1.1, "c": 0.9, "random": -3.0}, [20, 20, 19, 5], roles, n_items=20)
    hard = _irt("hard", {"a": 2.0, "b": 0.0, "c": -2.0, "random": -0.5}, [20, 10, 0, 20], roles, n_items=20)
    responses = {"easy": SimpleNamespace(responses=easy_answers), "hard": SimpleNamespace(responses=hard_answers)}
    table = real_classifier_spread([easy, hard], responses).set_index("dataset")
    assert table.loc["hard", "pairs_separated"] == pytest.approx(100.0)
    assert table.loc["easy", "pairs_separated"] == pytest.approx(0.0)     # the random respondent is left out
    assert table.loc["hard", "ability_sd"] == pytest.approx(2.0)            # sd of (2, 0, -2)
    assert table.loc["easy", "ability_sd"] == pytest.approx(0.1)
    assert table.loc["hard", "accuracy_range"] == pytest.approx(100.0)
    assert table["rank"].to_dict() == {"hard": 1, "easy": 2}
    assert mcnemar_share(np.array([[1] * 5 + [0] * 5, [0] * 10])) == 0.0   # 5 vs 0: p = 2 / 32 = .0625
    assert mcnemar_share(np.array([[1] * 6 + [0] * 4, [0] * 10])) == 100.0  # 6 vs 0: p = 2 / 64 < .05
    sentence = usefulness_sentence(table.reset_index())
    assert sentence.startswith("Most informative datasets — the ones whose test items tell the 3 real classifiers")
    assert "hard (100 % of pairs, ability SD 2.00)" in sentence


def test_usefulness_sentence_says_why_a_rank_correlation_is_missing():
    spread = pd.DataFrame({"dataset": ["x", "y", "z"], "n_real": [3, 3, 3], "pairs_separated": [0.0, 0.0, 0.0],
                           "ability_sd": [0.1, 0.3, 0.2]})
    sentence = usefulness_sentence(spread)
    assert "no Spearman correlation (one measure is the same on every dataset)" in sentence and "nan" not in sentence
    spread["pairs_separated"] = [10.0, 30.0, 20.0]
    assert "keep this order with Spearman 1.00" in usefulness_sentence(spread)


def test_true_score_far_from_accuracy_is_flagged_and_accuracy_ties_are_not():
    names = ["a", "b", "c", "d", "e", "f", "minority"]
    roles = ["real"] * 6 + ["artificial"]
    thetas = dict(zip(names, [1.0] * 7))
    irt = _irt("breast-w", thetas, [9.0, 8.9, 8.8, 8.7, 8.6, 8.5, 9.5], roles, n_items=10)
    accuracy = pd.Series([0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.34], index=names)   # six tied: no flag among them
    # items 0-5: every calibration respondent right (no information); minority misses them all
    irt.fit.items["flag"] = ["all_correct"] * 6 + ["ok"] * 4
    answers = pd.DataFrame([[1] * 9 + [0]] * 6 + [[0] * 6 + [1] * 3 + [0]], index=names, columns=range(10))
    table = rank_disagreements([irt], {"breast-w": SimpleNamespace(test_accuracy=accuracy, responses=answers)})
    assert table["classifier"].tolist() == ["minority"]
    row = table.iloc[0]
    assert (row["true_score_rank"], row["accuracy_rank"], row["places_apart"]) == (1, "7", 6)
    assert row["no_information_missed"] == 6


def test_codes_in_tables_read_as_words_and_names_stay():
    from benchirt.document.page import Section, Table, render_markdown

    frame = pd.DataFrame({"classifier": ["random_forest", "knn_3"], "reason": ["negative_discrimination", "all_wrong"],
                          "score": pd.Series(["true_score", "test_accuracy"], dtype="string")})
    text = render_markdown("t", "s", [Section("x", "X", [Table(frame)])])
    assert "| random_forest | negative discrimination | True-Score |" in text
    assert "| knn_3 | all answers wrong | test accuracy |" in text


def test_mcnemar_share_agrees_with_scipys_binomtest_pair_by_pair():
    """The vectorised share equals the pair-by-pair exact test (ties b = c give p = 1, no discordance none)."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(3)
    answers = (rng.random((40, 30)) < rng.uniform(0.3, 0.95, size=(40, 1))).astype(np.int8)
    answers[5] = answers[4]                      # identical pair: no discordant item
    answers[7, :] = 1
    answers[8, :] = 1
    answers[8, :6], answers[7, 6:12] = 0, 0      # b = c = 6: p = 1
    separated = 0
    for a in range(40):
        for b in range(a + 1, 40):
            only_a = int(np.sum((answers[a] == 1) & (answers[b] == 0)))
            only_b = int(np.sum((answers[a] == 0) & (answers[b] == 1)))
            separated += only_a + only_b > 0 and binomtest(only_a, only_a + only_b, 0.5).pvalue < 0.05
    expected = 100 * separated / (40 * 39 / 2)
    assert 5 < expected < 95
    assert mcnemar_share(answers) == pytest.approx(expected)
    assert mcnemar_share(answers, block=7) == pytest.approx(expected)   # blocks do not change the count

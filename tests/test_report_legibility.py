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
from benchirt.report.document import figure_block  # noqa: E402
from benchirt.report.legibility import (CONTENT_WIDTH_PX, MIN_TEXT_PX, overlapping_texts, png_size,  # noqa: E402
                                        render_legible, visible_texts)
from benchirt.report.score_checks import rank_disagreements  # noqa: E402
from benchirt.report.sections import _pipeline_order  # noqa: E402
from benchirt.report.usefulness import real_classifier_spread, usefulness_sentence  # noqa: E402


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
    png = render_legible(fig, dpi=80)
    shown = min(CONTENT_WIDTH_PX, png_size(png)[0])
    for text in visible_texts(fig):
        # points -> PNG pixels (dpi / 72) -> page pixels (displayed width / PNG width)
        assert text.get_fontsize() * 80 / 72 * shown / png_size(png)[0] >= MIN_TEXT_PX - 1e-6
    if width == 4.0:   # small figure: 5 pt grows to 9 pt (10 px at 80 dpi), not more
        assert max(t.get_fontsize() for t in visible_texts(fig)) == pytest.approx(9 * 1.03)


def test_a_legible_figure_is_left_alone():
    fig = _figure(5, 12)
    block = figure_block(fig, "caption", dpi=80)
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


def test_stages_are_listed_in_pipeline_order():
    assert _pipeline_order(["airt", "irt", "rate", "respond", "subset"]) == ["respond", "irt", "rate", "subset", "airt"]


def _irt(name, thetas, scores, roles, n_items=10):
    abilities = pd.DataFrame({"respondent": list(thetas), "role": roles, "theta": list(thetas.values()),
                              "true_score": scores})
    return SimpleNamespace(dataset=name, abilities=abilities, fit=SimpleNamespace(items=pd.DataFrame(index=range(n_items))))


def test_usefulness_counts_only_real_classifiers():
    roles = ["real", "real", "real", "artificial"]
    easy = _irt("easy", {"a": 1.0, "b": 1.1, "c": 0.9, "random": -3.0}, [9, 9, 9, 5], roles)
    hard = _irt("hard", {"a": 2.0, "b": 0.0, "c": -2.0, "random": -0.5}, [9, 5, 1, 5], roles)
    responses = {"easy": SimpleNamespace(test_accuracy=pd.Series({"a": 0.9, "b": 0.92, "c": 0.88, "random": 0.3})),
                 "hard": SimpleNamespace(test_accuracy=pd.Series({"a": 0.9, "b": 0.6, "c": 0.3, "random": 0.5}))}
    table = real_classifier_spread([easy, hard], responses).set_index("dataset")
    assert table.loc["hard", "ability_sd"] == pytest.approx(2.0)            # sd of (2, 0, -2)
    assert table.loc["easy", "ability_sd"] == pytest.approx(0.1)            # the random respondent is left out
    assert table.loc["hard", "accuracy_range"] == pytest.approx(60.0)
    assert table.loc["easy", "accuracy_range"] == pytest.approx(4.0)
    assert table["rank"].to_dict() == {"hard": 1, "easy": 2}
    sentence = usefulness_sentence(real_classifier_spread([easy, hard], responses))
    assert sentence.startswith("Most informative datasets — the ones that separate the 3 real classifiers")
    assert "hard (2.00, accuracies 60.0 points apart)" in sentence


def test_true_score_far_from_accuracy_is_flagged_and_accuracy_ties_are_not():
    names = ["a", "b", "c", "d", "e", "f", "minority"]
    roles = ["real"] * 6 + ["artificial"]
    thetas = dict(zip(names, [1.0] * 7))
    irt = _irt("breast-w", thetas, [9.0, 8.9, 8.8, 8.7, 8.6, 8.5, 9.5], roles, n_items=10)
    accuracy = pd.Series([0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.34], index=names)   # six tied: no flag among them
    table = rank_disagreements([irt], {"breast-w": SimpleNamespace(test_accuracy=accuracy)})
    assert table["classifier"].tolist() == ["minority"]
    row = table.iloc[0]
    assert (row["true_score_rank"], row["accuracy_rank"], row["places_apart"]) == (1, "7", 6)

"""Styles that keep 20 classifiers apart, and end-of-line labels that do not overlap."""
from __future__ import annotations

import matplotlib
from matplotlib.figure import Figure

from benchirt.plotstyle import classifier_styles, guess_roles, label_line_ends


def test_twenty_real_classifiers_get_twenty_colours_and_artificial_ones_grey_dashes():
    real = [f"clf{i}" for i in range(20)]
    styles = classifier_styles(real + ["optimal", "random1"])
    colours = {matplotlib.colors.to_hex(styles[n]["color"]) for n in real}
    assert len(colours) == 20 and all(styles[n]["linestyle"] == "-" for n in real)
    for name in ("optimal", "random1"):
        r, g, b, _ = matplotlib.colors.to_rgba(styles[name]["color"])
        assert r == g == b and styles[name]["linestyle"] != "-"  # a grey, not solid
    assert guess_roles(["mlp", "mlp_e007", "majority"]) == {"mlp": "real", "mlp_e007": "ladder",
                                                            "majority": "artificial"}


def test_end_labels_are_spread_apart_on_normal_and_inverted_axes():
    for invert in (False, True):
        fig = Figure()
        ax = fig.add_subplot()
        ax.set_ylim(0, 1)
        if invert:
            ax.invert_yaxis()
        ends = {"a": 0.50, "b": 0.50, "c": 0.51, "d": 0.9, "e": 0.0, "f": 0.0}
        label_line_ends(ax, 1.0, ends, classifier_styles(list(ends)), fontsize=10)
        # one line of 10 pt text on axes of 0.77 x 4.8 in: 12 / (0.77 * 4.8 * 72) of the y range
        gap = 12 / (ax.get_position().height * 4.8 * 72)
        ys = sorted(t.xy[1] for t in ax.texts)
        assert len(ys) == 6 and min(b - a for a, b in zip(ys, ys[1:])) >= gap - 1e-9
        if invert:   # the bottom of the axes is y = 1: nothing runs below it
            assert max(ys) <= 1 - gap / 2 + 1e-9
        else:        # the labels at 0 are lifted inside the axes
            assert min(ys) >= gap / 2 - 1e-9
        assert {t.get_text() for t in ax.texts} == set(ends)

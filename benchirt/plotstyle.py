"""Line styles that keep ~20 classifiers apart in one figure, and labels written at the lines' ends.

Roles decide the look: each real classifier (what a reader compares) gets a solid, thick line in one of 20 distinct
colours (``tab20``, dark shades first, so the first ten are as far apart as ``tab10``); artificial classifiers are thin
dashed greys; the MLP epoch ladder is one colour ramp (early epochs light), read as a group. :func:`label_line_ends`
writes each name beside its line's end, spread apart, which reads more easily than a 20-entry legend.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

#: 20 colours: tab20's dark shades, then its light shades.
REAL_COLOURS = tuple(matplotlib.color_sequences["tab20"][i] for i in (*range(0, 20, 2), *range(1, 20, 2)))
_ARTIFICIAL_GREYS = ("0.15", "0.35", "0.5", "0.62", "0.72", "0.3", "0.55")
_ARTIFICIAL_DASHES = ("--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 2)), (0, (3, 3)), (0, (6, 2)))


def guess_roles(names: Sequence[str]) -> dict[str, str]:
    """``real`` / ``artificial`` / ``ladder`` from the pool's names (used when no roles are given)."""
    from benchirt.pool.artificial import ARTIFICIAL_NAMES

    def role(name: str) -> str:
        if name in ARTIFICIAL_NAMES:
            return "artificial"
        return "ladder" if name.startswith("mlp_") and name[4:].lstrip("e").isdigit() else "real"

    return {name: role(name) for name in names}


def classifier_styles(names: Sequence[str], *, roles: Mapping[str, str] | None = None) -> dict[str, dict]:
    """Keyword arguments for ``ax.plot`` per classifier (``color``, ``linestyle``, ``linewidth``, ``alpha``): real
    classifiers take :data:`REAL_COLOURS` in order (distinct up to 20, then repeated with a dotted line), artificial
    ones greys and dashes, ladder rungs a ramp."""
    roles = dict(roles) if roles is not None else guess_roles(names)
    styles: dict[str, dict] = {}
    real = [n for n in names if roles.get(n, "real") == "real"]
    artificial = [n for n in names if roles.get(n) == "artificial"]
    ladder = [n for n in names if roles.get(n) == "ladder"]
    for i, name in enumerate(real):
        styles[name] = {"color": REAL_COLOURS[i % 20], "linestyle": "-" if i < 20 else ":", "linewidth": 2.0,
                        "alpha": 1.0}
    for i, name in enumerate(artificial):
        styles[name] = {"color": _ARTIFICIAL_GREYS[i % 7], "linestyle": _ARTIFICIAL_DASHES[i % 7],
                        "linewidth": 1.1, "alpha": 0.9}
    ramp = matplotlib.colormaps["Purples"]
    for i, name in enumerate(ladder):
        styles[name] = {"color": ramp(0.3 + 0.6 * i / max(1, len(ladder) - 1)), "linestyle": "-",
                        "linewidth": 0.7, "alpha": 0.6}
    return styles


def label_line_ends(ax, x: float, ends: Mapping[str, float], styles: Mapping[str, dict],
                    *, fontsize: float = 10) -> None:
    """Write each name at ``(x, y)`` just right of the axes' data, in its line's colour, nudged apart by one
    line of text (the gap follows the font size and the axes' height); labels that would run below the
    axes, into the tick labels, are lifted, and only as far as needed."""
    low, high = ax.get_ylim()
    up = 1.0 if high > low else -1.0  # an inverted axis (ranks) has its smallest value on top
    axes_points = ax.get_position().height * ax.figure.get_figheight() * 72
    gap = 1.2 * fontsize / max(axes_points, 1.0) * abs(high - low)
    names = sorted(((up * float(y), name) for name, y in ends.items() if y == y), reverse=True)
    screens: list[float] = []
    for screen, _ in names:                                    # top down: one line apart
        screens.append(min(screen, screens[-1] - gap) if screens else screen)
    bottom = min(up * low, up * high) + gap / 2
    for i in range(len(screens) - 1, -1, -1):                  # bottom up: lift only what ran below the axes
        floor = bottom if i == len(screens) - 1 else screens[i + 1] + gap
        screens[i] = max(screens[i], floor)
    for screen, (_, name) in zip(screens, names):
        ax.annotate(name, xy=(x, up * screen), xytext=(4, 0), textcoords="offset points", va="center", ha="left",
                    fontsize=fontsize, color=styles.get(name, {}).get("color", "black"), annotation_clip=False)


def place_point_labels(ax, xs: Sequence[float], ys: Sequence[float], names: Sequence[str], *, fontsize: float = 10,
                       colors: Sequence | None = None) -> None:
    """Label scatter points without overlaps: each label goes to the first of 40 positions around its point (8
    directions, 5 distances) whose box meets no placed label nor point, else to the least crowded; a displaced label
    gets a thin leader line; the most crowded region is labelled first. Hand-written: matplotlib places annotations
    where told, with no collision avoidance. Set the axes' limits before calling (positions are measured on screen).
    """
    import numpy as np

    from benchirt.document.legibility import figure_renderer

    renderer = figure_renderer(ax.figure)
    points = ax.transData.transform(np.column_stack([xs, ys]))
    crowd = [np.sort(np.hypot(*(points - p).T))[1:3].sum() for p in points] if len(points) > 2 else [0.0] * len(points)
    directions = [(1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)]
    offsets = [(dx * d, dy * d) for d in (4, 16, 30, 46, 64) for dx, dy in directions]
    radius = 4.0  # the points' markers, in display pixels, are kept free of text
    placed: list = []  # the window extents of the names placed so far

    def annotate(k, dx, dy, **extra):
        return ax.annotate(names[k], (xs[k], ys[k]), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
                           ha="left" if dx > 0 else "right" if dx < 0 else "center",
                           va="bottom" if dy > 0 else "top" if dy < 0 else "center",
                           color=None if colors is None else colors[k], **extra)

    for k in np.argsort(crowd, kind="stable"):
        scored = []
        for dx, dy in offsets:
            text = annotate(k, dx, dy)
            box = text.get_window_extent(renderer)
            text.remove()
            hits = sum(box.overlaps(other) for other in placed) + sum(
                box.x0 - radius < px < box.x1 + radius and box.y0 - radius < py < box.y1 + radius for px, py in points)
            scored.append((hits, dx, dy, box))
            if hits == 0:
                break
        hits, dx, dy, box = min(scored, key=lambda entry: entry[0])
        far = abs(dx) > 4 or abs(dy) > 4
        annotate(k, dx, dy, **({"arrowprops": {"arrowstyle": "-", "color": "0.6", "lw": 0.5}} if far else {}))
        placed.append(box)

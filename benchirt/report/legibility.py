"""Text a reader can read in the report's figures: every label at least :data:`MIN_TEXT_PX` CSS pixels.

A figure of W inches saved at ``dpi`` is ``W * dpi`` pixels wide; the page shows it at most
:data:`CONTENT_WIDTH_PX` wide (the content column at a 1280 px window), so a label of ``s`` points is
``s * dpi / 72 * min(1, CONTENT_WIDTH_PX / (W * dpi))`` pixels on screen. :func:`render_legible` saves the
figure, measures that size for every visible text, enlarges the texts that fall short and saves again, until
all pass (a figure wider than the column keeps its width, so its fonts grow instead). :func:`overlapping_texts`
finds labels whose boxes intersect, for the tests. Hand-written: matplotlib has no notion of the size at which
a web page will show a figure.
"""
from __future__ import annotations

import io
import struct

#: Width in CSS pixels of the report's content column at a 1280 px browser window (``main`` is at most
#: 1200 px wide; the image's 1 px border on each side).
CONTENT_WIDTH_PX = 1198
#: Smallest text a figure may show, in CSS pixels at that width.
MIN_TEXT_PX = 10.0
#: Re-rendering rounds before giving up (enlarged labels can widen a tight bounding box once or twice).
_ROUNDS = 4


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height of a PNG from its header (IHDR)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])


def visible_texts(fig) -> list:
    """Every drawn, non-empty text of a figure (titles, labels, ticks, legends, annotations); tick labels
    outside their axis' view are left out (matplotlib keeps them but does not draw them)."""
    from matplotlib.text import Text

    hidden: set[int] = set()  # ids of the tick labels outside the axes' view
    for axes in fig.get_axes():
        for axis in (axes.xaxis, axes.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if not low - span <= tick.get_loc() <= high + span:
                    hidden.update((id(tick.label1), id(tick.label2)))
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def screen_scale(png_width: int) -> float:
    """Factor by which the page shrinks an image ``png_width`` pixels wide (1 when it fits the column)."""
    return min(1.0, CONTENT_WIDTH_PX / max(png_width, 1))


def render_legible(fig, dpi: float) -> bytes:
    """PNG bytes of ``fig`` in which every text is at least :data:`MIN_TEXT_PX` on screen (module docstring).

    Before the first save the texts too small even for a figure shown at full size (scale 1, the smallest
    size any figure needs) are enlarged: a save is most of a figure's cost, and the common figure that fits
    the column is then right the first time instead of the second.
    """
    _enlarge_small_texts(fig, dpi, 1.0)
    png = _save(fig, dpi)
    for _ in range(_ROUNDS):
        if not _enlarge_small_texts(fig, dpi, screen_scale(png_size(png)[0])):
            break
        png = _save(fig, dpi)
    return png


def _enlarge_small_texts(fig, dpi: float, scale: float) -> bool:
    """Enlarge the visible texts below :data:`MIN_TEXT_PX` at ``scale`` (with a 3 % margin); True if there were any."""
    needed = MIN_TEXT_PX * 72 / (dpi * scale)
    small = [t for t in visible_texts(fig) if t.get_fontsize() < needed * 0.999]
    for text in small:
        text.set_fontsize(needed * 1.03)
    return bool(small)


def overlapping_texts(fig, dpi: float, tolerance: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of visible texts whose boxes intersect by more than ``tolerance`` pixels each way."""
    from benchirt.plotstyle import figure_renderer

    fig.set_dpi(dpi)
    renderer = figure_renderer(fig)
    fig.draw(renderer)
    from matplotlib.text import Text

    # the text's own box: an annotation's box would also hold its leader line
    boxes = [(t.get_text(), Text.get_window_extent(t, renderer)) for t in visible_texts(fig)]
    pairs = []
    for i, (name_a, a) in enumerate(boxes):
        for name_b, b in boxes[i + 1:]:
            width = min(a.x1, b.x1) - max(a.x0, b.x0)
            height = min(a.y1, b.y1) - max(a.y0, b.y0)
            if width > tolerance and height > tolerance:
                pairs.append((name_a, name_b))
    return pairs


def _save(fig, dpi: float) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")  # labels outside the axes stay whole
    return buffer.getvalue()

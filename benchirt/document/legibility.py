"""Text a reader can read in the report's figures: every label at least :data:`MIN_TEXT_PX` CSS pixels.

A figure of W inches saved at ``dpi`` is ``W * dpi`` pixels wide; the page shows it at most :data:`CONTENT_WIDTH_PX`
wide, so a label of ``s`` points is ``s * dpi / 72 * min(1, CONTENT_WIDTH_PX / (W * dpi))`` pixels on screen.
:func:`legible_layout` lays the figure out (no pixel drawn), measures that size for every visible text, enlarges the
short ones and lays it out again until all pass (a figure wider than the column keeps its width, so its fonts grow);
:func:`save_laid_out` draws the PNG once from that last layout (``savefig`` alone would lay it out anew).
:func:`overlapping_texts` finds labels whose boxes intersect on the same layout. Hand-written: matplotlib has no notion
of the size at which a web page will show a figure.
"""
from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # matplotlib is imported when a figure is drawn
    from matplotlib.backend_bases import RendererBase
    from matplotlib.transforms import Bbox

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


@dataclass(frozen=True)
class Layout:
    """A figure laid out at some dpi: the renderer that measured it and the area the PNG keeps (the figure's
    tight bounding box plus ``savefig.pad_inches`` on each side, in inches — what ``bbox_inches="tight"``
    keeps: labels outside the axes stay whole)."""

    renderer: RendererBase
    saved: Bbox

    def width_px(self, dpi: float) -> float:
        """Width of the PNG :func:`save_laid_out` writes at ``dpi``."""
        return self.saved.width * dpi


def legible_layout(fig, dpi: float) -> Layout:
    """Enlarge ``fig``'s short texts until every one is at least :data:`MIN_TEXT_PX` on screen, measured on the figure
    laid out at ``dpi`` without rasterising it (:func:`laid_out`); returns the last layout, the figure's current one.

    Before the first layout every text (tick labels get their strings only when drawn, so empty ones too) is enlarged
    to what it needs at the page's own width — the least any layout can need — so a figure no wider than the page
    passes at once; the rounds then enlarge what a wider one still needs."""
    from matplotlib.text import Text

    _enlarge([t for t in fig.findobj(Text) if t.get_visible()], MIN_TEXT_PX * 72 / dpi)
    for _ in range(_ROUNDS):
        layout = laid_out(fig, dpi)
        if not _enlarge(visible_texts(fig), MIN_TEXT_PX * 72 / (dpi * screen_scale(round(layout.width_px(dpi))))):
            return layout
    return laid_out(fig, dpi)


def _enlarge(texts, needed: float) -> bool:
    """Set every text smaller than ``needed`` points to 3 % above it; whether any was."""
    small = [t for t in texts if t.get_fontsize() < needed * 0.999]
    for text in small:
        text.set_fontsize(needed * 1.03)
    return bool(small)


def laid_out(fig, dpi: float) -> Layout:
    """Lay ``fig`` out at ``dpi`` — every text placed, ticks made — without drawing a pixel."""
    from matplotlib import rcParams

    fig.set_dpi(dpi)
    renderer = figure_renderer(fig)
    fig.draw_without_rendering()
    return Layout(renderer, fig.get_tightbbox(renderer).padded(rcParams["savefig.pad_inches"]))


def overlapping_texts(fig, dpi: float, *, tolerance: float = 1.0,
                      layout: Layout | None = None) -> list[tuple[str, str]]:
    """Pairs of visible texts whose boxes intersect by more than ``tolerance`` pixels each way, on ``layout``
    (:func:`legible_layout`), or on one made here at ``dpi``."""
    from matplotlib.text import Text

    renderer = (layout or laid_out(fig, dpi)).renderer
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


def save_laid_out(fig, dpi: float, layout: Layout) -> bytes:
    """PNG bytes of ``fig`` at ``dpi``, cut to ``layout``'s saved area and drawn from that layout: the
    figure's layout engine is paused for the one draw, so the layout is not recomputed."""
    engine = fig.get_layout_engine()
    buffer = io.BytesIO()
    if engine is not None:
        fig.set_layout_engine("none")
    try:
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches=layout.saved)
    finally:
        if engine is not None:
            fig.set_layout_engine(engine)
    return buffer.getvalue()


def figure_renderer(fig):
    """The figure's renderer, attaching an Agg canvas to a bare ``matplotlib.figure.Figure`` first."""
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    return fig.canvas.get_renderer()

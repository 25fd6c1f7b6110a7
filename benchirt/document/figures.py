"""Figures in a report section: a matplotlib figure rendered legible (:func:`figure_block`), added or replaced by
a note when it cannot be drawn (:func:`add_figure`), and the size of a figure's field (:data:`FIGURE_TOP`)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Callable

from benchirt.document.page import Figure, Note, Section
from benchirt.humanize import short_name

#: Most classifiers a rating figure draws: a figure's height (and the rank and Nemenyi grids, k × k) grows
#: with the field; with hundreds of respondents (imported runs) the figures show the best and the tables all.
FIGURE_TOP = 30


def figure_block(fig, *, caption: str = "", dpi: int = 80) -> Figure:
    """Render a matplotlib figure to PNG bytes with every text legible in the page
    (:func:`benchirt.document.legibility.legible_layout`), its overlapping labels found on the layout drawn, and
    close it (the report keeps no open figures)."""
    import matplotlib.pyplot as plt

    from benchirt.document.legibility import legible_layout, overlapping_texts, save_laid_out, visible_texts

    try:
        layout = legible_layout(fig, dpi)
        sizes = [t.get_fontsize() * dpi / 72 for t in visible_texts(fig)]
        overlapping = tuple(overlapping_texts(fig, dpi, layout=layout))
        png = save_laid_out(fig, dpi, layout)
    finally:
        plt.close(fig)
    return Figure(png, caption, min(sizes, default=float("inf")), overlapping)


def add_figure(section: Section, make: Callable, caption: str, dpi: int) -> None:
    """Add a figure, or a note saying why it could not be drawn (the report never stops on a figure)."""
    try:
        section.add(figure_block(make(), caption=caption, dpi=dpi))
    except Exception as exc:  # noqa: BLE001 - one failing plot must not lose the whole report
        section.add(Note(f"figure '{caption}' could not be drawn: {type(exc).__name__}: {exc}"))


def figure_top(n_classifiers: int) -> int | None:
    """:data:`FIGURE_TOP` when the field is larger (the figure draws the best only), else None (every one)."""
    return FIGURE_TOP if n_classifiers > FIGURE_TOP else None


def top_caption(top: int | None) -> str:
    """What a caption adds when the figure draws the best ``top`` classifiers only."""
    return f" — the best {top} only; the tables list every classifier" if top else ""


def figure_names(names: Iterable) -> dict:
    """Each name as a figure labels it: shortened (:func:`benchirt.humanize.short_name`) unless two would then read
    the same (those keep their full names)."""
    short = {name: short_name(str(name)) for name in names}
    counts = Counter(short.values())
    return {name: label if counts[label] == 1 else name for name, label in short.items()}

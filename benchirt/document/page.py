"""A report as data — sections of paragraphs, tables and figures — and its two renderings.

:func:`render_html` writes one self-contained page: inline CSS, figures as base64 PNG data URIs, long tables folded in
``<details>`` with their CSV as a data URI, no script and no external asset, so the file can be mailed or archived
alone — except that, when the caller collects ``attachments``, a table whose CSV exceeds :data:`EMBED_CSV_BYTES` is a
linked file beside the page (``report-tables/``), which keeps a large field's page small. :func:`render_markdown` writes
the same text and tables (figures only in the HTML page).
"""
from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from typing import Union

import numpy as np
import pandas as pd

from benchirt.humanize import NAME_CHARS, human_value, short_name
from benchirt.safe_text import markdown_text, printable

#: Rows of a table shown in full; longer tables show their head and say how many rows they have.
MAX_TABLE_ROWS = 80  # CC18's 72 datasets fit
#: Tables longer than this are folded (HTML ``<details>``) with their CSV a click away.
FOLD_ROWS = 12
#: A folded table's CSV up to this size is embedded in the page; a larger one becomes an attachment when the caller
#: collects them (:func:`render_html`).
EMBED_CSV_BYTES = 64_000
#: Rows of a long table serialised first to tell whether its CSV could be embedded (:func:`_csv_link`).
HEAD_ROWS = 2_000
#: Attached tables longer than this are written gzip-compressed: a field's pairs of long flow names run to a GB as
#: plain text and compress about 16-fold.
GZIP_ROWS = 100_000
#: The folder, beside the page, of the attached CSVs.
ATTACHMENT_FOLDER = "report-tables"
#: Columns that hold respondents' names (data names): in the HTML page a name longer than :data:`NAME_CHARS` is
#: shortened in the middle (its start and its setup suffix kept) with the full name on hover (``title``); the
#: table's CSV, summary.md and the artifacts keep it whole. Imported flows' names run to hundreds of characters.
NAME_COLUMNS = ("classifier", "a", "b", "respondent", "flow_name", "algorithm", "Classifier")

#: Column headers for readers: words, units. Other snake_case names become words ("n_played" → "N played").
HEADERS = {
    "rd": "RD", "low": "Low (R − 2RD)", "high": "High (R + 2RD)", "n_played": "Matches",
    "separable_from_leader": "Separable from leader", "orders_rating_mean": "Mean rating over orders",
    "orders_rating_sd": "Rating sd over orders", "orders_rank_min": "Best rank over orders",
    "orders_rank_max": "Worst rank over orders", "orders_p_first": "First over orders (share, ties incl.)",
    "friedman_statistic": "Friedman χ²", "p_value": "p-value", "critical_difference": "Critical difference (ranks)",
    "n_datasets": "Size (datasets)", "kendall_tau": "Kendall τ", "kendall_tau_percentile": "τ percentile among random",
    "kendall_tau_p_value": "τ p-value (one-sided)", "kendall_tau_random_mean": "τ of random subsets (mean)",
    "kendall_tau_random_sd": "τ of random subsets (sd)", "separation_percentile": "Separation percentile",
    "separation_p_value": "Separation p-value", "pct_difficulty_gt": "Difficult items (%)",
    "pct_discrimination_gt": "Discriminating items (%)", "pct_guessing_gt": "Guessable items (%)",
    "pct_negative_discrimination": "Negative discrimination (%)", "lto_strength": "LTO strength (share)",
    "lto_weakness": "LTO weakness (share)", "mse": "MSE", "aucdf": "AUCDF", "auaec": "AUAEC", "aupec": "AUPEC",
    "seconds": "Seconds", "bt_rating": "Bradley–Terry rating", "bt_low": "BT low (2.5 %)",
    "bt_high": "BT high (97.5 %)", "rank_low": "Rank interval: best", "rank_high": "Rank interval: worst",
    "glicko_rating": "Glicko-2 rating", "glicko_rd": "Glicko-2 RD", "mean_rank": "Mean rank per dataset",
    "p_above_next": "P(above next)", "wilcoxon_p": "Wilcoxon p", "wilcoxon_p_holm": "Wilcoxon p (Holm)",
    "p_a_better": "P(a better)", "p_equivalent": "P(equivalent)", "p_b_better": "P(b better)",
    "mean_difference": "Mean difference (a − b)",
    "pairs_separated": "Real pairs separated (%)",
    "ability_sd": "Ability SD (real)", "accuracy_range": "Accuracy range (points)", "n_real": "Real classifiers",
    "true_score_rank": "True-Score rank", "accuracy_rank": "Accuracy rank", "places_apart": "Places apart",
    "no_information_missed": "No information, missed",
    "discrimination_low": "Discrimination low (95 %)", "discrimination_high": "Discrimination high (95 %)",
    "bt_difference": "BT difference (a − b)", "bt_separated": "Separated (primary verdict)",
    "separated": "Separated (primary verdict)", "statistic": "Signed-rank z (a − b)",
    "p_adjusted": "Adjusted p (primary)", "method": "Primary method", "alpha": "Family-wise α",
    "bt_difference_low": "BT difference low", "bt_difference_high": "BT difference high",
    "bt_critical_value": "BT critical value", "placed_by_model": "Placed by a model (not tested)",
}


def human_header(column) -> str:
    """The reader's name of a column (:data:`HEADERS`, else its words with a capital first letter)."""
    name = str(column)
    if name in HEADERS:
        return HEADERS[name]
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else name


@dataclass
class Paragraph:
    text: str


@dataclass
class Table:
    """A table; ``key`` columns first, the rest in their order. Headers go through :func:`human_header` unless
    ``human_headers`` is false (columns that are data names). Over :data:`FOLD_ROWS` rows the HTML page folds it and
    links its CSV."""

    frame: pd.DataFrame
    caption: str = ""
    index: bool = False
    key: tuple = ()
    human_headers: bool = True

    def shown(self) -> pd.DataFrame:
        """The frame as displayed: index as columns when asked, key columns first, human headers."""
        frame = self.frame.reset_index() if self.index else self.frame
        key = [c for c in self.key if c in frame.columns]
        frame = frame[key + [c for c in frame.columns if c not in key]]
        frame = frame.rename_axis(columns=None)
        return frame.rename(columns=human_header) if self.human_headers else frame

    def name_columns(self) -> list[str]:
        """The displayed headers of the columns that hold names (:data:`NAME_COLUMNS`)."""
        names = [c for c in (self.frame.reset_index() if self.index else self.frame).columns if c in NAME_COLUMNS]
        return [human_header(c) if self.human_headers else c for c in names]


@dataclass
class Figure:
    """A rendered figure: PNG bytes, a caption, the size of its smallest text in the PNG's own pixels
    (``text_px``; the page may show the image smaller, :mod:`benchirt.document.legibility`) and the pairs of
    its labels that overlap (``overlapping``). The matplotlib figure is closed once rendered."""

    png: bytes
    caption: str = ""
    text_px: float = float("inf")
    overlapping: tuple = ()


@dataclass
class Note:
    """Something the reader must know (a skipped stage, a figure that could not be drawn)."""

    text: str


Block = Union[Paragraph, Table, Figure, Note]


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, block: Block) -> "Section":
        self.blocks.append(block)
        return self


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1d2330;background:#fbfbfd}
header{background:#1f3a5f;color:#fff;padding:18px 32px}header h1{margin:0;font-size:1.6em}
header p{margin:4px 0 0;opacity:.85}
nav{position:sticky;top:0;background:#eef1f6;padding:8px 32px;border-bottom:1px solid #d5dbe5;z-index:2}
nav a{margin-right:16px;color:#1f3a5f;text-decoration:none;font-size:.92em}nav a:hover{text-decoration:underline}
main{padding:8px 32px 48px;max-width:1200px}section{margin-top:28px}
h2{border-bottom:2px solid #1f3a5f;padding-bottom:4px;color:#1f3a5f}
.wide{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:8px 0 4px;font-size:.86em}
th,td{border:1px solid #d5dbe5;padding:3px 8px;text-align:left}th{background:#eef1f6}
th,td:not(.n){overflow-wrap:anywhere}td.n{text-align:right;font-variant-numeric:tabular-nums}
.caption{font-size:.85em;color:#555;margin:2px 0 14px}
figure{margin:12px 0;display:inline-block;vertical-align:top;max-width:100%}
figure img{max-width:100%;border:1px solid #e1e5ec;background:#fff}
figcaption{font-size:.85em;color:#555}
p{white-space:pre-line;overflow-wrap:anywhere}.note{overflow-wrap:anywhere;background:#fff6e0;border-left:4px solid #e0a800;padding:6px 12px;margin:8px 0;white-space:pre-wrap}
details{margin:8px 0}summary{cursor:pointer;color:#1f3a5f;font-size:.92em}
#conclusions{background:#fff;border:2px solid #1f3a5f;border-radius:6px;padding:4px 18px 10px;margin-top:18px}
#conclusions p{font-size:1.02em;line-height:1.5}
"""


#: A cell holding a number (or an interval / percentage of numbers): right-aligned, text stays left.
#: A cell holding an OpenML run page (stored runs' provenance, :mod:`benchirt.stored_runs.report_sections`): made a link.
_OPENML_RUN_CELL = re.compile(r"<td>(https://www\.openml\.org/r/\d+)</td>")
_NUMBER_CELL = re.compile(r"<td>([-−+=]?\d[\d.,]*(?:e[-+]?\d+)?(?: ?%| – [-−]?\d[\d.,]*| ± \d[\d.,]*)?)</td>")


def render_html(title: str, subtitle: str, sections: list[Section], *,
                attachments: dict[str, pd.DataFrame] | None = None) -> str:
    """One HTML page (inline CSS, figures as data URIs, no scripts), self-contained unless ``attachments`` (a dict the
    caller writes beside the page as CSV): a folded table whose CSV exceeds :data:`EMBED_CSV_BYTES` is then added under
    ``report-tables/NN-<caption words>.csv`` and linked instead of embedded."""
    nav = "".join(f'<a href="#{s.id}">{_escape(s.title)}</a>' for s in sections)
    body = []
    for section in sections:
        parts = [f'<section id="{section.id}"><h2>{_escape(section.title)}</h2>']
        for block in section.blocks:
            parts.append(_html_block(block, attachments))
        parts.append("</section>")
        body.append("\n".join(parts))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_escape(title)}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<header><h1>{_escape(title)}</h1><p>{_escape(subtitle)}</p></header>"
        f"<nav>{nav}</nav><main>\n" + "\n".join(body) + "\n</main></body></html>\n"
    )


def _html_block(block: Block, attachments: dict[str, pd.DataFrame] | None = None) -> str:
    if isinstance(block, Paragraph):
        return f"<p>{_escape(block.text)}</p>"
    if isinstance(block, Note):
        return f'<div class="note">{_escape(block.text)}</div>'
    if isinstance(block, Figure):
        data = base64.b64encode(block.png).decode("ascii")
        alt = _escape(block.caption or "figure")
        size = f' data-text-px="{block.text_px:.2f}"' if block.text_px != float("inf") else ""
        size += f' data-overlapping-labels="{len(block.overlapping)}"'
        return (f'<figure><img alt="{alt}"{size} src="data:image/png;base64,{data}">'
                f"<figcaption>{_escape(block.caption)}</figcaption></figure>")
    shown = block.shown()
    frame, more = _clip(shown)
    cells = _format(frame).map(lambda v: _escape(v, quote=False) if isinstance(v, str) else v)
    for column in [c for c in block.name_columns() if c in cells.columns]:
        cells[column] = frame[column].map(_short_name)
    cells.columns = [_escape(str(c), quote=False) for c in cells.columns]   # a header may be a name from a file
    table = _NUMBER_CELL.sub(r'<td class="n">\1</td>', cells.to_html(index=False, border=0, escape=False, na_rep=""))
    table = _OPENML_RUN_CELL.sub(r'<td><a href="\1">\1</a></td>', table)
    caption = block.caption + (f" (first {MAX_TABLE_ROWS} of {len(shown)} rows)" if more else "")
    body = f'<div class="wide">{table}</div>' + (f'<p class="caption">{_escape(caption)}</p>' if caption else "")
    if len(shown) <= FOLD_ROWS:
        return body
    label = _escape(block.caption.split(".")[0] or "table")
    return (f'<details><summary>{label} — {len(shown)} rows (click to show) · '
            f'{_csv_link(shown, block.caption, attachments)}</summary>{body}</details>')


def _csv_link(shown: pd.DataFrame, caption: str, attachments: dict[str, pd.DataFrame] | None) -> str:
    """The link to a folded table's CSV: a data URI, or an attached file when large (:func:`render_html`). The CSV of
    the first :data:`HEAD_ROWS` rows is a prefix of the whole: when it alone exceeds :data:`EMBED_CSV_BYTES` the table
    is attached without serialising it here (it is written once, by :func:`benchirt.report.write_attachments`)."""
    if attachments is not None and len(shown) > HEAD_ROWS:
        if len(shown.head(HEAD_ROWS).to_csv(index=False).encode("utf-8")) > EMBED_CSV_BYTES:
            return _attached(shown, caption, attachments)
    data = shown.to_csv(index=False).encode("utf-8")
    if attachments is None or len(data) <= EMBED_CSV_BYTES:
        return f'<a download="table.csv" href="data:text/csv;base64,{base64.b64encode(data).decode("ascii")}">CSV</a>'
    return _attached(shown, caption, attachments)


def _attached(shown: pd.DataFrame, caption: str, attachments: dict[str, pd.DataFrame]) -> str:
    """Add ``shown`` to ``attachments`` under ``report-tables/NN-<caption words>.csv`` (``.csv.gz`` above
    :data:`GZIP_ROWS` rows); the link to it."""
    words = re.sub(r"[^a-z0-9]+", "-", caption.split(".")[0].lower()).strip("-")[:40] or "table"
    compressed = len(shown) > GZIP_ROWS
    name = f"{ATTACHMENT_FOLDER}/{len(attachments) + 1:02d}-{words}.csv" + (".gz" if compressed else "")
    attachments[name] = shown
    kind = "CSV, gzip" if compressed else "CSV"
    return f'<a href="{_escape(name)}">{kind} ({len(shown):,} rows, beside this page)</a>'


def _escape(text: str, quote: bool = True) -> str:
    """``text`` for HTML: control and format characters shown as escapes (:func:`benchirt.safe_text.printable`:
    a name's ESC byte would otherwise reach a terminal that prints the file), then :func:`html.escape`."""
    return html.escape(printable(text), quote=quote)


def _short_name(value) -> str:
    """An HTML cell for a name: shortened (:func:`short_name`) with the full name as its ``title``."""
    if not isinstance(value, str) or len(value) <= NAME_CHARS:
        return _escape(value, quote=False) if isinstance(value, str) else value
    return f'<span title="{_escape(value)}">{_escape(short_name(value))}</span>'


def render_markdown(title: str, subtitle: str, sections: list[Section]) -> str:
    """The report's text and tables as Markdown (pipe tables; figures are in the HTML page). Every text goes through
    :func:`~benchirt.safe_text.markdown_text`: names from the user's files are shown as written, never rendered."""
    lines = [f"# {markdown_text(title)}", "", markdown_text(subtitle), ""]
    for section in sections:
        lines += [f"## {markdown_text(section.title)}", ""]
        for block in section.blocks:
            if isinstance(block, Paragraph):
                lines += [markdown_text(block.text).replace("\n", "  \n"), ""]
            elif isinstance(block, Note):
                lines += ["> " + markdown_text(block.text).replace("\n", "\n> "), ""]
            elif isinstance(block, Table):
                shown = block.shown()
                frame, more = _clip(shown)
                lines += [markdown_table(_format(frame)), ""]
                caption = block.caption + (f" (first {MAX_TABLE_ROWS} of {len(shown)} rows)" if more else "")
                lines += [f"*{markdown_text(caption)}*", ""] if caption else []
    return "\n".join(lines).rstrip() + "\n"


def markdown_table(frame: pd.DataFrame, *, index: bool = False) -> str:
    """A pipe table (hand-written: pandas' ``to_markdown`` needs the optional ``tabulate`` package)."""
    if index:
        frame = frame.reset_index()
    header = [_cell(c) for c in frame.columns]
    rows = [[_cell(v) for v in row] for row in frame.itertuples(index=False)]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def _cell(value) -> str:
    text = "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)
    return markdown_text(text).replace("|", "\\|").replace("\n", " ")


def _clip(frame: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    return (frame.head(MAX_TABLE_ROWS), True) if len(frame) > MAX_TABLE_ROWS else (frame, False)


def _is_percentage(column) -> bool:
    """Whether a column holds percentages (``pct_*``, or a reader's header ending in ``(%)``): one decimal."""
    return str(column).startswith("pct_") or human_header(column).endswith("(%)")


def _is_probability_name(name: str) -> bool:
    """Whether a column name says probability or p-value (``p_*``, ``*_p``, ``*_p_holm``, ``*p_value``, ``*_p_*``)."""
    return name.startswith("p_") or name.endswith(("_p", "p_value", "_p_holm")) or "_p_" in name


def _is_probability(column) -> bool:
    """Whether a table column (its data name or its :data:`HEADERS` name) holds probabilities."""
    name = str(column)
    return _is_probability_name(name) or any(header == name and _is_probability_name(raw)
                                             for raw, header in HEADERS.items())


def _probability_cell(value: float) -> str:
    """Three decimals, never rounded to 1.000 or 0.000: "> 0.999" and "< 0.001" instead."""
    if value >= 0.9995:
        return "> 0.999"
    if value < 0.0005:
        return "< 0.001"
    return f"{value:.3f}"


def _format(frame: pd.DataFrame) -> pd.DataFrame:
    """Floats to 3 decimals (large numbers and percentages to 1) for reading, probabilities never shown as 1.000
    or 0.000 (:func:`_probability_cell`); codes in text columns as words
    (:func:`benchirt.humanize.human_value`); booleans as yes / no; other values as they are."""
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_bool_dtype(out[column]):
            out[column] = out[column].map({True: "yes", False: "no"})
            continue
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(human_value)
        if pd.api.types.is_float_dtype(out[column]):
            values = out[column]
            big = values.abs().max() >= 100 if values.notna().any() else False
            decimals = 1 if big or _is_percentage(column) else 3
            cell = _probability_cell if _is_probability(column) else (lambda v, d=decimals: f"{v:.{d}f}")
            out[column] = values.map(lambda v: "" if pd.isna(v) else cell(v))
    return out

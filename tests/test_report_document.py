"""Report rendering: self-contained HTML (parses, every image a data URI, no external asset) and Markdown."""
from __future__ import annotations

import base64
from html.parser import HTMLParser

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from benchirt.document.figures import figure_block
from benchirt.document.page import (
    MAX_TABLE_ROWS, Note, Paragraph, Section, Table, markdown_table, render_html, render_markdown,
)


class PageParser(HTMLParser):
    """Collects section ids, image sources, links to elsewhere and table counts."""

    def __init__(self):
        super().__init__()
        self.sections, self.images, self.external, self.tables, self.scripts = [], [], [], 0, 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs.get("id"))
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        if tag == "table":
            self.tables += 1
        if tag == "script":
            self.scripts += 1
        for name in ("href", "src"):
            value = attrs.get(name) or ""
            if value and not value.startswith(("#", "data:")):
                self.external.append(value)


def _sections():
    fig = MplFigure(figsize=(3, 2))
    fig.add_subplot().plot([0, 1], [1, 0])
    long = pd.DataFrame({"dataset": [f"d{i}" for i in range(MAX_TABLE_ROWS + 5)], "score": np.linspace(0, 1, MAX_TABLE_ROWS + 5)})
    return [
        Section("first", "First <section>").add(Paragraph("Line one\nline two & more")).add(
            Table(pd.DataFrame({"classifier": ["a|b", "c"], "rating": [1523.456, 1480.0]}), "Ratings.")),
        Section("second", "Second").add(figure_block(fig, caption="A line", dpi=40)).add(Note("careful")).add(Table(long, "Long.")),
    ]


def test_html_is_self_contained_and_parses():
    page = render_html("Title & co", "sub", _sections())
    parser = PageParser()
    parser.feed(page)
    assert parser.sections == ["first", "second"]
    assert parser.images and all(src.startswith("data:image/png;base64,") for src in parser.images)
    png = base64.b64decode(parser.images[0].split(",", 1)[1])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert parser.external == [] and parser.scripts == 0
    assert parser.tables == 2
    assert "Title &amp; co" in page and "First &lt;section&gt;" in page  # text is escaped
    assert f"first {MAX_TABLE_ROWS} of {MAX_TABLE_ROWS + 5} rows" in page


def test_markdown_has_text_tables_and_captions():
    text = render_markdown("Title", "sub", _sections())
    assert text.startswith("# Title\n")
    assert "## First &lt;section>" in text and "## Second" in text  # HTML shown as text in any Markdown viewer
    assert "Line one  \nline two & more" in text  # a hard line break
    assert "| a\\|b | 1523.5 |" in text  # pipes escaped, large floats to one decimal
    assert "> careful" in text
    assert "\n\n*Ratings.*\n" in text  # caption separated from the table by a blank line
    assert "data:image" not in text


def test_markdown_table_shape():
    table = markdown_table(pd.DataFrame({"x": [1, 2], "y": ["p", None]}))
    lines = table.splitlines()
    assert lines[0] == "| x | y |" and lines[1] == "|---|---|" and lines[3] == "| 2 |  |"


def test_long_tables_fold_with_a_csv_link_and_key_columns_come_first():
    from benchirt.document.page import FOLD_ROWS, human_header

    frame = pd.DataFrame({"orders_rank_max": range(FOLD_ROWS + 1), "classifier": [f"c{i}" for i in range(FOLD_ROWS + 1)],
                          "kendall_tau_p_value": np.linspace(0, 1, FOLD_ROWS + 1)})
    table = Table(frame, "Every pair. More text.", key=("classifier",))
    assert list(table.shown().columns) == ["Classifier", "Worst rank over orders", "τ p-value (one-sided)"]
    page = render_html("t", "s", [Section("s", "S").add(table).add(Table(frame.head(2), "Short."))])
    assert page.count("<details>") == 1 and f"Every pair — {FOLD_ROWS + 1} rows (click to show)" in page
    csv = page.split('href="data:text/csv;base64,')[1].split('"')[0]
    assert base64.b64decode(csv).decode().splitlines()[0] == "Classifier,Worst rank over orders,τ p-value (one-sided)"
    assert human_header("n_played") == "Matches" and human_header("some_new_column") == "Some new column"
    raw = Table(pd.DataFrame({"classifier": ["a"], "breast-w": [1.0], "credit_g": [2.0]}), human_headers=False)
    assert list(raw.shown().columns) == ["classifier", "breast-w", "credit_g"]  # data names stay as they are


def test_numbers_are_right_aligned_and_text_left():
    page = render_html("t", "s", _sections())
    assert '<td class="n">1523.5</td>' in page and "<td>a|b</td>" in page


def test_probability_columns_are_never_shown_as_one_or_zero():
    """A bootstrap share of 1.0 or a p-value of 1e-9 reads '> 0.999' / '< 0.001'; other floats keep 3 decimals."""
    frame = pd.DataFrame({"classifier": ["a", "b", "c"], "p_above_next": [1.0, 0.9994, np.nan],
                          "wilcoxon_p_holm": [1e-9, 0.5, 0.0004], "bt_low": [0.99999, 0.5, 0.0]})
    page = render_markdown("Run", "", [Section("t", "T", [Table(frame)])])
    rows = [line.split(" | ") for line in page.splitlines() if line.startswith("| a ") or line.startswith("| b ")
            or line.startswith("| c ")]
    assert [row[1] for row in rows] == ["> 0.999", "0.999", ""]
    assert [row[2].rstrip(" |") for row in rows] == ["< 0.001", "0.500", "< 0.001"]
    assert [row[3].rstrip(" |") for row in rows] == ["1.000", "0.500", "0.000"]   # not a probability column


def test_openml_run_pages_are_links_and_nothing_else_is():
    """Stored runs' provenance links each run's OpenML page (an anchor, not an asset); other text stays text."""
    frame = pd.DataFrame({"respondent": ["a", "b"], "openml_url": ["https://www.openml.org/r/1234", ""],
                          "note": ["https://example.org/x", "https://www.openml.org/r/12x"]})
    page = render_html("t", "s", [Section("runs", "Runs").add(Table(frame, "Provenance."))])
    parser = PageParser()
    parser.feed(page)
    assert parser.external == ["https://www.openml.org/r/1234"] and parser.images == []
    assert "<td>https://example.org/x</td>" in page and "<td>https://www.openml.org/r/12x</td>" in page


def test_booleans_read_as_yes_and_no_and_the_primary_columns_have_names():
    frame = pd.DataFrame({"a": ["mlp", "mlp"], "b": ["svc", "knn_2"], "bt_separated": [False, True]})
    text = render_markdown("t", "s", [Section("pairs", "Pairs").add(Table(frame, "Pairs."))])
    assert "| mlp | svc | no |" in text and "| mlp | knn_2 | yes |" in text
    assert "Separated (primary verdict)" in text and "False" not in text and "True" not in text


def test_percentages_show_at_most_one_decimal():
    """Percent columns (``pct_*``, headers ending in "(%)") read 33.3, other floats keep 3 decimals (issue 34)."""
    frame = pd.DataFrame({"dataset": ["a", "b"], "pct_difficulty_gt": [100 / 3, 4.25], "pairs_separated": [12.3456, 0.0],
                          "ability_sd": [0.12345, 1.0]})
    text = render_markdown("t", "s", [Section("irt", "IRT").add(Table(frame, "Shares."))])
    assert "| a | 33.3 | 12.3 | 0.123 |" in text and "| b | 4.2 | 0.0 | 1.000 |" in text


def test_a_large_tables_csv_is_attached_beside_the_page_and_a_small_ones_embedded(tmp_path):
    from benchirt.document.page import EMBED_CSV_BYTES
    from benchirt.report import write_attachments

    large = pd.DataFrame({"classifier": [f"=flow{i:06d}" for i in range(20_000)], "score": np.linspace(0, 1, 20_000)})
    small = large.head(20)
    sections = [Section("s", "S").add(Table(large, "Every flow. More.")).add(Table(small, "A few."))]
    attachments: dict = {}
    page = render_html("t", "s", sections, attachments=attachments)
    assert list(attachments) == ["report-tables/01-every-flow.csv"]
    assert 'href="report-tables/01-every-flow.csv">CSV (20,000 rows, beside this page)' in page
    assert page.count("data:text/csv;base64,") == 1
    assert len(large.to_csv(index=False)) > EMBED_CSV_BYTES > len(small.to_csv(index=False))
    (tmp_path / "report-tables").mkdir()
    (tmp_path / "report-tables" / "09-old.csv").write_text("stale")
    write_attachments(tmp_path, attachments)
    written = pd.read_csv(tmp_path / "report-tables" / "01-every-flow.csv")
    assert len(written) == 20_000 and written["Classifier"].iloc[0] == "'=flow000000"   # spreadsheet-safe
    assert sorted(p.name for p in (tmp_path / "report-tables").iterdir()) == ["01-every-flow.csv"]
    assert render_html("t", "s", sections).count("data:text/csv;base64,") == 2   # no attachments: all embedded


def test_a_table_whose_first_rows_already_exceed_the_embed_limit_is_attached_unserialised(monkeypatch):
    from benchirt.document.page import EMBED_CSV_BYTES, HEAD_ROWS

    wide = pd.DataFrame({"a": [f"flow-{'x' * 60}-{i}" for i in range(5 * HEAD_ROWS)], "wins": 1})
    assert len(wide.head(HEAD_ROWS).to_csv(index=False)) > EMBED_CSV_BYTES
    serialised: list[int] = []
    original = pd.DataFrame.to_csv
    monkeypatch.setattr(pd.DataFrame, "to_csv", lambda self, *a, **k: serialised.append(len(self)) or original(self, *a, **k))
    attachments: dict = {}
    page = render_html("t", "s", [Section("s", "S").add(Table(wide, "Every pair."))], attachments=attachments)
    assert "CSV (10,000 rows, beside this page)" in page and list(attachments) == ["report-tables/01-every-pair.csv"]
    assert max(serialised) == HEAD_ROWS          # only the head was written to decide


def test_a_very_long_attached_table_is_written_gzip_compressed_and_reads_back(tmp_path, monkeypatch):
    import benchirt.document.page as page_module
    from benchirt.report import write_attachments

    monkeypatch.setattr(page_module, "GZIP_ROWS", 3_000)
    long = pd.DataFrame({"a": [f"=flow-{'x' * 60}-{i}" for i in range(4_000)], "wins": np.arange(4_000)})
    attachments: dict = {}
    page = render_html("t", "s", [Section("s", "S").add(Table(long, "Every pair."))], attachments=attachments)
    assert "CSV, gzip (4,000 rows, beside this page)" in page
    assert list(attachments) == ["report-tables/01-every-pair.csv.gz"]
    (tmp_path / "report-tables").mkdir()
    (tmp_path / "report-tables" / "07-old.csv.gz").write_bytes(b"stale")
    write_attachments(tmp_path, attachments)
    first = (tmp_path / "report-tables" / "01-every-pair.csv.gz").read_bytes()
    monkeypatch.setattr("time.time", lambda: 2_000_000_000.0)          # a rerun, later, writes the same bytes
    write_attachments(tmp_path, attachments)
    assert (tmp_path / "report-tables" / "01-every-pair.csv.gz").read_bytes() == first
    back = pd.read_csv(tmp_path / "report-tables" / "01-every-pair.csv.gz")
    assert back.iloc[:, 1].tolist() == list(range(4_000)) and back.iloc[0, 0].startswith("'=flow")
    assert [p.name for p in (tmp_path / "report-tables").iterdir()] == ["01-every-pair.csv.gz"]

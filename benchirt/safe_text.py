"""Names from the user's files and configs, made safe to print to a terminal or write into Markdown.

A classifier, dataset or column name from a config or data file can hold anything: a terminal escape
(``\\x1b]0;title\\x07`` sets the window title), a bidirectional override that makes text read backwards, or HTML
(``<img src=x onerror=alert(1)>``) a Markdown viewer would render. :func:`printable` replaces every control and format
character (Unicode Cc and Cf; line breaks and tabs kept) by its visible escape; :func:`markdown_text` also writes a
``<`` that could open an HTML tag, comment or autolink (before a letter, ``/``, ``!`` or ``?``: CommonMark's rules) as
``&lt;`` (``P < 0.01`` stays), and escapes a ``]`` followed by ``(``, ``[`` or ``:``, so no link or image can be
formed from a name (an interval ``[0.2, 0.4]`` stays). The HTML report escapes through :func:`html.escape` already.

A name that identifies a respondent is data compared across datasets and stages, so one that differs from what it
looks like is refused where it enters (:func:`name_problem`, used by
:func:`benchirt.stored_runs.matrices.read_matrix_csv`, :func:`benchirt.irt.matrix_file.read_responses_csv` and
:func:`benchirt.rating.scores.validate_scores`): a leading or trailing space, a control or format character, or more
than :data:`MAX_NAME_LENGTH` characters.
"""
from __future__ import annotations

import re
import unicodedata

#: The most characters a name (respondent, item, classifier, dataset, flow) read from a file may have: longer
#: ones are refused before a reader copies them into its tables; shorter long ones are shown cut in the middle
#: (:func:`benchirt.humanize.short_name`) and kept whole in the CSVs (OpenML's longest flow names in the shared
#: stored runs have 519 characters; peak memory: ``python benchmarks/junk_input.py --part names``).
MAX_NAME_LENGTH = 65_536
#: Whitespace control characters that text keeps.
_KEPT = frozenset("\n\t")
#: A ``<`` that Markdown could read as the start of raw HTML or an autolink.
_MARKUP_START = re.compile(r"<(?=[A-Za-z/!?])")
#: A ``]`` (with any backslashes before it) that CommonMark could read as the end of a link's text: followed by
#: ``(`` (inline link or image), ``[`` (reference link) or ``:`` (link reference definition).
_LINK_CLOSE = re.compile(r"(\\*)\](?=[(\[:])")


def printable(text: object) -> str:
    """``str(text)`` with control and format characters shown as escapes (``\\x1b``), line breaks and tabs kept."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch in _KEPT or unicodedata.category(ch) not in ("Cc", "Cf") else _escape(ch) for ch in text)


def markdown_text(text: object) -> str:
    """:func:`printable` text whose ``<`` before a letter, ``/``, ``!`` or ``?`` is ``&lt;`` and whose ``]`` that
    could close a link's text is escaped: shown as written in any Markdown viewer, never rendered as HTML or
    as a link (a name ``[x](javascript:alert(1))`` is no live link)."""
    return _LINK_CLOSE.sub(_escaped_bracket, _MARKUP_START.sub("&lt;", printable(text)))


def _escaped_bracket(match: re.Match) -> str:
    """``\\]``, the backslashes before it doubled (each shown as written, none escaping the bracket)."""
    return match.group(1) * 2 + "\\]"


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a respondent, flow or classifier (a phrase such as ``"ends with a space"``), or None.

    Examples
    --------
    >>> name_problem("x ") , name_problem("svm\\x07"), name_problem("x" * 1025), name_problem("weka.J48(1)")
    ('ends with a space', 'holds the control character \\\\x07', 'is 1,025 characters long, more than the 1,024 a name may have', None)
    """
    if len(name) > MAX_NAME_LENGTH:
        return f"is {len(name):,} characters long, more than the {MAX_NAME_LENGTH:,} a name may have"
    control = next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Cf")), None)
    if control is not None:
        return f"holds the control character {_escape(control)}"
    if not name.strip():
        return "is empty"
    if name != name.lstrip():
        return "begins with a space"
    if name != name.rstrip():
        return "ends with a space"
    return None

"""Names from the user's files and configs, made safe to print to a terminal or write into Markdown.

A classifier, dataset or column name comes from a config or a data file and can hold anything: a
terminal escape sequence (``\\x1b]0;title\\x07`` sets the window title, ``\\x1b[2J`` clears the screen),
a bidirectional-override character that makes text read backwards, or HTML (``<img src=x
onerror=alert(1)>``) that a Markdown viewer would render as markup. :func:`printable` replaces every
control and format character (Unicode categories Cc and Cf, line breaks and tabs kept) by its visible
escape (``\\x1b``, ``\\u202e``); :func:`markdown_text` also writes a ``<`` that could open an HTML tag,
comment or autolink (followed by a letter, ``/``, ``!`` or ``?``: CommonMark's raw-HTML and autolink rules) as
``&lt;``, which every Markdown renderer shows as ``<``; a ``<`` in a sentence such as ``P < 0.01`` stays as it is,
so the raw file reads as it renders. It escapes a ``]`` followed by ``(``, ``[`` or ``:`` (``\\]``), so no link,
image or link definition can be formed from a name (``[x](javascript:alert(1))``); an interval ``[0.2, 0.4]``
stays as written. The HTML report escapes through :func:`html.escape` already.
"""
from __future__ import annotations

import re
import unicodedata

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

"""Open a report in a real headless browser: the checks of the browser test and the docs screenshots.

Chromium is driven through Playwright (``pip install playwright``; the system's browser, never a download of
Playwright's own). Both are optional: :func:`find_browser` says what is missing, and the test skips with that reason.

Usage (not run as a doctest)::

    from benchirt.report.browser import check_page
    check_page("runs/default/report.html").problems()      # [] when the page is fine
"""
from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchirt.errors import BenchirtError

#: Browser executables tried in order (``$BENCHIRT_BROWSER`` first when set).
BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")

# Every element whose box ends right of the viewport (1 px of rounding allowed); elements inside a
# scrolling container are measured by that container, which is what the reader sees.
_TOO_WIDE_JS = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = e => { for (let p = e.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p); if (s.overflowX === 'auto' || s.overflowX === 'scroll' || s.overflowX === 'hidden') return true; }
    return false; };
  return [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > width + 1 && !clipped(e))
    .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' (' + Math.round(e.getBoundingClientRect().right) + ' px)');
}"""
# Per figure, the on-screen size of its smallest text: the PNG's own text size (data-text-px, written by the
# report) times the factor the page scales the image by (displayed width / natural width).
_FIGURE_TEXT_JS = """() => [...document.images].filter(i => i.dataset.textPx && i.naturalWidth > 0)
  .map(i => [i.alt, parseFloat(i.dataset.textPx) * i.getBoundingClientRect().width / i.naturalWidth])"""
# Every table wider than the section (the card) holding it: it makes the reader scroll sideways inside the card.
_WIDE_TABLES_JS = """() => [...document.querySelectorAll('section table')]
  .map(t => [t.closest('section'), t]).filter(([s, t]) => t.getBoundingClientRect().width > s.clientWidth + 1)
  .map(([s, t]) => s.id + ': ' + ((t.querySelector('th') || {}).textContent || 'table') + ' ('
       + Math.round(t.getBoundingClientRect().width) + ' px in ' + s.clientWidth + ' px)')"""
_BROKEN_IMAGES_JS = """() => [...document.images]
  .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt || i.src.slice(0, 40))"""


class BrowserUnavailable(BenchirtError):
    """No headless browser (or no Playwright) on this machine."""


@dataclass
class PageCheck:
    """What a browser saw on a page at a given viewport width."""

    width: int
    console_errors: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    images: int = 0
    too_wide: list[str] = field(default_factory=list)
    wide_tables: list[str] = field(default_factory=list)
    page_width: int = 0
    has_conclusions: bool = False
    first_section: str = ""
    figure_text_px: list[tuple[str, float]] = field(default_factory=list)
    min_text_px: float = 10.0

    def problems(self) -> list[str]:
        """Every defect found, as sentences (empty when the page is fine)."""
        out = [f"console error: {e}" for e in self.console_errors]
        out += [f"image not decoded: {i}" for i in self.broken_images]
        if self.page_width > self.width:
            out.append(f"page is {self.page_width} px wide at a {self.width} px viewport")
        out += [f"wider than the {self.width} px viewport: {e}" for e in self.too_wide]
        out += [f"table wider than its section: {t}" for t in self.wide_tables]
        out += [f"figure text {size:.1f} px (< {self.min_text_px:g} px) on screen: {alt}"
                for alt, size in self.figure_text_px if size < self.min_text_px - 0.05]
        if not self.has_conclusions:
            out.append("no conclusions block (section#conclusions)")
        return out


def find_browser() -> str:
    """Path of a usable Chromium, checking that Playwright is installed too; BrowserUnavailable saying what is missing
    and how to install it."""
    if importlib.util.find_spec("playwright") is None:
        raise BrowserUnavailable("Playwright is not installed (pip install playwright)")
    wanted = [os.environ["BENCHIRT_BROWSER"]] if os.environ.get("BENCHIRT_BROWSER") else list(BROWSERS)
    for name in wanted:
        path = shutil.which(name) or (name if Path(name).is_file() else None)
        if path:
            return path
    raise BrowserUnavailable(f"no headless browser found (looked for {', '.join(wanted)}); on Debian: "
                             "apt-get install chromium-headless-shell, or set BENCHIRT_BROWSER")


def check_page(path: str | os.PathLike, *, width: int = 1280, height: int = 800,
               screenshot: str | os.PathLike | None = None,
               screens: Sequence[str | os.PathLike] = ()) -> PageCheck:
    """Load ``path`` in headless Chromium at ``width`` × ``height`` and record what went wrong.

    With ``screenshot``, the first screen is also saved there as PNG; ``screens`` saves the first, second, …
    screen (``height`` pixels each, from the top of the page) to the paths given.
    """
    from playwright.sync_api import sync_playwright

    executable = find_browser()
    check = PageCheck(width=width)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.on("console", lambda message: check.console_errors.append(message.text)
                    if message.type == "error" else None)
            page.on("pageerror", lambda error: check.console_errors.append(str(error)))
            page.goto(Path(path).resolve().as_uri(), wait_until="load")
            check.images = page.evaluate("() => document.images.length")
            check.broken_images = page.evaluate(_BROKEN_IMAGES_JS)
            check.too_wide = page.evaluate(_TOO_WIDE_JS)
            check.wide_tables = page.evaluate(_WIDE_TABLES_JS)
            check.figure_text_px = [tuple(pair) for pair in page.evaluate(_FIGURE_TEXT_JS)]
            check.page_width = page.evaluate("() => document.documentElement.scrollWidth")
            check.has_conclusions = page.query_selector("section#conclusions") is not None
            check.first_section = page.evaluate(
                "() => (document.querySelector('main section') || {}).id || ''")
            if screenshot is not None:
                page.screenshot(path=str(screenshot))
            for k, target in enumerate(screens):
                page.screenshot(path=str(target), full_page=True,
                                clip={"x": 0, "y": k * height, "width": width, "height": height})
        finally:
            browser.close()
    return check

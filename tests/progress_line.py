"""One progress line instead of a screen of dots, under ``-q`` (the README's ``python -m pytest -q``).

On a terminal the line is rewritten in place (``[1234/2220]  55 %  3:10``, minutes:seconds); in a log (CI, a pipe) a line is
printed at every tenth of the tests, so the log stays short. A failure or an error is printed on its own line
as soon as it happens (``FAILED tests/test_x.py::test_y``); the summary at the end is pytest's own (``-ra``).
Without ``-q``, or with ``-p no:progress_line``, pytest's output is unchanged.
"""
from __future__ import annotations

import time

import pytest

STEPS = 10          # lines in a log: one at every tenth of the tests
REFRESH = 0.25      # seconds between two rewrites of the terminal line


class ProgressLine:
    def __init__(self, reporter) -> None:
        self.reporter = reporter
        self.total = 0
        self.done = 0
        self.failed = 0
        self.start = time.monotonic()
        self.shown = 0.0      # when the terminal line was last written
        self.step = 0         # the last tenth printed in a log
        self.tty = bool(reporter.isatty)   # a bool in pytest 8, a callable bool in 9
        self.on_line = False  # the terminal line is written and not yet ended

    def text(self) -> str:
        width = len(str(self.total))
        percent = 100 * self.done // self.total if self.total else 100
        seconds = int(time.monotonic() - self.start)
        failed = f", {self.failed} failed" if self.failed else ""
        return f"[{self.done:{width}d}/{self.total}] {percent:3d} %  {seconds // 60}:{seconds % 60:02d}{failed}"

    def show(self, force: bool = False) -> None:
        if self.tty:
            now = time.monotonic()
            if force or now - self.shown >= REFRESH:
                self.reporter.rewrite(self.text(), erase=True)
                self.shown, self.on_line = now, True
        elif self.total and (self.done * STEPS // self.total > self.step or force):
            self.step = self.done * STEPS // self.total
            self.reporter.write_line(self.text())

    def end_line(self) -> None:
        if self.on_line:
            self.reporter.write("\n")
            self.on_line = False

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session) -> None:
        self.total = len(session.items)
        self.start = time.monotonic()

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report, config):
        category, _letter, word = yield
        return category, "", word   # no dot: the line says how far the suite is

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.failed += 1
            self.end_line()
            where = "" if report.when == "call" else f" (at {report.when})"
            self.reporter.write_line(f"{'FAILED' if report.when == 'call' else 'ERROR'} {report.nodeid}{where}",
                                     red=True)

    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        self.done += 1
        self.show(force=self.done == self.total)
        if self.done == self.total:
            self.end_line()


@pytest.hookimpl(trylast=True)
def pytest_configure(config) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or config.get_verbosity() >= 0 or config.getoption("collectonly", False):
        return
    if hasattr(reporter, "_show_progress_info"):
        reporter._show_progress_info = False   # the " [ 45%]" pytest writes at the end of each row of dots
    config.pluginmanager.register(ProgressLine(reporter), "progress-line")

"""Warnings raised while the report is drawn (matplotlib's) stay off the console and are said in the report
(issue 34 item 6)."""
from __future__ import annotations

import pytest
import yaml

import benchirt.report as report
from benchirt.cli import main
from benchirt.report import build_report
from benchirt.document.figures import figure_block
from benchirt.document.page import Section


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("warned")
    config = folder / "study.yaml"
    config.write_text(yaml.safe_dump({"suite": "builtin:iris", "stages": ["respond", "report"],
                                      "responses": {"pool": ["gaussian_nb", "knn_3"], "ladder_epochs": 0,
                                                    "cv_folds": 3}, "execution": {"n_jobs": 1}}))
    assert main(["run", str(config), "--out", str(folder / "run"), "--quiet"]) == 0
    return folder / "run"


def _a_figure_matplotlib_warns_about():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 2))
    for _ in range(2):
        fig.add_subplot().set_xlim(1, 1)  # "Attempting to set identical low and high xlims …", twice
    return Section("odd", "An odd figure", [figure_block(fig, caption="Singular limits.", dpi=30)])


def test_matplotlib_warnings_while_drawing_stay_off_the_console_and_are_listed(small_run, monkeypatch, capfd):
    real = report.report_sections
    monkeypatch.setattr(report, "report_sections",
                        lambda results, config: [*real(results, config=config), _a_figure_matplotlib_warns_about()])
    capfd.readouterr()
    with _no_warning_escapes():
        paths = build_report(small_run)
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""
    summary = paths["markdown"].read_text(encoding="utf-8")
    section = summary.split("## Warnings while drawing the report", 1)[1]
    assert "2 warning(s) while the figures and tables were drawn, kept off the console: UserWarning: Attempting to " \
           "set identical low and high xlims makes transformation singular; automatically expanding. (×2)" in section


def test_a_report_drawn_without_warnings_has_no_warnings_section(small_run):
    summary = build_report(small_run)["markdown"].read_text(encoding="utf-8")
    assert "Warnings while drawing" not in summary


class _no_warning_escapes:
    """Fails when a warning leaves :func:`build_report` (the report must catch them all)."""

    def __enter__(self):
        import warnings

        self._catcher = warnings.catch_warnings(record=True)
        self.caught = self._catcher.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._catcher.__exit__(*exc)
        assert [str(w.message) for w in self.caught] == []

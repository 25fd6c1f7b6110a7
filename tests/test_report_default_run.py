"""The default study end to end — the embedded suite through every stage, AIRT included — and its
report: conclusions first, the AIRT section, the subsets' verdict; then the page in a real browser.

The default-suite run keeps the packaged config (suite, stages, IRT, cuts) but uses a smaller pool,
3 folds and a short ladder so that it takes seconds; ``-m slow`` runs the packaged config unchanged.
"""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
import yaml

from benchirt.cli import main
from benchirt.pipeline.config import load_config

ROOT = Path(__file__).resolve().parents[1]
FAST = {
    "responses": {"cv_folds": 3, "ladder_epochs": 10,
                  "pool": ["gaussian_nb", "knn_3", "decision_tree", "random_forest_5", "svc"]},
    "rating": {"n_permutations": 20},
    "subsets": {"n_random": 10, "n_permutations": 5},
    "report": {"max_dataset_plots": 2},
}


def _run(config: dict, out: Path) -> tuple[int, str]:
    path = out.parent / f"{out.name}.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
        code = main(["run", str(path), "--out", str(out), "--quiet"])
    return code, stdout.getvalue()


@pytest.fixture(scope="module")
def default_run(tmp_path_factory) -> Path:
    packaged = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    config = {**packaged, **{k: {**packaged.get(k, {}), **v} for k, v in FAST.items()}}
    out = tmp_path_factory.mktemp("default") / "run"
    code, _ = _run(config, out)
    assert code == 0
    return out


def _sections(markdown: str) -> list[str]:
    return re.findall(r"^## (.+)$", markdown, flags=re.M)


def _assert_whole_mission(out: Path) -> None:
    summary = (out / "summary.md").read_text()
    assert _sections(summary)[0] == "Conclusions"
    assert "AIRT (algorithm portfolio)" in _sections(summary)
    conclusions = summary.split("## ", 2)[1]
    for claim in ("Leaderboard (Bradley–Terry over all 12 datasets", "Pairwise Wilcoxon signed-rank tests",
                  "Glicko-2 (decodIRT's tournament, one order) leader" if "No single leader" not in conclusions
                  else "No single leader", "Friedman test on true score", "Most informative datasets — the ones whose test items tell the",
                  "Do IRT-filtered subsets beat random subsets? ", "AIRT (datasets as respondents)"):
        assert claim in conclusions
    assert "Not in this report" not in conclusions
    assert "Stages: respond, irt, rate, subset, airt." in summary   # the pipeline's order, not alphabetical
    page = (out / "report.html").read_text()
    overlaps = re.findall(r'data-overlapping-labels="(\d+)"', page)
    assert len(overlaps) >= 10 and set(overlaps) == {"0"}                 # no figure has overlapping labels
    assert min(float(v) for v in re.findall(r'data-text-px="([\d.]+)"', page)) >= 10 - 0.01
    assert page.index('id="conclusions"') < page.index('id="overview"') < page.index('id="airt"')


def test_default_config_runs_every_stage_on_the_embedded_suite(default_run):
    config = load_config(None)
    assert config.suite == "embedded" and "airt" in config.stages
    _assert_whole_mission(default_run)


def test_a_run_without_airt_says_why_in_the_conclusions(tmp_path):
    """A 2PL run of three small embedded datasets without subsets and AIRT: the conclusions name what is
    missing and why, and no text speaks of a 3PL."""
    packaged = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    config = {**packaged, **{k: {**packaged.get(k, {}), **v} for k, v in FAST.items()},
              "suite": {"suite": "embedded", "include": ["iris", "wine", "kyphosis"]},
              "stages": ["respond", "irt", "rate", "report"], "irt": {"model": "2PL"}}
    out = tmp_path / "no-airt"
    code, _ = _run(config, out)
    assert code == 0
    summary = (out / "summary.md").read_text()
    conclusions = summary.split("## ", 2)[1]
    assert "Not in this report: AIRT (algorithm portfolio) — the stage 'airt' is not in the config's stages." \
        in conclusions
    assert "Not in this report: benchmark subsets" in conclusions
    assert "Most informative datasets — the ones whose test items tell the 5 real classifiers apart" in conclusions
    # only the model-comparison section, which fits all three models side by side, may name the 3PL
    assert [part[:40] for part in summary.split("\n## ") if "3PL" in part] == ["IRT model fit\n\nMarginal log-likelihood, "]


def test_report_renders_in_a_headless_browser(default_run, tmp_path):
    from benchirt.report.browser import BrowserUnavailable, check_page, find_browser

    try:
        find_browser()
    except BrowserUnavailable as exc:
        pytest.skip(f"browser test skipped: {exc}")
    check = check_page(default_run / "report.html", width=1280, screenshot=tmp_path / "first.png")
    assert check.problems() == []
    assert check.images >= 10 and check.first_section == "conclusions"
    assert (tmp_path / "first.png").read_bytes().startswith(b"\x89PNG")


def test_browser_check_catches_a_broken_page(tmp_path):
    """The check is not vacuous: a script error, an undecodable image and an overwide block are all found."""
    from benchirt.report.browser import BrowserUnavailable, check_page, find_browser

    try:
        find_browser()
    except BrowserUnavailable as exc:
        pytest.skip(f"browser test skipped: {exc}")
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (2400, 100), "white").save(buffer, format="PNG")   # shown at half its width
    wide = base64.b64encode(buffer.getvalue()).decode("ascii")
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><img alt="bad" src="data:image/png;base64,AAAA">'
                    f'<main style="max-width:1200px"><img alt="tiny" data-text-px="16" style="max-width:100%" '
                    f'src="data:image/png;base64,{wide}"></main>'
                    '<div style="width:3000px">wide</div><script>undefinedFunction()</script></body></html>')
    problems = check_page(page).problems()
    assert any("console error" in p and "undefinedFunction" in p for p in problems)
    assert "image not decoded: bad" in problems
    assert any(p.startswith("wider than the 1280 px viewport: div") for p in problems)
    assert "no conclusions block (section#conclusions)" in problems
    assert "figure text 8.0 px (< 10 px) on screen: tiny" in problems       # 16 px in the PNG, shown at 1200/2400


@pytest.mark.slow
def test_packaged_default_run_unchanged(tmp_path):
    """`benchirt run` exactly as shipped (about a minute on 2 cores)."""
    code, stdout = _run(yaml.safe_load((ROOT / "configs" / "default.yaml").read_text()), tmp_path / "run")
    assert code == 0, stdout
    _assert_whole_mission(tmp_path / "run")


def test_one_time_statement_for_the_default_run():
    """README, the packaged config and `benchirt run --help` say the same, from benchmarks/report_screenshots.py."""
    from benchirt.pipeline.command import RUN_DESCRIPTION

    statement = "under a minute on 2 cores"
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert statement in readme and "39–48 s wall" in readme and "benchmarks/report_screenshots.py" in readme
    assert statement.capitalize() in (ROOT / "configs" / "default.yaml").read_text()
    assert statement in " ".join(RUN_DESCRIPTION.split())

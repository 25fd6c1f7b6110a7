"""Issue 44, item 7: the residue — terminal escapes in report.html, spreadsheet formulas in CSVs, a one-dataset
caption, the progress bar's warning in notebooks, the docs' own output folders in git (docs/bad-inputs.md)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.io import atomic_write_csv
from benchirt.document.page import Figure, Note, Paragraph, Section, Table, render_html

ROOT = Path(__file__).resolve().parents[1]
EVIL = "evil\x1b]0;pwned\x07\x1b[2J"


def test_report_html_holds_no_control_byte_from_a_name():
    table = Table(pd.DataFrame({"classifier": [EVIL, EVIL + "x" * 60], EVIL: [1.0, 2.0]}), f"caption {EVIL}")
    section = Section("s", f"title {EVIL}", [Paragraph(f"text {EVIL}"), Note(f"note {EVIL}"), table,
                                             Figure(b"\x89PNG", caption=f"figure {EVIL}")])
    page = render_html(f"report {EVIL}", f"subtitle {EVIL}", [section])
    assert re.findall(r"[\x00-\x08\x0b-\x1f\x7f]", page) == []
    assert page.count("evil\\x1b]0;pwned\\x07\\x1b[2J") >= 10   # every place shows the escape as text


def test_csv_cells_a_spreadsheet_would_run_get_a_quote_and_numbers_stay(tmp_path):
    frame = pd.DataFrame({"name": ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR",
                                   "-0.5", "mlp", "a=b"],
                          "score": [-1.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], "=head": range(9)},
                         index=pd.Index(["-x", "b", "c", "d", "e", "f", "g", "h", "i"], name="row"))
    frame = frame.astype({"name": object})
    path = tmp_path / "table.csv"
    atomic_write_csv(path, frame, index=True)
    assert b"\n'-x," in path.read_bytes() and b"\nf,'\rCR," in path.read_bytes()
    read = pd.read_csv(path, index_col="row", keep_default_na=False, lineterminator="\n")
    assert list(read.columns) == ["name", "score", "'=head"]
    assert list(read["name"]) == ["'=HYPERLINK(\"http://x\",\"y\")", "'+1+1", "'-2+3", "'@SUM(A1)", "'\tTAB", "'\rCR",
                                  "-0.5", "mlp", "a=b"]
    assert list(read["score"]) == [-1.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]   # numbers as they are
    assert list(read.index) == ["'-x", "b", "c", "d", "e", "f", "g", "h", "i"]
    assert frame.loc["-x", "name"].startswith("=")                                  # the caller's frame untouched


def test_a_classifier_named_like_a_formula_is_quoted_in_rates_csvs(tmp_path):
    rows = [(f"ds{d}", clf, score) for d in range(3)
            for clf, score in (("=1+2", 0.9), ("knn", 0.6 + 0.01 * d), ("-majority", 0.3))]
    scores = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "classifier", "score"]).to_csv(scores, index=False)
    assert main(["rate", str(scores), "--out", str(tmp_path / "out"), "--permutations", "0"]) == 0
    board = (tmp_path / "out" / "leaderboard.csv").read_text(encoding="utf-8")
    assert "\n'=1+2," in board and "\n'-majority," in board and "\n=1+2," not in board


def test_the_curves_of_a_one_dataset_study_say_the_only_dataset():
    from benchirt.irt import IRTConfig, fit_irt, item_summary
    from benchirt.irt.simulate import simulate_responses
    from benchirt.irt.stage import DatasetIRT
    from benchirt.document.context import SectionContext
    from benchirt.irt.report_sections import item_curves

    config = IRTConfig(model="1PL")
    fit = fit_irt(simulate_responses(40, n_items=8, model="1PL", seed=0).responses, config=config)
    irt = DatasetIRT(dataset="iris", fit=fit, abilities=pd.DataFrame(),
                     statistics=item_summary(fit.items, config=config))
    section = item_curves({"iris": irt}, SectionContext(None, max_dataset_plots=2, results={"respond": {}}))
    text = section.blocks[0].text
    assert "all 1 datasets" not in text and text.endswith("Shown for iris (the only dataset, by share of difficult "
                                                          "items).")


@pytest.mark.heavy
def test_progress_bars_import_without_tqdms_warning_in_a_notebook_without_ipywidgets():
    # what tqdm.autonotebook sees in a Jupyter kernel (ipykernel's shell loaded) without ipywidgets
    pytest.importorskip("IPython")
    fake_kernel = ("import sys, types, warnings, IPython\n"
                   "sys.modules['ipykernel.zmqshell'] = types.ModuleType('ipykernel.zmqshell')\n"
                   "sys.modules['ipywidgets'] = None\n"
                   "warnings.simplefilter('always')\n")
    run = [sys.executable, "-c"]
    bare = subprocess.run([*run, fake_kernel + "import tqdm.auto"], capture_output=True, text=True)
    assert "TqdmWarning: IProgress not found" in bare.stderr          # what a notebook showed before
    ours = subprocess.run([*run, fake_kernel + "from benchirt.bars import tqdm\nimport benchirt.pipeline.runner\n"
                                               "print(tqdm.__module__)"],
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert ours.returncode == 0 and "Warning" not in ours.stderr, ours.stderr
    assert ours.stdout.strip() == "tqdm.asyncio"                      # tqdm.auto's text bar, not the notebook's


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_docs_own_output_folders_are_git_ignored():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    folders = {match for path in docs for match in re.findall(r"--out ([a-z][\w.-]*)", path.read_text("utf-8"))}
    assert {"plan", "pred", "scored", "rate-out"} <= folders
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *(f"{folder}/x" for folder in sorted(folders))],
                             cwd=ROOT, capture_output=True, text=True).stdout.split()
    assert sorted(ignored) == sorted(f"{folder}/x" for folder in folders)


@pytest.mark.heavy
def test_the_commands_figures_hold_no_text_under_ten_pixels(tmp_path, monkeypatch):
    import benchirt.io
    from benchirt.irt.simulate import simulate_responses
    from benchirt.document.legibility import MIN_TEXT_PX, visible_texts

    written = benchirt.io.atomic_write_figure
    smallest: dict[str, float] = {}

    def measured(path, figure, **kwargs):
        figure.canvas.draw()
        dpi = kwargs.get("dpi", figure.dpi)
        smallest[Path(path).name] = min(t.get_fontsize() * dpi / 72 for t in visible_texts(figure))
        written(path, figure, **kwargs)

    monkeypatch.setattr(benchirt.io, "atomic_write_figure", measured)
    matrix = tmp_path / "matrix.csv"
    simulate_responses(60, n_items=12, model="2PL", seed=0).responses.to_csv(matrix)
    rows = [(f"ds{d}", clf, score + 0.02 * d) for d in range(4) for clf, score in (("mlp", 0.8), ("knn", 0.6), ("nb", 0.4))]
    scores = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "classifier", "score"]).to_csv(scores, index=False)
    import benchirt.rating.command

    monkeypatch.setattr(benchirt.rating.command, "atomic_write_figure", measured)
    assert main(["irt", str(matrix), "--out", str(tmp_path / "irt"), "--plots"]) == 0
    assert main(["rate", str(scores), "--out", str(tmp_path / "rate"), "--plots", "--permutations", "5"]) == 0
    assert {"icc.png", "parameters.png", "leaderboard.png", "cd_diagram.png"} <= set(smallest)
    assert {name: px for name, px in smallest.items() if px < MIN_TEXT_PX} == {}

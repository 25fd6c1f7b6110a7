"""Issue 44: every command that writes refuses an ``--out`` folder holding files it did not write, as ``run`` does
(one message, ``--force`` to write beside them, never over them); a folder it wrote itself is taken again."""
from __future__ import annotations

from pathlib import Path

import pytest

from benchirt.cli import main
from benchirt.irt.simulate import simulate_responses
from benchirt.out_folder import MARK, marked_commands

#: Each writing command, with inputs that need not exist: the folder is refused before an input is read.
COMMANDS = {
    "irt": ["irt", "responses.csv"],
    "rate": ["rate", "scores.csv"],
    "subset": ["subset", "summaries.csv", "scores.csv"],
    "airt": ["airt", "perf.csv"],
    "report": ["report", "run"],
    "import-runs": ["import-runs", "matrices"],
    "plan": ["plan", "calibration", "--budget", "3"],
    "predict": ["predict", "calibration", "--observed", "observed.csv"],
}
#: A name each command writes, which --force still never overwrites.
WRITTEN = {"irt": "items.csv", "rate": "leaderboard.csv", "subset": "summary.txt", "airt": "fit.json",
           "report": "report.html", "import-runs": "responses", "plan": "plan.csv", "predict": "standing.csv"}


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_folder_the_command_did_not_write_is_refused_with_runs_message(command, users_folder, tmp_path, capsys,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    assert main([*COMMANDS[command], "--out", str(users_folder)]) == 2
    assert capsys.readouterr().err == (
        f"benchirt {command}: error: --out {users_folder} is not empty and was not written by `benchirt {command}` "
        "(it holds data.csv, notes.txt); give a new or empty folder, or add --force to write beside those files\n")
    assert _snapshot(tmp_path) == before  # nothing written, in --out or beside it


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_force_never_overwrites_a_name_the_command_writes(command, users_folder, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    own = users_folder / WRITTEN[command]
    if command == "import-runs":
        own.mkdir()
        (own / "keep.csv").write_text("mine")
    else:
        own.write_text("the user's own file")
    before = _snapshot(tmp_path)
    assert main([*COMMANDS[command], "--out", str(users_folder), "--force"]) == 2
    assert capsys.readouterr().err == (
        f"benchirt {command}: error: --out {users_folder} was not written by `benchirt {command}` and holds "
        f"{WRITTEN[command]}, which `benchirt {command}` writes; benchirt never overwrites files it did not write — "
        "give a new or empty folder\n")
    assert _snapshot(tmp_path) == before


def _responses(tmp_path: Path) -> Path:
    path = tmp_path / "responses.csv"
    simulate_responses(30, n_items=12, model="1PL", seed=3).responses.rename_axis("respondent").reset_index().to_csv(
        path, index=False)
    return path


def test_irt_writes_beside_the_users_files_with_force_then_takes_its_folder_again(users_folder, tmp_path, capsys):
    responses = _responses(tmp_path)
    before = _snapshot(users_folder)
    argv = ["irt", str(responses), "--out", str(users_folder), "--model", "1PL"]
    assert main([*argv, "--force"]) == 0
    after = _snapshot(users_folder)
    assert {name: after[name] for name in before} == before  # the user's files untouched
    assert (users_folder / "items.csv").is_file() and marked_commands(users_folder) == ["irt"]
    assert main(argv) == 0  # its own folder now: no --force needed
    capsys.readouterr()
    # another command's folder is not rate's: refused, and nothing of irt's is touched
    irt_files = _snapshot(users_folder)
    assert main(["rate", str(tmp_path / "scores.csv"), "--out", str(users_folder)]) == 2
    assert "was not written by `benchirt rate` (it holds abilities.csv, data.csv, fit.json and 2 more)" in \
        capsys.readouterr().err
    assert _snapshot(users_folder) == irt_files


def test_a_new_or_empty_folder_is_taken_and_marked(tmp_path):
    responses = _responses(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    for out in (empty, tmp_path / "new" / "fit"):
        assert main(["irt", str(responses), "--out", str(out), "--model", "1PL"]) == 0
        assert (out / "abilities.csv").is_file() and (out / MARK).is_file()


def test_import_runs_writes_beside_the_users_files_with_force_and_loses_none(users_folder, tmp_path):
    matrix = tmp_path / "task.csv"
    matrix.write_text("run,0,1,2,3\nj48||1,1,1,0,0\nnb||1,1,0,1,0\nsvm||1,0,1,1,1\n", encoding="utf-8")
    before = _snapshot(users_folder)
    assert main(["import-runs", str(matrix), "--out", str(users_folder), "--force"]) == 0
    after = _snapshot(users_folder)
    assert {name: after[name] for name in before} == before
    assert (users_folder / "responses" / "task" / "responses.csv").is_file()
    assert main(["import-runs", str(matrix), "--out", str(users_folder)]) == 0  # its own folder again

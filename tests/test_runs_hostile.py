"""A runs folder built to mislead or exhaust the importer (issue 34 item 2): every run folder is read or skipped
with its reason, a run is checked against its task and never names it when refused, an unreadable description
skips its run only, inputs are capped, and nothing from outside the folder reaches a file or the console.

Each folder is written here: a two-fold task of 24 rows (:func:`runs_samples.write_small_task`) and then the
hostile part."""
from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest

from benchirt.cli import main
from benchirt.errors import DataError
from benchirt.stored_runs.folder import read_runs_folder
from benchirt.stored_runs.predictions import MAX_LINE_BYTES, longest_line
from runs_samples import write_run_description, write_small_task, write_task_xml


def _diabetes_and_a_stray_run(root: Path, task_xml: bool) -> dict:
    """Task 7 on dataset 40 (diabetes): runs 11-13, and run 10 (first by id) made on dataset 50 (tic-tac-toe)."""
    expected = write_small_task(root, 7, 40, "diabetes", (10, 11, 12, 13))
    write_run_description(root / "runs" / "10", 10, 7, 100, "flow-0", setup_id=10, dataset_id=50,
                          dataset_name="tic-tac-toe")
    if task_xml:
        write_task_xml(root / "tasks" / "7" / "task.xml", 7, 40)
    return expected


STRAY = "run 10: made on dataset 50, but task 7 uses dataset 40 (another version); import it against its own task"


@pytest.mark.parametrize("task_xml", [True, False])
def test_a_run_of_another_dataset_is_skipped_and_never_names_the_task(tmp_path, capsys, task_xml):
    expected = _diabetes_and_a_stray_run(tmp_path / "runs-folder", task_xml)
    [matrix] = read_runs_folder(tmp_path / "runs-folder")
    assert matrix.dataset == "diabetes" and list(matrix.runs["run_id"]) == [11, 12, 13]
    assert matrix.skipped == [STRAY]
    for i, run_id in enumerate((11, 12, 13)):
        assert np.array_equal(matrix.responses[i], expected[run_id])
    from_runs = ("task 7: dataset 40 from the runs' descriptions (3 of 4 name it; no tasks/7/task.xml stating it)",
                 "task 7: dataset name 'diabetes' from the descriptions of the runs read (3 of 3 name it; no "
                 "datasets/<did>/description.xml)")
    assert [n for n in matrix.notes if n.startswith("task 7:")] == list(from_runs[int(task_xml):])
    out = tmp_path / "out"
    assert main(["import-runs", str(tmp_path / "runs-folder"), "--out", str(out), "--per-flow", "all"]) == 0
    assert sorted(p.name for p in (out / "responses").iterdir()) == ["diabetes"]
    printed = capsys.readouterr().out
    assert "runs-folder: 4 found: 3 read into 1 dataset(s), 1 skipped" in printed and f"  skipped: {STRAY}" in printed


def _fifo_or_skip(path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this system")
    os.mkfifo(path)


def _zero_device_or_skip(path: Path) -> None:
    """A character device node like /dev/zero (1, 5) at ``path``; skips where nodes cannot be made (no CAP_MKNOD)."""
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except (AttributeError, PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc})")


def test_every_run_folder_is_counted_as_read_or_skipped_with_its_reason(tmp_path, capsys):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3, 20, 21, 22, 23, 26))
    runs = root / "runs"
    (runs / "20" / "predictions.arff").unlink()
    (runs / "21" / "predictions.arff").unlink()
    (runs / "21" / "predictions.arff").symlink_to("/dev/zero")
    (runs / "22" / "predictions.arff").unlink()
    _fifo_or_skip(runs / "22" / "predictions.arff")
    (runs / "23" / "predictions.arff").unlink()
    (runs / "23" / "predictions.arff").mkdir()
    shutil.copytree(runs / "3", tmp_path / "elsewhere" / "24")
    (runs / "24").symlink_to(tmp_path / "elsewhere" / "24")
    (runs / "25").symlink_to(runs / "1")  # a link inside the folder is followed: the same run twice
    (runs / "26" / "predictions.arff").unlink()
    _zero_device_or_skip(runs / "26" / "predictions.arff")  # a device inside the folder, endless if read
    (runs / "notes.txt").write_text("not a run\n")
    [matrix] = read_runs_folder(root)
    assert list(matrix.runs["run_id"]) == [1, 2, 3] and matrix.source_found == 11 and matrix.skipped == []
    assert matrix.source_skipped == [
        "run folder 20: no predictions.arff",
        "run folder 21: predictions.arff is a symbolic link leaving the runs folder; not followed (copy the file "
        "into the folder)",
        "run folder 22: predictions.arff is a named pipe (FIFO), not a regular file",
        "run folder 23: predictions.arff is a folder, not a regular file",
        "run folder 24: a symbolic link leaving the runs folder; not followed (copy the run into the folder)",
        "run folder 25: run 1 again (already read from folder 1); kept once",
        "run folder 26: predictions.arff is a character device, not a regular file",
        "run folder notes.txt: not a run folder (a file)",
    ]
    assert main(["import-runs", str(root), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert f"{root}: 11 found: 3 read into 1 dataset(s), 8 skipped" in out
    record = json.loads((tmp_path / "out" / "responses" / "diabetes" / "import.json").read_text())
    assert record["source_found"] == 11 and record["runs_read"] == 3
    assert record["source_skipped"] == matrix.source_skipped


def _billion_laughs() -> str:
    entities = [' <!ENTITY lol0 "lol">'] + [f' <!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
    return ('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n' + "\n".join(entities) + "\n]>\n"
            '<oml:run xmlns:oml="http://openml.org/openml"><oml:task_id>7</oml:task_id>'
            "<oml:flow_name>&lol9;</oml:flow_name></oml:run>\n")


XXE = ('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
       '<oml:run xmlns:oml="http://openml.org/openml"><oml:task_id>7</oml:task_id><oml:flow_name>&xxe;'
       "</oml:flow_name></oml:run>\n")


def test_an_unreadable_description_skips_that_run_only(tmp_path):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 30, 31, 32, 33))
    runs = root / "runs"
    (runs / "30" / "description.xml").unlink()
    (runs / "31" / "description.xml").write_text(_billion_laughs())
    (runs / "32" / "description.xml").write_text(XXE)
    text = (runs / "33" / "description.xml").read_text()
    (runs / "33" / "description.xml").write_text(text.replace("<oml:task_id>7</oml:task_id>", ""))
    matrices = read_runs_folder(root)
    assert [m.dataset for m in matrices] == ["diabetes"]  # no second dataset named after the folder
    [matrix] = matrices
    assert list(matrix.runs["run_id"]) == [1, 2]
    skipped = matrix.source_skipped
    assert skipped[0] == "run folder 30: no description.xml (the run's task and dataset)"
    assert skipped[1].startswith(f"run folder 31: unreadable description.xml: {runs / '31' / 'description.xml'}: "
                                 "not a readable OpenML XML run description (limit on input amplification factor")
    assert skipped[2].startswith("run folder 32: unreadable description.xml: ")
    assert "(undefined entity &xxe;: line 3" in skipped[2] and "root:" not in skipped[2]
    assert skipped[3] == ("run folder 33: its description.xml names no task (oml:task_id); download the run again")
    assert len(skipped) == 4


def test_descriptions_and_predictions_are_capped_by_the_input_limit(tmp_path, monkeypatch):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 40, 41))
    runs = root / "runs"
    description = runs / "40" / "description.xml"
    description.write_text(description.read_text() + "<!--" + "x" * 70_000 + "-->\n")
    predictions = runs / "41" / "predictions.arff"
    predictions.write_text(predictions.read_text() + "%" + "y" * 70_000 + "\n")
    monkeypatch.setenv("BENCHIRT_MAX_INPUT_MB", "0.05")
    [matrix] = read_runs_folder(root)
    assert list(matrix.runs["run_id"]) == [1, 2]
    mib = {path: f"{path.stat().st_size / 2**20:.2g}" for path in (description, predictions)}
    assert 0.05 < float(mib[description]) < 0.1 and 0.05 < float(mib[predictions]) < 0.1
    assert matrix.source_skipped == [
        f"run folder 40: description.xml (the run's task and dataset) of {mib[description]} MiB is over the 0.05 MiB "
        "limit of an input file; set BENCHIRT_MAX_INPUT_MB to a larger number of MiB to read it anyway",
        f"run folder 41: predictions.arff of {mib[predictions]} MiB is over the 0.05 MiB limit of an input file; set "
        "BENCHIRT_MAX_INPUT_MB to a larger number of MiB to read it anyway",
    ]
    # the task's own task.xml over the limit: its runs are skipped, each saying so
    write_task_xml(root / "tasks" / "7" / "task.xml", 7, 40)
    (root / "tasks" / "7" / "task.xml").write_text("<!--" + "z" * 60_000 + "-->\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"none of the 4 run folder\(s\) can be used: .* \| run 1: task 7's own "
                                        r"files cannot be used: .*task.xml: task.xml of 0.057 MiB is over"):
        read_runs_folder(root)


def test_a_line_longer_than_any_predictions_row_is_refused_before_it_is_parsed(tmp_path):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3))
    predictions = root / "runs" / "3" / "predictions.arff"
    lines = predictions.read_text().splitlines()
    lines[-1] = lines[-1] + "," + "9" * (MAX_LINE_BYTES + 10)  # one data row of one more, endless field
    predictions.write_text("\n".join(lines) + "\n")
    assert longest_line(predictions) == len(lines[-1])
    [matrix] = read_runs_folder(root)
    assert list(matrix.runs["run_id"]) == [1, 2]
    assert matrix.skipped == [f"run 3 ({predictions}): a line of {len(lines[-1]):,} bytes, more than the 1,048,576 a "
                              "predictions file's row or header line can need; the file is damaged: download it again"]


def test_a_predictions_file_linked_outside_the_folder_never_reaches_a_file_or_the_console(tmp_path, capsys):
    secret = tmp_path / "private" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOPSECRET:x:0:0:root:/root:/bin/bash\n")
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2, 3, 4))
    for run, target in (("3", secret), ("4", Path("/etc/passwd"))):
        (root / "runs" / run / "predictions.arff").unlink()
        (root / "runs" / run / "predictions.arff").symlink_to(target)
    assert main(["import-runs", str(root), "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    written = "".join(p.read_text(errors="replace") for p in (tmp_path / "out").rglob("*") if p.is_file())
    for text in (captured.out, captured.err, written):
        assert "TOPSECRET" not in text and "root:" not in text and "/bin/" not in text
    assert "run folder 3: predictions.arff is a symbolic link leaving the runs folder" in captured.out


def test_a_task_file_linked_outside_the_folder_skips_the_tasks_runs_and_is_not_read(tmp_path, capsys):
    secret = tmp_path / "private" / "secret.arff"
    secret.parent.mkdir()
    secret.write_text("TOPSECRET:x:0:0\n")
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2))
    write_small_task(root, 8, 41, "kc2", (3, 4), seed=1)
    split = root / "tasks" / "8" / "datasplits.arff"
    split.unlink()
    split.symlink_to(secret)
    assert main(["import-runs", str(root), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    written = "".join(p.read_text() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert "TOPSECRET" not in out + written
    reason = (f"task 8's own files cannot be used: {split}: datasplits.arff is a symbolic link leaving the runs "
              "folder; not followed (copy the file into the folder)")
    assert f"  skipped: run 3: {reason}" in out and f"  skipped: run 4: {reason}" in out
    assert f"{root}: 4 found: 2 read into 1 dataset(s), 2 skipped" in out


def test_names_from_the_folder_reach_the_console_escaped(tmp_path, capsys):
    root = tmp_path / "study"
    write_small_task(root, 7, 40, "diabetes", (1, 2))
    (root / "runs" / "evil\x1b]0;pwned\x07").write_text("x\n")
    assert main(["import-runs", str(root), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "  skipped: run folder evil\\x1b]0;pwned\\x07: not a run folder (a file)" in out

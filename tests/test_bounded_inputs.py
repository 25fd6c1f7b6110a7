"""Bounded resources and safe names (issue 25): YAML alias bombs are refused before they expand, input
files over the (measured) size limit are refused by their size, and names from files reach neither the
terminal nor Markdown raw."""
from __future__ import annotations

import re
import time
import tracemalloc

import pandas as pd
import pytest
import yaml

from benchirt.cli import main
from benchirt.errors import ConfigError, DataError
from benchirt.safe_text import markdown_text, printable
from benchirt.safe_yaml import MAX_ALIAS_NODES, safe_load
from benchirt.sniff import DEFAULT_MAX_INPUT_MB, check_text_table


def _laughs(levels: int = 9) -> list[str]:
    """Lines of the YAML billion laughs: level k lists level k-1 nine times (9**levels strings)."""
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 9) + "]" for k in range(1, levels)]
    return lines


def _bomb_config(where: str) -> str:
    laughs = "\n".join("    " + line for line in _laughs())
    if where == "params":
        return ("suite: builtin:iris\nanchors:\n" + laughs + "\nresponses:\n  extra:\n    x:\n"
                "      estimator: sklearn.linear_model.LogisticRegression\n      params: {C: *l8}\n")
    return "anchors:\n" + laughs + "\nsuite: {directory: data, include: *l8}\n"


@pytest.mark.parametrize("where", ["params", "suite.include"])
def test_a_1kb_alias_bomb_is_refused_at_once_with_little_memory(tmp_path, capsys, where):
    config = tmp_path / "bomb.yaml"
    config.write_text(_bomb_config(where))
    assert config.stat().st_size < 1100
    tracemalloc.start()
    start = time.perf_counter()
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 2
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    err = capsys.readouterr().err
    # the 9 levels expand to 10 + 91 + 820 + ... + 435,848,050 nodes; *l8 used once more adds 435,848,050 again
    added = sum(_level_size(k) for k in range(9)) - 10 - 8 + _level_size(8)
    assert err == (f"benchirt run: error: {config}: YAML aliases (*name) expand the document by {added:,} values, "
                   f"more than the {MAX_ALIAS_NODES:,} allowed; write the values out instead of repeating anchors\n")
    assert seconds < 5 and peak < 50 * 2**20
    assert not (tmp_path / "run").exists()


def _level_size(k: int) -> int:
    """Nodes of level k expanded: l0 is a list of 9 scalars (10 nodes), lk a list of 9 copies of l(k-1)."""
    return 10 if k == 0 else 1 + 9 * _level_size(k - 1)


def test_the_expansion_count_is_exact_and_the_limit_is_inclusive(monkeypatch):
    # 3 levels: the top mapping (1) + its 3 keys + l0 (10) + l1 (1 + 9 * 10 = 91) + l2 (1 + 9 * 91 = 820) = 925
    # nodes expanded; written: 1 + 3 + 10 + 1 + 1 = 16 (l1's and l2's items are aliases); added: 909
    import benchirt.safe_yaml as module

    text = "\n".join(_laughs(3))
    monkeypatch.setattr(module, "MAX_ALIAS_NODES", 908)
    with pytest.raises(ConfigError, match=r"^x: YAML aliases \(\*name\) expand the document by 909 values, more than the "
                                          r"908 allowed"):
        safe_load(text, "x")
    monkeypatch.setattr(module, "MAX_ALIAS_NODES", 909)
    assert safe_load(text, "x")["l2"][0][0] == ["lol"] * 9
    assert len(safe_load(text, "x")["l2"]) == 9


def test_ordinary_anchors_merge_keys_and_a_cycle():
    shared = "base: &base {max_iter: 500, C: 0.5}\na: {<<: *base, C: 1.0}\nb: *base\n"
    assert safe_load(shared, "x") == {"base": {"max_iter": 500, "C": 0.5}, "a": {"max_iter": 500, "C": 1.0},
                                      "b": {"max_iter": 500, "C": 0.5}}
    with pytest.raises(ConfigError, match="^x: a YAML alias refers to a value that contains it"):
        safe_load("a: &a [1, *a]\n", "x")
    with pytest.raises(yaml.YAMLError):
        safe_load("a: [1,\n", "x")


def test_a_suite_file_alias_bomb_is_refused(tmp_path):
    from benchirt.data.suite_file import read_suite_file

    path = tmp_path / "suite.yaml"
    path.write_text("\n".join(_laughs()) + "\ndatasets: *l8\n")
    added = sum(_level_size(k) for k in range(9)) - 10 - 8 + _level_size(8)
    with pytest.raises(ConfigError, match=rf"suite.yaml: YAML aliases \(\*name\) expand the document by {added:,} "):
        read_suite_file(path)


def test_the_default_input_limit_refuses_a_big_file_by_its_size(tmp_path, monkeypatch):
    monkeypatch.delenv("BENCHIRT_MAX_INPUT_MB", raising=False)
    assert DEFAULT_MAX_INPUT_MB == 128  # benchmarks/junk_input.py: 7.9 MiB of peak per MiB of junk at worst
    path = tmp_path / "junk.csv"
    with path.open("wb") as handle:
        handle.write(b"a,b\n1,2\n")
        handle.truncate(129 * 2**20)  # sparse: no disk used, the size check reads no byte of it
    with pytest.raises(DataError, match=r"junk.csv: 129 MiB is over the 128 MiB limit for a response matrix CSV; set "
                                        r"BENCHIRT_MAX_INPUT_MB"):
        check_text_table(path, what="response matrix CSV")
    path.write_text("a,b\n1,2\n")
    check_text_table(path, what="response matrix CSV")


def test_printable_and_markdown_text():
    assert printable("\x1b]0;pwned\x07\x1b[2Jclear\u202eevil\r\nok\t") == "\\x1b]0;pwned\\x07\\x1b[2Jclear\\u202eevil\\x0d\nok\t"
    assert printable("naïve 漢字 name") == "naïve 漢字 name"
    assert markdown_text("<img src=x onerror=alert(1)> & \x1b") == "&lt;img src=x onerror=alert(1)> & \\x1b"
    assert markdown_text("</b><!-- x --><?php <https://x.org> P < 0.01, a<b") == (
        "&lt;/b>&lt;!-- x -->&lt;?php &lt;https://x.org> P < 0.01, a&lt;b")
    # no link, image or link definition from a name (CommonMark: a "]" escaped, or preceded by an escaped "\\",
    # closes no link text); an interval stays as written
    assert markdown_text("[x](javascript:alert(1)) ![i](javascript:x) [a][b] [a]: javascript:x [0.2, 0.4]") == (
        "[x\\](javascript:alert(1)) ![i\\](javascript:x) [a\\][b] [a\\]: javascript:x [0.2, 0.4]")
    assert markdown_text("\\[x\\](javascript:y)") == "\\[x\\\\\\](javascript:y)"


def test_names_from_files_reach_the_console_and_markdown_escaped(tmp_path, capsys):
    folder = tmp_path / "suite"
    folder.mkdir()
    data = pd.DataFrame({"x1": range(40), "x2": [i % 5 for i in range(40)], "class": ["a", "b"] * 20})
    data.to_csv(folder / "\x1b[2Jevil.csv", index=False)
    bad = {"estimator": "sklearn.linear_model.LogisticRegression", "params": {"penalty": "l1", "solver": "lbfgs"}}
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({
        "suite": str(folder), "stages": ["respond", "report"],
        "responses": {"pool": ["gaussian_nb"], "ladder_epochs": 0, "cv_folds": 3,
                      "extra": {"<img src=x onerror=alert(1)>": bad, "\x1b]0;pwned\x07": bad,
                                "[click](javascript:alert(1))": bad}}}))
    out = tmp_path / "run"
    capsys.readouterr()
    assert main(["run", str(config), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    printed = captured.out + captured.err  # tqdm's own cursor moves are "\x1b[A"; the names' sequences must not pass
    assert "\x1b[2J" not in printed and "\x1b]0;" not in printed and "\x07" not in printed
    assert "respond: \\x1b[2Jevil: classifier '\\x1b]0;pwned\\x07' LEFT OUT" in captured.err
    assert "\\x1b]0;pwned\\x07 on 1 dataset(s) (\\x1b[2Jevil)" in captured.out
    summary = (out / "summary.md").read_text()
    assert "\x1b" not in summary and "<img" not in summary
    assert "classifier '&lt;img src=x onerror=alert(1)>' on 1 dataset(s)" in summary
    assert re.search(r"(?<!\\)\]\(javascript:", summary) is None  # every "](" of a name escaped: no live link
    assert "classifier '[click\\](javascript:alert(1))'" in summary
    assert "<img" not in (out / "report.html").read_text().split("<main>")[1]

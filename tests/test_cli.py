"""The command line assembles its sub-commands lazily: `benchirt --help` imports no stage library."""
from __future__ import annotations

import json
import subprocess
import sys

from benchirt.cli import COMMAND_MODULES, COMMANDS, build_parser

HEAVY = ("sklearn", "pandas", "scipy", "matplotlib", "pyarrow", "scikit_posthocs", "dask")


def test_help_imports_no_heavy_library():
    code = ("import sys, json; from benchirt.cli import build_parser; build_parser().format_help(); "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert [name for name in HEAVY if name in loaded] == []


def test_help_lists_every_command_with_its_line():
    text = " ".join(build_parser().format_help().split())
    for name, (_, line) in COMMANDS.items():
        assert f"{name} {line}" in text
    assert list(COMMAND_MODULES) == list(dict.fromkeys(module for module, _ in COMMANDS.values()))


def test_each_command_module_registers_the_commands_it_is_listed_for():
    for name, (module, line) in COMMANDS.items():
        parser = build_parser(name)
        sub = parser._subparsers._group_actions[0]
        assert sub.choices[name].get_default("func") is not None, (name, module)
        help_of = {action.dest: action.help for action in sub._choices_actions}
        assert help_of[name] == line, name


#: What `benchirt <command> --help` may not import (issue 23 item 3: only argparse and the options layer).
NOT_FOR_HELP = ("numpy", "pandas", "scipy", "sklearn", "matplotlib", "seaborn", "scikit_posthocs", "pyarrow", "dask",
                "baycomp", "openml", "tqdm")


def test_every_sub_command_help_imports_only_argparse_and_the_options_layer():
    """Each `benchirt X --help` in a fresh interpreter; timings are printed by benchmarks/cli_startup.py."""
    code = ("import contextlib, io, json, sys\n"
            "from benchirt.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as text:\n"
            "    try:\n"
            "        main([sys.argv[1], '--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(json.dumps([len(text.getvalue()), sorted({m.split('.')[0] for m in sys.modules})]))")
    loaded = {}
    for name in COMMANDS:
        done = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True, check=True)
        length, modules = json.loads(done.stdout.strip().splitlines()[-1])
        assert length > 200, name  # the sub-command's own help, not the placeholder
        loaded[name] = [module for module in NOT_FOR_HELP if module in modules]
    assert loaded == {name: [] for name in COMMANDS}


def test_irt_score_help_is_the_scoring_help(capsys):
    """`benchirt irt score --help` prints the scoring command's own help (issue 34 item 6), `benchirt irt --help`
    the fit's."""
    import pytest

    from benchirt.cli import main

    for argv, first_line in ((["irt", "score", "--help"], "usage: benchirt irt score [-h] --out DIR"),
                             (["irt", "score", "-h"], "usage: benchirt irt score [-h] --out DIR"),
                             (["irt", "--help"], "usage: benchirt irt [-h] --out DIR")):
        with pytest.raises(SystemExit) as done:
            main(argv)
        text = capsys.readouterr().out
        assert done.value.code == 0 and text.startswith(first_line), argv
    assert "--items ITEMS.csv" in text and "--model" in text
    main_help = text
    with pytest.raises(SystemExit):
        main(["irt", "score", "--help"])
    score_help = capsys.readouterr().out
    assert "the items are NOT refitted" in score_help and "--model" not in score_help and score_help != main_help

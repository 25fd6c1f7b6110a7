"""The numbers README.md and docs/benchmarks.md state, and the benchmark command each one comes from.

docs/benchmarks.md holds every measurement in a block that names the command producing it::

    <!-- benchmark: python benchmarks/irt_fit.py --part starts --jobs 2 -->
    ... prose with the numbers ...
    <!-- /benchmark -->

This module reads those blocks and checks, without running anything (the default suite's
``tests/test_documented_numbers.py`` calls :func:`problems`, and ``benchmarks/claims.py --check-docs`` prints them):

* every block names ``python benchmarks/SCRIPT.py`` with options the script declares (a ``--flag`` string in
  its source) and, for ``--part V``, a ``V`` among the ``choices`` of its ``--part`` argument;
* every block states at least one number, and no number of docs/benchmarks.md stands outside a block;
* every number of README.md appears in docs/benchmarks.md — in a block of the command the README names beside it
  (a ``python benchmarks/...`` code span in the same paragraph or table row), else in any block — unless it is in
  an example output (a fenced block preceded by an ``<!-- example output -->`` comment), a ``bibtex`` block,
  a code span or an HTML comment.

Whether a block still matches its command is checked against a saved output of the command
(:func:`unmatched_numbers`, ``benchmarks/claims.py --check-block``): a stated number matches when some number of
the output, rounded to the stated number's decimals, equals it. Ratios or ranges derived from the output are
listed as unmatched, to be checked by hand.

A "number" is a run of digits (``1,055``, ``0.75``, the ``1`` of ``1st``) that is not part of a word or name
(``3PL``, ``python3``, ``x86_64``, ``Glicko-2``) — :data:`NUMBER`. Written with the standard library only (``ast``, ``re``,
``shlex``) so that the check costs milliseconds and imports nothing of benchirt.
"""
from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
README = PROJECT_ROOT / "README.md"
BENCHMARKS_DOC = PROJECT_ROOT / "docs" / "benchmarks.md"
BENCHMARK_DIR = PROJECT_ROOT / "benchmarks"

#: A number: digits with optional thousands separators and decimals, optionally an ordinal (1st, 11th);
#: not preceded by a letter, digit, underscore, point or a word and hyphen (Glicko-2), not followed by a letter,
#: digit or underscore.
NUMBER = re.compile(r"(?<![\w.])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:st|nd|rd|th)?(?!\w)")
OPEN = re.compile(r"<!--\s*benchmark:\s*(.*?)\s*-->")
CLOSE = re.compile(r"<!--\s*/benchmark\s*-->")
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
BENCHMARK_COMMAND = re.compile(r"`(python [^`]*benchmarks/[^`]*)`")
FENCE = re.compile(r"^(```|~~~)\s*([\w-]*)")
EXAMPLE_OUTPUT = "<!-- example output"
#: Lines of a saved output that restate what the docs say (``benchmarks/claims.py`` prints ``prose: ...`` beside
#: each recomputed value): not evidence for the docs, so left out of the comparison.
RESTATED = re.compile(r"^\s*prose:.*$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One measurement block of docs/benchmarks.md: its command, text and first line (1-based)."""

    command: str
    text: str
    line: int


def numbers(text: str) -> list[str]:
    """The numbers stated in ``text`` as written, without thousands separators (code spans and comments ignored)."""
    prose = CODE_SPAN.sub(" ", COMMENT.sub(" ", text))
    return [match.group(1).replace(",", "") + (match.group(2) or "") for match in NUMBER.finditer(prose)]


def read_blocks(text: str) -> tuple[list[Block], str, list[str]]:
    """The blocks of a benchmarks document, the text outside them, and what is malformed (unclosed, nested)."""
    blocks: list[Block] = []
    outside: list[str] = []
    errors: list[str] = []
    current: tuple[str, int, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened, closed = OPEN.fullmatch(line.strip()), CLOSE.fullmatch(line.strip())
        if opened:
            if current is not None:
                errors.append(f"line {number}: a block opens inside the block of line {current[1]}")
            current = (opened.group(1), number, [])
        elif closed:
            if current is None:
                errors.append(f"line {number}: <!-- /benchmark --> closes no block")
            else:
                blocks.append(Block(current[0], "\n".join(current[2]), current[1]))
                current = None
        elif current is not None:
            current[2].append(line)
        else:
            outside.append(line)
    if current is not None:
        errors.append(f"line {current[1]}: the block of `{current[0]}` is never closed")
    return blocks, "\n".join(outside), errors


def command_problem(command: str, benchmark_dir: Path = BENCHMARK_DIR) -> str | None:
    """Why ``command`` is not a runnable benchmark command, or None.

    The command must be ``python benchmarks/SCRIPT.py [options]``; every ``--flag`` must appear as a string in the
    script's source (argparse's ``add_argument`` or a ``sys.argv`` comparison), and ``--part V`` needs ``V`` among
    the ``choices`` of the script's ``--part`` argument.
    """
    try:
        words = shlex.split(command)
    except ValueError as error:
        return f"`{command}` is not a shell command ({error})"
    if len(words) < 2 or words[0] != "python" or not words[1].startswith("benchmarks/"):
        return f"`{command}` does not run a script of benchmarks/ (expected `python benchmarks/SCRIPT.py ...`)"
    script = benchmark_dir / Path(words[1]).name
    if not script.is_file():
        return f"`{command}`: {words[1]} does not exist"
    tree, declared = _script(script)
    for index, word in enumerate(words[2:], start=2):
        flag = word.split("=", 1)[0]
        if flag.startswith("--") and flag not in declared:
            return f"`{command}`: {words[1]} has no option {flag}"
        if flag == "--part":
            value = word.split("=", 1)[1] if "=" in word else (words[index + 1] if index + 1 < len(words) else "")
            choices = _part_choices(tree)
            if value not in choices:
                return f"`{command}`: --part {value!r} is not one of {words[1]}'s parts {sorted(choices)}"
    return None


@lru_cache(maxsize=None)
def _script(path: Path) -> tuple[ast.Module, frozenset[str]]:
    """A script's syntax tree and the ``--flag`` strings of its source (parsed once per path)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tree, frozenset(node.value for node in ast.walk(tree)
                           if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("--"))


def _part_choices(tree: ast.Module) -> set[str]:
    """The ``choices`` of the script's ``add_argument("--part", ..., choices=...)``.

    The choices are a literal tuple or list, whose items may be ``*NAME`` or ``NAME`` of a module-level literal
    (``choices=(*PARTS, "all")``); anything else reads as no choices.
    """
    constants = {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument" and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == "--part"):
            for keyword in node.keywords:
                if keyword.arg == "choices":
                    return set(_literal_strings(keyword.value, constants))
    return set()


def _literal_strings(node: ast.expr, constants: dict[str, ast.expr]) -> list[str]:
    """The strings of a literal tuple/list, following ``NAME`` and ``*NAME`` to module-level literals."""
    if isinstance(node, ast.Name) and node.id in constants:
        return _literal_strings(constants[node.id], constants)
    if isinstance(node, ast.Starred):
        return _literal_strings(node.value, constants)
    if isinstance(node, (ast.Tuple, ast.List)):
        return [value for item in node.elts for value in _literal_strings(item, constants)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def readme_units(text: str) -> list[tuple[int, str]]:
    """README.md as (first line, text) units whose numbers are checked: paragraphs and table rows.

    Left out: fenced blocks that are ``bibtex`` or follow an ``<!-- example output`` comment, and headings.
    """
    units: list[tuple[int, str]] = []
    paragraph: list[str] = []
    start = 0
    lines = text.splitlines()
    fence: str | None = None
    checked_fence = False

    def flush() -> None:
        if paragraph:
            units.append((start, "\n".join(paragraph)))
            paragraph.clear()

    for number, line in enumerate(lines, start=1):
        opened = FENCE.match(line.strip())
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
                flush()
            elif checked_fence:
                if not paragraph:
                    start = number
                paragraph.append(line)
            continue
        if opened:
            flush()
            fence = opened.group(1)
            checked_fence = opened.group(2) != "bibtex" and not _after_example_marker(lines, number - 1)
            start = number + 1
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            flush()
        elif line.lstrip().startswith("|"):
            flush()
            units.append((number, line))
        else:
            if not paragraph:
                start = number
            paragraph.append(line)
    flush()
    return units


def _after_example_marker(lines: list[str], index: int) -> bool:
    """Whether the fence at ``lines[index]`` follows (over blank lines and comments) an example-output marker."""
    for line in reversed(lines[:index]):
        stripped = line.strip()
        if stripped.startswith(EXAMPLE_OUTPUT):
            return True
        if stripped and not (stripped.startswith("<!--") and stripped.endswith("-->")):
            return False
    return False


def problems(readme: Path = README, doc: Path = BENCHMARKS_DOC, benchmark_dir: Path = BENCHMARK_DIR) -> list[str]:
    """Everything that breaks the rules of this module's docstring, one sentence each; empty when all hold."""
    blocks, outside, found = read_blocks(doc.read_text(encoding="utf-8"))
    name = doc.name
    found = [f"{name} {error}" for error in found]
    for block in blocks:
        problem = command_problem(block.command, benchmark_dir)
        if problem:
            found.append(f"{name} line {block.line}: {problem}")
        if not numbers(block.text):
            found.append(f"{name} line {block.line}: the block of `{block.command}` states no number")
    stray = numbers(outside)
    if stray:
        found.append(f"{name}: numbers outside any benchmark block: {', '.join(stray)}")
    by_command: dict[str, set[str]] = {}
    for block in blocks:
        by_command.setdefault(_normal(block.command), set()).update(numbers(block.text))
    everywhere = set().union(*by_command.values()) if by_command else set()
    for line, unit in readme_units(readme.read_text(encoding="utf-8")):
        named = [_normal(command) for command in BENCHMARK_COMMAND.findall(unit)]
        for command in named:
            if command not in by_command:
                found.append(f"{readme.name} line {line}: `{command}` has no block in {name}")
        allowed = set().union(*(by_command.get(command, set()) for command in named)) if named else everywhere
        missing = [value for value in numbers(unit) if value not in allowed]
        if missing:
            where = f"the block(s) of {', '.join(f'`{c}`' for c in named)}" if named else name
            found.append(f"{readme.name} line {line}: {', '.join(missing)} not in {where}")
    return found


def _normal(command: str) -> str:
    """A command with ``nice [-n N]`` dropped and whitespace collapsed, as blocks and the README are compared."""
    words = command.split()
    if words[:1] == ["nice"]:
        words = words[3:] if words[1:2] == ["-n"] else words[1:]
    return " ".join(words)


def unmatched_numbers(block_text: str, output: str) -> list[str]:
    """The numbers of a block that no number of ``output`` gives when rounded to their decimals.

    Lines of the output that restate the docs (:data:`RESTATED`) are left out.
    """
    observed = [Decimal(value) for value in numbers(RESTATED.sub("", output))]
    missing = []
    for stated in dict.fromkeys(numbers(block_text)):
        target = Decimal(stated)
        exponent = target.as_tuple().exponent
        step = Decimal(1).scaleb(exponent if isinstance(exponent, int) else 0)
        if not any(value.quantize(step, rounding=ROUND_HALF_UP) == target for value in observed):
            missing.append(stated)
    return missing


def blocks_of(command: str, doc: Path = BENCHMARKS_DOC) -> list[Block]:
    """The blocks of ``doc`` that name ``command`` (``nice`` and spacing ignored)."""
    blocks, _, _ = read_blocks(doc.read_text(encoding="utf-8"))
    return [block for block in blocks if _normal(block.command) == _normal(command)]

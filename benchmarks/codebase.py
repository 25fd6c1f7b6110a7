"""The codebase's numbers at two git revisions side by side (issue 35, "Show: the numbers before and after").

For each revision (its ``benchirt/`` and ``README.md`` extracted with ``git archive``): lines of Python per
package and in all, the five largest modules, ``raise ConfigError`` sites outside ``benchirt/options.py``,
manifest string-key reads outside ``benchirt/pipeline/manifest.py`` (``manifest[`` and ``manifest.get(``),
private names of the IRT estimator reached from tests (``from benchirt.irt.<module> import _name`` and
``<module>._name``), functions above cyclomatic complexity 15 (the count of ``tests/test_code_complexity.py``),
the README's size in bytes, and where the report's sections live (issue 45): the lines of
``benchirt/report/sections.py`` (0 when it is gone), the report package's fan-out (the distinct benchirt
sub-packages its modules import, any import — function-level and ``TYPE_CHECKING`` ones too; the count of all
benchirt packages and top-level modules beside it) and the functions outside ``benchirt/report/`` with a parameter
named ``results`` that is not annotated or annotated with a bare non-specific type (:data:`NON_SPECIFIC`). mypy's
error count is CI's (``.ci/run`` runs it and fails on any).

The habits (issue 45, item 4): the packages that list their public names more than once (a literal ``__all__``
in ``__init__.py``, a literal table handed to ``lazy_exports`` there, an ``__all__`` in ``__init__.pyi``: more
than one of the three), and the public functions (no leading underscore, module level or methods of public
classes) that take an option positionally after their first parameter (:func:`positional_options`), and the
parameters whose default is an instance built once at definition time (``config: XConfig = XConfig()``).

    python benchmarks/codebase.py [--before 9204efd] [--after HEAD]
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import re
import subprocess
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Annotations that say nothing of what a ``results`` parameter holds (unsubscripted).
NON_SPECIFIC = frozenset({"Any", "object", "dict", "list", "tuple", "Mapping", "Sequence", "Iterable", "Collection"})


def complexity_of():
    """The complexity function of tests/test_code_complexity.py (one definition of the count)."""
    spec = importlib.util.spec_from_file_location("code_complexity", ROOT / "tests" / "test_code_complexity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._complexity


def extract(rev: str, into: Path) -> Path:
    """``benchirt/``, ``tests/`` and ``README.md`` of ``rev`` under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "benchirt", "tests", "README.md"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def imported_packages(tree: ast.Module) -> set[str]:
    """``benchirt.x`` of every benchirt package or top-level module the module ``tree`` imports (anywhere in it)."""
    found = set()
    for node in ast.walk(tree):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
        found.update(".".join(name.split(".")[:2]) for name in names if name.startswith("benchirt."))
    return found


def untyped_results(tree: ast.Module) -> list[str]:
    """Functions of ``tree`` with a parameter named ``results`` that has no annotation or a :data:`NON_SPECIFIC` one."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                if argument.arg == "results" and (argument.annotation is None
                                                  or ast.unparse(argument.annotation).strip("'\"") in NON_SPECIFIC):
                    found.append(node.name)
    return found


def name_lists(init: Path) -> int:
    """How many lists of the package's public names its ``__init__.py`` and ``__init__.pyi`` spell out."""
    count = 0
    for path in (init, init.with_suffix(".pyi")):
        if not path.is_file():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Assign) and "__all__" in [getattr(t, "id", None) for t in node.targets]
                    and isinstance(node.value, (ast.List, ast.Tuple))):
                count += 1
            elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports"
                  and any(isinstance(argument, ast.Dict) for argument in node.args)):
                count += 1
    return count


def public_functions(tree: ast.Module):
    """The public functions of a module: module-level ones and methods of its public classes, no leading ``_``."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node, False
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_"):
                    static = any(getattr(d, "id", None) == "staticmethod" for d in item.decorator_list)
                    yield item, not static


def positional_options(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    """The options ``function`` takes by position: parameters with a default after its first one (``self``/``cls``
    not counted) that are not keyword-only. Empty when every option is keyword-only (after a bare ``*``)."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args][1 if method else 0:]
    with_default = positional[len(positional) - len(arguments.defaults):] if arguments.defaults else []
    return [argument.arg for argument in with_default if argument is not positional[0]]


def instance_defaults(tree: ast.Module) -> int:
    """Parameters of ``tree``'s functions whose default calls a capitalised name (``config: C = C()``)."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            count += sum(isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id[:1].isupper()
                         for d in defaults)
    return count


def report_numbers(package: Path) -> dict:
    """The report's sections: lines of report/sections.py, the report package's fan-out, untyped ``results`` outside it."""
    sections = package / "report" / "sections.py"
    imported, untyped = set(), []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if relative.startswith("report/"):
            imported |= imported_packages(tree)
        else:
            untyped += [f"{relative}:{name}" for name in untyped_results(tree)]
    imported.discard("benchirt.report")
    sub_packages = {name for name in imported if (package / name.split(".")[1]).is_dir()}
    return {"report_sections_lines": sections.read_text(encoding="utf-8").count("\n") if sections.is_file() else 0,
            "report_fan_out": len(sub_packages), "report_fan_out_all": len(imported),
            "untyped_results_outside_report": len(untyped), "untyped_results_where": untyped}


def docstring_lines(module: ast.Module) -> int:
    """Lines of ``module``'s docstrings: the module's, every class's and every function's."""
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return sum((node.body[0].end_lineno or node.body[0].lineno) - node.body[0].lineno + 1 for node in ast.walk(module)
               if isinstance(node, documented) and ast.get_docstring(node, clean=False) is not None)


def numbers(tree: Path, complexity) -> dict:
    package = tree / "benchirt"
    lines, per_package, over, raises, manifest_reads, instances = {}, Counter(), 0, 0, 0, 0
    public, keyword_only, positional, docstrings = 0, 0, [], 0
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        text = path.read_text(encoding="utf-8")
        count = text.count("\n")
        lines[relative] = count
        per_package[relative.split("/")[0] if "/" in relative else "(top level)"] += count
        if relative != "options.py":
            raises += len(re.findall(r"raise ConfigError", text))
        if relative != "pipeline/manifest.py":
            manifest_reads += len(re.findall(r"\bmanifest(?:\[|\.get\()", text))
        module = ast.parse(text)
        docstrings += docstring_lines(module)
        instances += instance_defaults(module)
        for function, method in public_functions(module):
            public += 1
            keyword_only += bool(function.args.kwonlyargs)
            if positional_options(function, method):
                positional.append(f"{relative}:{function.name}")
        for node in ast.walk(module):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and complexity(node) > 15:
                over += 1
    private = 0
    for path in (tree / "tests").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        private += len(re.findall(r"from benchirt\.irt\.\w+ import \(?[^)\n]*\b_[a-z]\w*", text))
        private += len(re.findall(r"\b(?:estimation|em|mstep|estep|climb|multistart|recombine)\._[a-z]\w*", text))
    return {"lines": sum(lines.values()), "docstring_lines": docstrings, "per_package": per_package,
            "largest": sorted(lines.items(), key=lambda item: -item[1])[:5], "over_15": over,
            "config_error_raises": raises, "manifest_string_reads": manifest_reads,
            "private_irt_names_in_tests": private, "readme_bytes": (tree / "README.md").stat().st_size,
            "config_instance_defaults": instances, "public_functions": public,
            "public_with_keyword_only": keyword_only, "public_with_positional_options": len(positional),
            "positional_options_where": positional,
            "packages_listing_names_twice": sum(name_lists(init) > 1 for init in package.rglob("__init__.py")),
            **report_numbers(package)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="9204efd")
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--positional", action="store_true",
                        help="list the public functions that still take options by position (at --after)")
    args = parser.parse_args()
    complexity = complexity_of()
    with tempfile.TemporaryDirectory() as tmp:
        result = {rev: numbers(extract(rev, Path(tmp) / rev), complexity) for rev in (args.before, args.after)}
    before, after = result[args.before], result[args.after]
    print(f"{'':34s} {args.before:>12s} {args.after:>12s}")
    for key in ("lines", "docstring_lines", "over_15", "config_error_raises", "manifest_string_reads",
                "private_irt_names_in_tests", "readme_bytes", "report_sections_lines", "report_fan_out",
                "report_fan_out_all",
                "untyped_results_outside_report", "packages_listing_names_twice", "config_instance_defaults", "public_functions",
                "public_with_keyword_only", "public_with_positional_options"):
        print(f"{key:34s} {before[key]:12d} {after[key]:12d}")
    print("\nlines per package")
    for name in sorted(set(before["per_package"]) | set(after["per_package"])):
        print(f"  {name:32s} {before['per_package'].get(name, 0):12d} {after['per_package'].get(name, 0):12d}")
    for rev in (args.before, args.after):
        print(f"\nlargest modules at {rev}: " + ", ".join(f"{name} {n}" for name, n in result[rev]["largest"]))
        print(f"untyped `results` parameters outside report/ at {rev}: "
              + (", ".join(result[rev]["untyped_results_where"]) or "none"))
    if args.positional:
        print(f"\npublic functions taking options by position at {args.after}:")
        print("\n".join(f"  {where}" for where in after["positional_options_where"]))


if __name__ == "__main__":
    main()

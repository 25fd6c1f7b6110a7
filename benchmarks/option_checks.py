"""How option validation is spread, and how many stage options have a pinned message (issue 35 items 1-2).

Prints, for a git revision (default ``HEAD``; the stages and fields are this checkout's registry):

* ``raise ConfigError`` sites outside ``benchirt/options.py`` (the same count as
  ``git grep -n "raise ConfigError" REV -- benchirt | grep -v options.py | wc -l``);
* the registered stages' config fields whose message a test pins word for word (``<stage>.<field>: got``
  in ``tests/``, read with ``git grep`` at the revision);
* the fields the generated cases of ``tests/test_option_constraints.py`` cover, and how many invalid
  values they check (this checkout only: the file reads the declarations).

    PYTHONPATH=$PWD python benchmarks/option_checks.py [--rev 9204efd]   # from the repository root
"""
from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
from pathlib import Path

from benchirt.pipeline import registry

ROOT = Path(__file__).resolve().parents[1]


def git_grep(rev: str, pattern: str, where: str) -> list[str]:
    """Matching parts (``-o``) of the files under ``where`` at ``rev``."""
    done = subprocess.run(["git", "grep", "-h", "-o", "-E", pattern, rev, "--", where], cwd=ROOT,
                          capture_output=True, text=True)
    return done.stdout.splitlines()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="git revision to count at (default HEAD)")
    rev = parser.parse_args().rev
    raises = subprocess.run(["git", "grep", "-n", "raise ConfigError", rev, "--", "benchirt"], cwd=ROOT,
                            capture_output=True, text=True).stdout.splitlines()
    stray = [line for line in raises if "benchirt/options.py" not in line]
    fields = {f"{stage.name}.{field.name}" for stage in registry.REGISTRY
              for field in dataclasses.fields(registry.resolve(stage.config))}
    pinned = {match.removesuffix(": got") for match in git_grep(rev, r"[a-z_]+\.[a-z_]+: got", "tests")}
    print(f"{rev}: {len(stray)} `raise ConfigError` outside benchirt/options.py")
    print(f"{rev}: {len(fields & pinned)} of {len(fields)} stage config fields ({len(registry.REGISTRY)} stages) have a "
          f"message pinned word for word in tests/; {len(fields - pinned)} have none")
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import test_option_constraints as generated
    except ImportError as exc:  # a benchirt without the declarations (another revision on the path)
        print(f"generated cases not counted: tests/test_option_constraints.py cannot be imported here ({exc})")
        return
    covered = {f"{stage.name}.{case.key}" for stage in registry.REGISTRY
               for case in generated.stage_cases([stage])}
    print(f"this checkout: {len(covered & fields)} of {len(fields)} stage config fields checked by "
          f"{len(generated.STAGE_CASES)} generated invalid values (tests/test_option_constraints.py), "
          f"{len(generated.OTHER_CASES)} more for the other declared tables")


if __name__ == "__main__":
    main()

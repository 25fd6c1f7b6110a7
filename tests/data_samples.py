"""Small hand-written input files for the tests, written out on demand.

* ARFF files with the quirks of real Weka/UCI exports (range syntax, string ids, dates, quoted values,
  latin-1 bytes, sparse rows, a splice-like row identifier), written by the ``arff_samples`` fixture.
* A toy ASlib scenario (``write_aslib_scenario``) with failed runs, repetitions and optional CV folds.
"""
from __future__ import annotations

from pathlib import Path

#: ARFF texts by file name; ``latin1.arff`` is written in latin-1, the others in UTF-8.
ARFF_SAMPLES: dict[str, str] = {
    "sparse.arff": """\
@relation sparse
@attribute x1 numeric
@attribute x2 numeric
@attribute colour {red, blue}
@attribute class {neg, pos}
@data
{0 1.5, 3 pos}
{1 2, 2 blue}
{0 3, 1 4, 2 blue, 3 pos}
{}
""",
    "splice_like.arff": """\
% 24 rows: a nominal row identifier with a different value in every row (like splice's Instance_name),
% an entirely missing column, a constant column, and a nominal feature.
@relation splice-like
@attribute Instance_name {ID-01,ID-02,ID-03,ID-04,ID-05,ID-06,ID-07,ID-08,ID-09,ID-10,ID-11,ID-12,ID-13,ID-14,ID-15,ID-16,ID-17,ID-18,ID-19,ID-20,ID-21,ID-22,ID-23,ID-24}
@attribute empty numeric
@attribute constant {f,t}
@attribute base {A,C,G,T}
@attribute class {EI,IE,N}
@data
ID-01,?,f,A,EI
ID-02,?,f,C,IE
ID-03,?,f,G,N
ID-04,?,f,T,EI
ID-05,?,f,A,IE
ID-06,?,f,C,N
ID-07,?,f,G,EI
ID-08,?,f,T,IE
ID-09,?,f,A,N
ID-10,?,f,C,EI
ID-11,?,f,G,IE
ID-12,?,f,T,N
ID-13,?,f,A,EI
ID-14,?,f,C,IE
ID-15,?,f,G,N
ID-16,?,f,T,EI
ID-17,?,f,A,IE
ID-18,?,f,C,N
ID-19,?,f,G,EI
ID-20,?,f,T,IE
ID-21,?,f,A,N
ID-22,?,f,C,EI
ID-23,?,f,G,IE
ID-24,?,f,T,N
""",
    "weka_quirks.arff": """\
% A tiny file with the quirks of real Weka/UCI exports.
% Range syntax, a string row id, a date, quoted nominal values, missing values.
@RELATION 'weka quirks'

@ATTRIBUTE row_id STRING
@attribute 'clump thickness' integer [1,10]
@attribute ratio REAL (0, inf)
@attribute when date "yyyy-MM-dd"
@attribute colour {'dark red', "it's blue", green}
@attribute class{yes,no}

@DATA
% a comment inside the data section
r1, 5, 0.5, 2020-01-01, 'dark red', yes
r2, ?, 1.5, 2020-01-02, "it's blue", no

r3, 3, ?, ?, green, yes
r4, 10, 2.0, 2020-01-04, ?, no
r5, 1, 2.5, 2020-01-05, 'dark red', ?
""",
    "latin1.arff": """\
% latin-1 encoded nominal values
@relation café
@attribute city {München, Zürich, Paris}
@attribute size numeric
@attribute class {a,b}
@data
München,1,a
Zürich,2,b
Paris,3,a
München,4,b
""",
}


def write_arff_samples(folder: Path) -> Path:
    """Write every file of :data:`ARFF_SAMPLES` into ``folder``; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in ARFF_SAMPLES.items():
        (folder / name).write_bytes(text.encode("latin-1" if name == "latin1.arff" else "utf-8"))
    return folder


ASLIB_RUNS_HEADER = """\
@RELATION ALGORITHM_RUNS_TOY
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE algorithm STRING
@ATTRIBUTE runtime NUMERIC
@ATTRIBUTE runstatus {ok , timeout , memout , not_applicable , crash , other}
@DATA
"""


def runtime_description(scenario_id: str, cutoff_time: int) -> str:
    """The ``description.txt`` of a toy ASlib scenario with one measure, runtime (smaller is better)."""
    return (f"scenario_id: {scenario_id}\nperformance_measures:\n  - runtime\nmaximize:\n  - false\n"
            f"performance_type:\n  - runtime\nalgorithm_cutoff_time: {cutoff_time}\n")


def write_aslib_scenario(folder: Path, rows, description: str, cv_rows=None) -> Path:
    """Write a toy ASlib scenario: ``description.txt``, ``algorithm_runs.arff`` and optionally ``cv.arff``.

    ``rows`` are (instance, repetition, algorithm, runtime, status) tuples; ``cv_rows`` are
    (instance, repetition, fold) tuples.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "description.txt").write_text(description)
    body = "\n".join(",".join(str(v) for v in row) for row in rows)
    (folder / "algorithm_runs.arff").write_text(ASLIB_RUNS_HEADER + body + "\n")
    if cv_rows is not None:
        cv = "@RELATION CV\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n" \
             "@ATTRIBUTE fold NUMERIC\n@DATA\n" + "\n".join(f"{i},{r},{f}" for i, r, f in cv_rows) + "\n"
        (folder / "cv.arff").write_text(cv)
    return folder

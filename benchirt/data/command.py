"""``benchirt datasets SUITE``: list a suite's datasets with their Cardoso et al. 2021 §5.6 characteristics."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from benchirt.data.names import FORMS_HELP, METADATA_COLUMNS
from benchirt.errors import BenchirtError
from benchirt.io import atomic_write_csv

if TYPE_CHECKING:  # registering the command (``benchirt datasets --help``) imports no data library
    import pandas as pd

DESCRIPTION = f"""\
Resolve SUITE, load each dataset and print one row per dataset: its source, OpenML ids and the
dataset characteristics of Cardoso et al. 2021 §5.6 (instances, features, classes, % rows with missing
values, % categorical / numeric / binary features, majority and minority class %,
dimensionality), plus what loading dropped and why a dataset would be skipped.

A dataset that fails to load is listed with the reason; the others are still shown.
SUITE: {FORMS_HELP}."""

#: Columns of the table, in order.
COLUMNS = ("dataset", "kind", "openml_id", "task_id", *METADATA_COLUMNS, "dropped_columns", "problem",
           "fingerprint", "location")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "datasets", help="list a suite's datasets and their characteristics",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("suite", metavar="SUITE", help="embedded, builtin, cc18-offline, OpenML-CC18, a folder, a suite file, ...")
    parser.add_argument("--out", metavar="FILE.csv", help="also write the table as CSV")
    parser.add_argument("--no-load", action="store_true", help="only resolve the suite; do not read the data")
    parser.set_defaults(func=run)


def describe_suite(suite: object, *, load: bool = True, show_progress: bool = False) -> pd.DataFrame:
    """One row per dataset of ``suite`` (anything :func:`benchirt.data.resolve_suite` accepts) with the columns of
    :data:`COLUMNS`. ``load`` reads each dataset to fill the metadata columns (else they stay empty); ``problem`` holds
    the load error or :attr:`Dataset.skip_reason`, and a dataset that failed to load keeps empty metadata (never
    numbers from a partial load)."""
    import pandas as pd
    from benchirt.bars import tqdm

    from benchirt.data.suites import resolve_suite

    rows = []
    specs = resolve_suite(suite)
    for spec in tqdm(specs, desc="datasets", disable=not show_progress):
        row = {"dataset": spec.name, "kind": spec.kind, "openml_id": spec.openml_id, "task_id": spec.task_id,
               "location": spec.location, "problem": "", "dropped_columns": "", "fingerprint": ""}
        if load:
            try:
                row["fingerprint"] = spec.fingerprint()
                dataset = spec.load()
            except BenchirtError as exc:
                row["problem"] = str(exc)
            else:
                row.update(dataset.metadata())
                row["dropped_columns"] = "; ".join(f"{c} ({r})" for c, r in dataset.extra["dropped_columns"].items())
                row["problem"] = dataset.skip_reason or ""
        rows.append(row)
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    return table.astype({"openml_id": "Int64", "task_id": "Int64", "n_instances": "Int64",
                         "n_features": "Int64", "n_classes": "Int64"})


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    table = describe_suite(args.suite, load=not args.no_load, show_progress=not args.no_load)
    shown = ["dataset", "kind", "openml_id"] + ([] if args.no_load else list(METADATA_COLUMNS)) + ["problem"]
    with pd.option_context("display.max_rows", None, "display.width", 200, "display.precision", 2,
                           "display.max_colwidth", 60):
        print(table[shown].to_string(index=False))
    if args.out:
        atomic_write_csv(args.out, table)
        print(f"wrote {args.out}")
    return 0 if not table["problem"].astype(bool).all() else 2

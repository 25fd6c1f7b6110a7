"""Read a large parquet table column batch by column batch, storing exact small integers compactly.

CC18's image datasets are 0-255 integers served as parquet; read whole as ``float64`` they take 8 bytes per value, and
every later copy another 8. Here a numeric column is kept as the narrowest of :data:`COMPACT_DTYPES` that holds
*every* value exactly — checked bit for bit on the round trip to ``float64``, so a missing value, a fraction, ``-0.0``
or an out-of-range value keeps it ``float64`` — converting a batch of columns at a time. Nothing changes downstream:
the cleaning rules and :func:`benchirt.preprocess.clean_features` keep such columns and scikit-learn converts them
exactly, so the responses are bit-identical (``tests/test_data_compact.py``). Hand-written because pandas'
``read_parquet`` has no column-wise conversion hook; pyarrow reads the columns.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

#: Integer dtypes a numeric column may be stored in (all exact in float64), narrowest first.
COMPACT_DTYPES = (np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.uint16), np.dtype(np.int16))
#: Columns converted at once (at 100,000 rows, 64 float64 columns are 51 MB).
BATCH_COLUMNS = 64


def is_compact(dtype) -> bool:
    """Whether ``dtype`` is one of :data:`COMPACT_DTYPES` (a column the cleaning rules keep as it is)."""
    return isinstance(dtype, np.dtype) and dtype in COMPACT_DTYPES


def compact_column(values: pd.Series) -> pd.Series:
    """``values`` in the narrowest :data:`COMPACT_DTYPES` that gives back every value bit for bit, else unchanged."""
    dtype = values.dtype
    if not isinstance(dtype, np.dtype) or dtype.kind not in "fiu" or is_compact(dtype) or len(values) == 0:
        return values
    array = values.to_numpy()
    if dtype.kind == "f" and not np.isfinite(array).all():
        return values
    low, high = array.min(), array.max()
    for candidate in COMPACT_DTYPES:
        info = np.iinfo(candidate)
        if info.min <= low and high <= info.max:
            narrow = array.astype(candidate)
            if np.array_equal(narrow.astype(dtype).view(np.uint8), array.view(np.uint8)):
                return pd.Series(narrow, index=values.index, name=values.name)
            return values  # a fraction or -0.0: no integer dtype holds it
    return values


def read_parquet_compact(path: str | Path, *, batch_columns: int = BATCH_COLUMNS) -> tuple[pd.DataFrame, int]:
    """All columns of a parquet file, numeric ones compacted (:func:`compact_column`) batch by batch: the table (as
    ``pandas.read_parquet`` gives it, but compact) and the number of columns stored compactly."""
    import pyarrow.parquet as pq

    source = pq.ParquetFile(path)
    names = source.schema_arrow.names
    columns, compacted, index = {}, 0, None
    for start in range(0, len(names), batch_columns):
        batch = source.read(columns=names[start:start + batch_columns]).to_pandas()
        index = batch.index
        for name in batch.columns:
            columns[name] = compact_column(batch[name])
            compacted += is_compact(columns[name].dtype)
        del batch
    # copy=False: the columns are not gathered into one block, which would hold the table twice for a moment
    return pd.DataFrame(columns, index=index, copy=False), int(compacted)

"""Checks a response matrix before estimation (BAD_INPUTS.md, "Response matrices and IRT")."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.errors import DataError


def as_response_matrix(responses, *, where: str = "responses", dtype=float) -> tuple[np.ndarray, list[str], list[str]]:
    """Validate a respondents × items matrix of 0/1 and return it with its labels: ``(matrix, respondents, items)``.

    Parameters
    ----------
    responses : pandas.DataFrame or array_like, shape (n_respondents, n_items)
        0/1 (or boolean) answers; a DataFrame's index names the respondents and its columns the items, an array gets
        ``"0", "1", ...`` / ``"V1", "V2", ...``.
    where : str
        Named in error messages (a file name, a dataset).
    dtype : numpy dtype
        Of the returned matrix. Integer or boolean answers are checked as they are and converted once, so ``numpy.int8``
        never makes a float copy of them.

    Raises
    ------
    DataError
        Empty matrix, missing (NaN) entries, values other than 0 and 1, duplicate item names — each message names the
        first offending row/column."""
    frame, respondents, items = _labelled(responses, where)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise DataError(f"{where}: the response matrix is empty (shape {frame.shape}); need respondents x items of 0/1")
    if len(set(items)) != len(items):
        dup = pd.Index(items)[pd.Index(items).duplicated()][0]
        raise DataError(f"{where}: item name {dup!r} appears more than once; give every column a unique name")
    numeric = all(pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t) for t in frame.dtypes)
    if all(isinstance(t, np.dtype) and t.kind in "iub" for t in frame.dtypes):  # numpy integers: nothing missing
        values = frame.to_numpy()
    else:
        if numeric:
            values = frame.to_numpy(dtype=float, na_value=np.nan)
        else:
            values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        _check_present(values, frame, respondents, items, where)
    not01 = (values != 0) & (values != 1)
    if not01.any():
        i, j = np.argwhere(not01)[0]
        raise DataError(
            f"{where}: value {values[i, j]:g} at respondent {respondents[i]!r}, item {items[j]!r} is not 0 or 1 "
            f"({int(not01.sum())} such entries); code each answer as 1 (correct) or 0 (wrong)"
        )
    del not01
    return values.astype(dtype, copy=False), respondents, items


def _labelled(responses, where: str) -> tuple[pd.DataFrame, list[str], list[str]]:
    """``responses`` as a DataFrame with its respondent and item labels (an array gets ``"0", "1", …`` and
    ``"V1", "V2", …``)."""
    if isinstance(responses, pd.DataFrame):
        return responses, [str(r) for r in responses.index], [str(c) for c in responses.columns]
    array = np.asarray(responses)
    if array.ndim != 2:
        raise DataError(f"{where}: expected a 2-D respondents x items matrix, got shape {array.shape}")
    items = [f"V{j + 1}" for j in range(array.shape[1])]
    return pd.DataFrame(array, columns=items), [str(i) for i in range(array.shape[0])], items


def _check_present(values: np.ndarray, frame: pd.DataFrame, respondents: list[str], items: list[str],
                   where: str) -> None:
    """A ``DataError`` naming the first missing or non-numeric entry (NaN in ``values``) of ``frame``."""
    bad = np.isnan(values)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raw = frame.iat[i, j]
        what = "a missing value (NaN)" if pd.isna(raw) else f"the non-numeric value {raw!r}"
        raise DataError(
            f"{where}: {what} at respondent {respondents[i]!r}, item {items[j]!r} "
            f"({int(bad.sum())} such entries); IRT needs every response as 0 or 1 — drop or fill them"
        )

"""Score new respondents against frozen item parameters: θ, its standard error and the True-Score.

The psychometric way to place a new respondent in a calibrated test (Cardoso et al. 2021 §4.1, second step): the item
parameters stay as calibrated and only the ability is estimated, by EAP or MAP (:mod:`benchirt.irt.ability`); the
True-Score is ``sum_j P_j(theta)`` (Cardoso et al. 2021 §2.5). :func:`score_aligned` is the one scoring body
(:meth:`benchirt.irt.IRTFit.ability_table` calls it too, so scoring a calibration respondent here gives its fitted θ
back).

The item table is either benchirt's ``items.csv`` (``item, discrimination, difficulty, guessing``, optional ``flag``) or
decodIRT's ``ltm_item_params.csv`` (``Discriminacao, Dificuldade, Adivinhacao``; items named by its first, unnamed
column, else ``V1..Vn`` in order)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.irt import ability as _ability
from benchirt.irt.config import ABILITY_METHODS, IRTConfig
from benchirt.irt.models import quadrature

PARAMETER_COLUMNS = ("discrimination", "difficulty", "guessing")
#: decodIRT's (R ltm) Portuguese column names -> benchirt's.
LTM_COLUMNS = {"Discriminacao": "discrimination", "Dificuldade": "difficulty", "Adivinhacao": "guessing"}


def read_items(path: str | Path) -> pd.DataFrame:
    """An item-parameter table from ``items.csv`` or decodIRT's ``ltm_item_params.csv``: index ``item``, columns
    ``discrimination, difficulty, guessing, flag`` (``ok`` where the file has none). Raises :class:`DataError` on a
    missing file, missing parameter columns, non-finite values, guessing outside [0, 1)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such item file; give the items.csv of `benchirt irt` (or a run's irt artifact)")
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read the item table ({exc})") from None
    if set(LTM_COLUMNS) <= set(frame.columns):
        frame = frame.rename(columns=LTM_COLUMNS)
        first = frame.columns[0]
        if str(first).startswith("Unnamed:"):  # R's row names: the item names
            frame = frame.rename(columns={first: "item"})
        else:
            frame.insert(0, "item", [f"V{j + 1}" for j in range(len(frame))])
    missing = [c for c in ("item", *PARAMETER_COLUMNS) if c not in frame.columns]
    if missing:
        raise DataError(
            f"{path}: the item table lacks column(s) {', '.join(missing)}; expected item, discrimination, "
            "difficulty, guessing (benchirt's items.csv) or ltm's Discriminacao, Dificuldade, Adivinhacao"
        )
    frame["item"] = frame["item"].astype(str)
    return check_items(frame.set_index("item"), where=str(path))


def check_items(items: pd.DataFrame, *, where: str = "items") -> pd.DataFrame:
    """Validate an item table (index = item names) and add ``flag = "ok"`` where it has none."""
    items = items.copy()
    if "flag" not in items.columns:
        items["flag"] = "ok"
    items["flag"] = items["flag"].astype(str)
    values = items[list(PARAMETER_COLUMNS)].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    if not np.isfinite(values).all():
        row = items.index[~np.isfinite(values).all(axis=1)][0]
        raise DataError(f"{where}: item {row!r} has a missing or non-numeric parameter; every a, b, c must be a number")
    if ((values[:, 2] < 0) | (values[:, 2] >= 1)).any():
        row = items.index[(values[:, 2] < 0) | (values[:, 2] >= 1)][0]
        raise DataError(f"{where}: item {row!r} has guessing outside [0, 1)")
    if items.index.duplicated().any():
        raise DataError(f"{where}: item {items.index[items.index.duplicated()][0]!r} appears more than once")
    items[list(PARAMETER_COLUMNS)] = values
    return items


def score_frozen(items: pd.DataFrame, responses, *, method: str = "EAP", config: IRTConfig | None = None) -> pd.DataFrame:
    """θ, SE and True-Score of respondents on items whose parameters are held fixed (no refitting).

    Parameters
    ----------
    items : pandas.DataFrame, index = item names
        ``discrimination, difficulty, guessing`` and optionally ``flag`` (``IRTFit.items`` or :func:`read_items`).
    responses : pandas.DataFrame, shape (n, m)
        0/1 answers, columns = the items (any order; a missing or unknown item is an error), index = respondents.
    method : {"EAP", "MAP"}
    config : IRTConfig, optional
        Supplies the ability grid (``ability_quadrature``, ``theta_max``) — use the calibration's.

    Returns
    -------
    pandas.DataFrame, index ``respondent``, columns ``theta, se, true_score``

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"discrimination": [1.0, 1.5, 0.8], "difficulty": [-1.0, 0.0, 1.0],
    ...                       "guessing": [0.0, 0.0, 0.0]}, index=["q1", "q2", "q3"])
    >>> answers = pd.DataFrame([[1, 1, 1], [1, 0, 0], [0, 0, 0]], columns=["q1", "q2", "q3"],
    ...                        index=["strong", "middle", "weak"])
    >>> scored = score_frozen(items, answers)
    >>> scored.columns.tolist()
    ['theta', 'se', 'true_score']
    >>> bool(scored.loc["strong", "theta"] > scored.loc["middle", "theta"] > scored.loc["weak", "theta"])
    True
    """
    config = config or IRTConfig()
    items = check_items(items)
    if not isinstance(responses, pd.DataFrame):
        raise DataError("score_frozen needs a DataFrame whose columns name the items")
    return score_aligned(align_responses(responses, [str(i) for i in items.index], "frozen"), items, method, config)


def align_responses(responses: pd.DataFrame, items: list[str], what: str):
    """``responses`` with the ``items`` as columns, in order, without copying the data; :class:`DataError` when an item
    is missing or a column is not an item (the message names the ``what`` items: ``fitted``, ``frozen``)."""
    columns = [str(c) for c in responses.columns]
    known, given = set(items), set(columns)
    missing = [i for i in items if i not in given]
    unknown = [c for c in columns if c not in known]
    if missing or unknown:
        raise DataError(
            f"responses do not match the {what} items: {len(missing)} item(s) missing (e.g. {missing[:3]}), "
            f"{len(unknown)} unknown (e.g. {unknown[:3]}); score respondents on exactly the calibrated items"
        )
    frame = responses.set_axis(columns, axis=1)  # no copy of the data (copy-on-write)
    return frame if columns == items else _ability.ColumnView(frame, items)


def score_aligned(responses, items: pd.DataFrame, method: str, config: IRTConfig) -> pd.DataFrame:
    """θ, SE and True-Score of ``responses`` aligned to ``items`` (:func:`align_responses`): EAP or MAP on the
    calibration's grid (:func:`benchirt.irt.ability.score_respondents`)."""
    if method not in ABILITY_METHODS:
        raise DataError(f"ability method {method!r} is not one of {', '.join(ABILITY_METHODS)}")
    nodes, log_w = quadrature(config.ability_quadrature, config.theta_max)
    a, b, c = (items[col].to_numpy(float) for col in PARAMETER_COLUMNS)
    return _ability.score_respondents(responses, a, b, c, items["flag"].to_numpy(), method, nodes, log_w,
                                      config.theta_max)

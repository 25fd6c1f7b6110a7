"""Entrants of a sparse field on too few datasets to be tested, placed among the others by a model across datasets.

:func:`benchirt.rating.sparse.ranked_field` keeps out of the tests every entrant on fewer datasets than a sign-flip test
over datasets needs. They are not dropped: their unseen datasets are predicted from the ones they ran on and from how
the field's scores go together across datasets, and each is a leaderboard row marked ``placed_by_model``
(:func:`board_with_placed`).

**Model.** Each dataset's scores are standardised over the entrants present (z = (s − mean_d) / sd_d). The entrants ×
datasets matrix of z with its holes is completed by chained equations (van Buuren & Groothuis-Oudshoorn 2011): every
dataset regressed on the others by Bayesian ridge regression (MacKay 1992; Tipping 2001), ``scikit-learn``'s
``IterativeImputer`` with ``BayesianRidge``. With ``sample_posterior`` the ``n_draws`` completions are multiple
imputations (Rubin 1987) whose spread carries both the cell noise and the regression's uncertainty; a cell's interval is
the central ``level`` range of its draws.

**Place.** In each completion every entrant's suite score is its mean z over all datasets; an entrant's placed rank is 1
+ the number of entrants (board and placed) with a higher suite score, and its interval the central ``level`` range over
the completions. On the leaderboard a placed entrant's ``rank, rank_low, rank_high`` are that rank and interval — a
prediction, not the step-down's joint intervals — and its row sits at its placed rank. Placed entrants never count as
tested: the verdict, pairs, tiers and figure take the tested rows only (:func:`benchirt.rating.verdict.measured`).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchirt.threads import blas_one_thread

#: Multiple imputations drawn per placement, and the chained-equation rounds of each (on cv-fold0's 277 flows ×
#: 20 tasks, 20 × 3 keep 90 % cell intervals at their level: benchmarks/rating_scale.py --placement).
N_DRAWS = 20
ROUNDS = 3
#: Central share of the draws the placed rank interval covers.
PLACED_LEVEL = 0.9
#: Columns the placement adds to the table of entrants left out of the tests (:data:`benchirt.rating.sparse.LEFT_OUT_COLUMNS`).
PLACED_COLUMNS = ("placed_by_model", "placed_rank", "placed_rank_low", "placed_rank_high", "n_ranked")


def standardised_matrix(scores: pd.DataFrame) -> pd.DataFrame:
    """Entrants × datasets z-scores from a long ``dataset, classifier, score`` table: each dataset centred and
    scaled over the entrants present (a dataset where all score alike becomes 0); NaN where absent."""
    wide = scores.pivot_table(index="classifier", columns="dataset", values="score", aggfunc="mean")
    centred = wide - wide.mean(axis=0)
    spread = wide.std(axis=0, ddof=0)
    z = centred / spread.where(spread > 0)
    flat = spread[spread <= 0].index
    z[flat] = centred[flat] * 0.0          # 0 where present, NaN where absent
    return z


def completions(z: pd.DataFrame, *, n_draws: int = N_DRAWS, seed: int = 0) -> np.ndarray:
    """``n_draws`` completed entrants × datasets matrices (observed cells kept, missing ones drawn), shape
    (n_draws, entrants, datasets)."""
    values = np.array(z.to_numpy(float))   # a writable copy (scikit-learn writes into it)
    draws = np.empty((n_draws, *values.shape))
    # Each regression is a small SVD (entrants × datasets): several BLAS threads only contend there.
    with blas_one_thread():
        _complete(values, draws, seed)
    return draws


def _complete(values: np.ndarray, draws: np.ndarray, seed: int) -> None:
    """Fill ``draws`` (n_draws, entrants, datasets) with chained-equation completions of ``values``."""
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401  (registers IterativeImputer)
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.impute import IterativeImputer
    from sklearn.linear_model import BayesianRidge

    for draw in range(len(draws)):
        imputer = IterativeImputer(estimator=BayesianRidge(), sample_posterior=True, max_iter=ROUNDS,
                                   random_state=seed + draw, keep_empty_features=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)   # chained equations stop at max_iter by design
            draws[draw] = imputer.fit_transform(values)


def place_entrants(scores: pd.DataFrame, placed: Sequence[str], *, level: float = PLACED_LEVEL,
                   n_draws: int = N_DRAWS, seed: int = 0) -> pd.DataFrame:
    """The placed rank of each entrant of ``placed`` among every entrant of ``scores``, with its interval.

    ``scores`` is the long ``dataset, classifier, score`` table of the whole field (board and left out); ``placed`` the
    entrants to place. Returns ``classifier`` and :data:`PLACED_COLUMNS` (``n_ranked``: the entrants it is placed among,
    itself included), one row per entrant of ``placed``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> skill = np.linspace(1, 0, 8)
    >>> rows = [(f"d{d}", f"c{i}", skill[i] + 0.1 * rng.normal()) for d in range(6) for i in range(8)
    ...         if not (i == 0 and d > 1)]                        # c0, the strongest, ran on two datasets only
    >>> place_entrants(pd.DataFrame(rows, columns=["dataset", "classifier", "score"]), ["c0"], n_draws=20)[
    ...     ["classifier", "placed_rank", "placed_rank_low", "n_ranked"]]
      classifier  placed_rank  placed_rank_low  n_ranked
    0         c0            1                1         8
    """
    z = standardised_matrix(scores)
    draws = completions(z, n_draws=n_draws, seed=seed)
    suite = draws.mean(axis=2)                                    # (draws, entrants)
    rank = 1 + (suite[:, None, :] > suite[:, :, None] + 1e-12).sum(axis=2)
    tail = (1.0 - level) / 2.0
    position = {name: n for n, name in enumerate(z.index.astype(str))}
    rows = []
    for name in placed:
        ranks = rank[:, position[str(name)]]
        rows.append({"classifier": str(name), "placed_by_model": True, "placed_rank": int(np.round(np.median(ranks))),
                     "placed_rank_low": int(np.floor(np.quantile(ranks, tail))),
                     "placed_rank_high": int(np.ceil(np.quantile(ranks, 1.0 - tail))), "n_ranked": len(z)})
    return pd.DataFrame(rows, columns=["classifier", *PLACED_COLUMNS])


def cell_intervals(z: pd.DataFrame, *, level: float = PLACED_LEVEL, n_draws: int = N_DRAWS, seed: int = 0
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The central ``level`` interval of every cell over the completions (observed cells: a point), entrants ×
    datasets, for checking coverage on hidden cells."""
    draws = completions(z, n_draws=n_draws, seed=seed)
    tail = (1.0 - level) / 2.0
    return np.quantile(draws, tail, axis=0), np.quantile(draws, 1.0 - tail, axis=0)


def placed_rows(placed: pd.DataFrame, columns: Sequence[str], *, played: pd.DataFrame,
                roles: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The leaderboard rows of the placed entrants, in the leaderboard's ``columns``.

    ``placed``: the left-out entrants with their placement (``classifier, n_datasets``, :data:`PLACED_COLUMNS`);
    ``played``: indexed by classifier, the columns every entrant has from the Glicko-2 tournament (``glicko_rating,
    glicko_rd``, ``orders_*``); ``roles``: classifier → ``"real"`` or ``"artificial"`` (real by default).

    Each row has ``rank, rank_low, rank_high`` its placed rank and central :data:`PLACED_LEVEL` interval over the
    imputations (among all ``n_ranked`` entrants), ``could_be_best`` ``rank_low == 1``, ``n_datasets``, the columns of
    ``played``, ``role``, ``placed_by_model`` True; every tested column (``bt_*``, ``tier``, ``mean_rank``,
    ``p_above_next``, ``wins/losses/ties``, ``*_on_suite``) empty.
    """
    names = placed["classifier"].astype(str)
    rows = pd.DataFrame({"classifier": names.to_numpy(), "rank": placed["placed_rank"].to_numpy(),
                         "rank_low": placed["placed_rank_low"].to_numpy(),
                         "rank_high": placed["placed_rank_high"].to_numpy(),
                         "n_datasets": placed["n_datasets"].to_numpy()})
    for column in played.columns:
        rows[column] = played[column].reindex(names).to_numpy()
    rows["could_be_best"] = rows["rank_low"] == 1
    rows["role"] = [(roles or {}).get(name, "real") for name in rows["classifier"]]
    rows["placed_by_model"] = True
    return rows.reindex(columns=list(columns))


def interleaved(board: pd.DataFrame, placed: pd.DataFrame) -> pd.DataFrame:
    """The board's rows in their order with each placed row at the row its placed rank names (``rank``: 1 + the
    entrants of the whole field placed above it), ties by name; the board's integer columns become nullable.

    >>> board = pd.DataFrame({"classifier": ["a", "b", "c"], "rank": [1, 2, 3]})
    >>> placed = pd.DataFrame({"classifier": ["x", "y"], "rank": [2, 5]})
    >>> interleaved(board, placed)["classifier"].tolist()
    ['a', 'x', 'b', 'c', 'y']
    """
    n, m = len(board) + len(placed), len(placed)
    placed = placed.sort_values(["rank", "classifier"], kind="stable")
    slots, last = [], -1
    for j, rank in enumerate(placed["rank"].astype(int)):
        last = max(rank - 1, last + 1)
        slots.append(min(last, n - m + j))          # strictly increasing, and inside the table
    order = np.empty(n, dtype=int)
    order[np.setdiff1d(np.arange(n), slots)] = np.arange(len(board))
    order[slots] = len(board) + np.arange(m)
    table = pd.concat([board, placed], ignore_index=True).iloc[order].reset_index(drop=True)
    for column in board.columns:
        if pd.api.types.is_integer_dtype(board[column]):
            table[column] = table[column].astype("Int64")
    return table


def board_with_placed(board: pd.DataFrame, placed: pd.DataFrame, *, played: pd.DataFrame,
                      roles: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Every entrant of the field on one leaderboard: the tested ``board`` (``placed_by_model`` False) with the
    placed entrants' rows (:func:`placed_rows`) among them at their placed ranks (:func:`interleaved`); the board
    itself when nobody was placed."""
    board = board.assign(placed_by_model=False)
    if placed.empty:
        return board
    return interleaved(board, placed_rows(placed, board.columns, played=played, roles=roles))

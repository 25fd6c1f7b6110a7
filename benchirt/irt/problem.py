"""One fit's data as EM sees it: the collapsed response patterns, their item blocks, the bounds, and the item
parameters' layout and prior.

``params`` is an (m, 3) array of [a, b, gamma] per distinct item; gamma = logit(c) (3PL) or -inf (c = 0, the 1PL and
2PL). As Bock & Aitkin (1981) sum over distinct response patterns weighted by their frequencies, identical respondents
are collapsed into patterns with counts, and identical items into one column with a multiplicity (:func:`unique_rows`).
The E- and M-step go through the items in blocks (:func:`block_size`). Every parameter is bounded (``lower``/``upper``;
a >= 0 for the monotone family) and has a prior (:func:`log_prior`: normal on a and b, Beta on c), which keeps the
estimates finite (Bayes modal estimation). Hand-written: numpy's ``unique(axis=0)`` costs several bytes per response
cell (:func:`unique_rows`); the rest is bookkeeping of the estimator's own arrays."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import expit, logit

from benchirt.irt.config import IRTConfig
from benchirt.irt.models import quadrature

#: Bytes per response cell of each item block's item x node tables in the E- and M-step (:func:`block_size`; at
#: least :data:`MIN_BLOCK` items): every block pays the Python of its M-step, so smaller blocks cost more CPU.
_TABLE_BYTES_PER_CELL = 0.25
MIN_BLOCK = 128
#: The 1-byte response patterns are read as float in pieces of about 1/16 of the items.
_FLOAT_PIECES = 16
_GAMMA_MIN = float(logit(1e-4))


@dataclass(kw_only=True)
class Problem:
    """The collapsed data and fixed quantities of one fit: the distinct response patterns item by item, how many
    respondents share each pattern and how many items each column, the quadrature grid, the configuration, and from
    these the item blocks and the bounds of ``params`` (``lower``, ``upper``)."""

    items: np.ndarray  # (m_unique, n_patterns) int8 0/1: the patterns item by item, read in item blocks as float
    counts: np.ndarray  # (n_patterns,) how many respondents share each pattern
    multiplicity: np.ndarray  # (m_unique,) how many items share each column
    nodes: np.ndarray  # (K,)
    log_weights: np.ndarray  # (K,)
    config: IRTConfig

    def __post_init__(self) -> None:
        self.node_powers = np.stack([np.ones_like(self.nodes), self.nodes, self.nodes**2], axis=1)
        m, n_patterns = self.items.shape
        self.block_size = block_size(m, n_patterns, len(self.nodes))
        self.piece_size = max(MIN_BLOCK, -(-m // _FLOAT_PIECES))
        config = self.config
        gamma_bounds = (_GAMMA_MIN, float(logit(config.max_guessing))) if self.estimates_guessing else (-np.inf, np.inf)
        lowest_a = 0.0 if self.monotone else -config.max_discrimination
        self.lower = np.array([lowest_a, -config.max_difficulty, gamma_bounds[0]])
        self.upper = np.array([config.max_discrimination, config.max_difficulty, gamma_bounds[1]])

    def on_grid(self, points: int) -> "Problem":
        """The same problem with ``points`` quadrature nodes on the same range."""
        nodes, log_weights = quadrature(points, self.config.theta_max)
        return replace(self, nodes=nodes, log_weights=log_weights)

    def blocks(self, m: int | None = None) -> list[slice]:
        """The item blocks of ``m`` items (default: all items), see :func:`block_size`."""
        return item_blocks(len(self.multiplicity) if m is None else m, self.block_size)

    @property
    def estimates_guessing(self) -> bool:
        """The 3PL: ``params[:, 2]`` (logit c) is estimated; otherwise it is -inf (c = 0)."""
        return self.config.model == "3PL"

    @property
    def monotone(self) -> bool:
        """Discriminations bounded below by 0 (``IRTConfig.model_family="monotone"``)."""
        return self.config.model_family == "monotone"


def unique_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``numpy.unique(values, axis=0, return_inverse=True, return_counts=True)`` for a C-contiguous 1-byte matrix, each
    row compared as one block of bytes (same sorted order); ``axis=0`` builds a structured dtype with a field per
    column, costly per response cell."""
    keys = values.view(np.dtype((np.void, values.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    return values[first], np.ravel(inverse), counts


def block_size(m: int, n_patterns: int, n_nodes: int) -> int:
    """Items per block: a block's item x node table takes :data:`_TABLE_BYTES_PER_CELL` bytes per response cell (so step
    temporaries never dominate memory), at least :data:`MIN_BLOCK` items; few, large blocks where patterns are many,
    since each block costs the same Python overhead."""
    return max(MIN_BLOCK, int(_TABLE_BYTES_PER_CELL * n_patterns * m / (8 * n_nodes)))


def item_blocks(m: int, size: int) -> list[slice]:
    """Consecutive slices of ``size`` items covering ``m``."""
    return [slice(i, min(i + size, m)) for i in range(0, m, size)]


def free_columns(problem: Problem) -> list[int]:
    """Columns of ``params`` estimated per item: [a, b, gamma] / [a, b] / [b] (1PL)."""
    return {"3PL": [0, 1, 2], "2PL": [0, 1], "1PL": [1]}[problem.config.model]


def guessing(params: np.ndarray) -> np.ndarray:
    """Each item's guessing parameter ``c = expit(gamma)`` (m,) (0 where gamma is -inf)."""
    return expit(params[:, 2])


def log_prior(params: np.ndarray, problem: Problem) -> np.ndarray:
    """Log prior density of each item's parameters, shape (m,) (zeros without priors)."""
    config = problem.config
    if not config.prior:
        return np.zeros(params.shape[0])
    (ma, sa), (mb, sb) = config.prior_discrimination, config.prior_difficulty
    lp = -0.5 * ((params[:, 1] - mb) / sb) ** 2
    if config.model != "1PL":
        lp = lp - 0.5 * ((params[:, 0] - ma) / sa) ** 2
    if problem.estimates_guessing:
        alpha, beta = config.prior_guessing
        c = guessing(params)
        lp = lp + (alpha - 1) * np.log(c) + (beta - 1) * np.log1p(-c)
    return lp


def clip(params: np.ndarray, problem: Problem) -> np.ndarray:
    """``params`` within the bounds (a copy); ``gamma = -inf`` (c = 0) stays where c is not estimated."""
    return np.clip(params, problem.lower, problem.upper)


def max_change(old: np.ndarray, new: np.ndarray) -> float:
    """The largest change of any a or b, or of any c (on the c scale, where ``old`` estimates it), from ``old`` to
    ``new``: the step size of EM's stopping rule."""
    change = np.abs(new[:, :2] - old[:, :2]).max()
    if np.isfinite(old[:, 2]).all():
        change = max(change, np.abs(expit(new[:, 2]) - expit(old[:, 2])).max())
    return float(change)


def symmetric(config: IRTConfig) -> bool:
    """The log posterior is unchanged by theta, a, b -> -theta, -a, -b (free-sign discriminations and priors centred on
    0, or none)."""
    if config.model_family == "monotone":
        return False
    return not config.prior or (config.prior_discrimination[0], config.prior_difficulty[0]) == (0.0, 0.0)

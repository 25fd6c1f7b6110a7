"""Each item's best parameters on a grid, for EM's M-step objective (3PL local optima).

For the 3PL the M-step objective ``Q_j(a, b, c) = sum_k r_jk log P_jk + (n_k - r_jk) log(1 - P_jk) + log prior`` (Bock &
Aitkin 1981) is not concave: a flat item fits a steep curve with a high guessing floor or a gentle one without, and
Fisher scoring keeps whichever it started near (docs/irt.md, "Starts, optima and the convergence report"). At a
converged EM point every item's ``Q_j`` is evaluated on a fixed grid of ``(a, b, c)`` (matrix products ``r @ odds^T``, a
block at a time) and the items whose best grid point beats their current value by a threshold are moved; raising ``Q``
raises the marginal log posterior (Dempster, Laird & Rubin 1977, Theorem 1). Hand-written: it is one numpy product
around the estimator's own tables."""
from __future__ import annotations

import numpy as np
from scipy.special import logit

from benchirt.irt.models import terms_from_logit

#: Grid of the search: discrimination and difficulty in steps of 0.5 within +-6 (clipped to the
#: bounds), guessing at these values (clipped to ``max_guessing``).
_STEP = 0.5
_GUESSING = (0.001, 0.05, 0.15, 0.3, 0.5, 0.7, 0.9)
#: Grid points whose node tables are built at once, and items scored against them at once: the
#: temporaries stay near 0.25 MB (2 bytes per response cell at decodIRT's 132 x 500).
_GRID_CHUNK = 128
_ITEM_CHUNK = 256


def item_grid(lower: np.ndarray, upper: np.ndarray, *, step: float = _STEP,
              guessing: tuple[float, ...] = _GUESSING) -> np.ndarray:
    """The 3PL grid points (G, 3) = [a, b, logit c] within the bounds ``lower``/``upper`` (3,): a and b in steps of
    ``step`` within +-6, c at ``guessing``; the guessing values vary fastest."""
    a = np.unique(np.clip(np.arange(-6.0, 6.0 + step / 2, step), lower[0], upper[0]))
    b = np.unique(np.clip(np.arange(-6.0, 6.0 + step / 2, step), lower[1], upper[1]))
    gamma = np.unique(np.clip(logit(np.array(guessing)), lower[2], upper[2]))
    grid = np.stack([g.ravel() for g in np.meshgrid(a, b, gamma, indexing="ij")], axis=1)
    return grid[grid[:, 0] != 0]  # a = 0 leaves b unidentified; the items' own values cover it


def best_on_grid(grid: np.ndarray, nodes: np.ndarray, r: np.ndarray, n_k: np.ndarray,
                 log_prior: np.ndarray, *, away_from: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each item's highest ``Q_j`` over the grid, ``best`` (m,), and the grid row attaining it, ``index`` (m,); with
    ``away_from`` (the items' ``(a, b, logit c)``), over the grid points in another mode (:func:`other_mode`).

    ``grid`` holds the points of :func:`item_grid`, ``r`` (m, K) the E-step's expected correct answers, ``n_k`` (K,) the
    expected respondents per node, ``log_prior`` (G,) each point's log prior density (0 without priors)."""
    m = len(r)
    best = np.full(m, -np.inf)
    index = np.zeros(m, dtype=int)
    for g, start, points, q in _objective_blocks(grid, nodes, r, n_k, log_prior, _GRID_CHUNK):
        if away_from is not None:
            q[~other_mode(away_from[start:start + _ITEM_CHUNK], points)] = -np.inf
        top = q.argmax(axis=1)
        value = q[np.arange(len(q)), top]
        better = value > best[start:start + _ITEM_CHUNK]
        best[start:start + _ITEM_CHUNK][better] = value[better]
        index[start:start + _ITEM_CHUNK][better] = top[better] + g
    return best, index


def _objective_blocks(grid: np.ndarray, nodes: np.ndarray, r: np.ndarray, n_k: np.ndarray, log_prior: np.ndarray,
                      chunk: int):
    """``(g, start, points, q)`` per block of ``chunk`` grid points from row ``g`` and of items from ``start``:
    ``q[j, i]`` the M-step objective Q_j (with the log prior) of item ``start + j`` at grid point ``g + i``."""
    for g in range(0, len(grid), chunk):
        points = grid[g:g + chunk]
        z = points[:, 0:1] * (nodes[None, :] - points[:, 1:2])
        _, _, log_p, log_q = terms_from_logit(z, 1.0 / (1.0 + np.exp(-points[:, 2:3])))
        odds = log_p - log_q
        constant = log_q @ n_k + log_prior[g:g + chunk]
        for start in range(0, len(r), _ITEM_CHUNK):
            q = r[start:start + _ITEM_CHUNK] @ odds.T
            q += constant
            yield g, start, points, q


#: A grid point lies in another mode of an item's ``Q_j`` than its current values when its
#: discrimination has the other sign or its difficulty differs by more than this.
OTHER_MODE_DIFFICULTY = 1.5


def other_mode(current: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(m, G) True where grid point ``points[g]`` is in another mode than item ``current[j]`` (both
    ``(a, b, logit c)``): a curve whose rise lies at the other end of the ability scale, or that falls instead of
    rising (docs/irt.md, "Starts")."""
    flipped = np.sign(points[None, :, 0]) != np.sign(current[:, None, 0])
    return flipped | (np.abs(points[None, :, 1] - current[:, None, 1]) > OTHER_MODE_DIFFICULTY)


def best_per_guessing(grid: np.ndarray, nodes: np.ndarray, r: np.ndarray, n_k: np.ndarray,
                      log_prior: np.ndarray) -> np.ndarray:
    """Each item's best grid point at each guessing value: indices into ``grid`` (m, L), one column per distinct
    ``grid[:, 2]`` in :func:`item_grid`'s order. An item's modes differ mostly in guessing, so each column starts a
    climb into one mode (:func:`benchirt.irt.climb.polished_gains`)."""
    levels = len(np.unique(grid[:, 2]))
    if len(grid) % levels or not (grid[:levels, 2] == np.unique(grid[:, 2])).all():
        raise ValueError("grid: the guessing values must vary fastest, each (a, b) with every one of them")
    m = len(r)
    best = np.full((m, levels), -np.inf)
    index = np.zeros((m, levels), dtype=int)
    chunk = levels * max(1, _GRID_CHUNK // levels)  # whole (a, b) groups of guessing values
    for g, start, _, q in _objective_blocks(grid, nodes, r, n_k, log_prior, chunk):
        q = q.reshape(len(q), -1, levels)  # item, (a, b) group, guessing value
        top = q.argmax(axis=1)
        value = np.take_along_axis(q, top[:, None, :], axis=1)[:, 0, :]
        better = value > best[start:start + _ITEM_CHUNK]
        best[start:start + _ITEM_CHUNK][better] = value[better]
        index[start:start + _ITEM_CHUNK][better] = (g + top * levels + np.arange(levels))[better]
    return index


def interpolation_weights(nodes: np.ndarray, coarse: np.ndarray) -> np.ndarray:
    """(K, K_c) weights that spread each node's mass over its two neighbours among the ``coarse`` nodes (both sorted,
    ``coarse`` spanning ``nodes``), in proportion to closeness: ``r @ W`` and ``n_k @ W`` give the M-step objective
    with ``log P`` and ``log(1 - P)`` interpolated linearly between the coarse nodes."""
    left = np.clip(np.searchsorted(coarse, nodes, side="right") - 1, 0, len(coarse) - 2)
    share = (nodes - coarse[left]) / (coarse[left + 1] - coarse[left])
    weights = np.zeros((len(nodes), len(coarse)))
    weights[np.arange(len(nodes)), left] = 1.0 - share
    weights[np.arange(len(nodes)), left + 1] += share
    return weights

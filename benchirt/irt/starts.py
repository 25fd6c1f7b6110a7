"""Starting abilities for the EM of the start search, :mod:`benchirt.irt.multistart` (one per start).

EM climbs to the nearest optimum, so the start decides which one it finds. The classical start — sum scores as
provisional abilities (Birnbaum's two-step method) — assumes every item discriminates positively; when many discriminate
negatively, EM ends where one group of items explains the scale and the other gets ``a ≈ 0``. The first start is
therefore the first principal component of the standardised items (the one-factor solution, blind to the loadings'
signs; Lord & Novick 1968 §16.10 relate such loadings to ``a``). The latent scale has no sign of its own (likelihood and
symmetric priors are unchanged by ``theta, a, b -> -theta, -a, -b``), so :func:`orientation` fixes it by the classical
item discriminations: items that good classifiers get right define "more able".

Every start is an ``(n,)`` vector of standardised scores (:func:`start_scores`). Hand-written because it is a few lines
of numpy/scipy (``scipy.linalg.eigh``) around the estimator's own collapsed data."""
from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.linalg import eigh

def _row_blocks(values: np.ndarray):
    """``(rows, float block)`` over about :data:`_BLOCKS` row blocks of a (possibly 1-byte) matrix."""
    step = max(8, -(-values.shape[0] // _BLOCKS))  # at least 64 rows made half of 132 x 8000 float at once (4 MiB)
    for i in range(0, values.shape[0], step):
        yield slice(i, i + step), values[i:i + step].astype(float)


def column_sums(values: np.ndarray, *, row_weights: np.ndarray | None = None) -> np.ndarray:
    """``row_weights @ values`` (m,) without a float copy of a 1-byte ``values`` (n, m)."""
    out = np.zeros(values.shape[1])
    for rows, block in _row_blocks(values):
        out += block.sum(axis=0) if row_weights is None else row_weights[rows] @ block
    return out


def row_sums(values: np.ndarray, column_weights: np.ndarray) -> np.ndarray:
    """``values @ column_weights`` (n,) without a float copy of a 1-byte ``values`` (n, m)."""
    return np.concatenate([block @ column_weights for _, block in _row_blocks(values)])


def _column_means(values: np.ndarray) -> np.ndarray:
    return column_sums(values) / values.shape[0]


def _standardise(score: np.ndarray) -> np.ndarray:
    sd = score.std()
    return (score - score.mean()) / (sd if sd > 0 else 1.0)


#: The starts standardise the matrix in this many blocks of rows or columns, never all at once.
_BLOCKS = 16


def principal_components(values: np.ndarray, *, multiplicity: np.ndarray | None = None, k: int = 2) -> np.ndarray:
    """The first ``k`` principal-component scores of the standardised items, shape (k, n): standardised, the largest
    eigenvalue first, each oriented by :func:`orientation`.

    Parameters
    ----------
    values : numpy.ndarray, shape (n, m)
        0/1 responses (items may be collapsed duplicates), any numeric dtype (int8 saves memory).
    multiplicity : numpy.ndarray, shape (m,), optional
        How many original items each column stands for (weights of the correlation matrix).
    k : int
        Components wanted (fewer when the data have fewer)."""
    n, m = values.shape
    weights = np.ones(m) if multiplicity is None else np.asarray(multiplicity, float)
    mean = _column_means(values)
    sd = np.sqrt(mean * (1.0 - mean))  # 0/1 items: no temporary copy of the matrix
    scale = np.sqrt(weights) / np.where(sd > 0, sd, 1.0)

    def block(rows=slice(None), cols=slice(None)):  # standardised, weighted z = (x - mean) * scale
        return (values[rows, cols] - mean[cols]) * scale[cols]

    k = max(1, min(k, n - 1, m))
    step = max(64, -(-max(n, m) // _BLOCKS))
    # the eigenvectors of the smaller Gram matrix (n x n or m x m) give the same components
    if n <= m:
        gram = np.zeros((n, n))
        for j in range(0, m, step):
            z = block(cols=slice(j, j + step))
            gram += z @ z.T
        _, vectors = eigh(gram, subset_by_index=[n - k, n - 1], overwrite_a=True)
        scores = vectors.T[::-1]
    else:
        gram = np.zeros((m, m))
        for i in range(0, n, step):
            z = block(rows=slice(i, i + step))
            gram += z.T @ z
        _, vectors = eigh(gram, subset_by_index=[m - k, m - 1], overwrite_a=True)
        scores = np.vstack([block(rows=slice(i, i + step)) @ vectors for i in range(0, n, step)]).T[::-1]
    out = np.empty((k, n))
    for row, score in enumerate(scores):
        score = _standardise(score)
        loadings = (column_sums(values, row_weights=score) - score.sum() * mean) * scale  # z^T score: covariance with each item
        out[row] = score * orientation(values, weights, loadings)
    return out


def item_rest_correlations(values: np.ndarray, *, multiplicity: np.ndarray | None = None) -> np.ndarray:
    """Correlation of each item with the (weighted) number correct on the other items, shape (m,); 0 for an item or rest
    score without variance. From moments, so no rest-score matrix is formed."""
    n, m = values.shape
    weights = np.ones(m) if multiplicity is None else np.asarray(multiplicity, float)
    total = row_sums(values, weights)
    mean = _column_means(values)
    var_item = mean * (1.0 - mean)  # 0/1 items
    cov_total = column_sums(values, row_weights=total) / n - mean * total.mean()
    cov_rest = cov_total - var_item  # rest = total - item
    var_rest = np.maximum(total.var() - 2 * cov_total + var_item, 0.0)
    denom = np.sqrt(var_item * var_rest)
    return np.where(denom > 1e-12, cov_rest / np.where(denom > 1e-12, denom, 1.0), 0.0)


def orientation(values: np.ndarray, multiplicity: np.ndarray, discrimination: np.ndarray) -> float:
    """``+1`` or ``-1``: the sign that makes ``discrimination`` (m,) agree with the classical item discriminations, i.e.
    ``sum_j w_j a_j r_j >= 0`` with ``r_j`` the item-rest correlations."""
    classical = item_rest_correlations(values, multiplicity=multiplicity)
    agreement = float(np.sum(np.asarray(multiplicity, float) * discrimination * classical))
    return -1.0 if agreement < 0 else 1.0


def sum_score(values: np.ndarray, *, multiplicity: np.ndarray | None = None) -> np.ndarray:
    """The standardised (weighted) number-correct score, shape (n,): the classical start."""
    weights = np.ones(values.shape[1]) if multiplicity is None else np.asarray(multiplicity, float)
    return _standardise(row_sums(values, weights))


#: ``starts="auto"``: directions in the plane of the first two principal components (degrees from
#: the first) whose scores start EM besides the first component itself and the sum score.
_DIRECTIONS = (30, 60, 90, 120, 150)


def start_scores(values: np.ndarray, multiplicity: np.ndarray,
                 starts: int | Literal["auto"], *, monotone: bool = False) -> tuple[list[tuple[str, np.ndarray]], str]:
    """The starting ability scores of one fit and why these: ``(list of (name, score (n,)), reason)``.

    decodIRT's pools are close to two-dimensional (the MLP ladder's progress against the real classifiers' differences);
    a one-dimensional model can lay its scale along many directions of that plane, ending in different optima
    (docs/irt.md), so the candidates cover the plane.

    Parameters
    ----------
    values : numpy.ndarray, shape (n, m)
        Informative 0/1 responses.
    multiplicity : numpy.ndarray, shape (m,)
    starts : int or "auto"
        ``"auto"``: the first principal component, the sum score and the scores along :data:`_DIRECTIONS` in the plane
        of the first two components, in the order tried (:func:`benchirt.irt.multistart.best_of_starts`). An integer
        ``k`` takes the first ``k`` of those, then mixtures of the first two components with seeded random weights.
    monotone : bool
        Discriminations are at least 0 (``IRTConfig.model_family="monotone"``): the sum score comes first, and
        ``"auto"`` is the sum score alone (Birnbaum's two-step start; one climb)."""
    total = sum_score(values, multiplicity=multiplicity)
    if monotone and starts == "auto":  # no principal components: their Gram matrix (m x m) was the largest array
        return [("sum_score", total)], ("monotone model: one start, the sum score (every discrimination is at least "
                                        "0, so the scale's direction is the one every item agrees on)")
    pcs = principal_components(values, multiplicity=multiplicity, k=2)
    agreement = float(abs(np.mean(pcs[0] * total)))
    candidates = [("principal_component", pcs[0]), ("sum_score", total)]
    if monotone:
        candidates.reverse()
    if len(pcs) > 1:
        for degrees in _DIRECTIONS:
            angle = np.radians(degrees)
            candidates.append((f"direction_{degrees}", _standardise(np.cos(angle) * pcs[0] + np.sin(angle) * pcs[1])))
    if starts == "auto":
        return candidates, (f"candidate starts in order: principal component, sum score (|r| = {agreement:.3f}), "
                            f"directions {', '.join(map(str, _DIRECTIONS))} degrees in the plane of the first two "
                            "components; then hops from the best optimum found and seeded mixtures of the two in turn, "
                            "until two starts reach the best optimum and at most a fifth end in an optimum of their "
                            "own (at most 20 starts); then, where they ended in more than one optimum, items of the best "
                            "flipped to their other mode and crossovers of the best with the next best optima until "
                            "none gains")
    rng = np.random.default_rng(0)
    while len(candidates) < starts:
        mix = rng.standard_normal(len(pcs))
        candidates.append((f"random_{len(candidates) - 1 - len(_DIRECTIONS)}", _standardise(mix @ pcs)))
    return candidates[:starts], (f"{starts} start(s) requested (|r| of principal component and sum score = "
                                 f"{agreement:.3f})")

"""Item fit: infit and outfit mean squares per item, and a misfit flag (Wright & Masters 1982, ch. 5).

With the respondents' abilities ``theta_i`` (EAP of the fit) and the model probability
``P_ij = P_j(theta_i)``, the squared standardised residual is
``z_ij^2 = (u_ij - P_ij)^2 / (P_ij (1 - P_ij))`` and

* outfit ``= mean_i z_ij^2`` (sensitive to unexpected answers of respondents far from the item),
* infit ``= sum_i (u_ij - P_ij)^2 / sum_i P_ij (1 - P_ij)`` (information-weighted).

Both have expectation 1 when the item follows the model. Well above 1 means answers the curve
does not explain (surprising successes of weak respondents or failures of strong ones: Linacre
2002 calls values above 1.5 "unproductive for measurement", the flag used here). Below 1 means
answers more deterministic than the curve: that degrades nothing, and classifier pools are like
that (on decodIRT's pc1 most items have outfit < 0.5, since classifiers agree far more than a
logistic curve with a bounded slope predicts), so it is not flagged. An item of pure noise is
*not* flagged either: the model explains it by a flat curve (``a`` near 0), which the item table
shows. With abilities estimated from the same responses the mean squares run a little below 1.
Written by hand: a few numpy lines over the model's probabilities; S-X² (Orlando & Thissen 2000)
needs a leave-one-item-out summed-score recursion per item, cubic in the number of items — too
slow for 500-96,000 test instances. The sums run over blocks of items (about
:data:`benchirt.irt.ability.BLOCK_CELLS` responses each), so the memory beyond the input is one
block, not a few respondents x items tables of floats.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.irt.ability import block_size
from benchirt.irt.models import probability

#: Infit or outfit above this flags an item as misfitting (Linacre 2002).
MISFIT_ABOVE = 1.5


def mean_squares(u: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Infit and outfit mean squares per column of a 0/1 matrix ``u`` (n, m) under probabilities ``p``
    (n, m); columns without variance under the model (``P`` 0 or 1 everywhere) get 1."""
    u = np.asarray(u, dtype=float)
    variance = p * (1.0 - p)
    squared = (u - p) ** 2
    informative = variance > 1e-12
    z2 = np.where(informative, squared / np.where(informative, variance, 1.0), 0.0)
    counted = informative.sum(axis=0)
    outfit = np.where(counted > 0, z2.sum(axis=0) / np.maximum(counted, 1), 1.0)
    total_variance = np.where(informative, variance, 0.0).sum(axis=0)
    infit = np.where(total_variance > 0, np.where(informative, squared, 0.0).sum(axis=0)
                     / np.where(total_variance > 0, total_variance, 1.0), 1.0)
    return infit, outfit


def item_fit(fit, responses, *, misfit_above: float = MISFIT_ABOVE, theta=None) -> pd.DataFrame:
    """Infit/outfit of every item of ``fit`` on ``responses`` and whether it misfits.

    Parameters
    ----------
    fit : IRTFit
    responses : pandas.DataFrame or array_like, shape (n, m)
        The calibration responses (or any respondents on the fit's items).
    misfit_above : float
        An item misfits when its infit or outfit exceeds this.
    theta : array_like, shape (n,), optional
        The respondents' abilities when already computed (``fit.abilities(responses)``, which checks
        the responses against the fit's items, otherwise).

    Returns
    -------
    pandas.DataFrame, index ``item``
        ``infit, outfit`` (finite; 1 for items without information, which the model does not
        try to explain) and ``misfit`` (bool; never for items without information).
    """
    if theta is None:
        theta = fit.abilities(responses).to_numpy()  # checks the items match
    theta = np.asarray(theta, dtype=float)
    items = list(fit.items.index)
    if isinstance(responses, pd.DataFrame):  # columns in the fit's item order
        positions = pd.Index([str(c) for c in responses.columns]).get_indexer(items)

        def columns(block: np.ndarray) -> np.ndarray:
            return responses.iloc[:, positions[block]].to_numpy(dtype=float)
    else:
        matrix = np.asarray(responses)

        def columns(block: np.ndarray) -> np.ndarray:
            return matrix[:, block].astype(float)
    if len(theta) != len(responses):
        raise ValueError(f"theta has {len(theta)} values for {len(responses)} respondents")
    informative = fit.informative
    a, b, c = (fit.items[name].to_numpy(float) for name in ("discrimination", "difficulty", "guessing"))
    infit, outfit = np.ones(len(items)), np.ones(len(items))
    width = block_size(len(theta))
    for start in range(0, len(items), width):
        block = np.flatnonzero(informative[start:start + width]) + start
        if len(block):
            infit[block], outfit[block] = mean_squares(columns(block), probability(theta, a[block], b[block], c[block]))
    misfit = informative & ((infit > misfit_above) | (outfit > misfit_above))
    return pd.DataFrame({"infit": infit, "outfit": outfit, "misfit": misfit}, index=fit.items.index.copy())

"""Item fit: infit and outfit mean squares per item, and a misfit flag (Wright & Masters 1982, ch. 5).

With the fit's EAP abilities ``theta_i`` and ``P_ij = P_j(theta_i)``, ``z_ij^2 = (u_ij - P_ij)^2 / (P_ij (1 - P_ij))``;
outfit ``= mean_i z_ij^2`` (sensitive to unexpected answers far from the item), infit
``= sum_i (u_ij - P_ij)^2 / sum_i P_ij (1 - P_ij)`` (information-weighted). Both have expectation 1 under the model (a
little below with abilities from the same responses). Above 1.5 is flagged ("unproductive for measurement", Linacre
2002). Below 1 (answers more deterministic than the curve, usual for classifier pools) degrades nothing and is not
flagged; nor is an item of pure noise, which the model explains by a flat curve (``a`` near 0, shown in the item table).

Written by hand: a few numpy lines over the model's probabilities; S-X² (Orlando & Thissen 2000) needs a
leave-one-item-out recursion per item, cubic in the number of items — too slow for thousands of test instances. The sums
run over blocks of about :data:`benchirt.irt.ability.BLOCK_CELLS` responses, so memory beyond the input is one block."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.irt.ability import block_size
from benchirt.irt.models import probability

#: Infit or outfit above this flags an item as misfitting (Linacre 2002).
MISFIT_ABOVE = 1.5


def mean_squares(u: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Infit and outfit mean squares per column of a 0/1 matrix ``u`` (n, m) under probabilities ``p`` (n, m); columns
    without variance under the model (``P`` 0 or 1 everywhere) get 1."""
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
        The respondents' abilities when already computed (else ``fit.abilities(responses)``, which checks the
        responses).

    Returns
    -------
    pandas.DataFrame, index ``item``
        ``infit, outfit`` (finite; 1 for items without information) and ``misfit`` (bool; never for items without
        information)."""
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

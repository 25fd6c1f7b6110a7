"""Simulated response matrices with known item parameters (parameter-recovery checks)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchirt.irt.models import probability


@dataclass(kw_only=True)
class SimulatedResponses:
    """Responses drawn from a known model.

    Attributes
    ----------
    responses : pandas.DataFrame, shape (n_respondents, n_items), int8 0/1
    theta : numpy.ndarray, shape (n_respondents,)
    a, b, c : numpy.ndarray, shape (n_items,)
    """

    responses: pd.DataFrame
    theta: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray


def simulate_responses(
    n_respondents: int = 132,
    *, n_items: int = 500,
    model: str = "3PL",
    negative_fraction: float = 0.0,
    seed: int | np.random.Generator = 0,
    discrimination: str = "lognormal",
) -> SimulatedResponses:
    """Draw a 0/1 matrix from Cardoso et al. 2021 eq. 1 with typical parameters.

    ``theta ~ N(0, 1)``; ``|a| ~ LogNormal(0.2, 0.35)`` (median 1.2), negative for a random ``negative_fraction`` of the
    items, or with ``discrimination="normal"`` ``a ~ N(0, 1)`` (``negative_fraction`` unused); ``b ~ N(0, 1)``;
    ``c ~ Beta(2, 10)`` for the 3PL, 0 otherwise; the 1PL shares ``a = 1``."""
    if discrimination not in ("lognormal", "normal"):
        raise ValueError(f"discrimination: 'lognormal' or 'normal', got {discrimination!r}")
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_respondents)
    if model == "1PL":
        a = np.ones(n_items)
    elif discrimination == "normal":
        a = rng.standard_normal(n_items)
    else:
        a = rng.lognormal(0.2, 0.35, n_items)
        a[rng.random(n_items) < negative_fraction] *= -1
    b = rng.standard_normal(n_items)
    c = rng.beta(2, 10, n_items) if model == "3PL" else np.zeros(n_items)
    p = probability(theta, a, b, c)
    u = (rng.random(p.shape) < p).astype(np.int8)
    frame = pd.DataFrame(
        u,
        index=[f"r{i + 1}" for i in range(n_respondents)],
        columns=[f"V{j + 1}" for j in range(n_items)],
    )
    return SimulatedResponses(responses=frame, theta=theta, a=a, b=b, c=c)

"""The simplest rules that answer "which datasets to run at this budget", each a baseline any subset rule must beat.

Every baseline walks the datasets in its own order and keeps each one that still fits the budget:

* ``random``: a random order (random subsets of equal cost; Zhang, Dorner & Hardt 2025 find random datasets hard
  to beat);
* ``cheapest_first``: ascending cost (the most datasets a budget buys);
* ``top_spread``: descending spread (standard deviation) of the top contenders' scores on the dataset;
* ``farthest_first``: farthest-first traversal of the datasets' score profiles (Gonzalez 1985; the selection
  Gusev & Zaytsev 2026 use), starting from the medoid;
* ``most_items``: descending number of test items.
"""
from __future__ import annotations

import numpy as np

from benchirt.rating.stepdown import row_spread, standardised


def fill_in_order(order: np.ndarray, costs: np.ndarray, budget: float) -> np.ndarray:
    """The datasets of ``order`` kept, in turn, while they fit the budget (sorted indices; at least the first)."""
    chosen: list[int] = []
    spent = 0.0
    for index in order:
        if spent + costs[index] <= budget or not chosen:
            chosen.append(int(index))
            spent += costs[index]
    return np.sort(np.asarray(chosen, dtype=int))


def random_fills(costs: np.ndarray, budget: float, n_draws: int, *, seed: int = 0) -> list[np.ndarray]:
    """``n_draws`` random subsets of equal cost: random orders, each filled to the budget."""
    rng = np.random.default_rng(seed)
    return [fill_in_order(rng.permutation(len(costs)), costs, budget) for _ in range(n_draws)]


def farthest_first_order(scores: np.ndarray) -> np.ndarray:
    """Datasets in farthest-first order of their standardised score profiles (rows of ``scores``, datasets ×
    classifiers; NaN counts as the dataset's mean), starting from the medoid."""
    profiles = np.nan_to_num(standardised(scores))
    distance = np.sqrt(((profiles[:, None, :] - profiles[None, :, :]) ** 2).sum(axis=2))
    order = [int(np.argmin(distance.sum(axis=1)))]
    nearest = distance[order[0]].copy()
    for _ in range(len(profiles) - 1):
        nearest[order] = -np.inf
        order.append(int(np.argmax(nearest)))
        nearest = np.minimum(nearest, distance[order[-1]])
    return np.asarray(order)


def baseline_orders(scores: np.ndarray, costs: np.ndarray, n_items: np.ndarray | None, *, top_k: int = 10
                    ) -> dict[str, np.ndarray]:
    """Each deterministic baseline's order of the datasets (``scores``: datasets × contenders, higher is better;
    ``most_items`` only when ``n_items`` is given)."""
    means = np.nanmean(scores, axis=0)
    top = np.argsort(-means, kind="stable")[:top_k]
    spread = row_spread(scores[:, top])     # a dataset none of them ran has spread 0
    orders = {"cheapest_first": np.argsort(costs, kind="stable"),
              "top_spread": np.argsort(-spread, kind="stable"),
              "farthest_first": farthest_first_order(scores)}
    if n_items is not None:
        orders["most_items"] = np.argsort(-np.asarray(n_items, dtype=float), kind="stable")
    return orders

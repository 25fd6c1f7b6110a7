"""How often benchirt's intervals cover the truth on data simulated from known values.

Each function simulates from known parameters, estimates with benchirt's own code and returns one row per
interval: ``kind, replicate, covered`` (and the interval's ``width``), so the coverage at ``level`` is the
mean of ``covered``. ``tests/test_interval_coverage.py`` runs small versions against a tolerance band;
``benchmarks/interval_coverage.py`` runs bigger ones and prints the coverage per kind
(benchmarks/results/interval-coverage.md; summarised in docs/irt.md and docs/rating.md). A simulation harness of the benchmarks and tests, not part of the package (issue 35):
both import it from ``benchmarks/``.

- IRT item parameters (:func:`irt_coverage`): responses drawn from Cardoso et al. 2021 eq. 1 with the
  parameters of :func:`benchirt.irt.simulate.simulate_responses`, fitted by :func:`benchirt.irt.fit_irt`;
  intervals ``estimate ± z·SE`` of :meth:`benchirt.irt.IRTFit.conf_int` (Bock & Aitkin 1981).
- Abilities (same function, kind ``theta``): the EAP θ ± z·posterior SD of every simulated respondent,
  scored on the fitted items.
- Glicko-2 ratings (:func:`glicko_coverage`): ``k`` players with true ratings of mean 1500 meet in a
  round robin every period, with win probability ``1 / (1 + exp(-(μ_i − μ_j)))`` on the Glicko-2 scale
  (Glickman 2012); intervals R ± z·RD after the last period. ``outcomes="independent"`` draws every game
  on its own (Glicko's assumption); ``"scores"`` draws one score per player and period (its true μ plus
  standard Gumbel noise, whose differences are logistic) and lets the scores decide every pair at once, as
  benchirt's tournament does with the score of each dataset.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchirt.irt import fit_irt  # the package's export: the same function wherever the estimation lives
from benchirt.irt.config import IRTConfig
from benchirt.irt.simulate import simulate_responses
from benchirt.rating.batch import SCALE, update_period
from benchirt.rating.glicko import match_outcomes
from benchirt.results import check_level, normal_interval

#: The interval kinds measured, in the order the benchmark prints them.
KINDS = ("discrimination", "difficulty", "guessing", "theta", "glicko")


def irt_coverage(model: str = "2PL", n_respondents: int = 500, n_items: int = 40, replicates: int = 5,
                 level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Coverage rows of the item parameters' and the abilities' intervals over ``replicates`` fits.

    Each replicate draws a new ``n_respondents x n_items`` matrix of ``model`` (seed ``seed + r``), fits it
    with the default :class:`benchirt.irt.IRTConfig` of that model and checks every estimated parameter of
    every informative item and every respondent's EAP θ.
    """
    level = check_level(level)
    config = IRTConfig(model=model)
    rows = []
    for replicate in range(replicates):
        sim = simulate_responses(n_respondents, n_items=n_items, model=model, seed=seed + replicate)
        fit = fit_irt(sim.responses, config=config)
        truth = {"discrimination": sim.a, "difficulty": sim.b, "guessing": sim.c}
        position = {item: j for j, item in enumerate(sim.responses.columns)}
        intervals = fit.conf_int(level)
        true = np.array([truth[p][position[i]] for i, p in zip(intervals["item"], intervals["parameter"])])
        rows.append(_rows(intervals["parameter"], replicate, intervals["low"], intervals["high"], true))
        abilities = fit.ability_table(sim.responses)
        low, high = normal_interval(abilities["theta"], abilities["se"], level=level)
        rows.append(_rows("theta", replicate, low, high, sim.theta))
    return pd.concat(rows, ignore_index=True)


def glicko_coverage(k: int = 10, n_periods: int = 20, replicates: int = 200, spread: float = 200.0,
                    level: float = 0.95, outcomes: str = "independent", seed: int = 0,
                    initial: tuple[float, float, float] = (1500.0, 350.0, 0.06), weighted: bool = False) -> pd.DataFrame:
    """Coverage rows of the Glicko-2 intervals R ± z·RD after ``n_periods`` round robins of ``k`` players
    (with ``weighted``, each period's games weighted 1/(opponents): one game's worth per period, as the
    tournament plays a field that would diverge, :mod:`benchirt.rating.batch`).

    True ratings ~ N(0, ``spread``²), new ones per replicate, shifted to mean 1500 in each replicate:
    games identify ratings only up to a common shift, and Glicko-2's updates, which move the winner up by
    about what they move the loser down, keep the pool's mean near the initial rating (1500), so the
    rating that an interval can cover is the one relative to the pool's mean. All replicates are played at
    once by :func:`benchirt.rating.batch.update_period` (Glickman's algorithm, the tournament's default
    engine).
    """
    level = check_level(level)
    if outcomes not in ("independent", "scores"):
        raise ValueError(f"outcomes must be 'independent' or 'scores', got {outcomes!r}")
    rng = np.random.default_rng(seed)
    draws = rng.normal(0.0, spread, (replicates, k))
    true = 1500.0 + draws - draws.mean(axis=1, keepdims=True)
    mu_true = (true - 1500.0) / SCALE
    mu = np.full((replicates, k), (initial[0] - 1500.0) / SCALE)
    phi = np.full((replicates, k), initial[1] / SCALE)
    sigma = np.full((replicates, k), float(initial[2]))
    for _ in range(n_periods):
        result = _period_outcomes(mu_true, outcomes, rng)
        mu, phi, sigma, _ = update_period(mu, phi, sigma, result, weighted=weighted)
    low, high = normal_interval(mu * SCALE + 1500.0, phi * SCALE, level=level)
    return _rows("glicko", np.repeat(np.arange(replicates), k), low.ravel(), high.ravel(), true.ravel())


def coverage_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per kind: ``n_intervals``, ``coverage`` (share covered) and its binomial ``se``, ``mean_width``."""
    grouped = rows.groupby("kind", sort=False)
    table = grouped.agg(n_intervals=("covered", "size"), coverage=("covered", "mean"), mean_width=("width", "mean"))
    table["se"] = np.sqrt(table["coverage"] * (1 - table["coverage"]) / table["n_intervals"])
    return table.reset_index()[["kind", "n_intervals", "coverage", "se", "mean_width"]]


def _period_outcomes(mu_true: np.ndarray, outcomes: str, rng: np.random.Generator) -> np.ndarray:
    """One period's (P, k, k) outcomes of every pair, 1 / 0 for i against j, NaN on the diagonal."""
    if outcomes == "scores":
        return match_outcomes(mu_true + rng.gumbel(size=mu_true.shape))
    p_win = 1.0 / (1.0 + np.exp(-(mu_true[:, :, None] - mu_true[:, None, :])))
    upper = np.triu(rng.random(p_win.shape) < p_win, 1).astype(float)
    result = upper + np.triu(1.0 - upper, 1).transpose(0, 2, 1)
    k = mu_true.shape[1]
    result[:, np.arange(k), np.arange(k)] = np.nan
    return result


def _rows(kind, replicate, low, high, true) -> pd.DataFrame:
    low, high, true = (np.asarray(v, dtype=float) for v in (low, high, true))
    return pd.DataFrame({"kind": kind, "replicate": replicate, "covered": (low <= true) & (true <= high),
                         "width": high - low})

"""Many Glicko-2 tournaments at once, vectorised with numpy: Glickman's algorithm or the ``glicko2`` package's.

Why hand-written: the order analysis plays the same tournament under hundreds of dataset orders; through the ``glicko2``
package that is one Python call per classifier, period and order, here each period is one set of array operations over
all orders and classifiers. No maintained library offers a batched Glicko-2, and none Glickman's step 5 exactly.

Two variants (``glicko``):

- ``"glickman"``: Glickman's "Example of the Glicko-2 system" (Glickman 2013), steps 3-8, with ε = 1e-6 in the Illinois
  search of step 5 and f(x) = e^x (Δ² − φ² − v − e^x) / (2 (φ² + v + e^x)²) − (x − a) / τ². The tests reproduce the
  paper's worked example.
- ``"decodirt"``: the ``glicko2`` package's arithmetic, step for step (one period agrees with it to rounding). Its ``f``
  (``glicko2.Player._f``) uses the squared *rating* μ² where the paper has φ²; decodIRT's published ratings carry that
  deviation. Over a whole tournament the two agree to about 1e-4 rating points, not to rounding: the package's
  volatility search stops at a 1e-6 bracket, so a last-bit difference can end it a step earlier or later.

Games weighted per dataset (``weighted=True``): Glicko-2 counts the k − 1 games of a period as independent, so with
hundreds of classifiers v shrinks like 1/k and the update μ' − μ ≈ Δ is a full Newton step; a classifier far from its
rating on one dataset then gets a step of thousands of points and a volatility step 5 raises to about |Δ|. The games of
one dataset are not independent (they derive from one score per classifier): with ``weighted=True`` each of classifier
i's games in a period has weight 1/n_i (n_i: opponents met there), a weighted composite likelihood (Varin, Reid & Firth
2011, §2) worth one game per dataset; v and Δ come from the weighted sums, Glickman's other steps are unchanged.
:func:`diverges` decides when a tournament needs it.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from benchirt.rating.glicko_grid import EXACT_UP_TO, fits_grid, period_sums

#: Glicko-2 scale factor between the rating scale and the internal (μ, φ) scale.
SCALE = 173.7178
#: System constant τ and convergence tolerance ε of the volatility search (Glickman's example; the package's too).
TAU = 0.5
EPSILON = 1e-6
#: Most (orders × classifiers present²) cells of one period's update computed at once (about 40 MB of float64).
BLOCK_ELEMENTS = 5_000_000
#: Volatility above which a tournament is said to have diverged (it starts at 0.06; decodIRT's 19 classifiers
#: on 50 datasets end below 0.09, benchmarks/rating_leaderboard.py).
DIVERGED = 1.0


@dataclass
class BatchResult:
    """Final state of P tournaments over k classifiers: ``rating, rd, volatility`` and ``n_played`` (periods each
    classifier played, the same in every order), each (P, k)."""

    rating: np.ndarray
    rd: np.ndarray
    volatility: np.ndarray
    n_played: np.ndarray


def match_outcomes(scores: np.ndarray, *, tie_tolerance: float = 0.0) -> np.ndarray:
    """Outcomes of every pairing on one dataset (Cardoso et al. 2021 §4.7: win 1, draw 0.5, loss 0).

    ``scores`` has shape (..., k), NaN = absent, leading axes datasets; scores with ``|a - b| <= tie_tolerance`` are a
    draw. Returns shape (..., k, k): ``out[..., i, j]`` = result of i against j; NaN on the diagonal and where i or j is
    absent.
    """
    scores = np.asarray(scores, dtype=float)
    diff = scores[..., :, None] - scores[..., None, :]
    out = np.where(diff > 0, 1.0, 0.0)
    out = np.where(np.abs(diff) <= tie_tolerance, 0.5, out)
    out[np.isnan(diff)] = np.nan
    k = scores.shape[-1]
    out[..., np.arange(k), np.arange(k)] = np.nan
    return out


def play_orders(
    scores: np.ndarray,
    orders: np.ndarray,
    *,
    tie_tolerance: float = 0.0,
    initial: tuple[float, float, float] = (1500.0, 350.0, 0.06),
    glicko: str = "glickman",
    weighted: bool = False,
) -> BatchResult:
    """Play one Glicko-2 tournament per dataset order, all orders in parallel; returns :class:`BatchResult`.

    ``scores`` (D, k): datasets × classifiers, NaN where absent; on each dataset every pair present meets once
    (:func:`match_outcomes`). ``orders`` (P, T): each row a sequence of dataset indices, the rating periods of one
    tournament. ``initial``: (rating, rd, volatility). ``glicko``: the variant of step 5; ``weighted``: each game of a
    period weighted 1/(opponents met) (module docstring).
    """
    orders = np.atleast_2d(np.asarray(orders, dtype=int))
    n_orders, k = orders.shape[0], np.shape(scores)[1]
    n_played = np.zeros((n_orders, k), dtype=int)
    state = None
    for state in play_periods(scores, orders, tie_tolerance=tie_tolerance, initial=initial, glicko=glicko,
                              weighted=weighted):
        n_played += state[3]
    if state is None:
        mu, phi, sigma = _start(initial, n_orders, k)
    else:
        mu, phi, sigma, _ = state
    return BatchResult(mu * SCALE + 1500.0, phi * SCALE, sigma, n_played)


def play_periods(scores: np.ndarray, orders: np.ndarray, *, tie_tolerance: float = 0.0,
                 initial: tuple[float, float, float] = (1500.0, 350.0, 0.06), glicko: str = "glickman",
                 weighted: bool = False) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The tournaments of :func:`play_orders` period by period: after each, (μ, φ, σ, played), each (P, k).

    Outcomes are formed only for the datasets a period plays: in a sparse field one dataset at a time among the
    classifiers present, in a dense one for a block of orders at once, in blocks of at most :data:`BLOCK_ELEMENTS`
    cells, so memory does not grow with datasets × classifiers².
    """
    scores = np.asarray(scores, dtype=float)
    orders = np.atleast_2d(np.asarray(orders, dtype=int))
    mu, phi, sigma = _start(initial, orders.shape[0], scores.shape[1])
    present = ~np.isnan(scores)
    dense = present.all() and scores.shape[1] <= EXACT_UP_TO
    for t in range(orders.shape[1]):
        period = _dense_period if dense else _sparse_period
        mu, phi, sigma, played = period(mu, phi, sigma, scores, orders[:, t], tie_tolerance=tie_tolerance,
                                        glicko=glicko, weighted=weighted)
        yield mu, phi, sigma, played


def _sparse_period(mu, phi, sigma, scores: np.ndarray, datasets: np.ndarray, *, tie_tolerance: float, glicko: str,
                   weighted: bool):
    """One period of a sparse field (or of a dense one above :data:`~benchirt.rating.glicko_grid.EXACT_UP_TO`): per
    dataset, the orders playing it updated on the classifiers present there — from (n, n) outcomes in blocks of at
    most :data:`BLOCK_ELEMENTS` cells, or from :func:`~benchirt.rating.glicko_grid.period_sums` above
    ``EXACT_UP_TO`` present; everyone absent is idle (φ = sqrt(φ² + σ²))."""
    new_mu, new_phi, new_sigma = mu.copy(), np.sqrt(phi**2 + sigma**2), sigma.copy()
    played = np.zeros(mu.shape, dtype=bool)
    for d in np.unique(datasets):
        columns = np.flatnonzero(~np.isnan(scores[d]))
        if columns.size < 2:
            continue
        playing = np.flatnonzero(datasets == d)
        cells = np.ix_(playing, columns)
        if columns.size > EXACT_UP_TO and fits_grid(mu[cells]):
            pull, information = period_sums(mu[cells], phi[cells], scores[d, columns], tie_tolerance=tie_tolerance)
            games = columns.size - 1 if weighted else 1.0
            new_mu[cells], new_phi[cells], new_sigma[cells] = glicko_steps(
                mu[cells], phi[cells], sigma[cells], pull / games, information / games, glicko=glicko)
            played[cells] = True
            continue
        result = match_outcomes(scores[d, columns], tie_tolerance=tie_tolerance)
        block = max(1, BLOCK_ELEMENTS // columns.size**2)
        for first in range(0, playing.size, block):
            cells = np.ix_(playing[first:first + block], columns)
            new_mu[cells], new_phi[cells], new_sigma[cells], played[cells] = update_period(
                mu[cells], phi[cells], sigma[cells], np.broadcast_to(result, (len(cells[0]), *result.shape)),
                glicko=glicko, weighted=weighted)
    return new_mu, new_phi, new_sigma, played


def _dense_period(mu, phi, sigma, scores: np.ndarray, datasets: np.ndarray, *, tie_tolerance: float, glicko: str,
                  weighted: bool):
    """One period of a dense field: the orders in blocks of at most :data:`BLOCK_ELEMENTS` (orders × k²) cells,
    each block's outcomes formed for the datasets it plays."""
    k = scores.shape[1]
    block = max(1, BLOCK_ELEMENTS // k**2)
    parts = []
    for first in range(0, len(datasets), block):
        rows = slice(first, first + block)
        unique, inverse = np.unique(datasets[rows], return_inverse=True)
        outcomes = np.stack([match_outcomes(scores[d], tie_tolerance=tie_tolerance) for d in unique])
        parts.append(update_period(mu[rows], phi[rows], sigma[rows], outcomes[inverse.ravel()], glicko=glicko,
                                   weighted=weighted))
    return tuple(np.concatenate(arrays) for arrays in zip(*parts))


def _start(initial: tuple[float, float, float], n_orders: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every classifier's starting μ, φ, σ in every order, on the Glicko-2 scale."""
    return (np.full((n_orders, k), (initial[0] - 1500.0) / SCALE), np.full((n_orders, k), initial[1] / SCALE),
            np.full((n_orders, k), float(initial[2])))


def update_period(mu: np.ndarray, phi: np.ndarray, sigma: np.ndarray, result: np.ndarray, *, glicko: str = "glickman",
                  weighted: bool = False):
    """One rating period of P independent tournaments (Glickman's steps 3-8, pre-period opponents).

    ``mu, phi, sigma`` (P, k) are ratings and deviations on the Glicko-2 scale (μ = (R − 1500) / 173.7178, φ = RD /
    173.7178) and volatilities; ``result`` (P, k, k) the period's outcomes (NaN: the pair did not meet); ``glicko``,
    ``weighted`` as in :func:`play_orders`. Returns ``mu, phi, sigma`` after the period (a classifier that met nobody
    keeps μ and σ and gets φ = sqrt(φ² + σ²)) and ``played`` (bool), each (P, k).
    """
    met = ~np.isnan(result)
    played = met.any(axis=2)
    g = 1.0 / np.sqrt(1.0 + 3.0 * phi**2 / np.pi**2)                  # g(φ_j), (P, k)
    # E(μ, μ_j, φ_j) without overflow, then the games' residuals s − E and information E(1 − E), zero where the
    # pair did not meet, each summed against g_j (resp. g_j²): the (P, k, k) arrays are updated in place.
    expected = g[:, None, :] * (mu[:, :, None] - mu[:, None, :])
    expit(expected, out=expected)
    residual = np.where(met, result, 0.0)
    residual -= expected
    residual *= met
    expected *= 1.0 - expected
    expected *= met
    games = np.maximum(met.sum(axis=2), 1) if weighted else 1.0        # composite weights: 1 / opponents met
    info = np.einsum("pij,pj->pi", expected, g * g) / games
    pull = np.einsum("pij,pj->pi", residual, g) / games
    new_mu, new_phi, new_sigma = glicko_steps(mu, phi, sigma, pull, np.where(played, info, 1.0), glicko=glicko)
    idle_phi = np.sqrt(phi**2 + sigma**2)                              # did not compete
    return (
        np.where(played, new_mu, mu),
        np.where(played, new_phi, idle_phi),
        np.where(played, new_sigma, sigma),
        played,
    )


def glicko_steps(mu: np.ndarray, phi: np.ndarray, sigma: np.ndarray, pull: np.ndarray, information: np.ndarray, *,
                 glicko: str = "glickman") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Glickman's steps 3-8 from a period's sums, for classifiers that played: ``pull`` Σ_j g(φ_j)(s_j − E_j) and
    ``information`` Σ_j g(φ_j)² E_j(1 − E_j) (each weighted per game when the games are); new μ, φ, σ."""
    v = 1.0 / information                                              # step 3
    delta = v * pull                                                   # step 4
    new_sigma = _new_volatility(mu if glicko == "decodirt" else phi, phi, sigma, delta, v)   # step 5
    phi_star = np.sqrt(phi**2 + new_sigma**2)                          # step 6
    new_phi = 1.0 / np.sqrt(1.0 / phi_star**2 + 1.0 / v)               # step 7
    return mu + new_phi**2 * pull, new_phi, new_sigma                  # step 8


def diverges(scores: np.ndarray, *, tie_tolerance: float = 0.0,
             initial: tuple[float, float, float] = (1500.0, 350.0, 0.06), glicko: str = "glickman") -> int:
    """How many classifiers end the unweighted tournament in the given dataset order (``scores`` as in
    :func:`play_orders`) with a volatility above :data:`DIVERGED`; 0 when it does not diverge. The expected overflow
    (module docstring) is silenced."""
    with np.errstate(all="ignore"):
        result = play_orders(scores, np.arange(len(scores))[None, :], tie_tolerance=tie_tolerance, initial=initial,
                             glicko=glicko)
    volatility = result.volatility[0]
    return int((~(volatility <= DIVERGED)).sum())


def _new_volatility(inner, phi, sigma, delta, v):
    """Step 5 (Illinois search for σ'), elementwise, in the order of Glickman's steps 5.1-5.5.

    ``inner`` is the quantity squared inside f: φ in Glickman's algorithm, μ in the ``glicko2`` package.
    """
    a = np.log(sigma**2)

    def f(x):
        ex = np.exp(x)
        return ex * (delta**2 - inner**2 - v - ex) / (2.0 * (inner**2 + v + ex) ** 2) - (x - a) / TAU**2

    big = delta**2 > phi**2 + v
    low = np.where(big, np.log(np.where(big, delta**2 - phi**2 - v, 1.0)), 0.0)
    steps = np.ones_like(a)
    searching = ~big
    while searching.any():
        searching &= f(a - steps * TAU) < 0
        steps = np.where(searching, steps + 1.0, steps)
    B = np.where(big, low, a - steps * TAU)
    A = a.copy()
    fA, fB = f(A), f(B)
    active = np.abs(B - A) > EPSILON
    while active.any():
        C = A + (A - B) * fA / np.where(active, fB - fA, 1.0)
        fC = f(C)
        swap = fC * fB <= 0
        A = np.where(active & swap, B, A)
        fA = np.where(active, np.where(swap, fB, fA / 2.0), fA)
        B = np.where(active, C, B)
        fB = np.where(active, fC, fB)
        active &= np.abs(B - A) > EPSILON
    return np.exp(A / 2.0)

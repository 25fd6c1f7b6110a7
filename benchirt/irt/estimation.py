"""Marginal maximum likelihood / Bayes modal estimation of the 1PL, 2PL and 3PL by EM.

Why hand-written: decodIRT called R's ``ltm`` (not available here, and its estimates
are often degenerate: discriminations in the hundreds, difficulties of -277);
``girth`` does not run on numpy 2; ``mirt`` (PyPI) clamps discrimination to
``[0, 5]``, so it cannot reproduce decodIRT's free-sign model (the negative discriminations
Cardoso et al. 2021 §5.2 reads as a signal), and integrates on a fixed grid that errs by tens of
log-likelihood units on classifier pools (docs/irt.md). This module keeps the standard algorithm
(Bock & Aitkin's EM over a quadrature grid) and adds what the benchmark setting needs: the
monotone default and decodIRT's free-sign mode, priors, bounds on every parameter, a grid refined
from the data, flags instead of NaN, and vectorised steps.

Algorithm (all items at once)
-----------------------------
* Ability distribution: standard normal on ``K`` equally spaced nodes
  ``theta_k`` in ``[-theta_max, theta_max]`` (it fixes the scale); ``K`` is doubled where the first
  start's optimum shows that the grid does not resolve the respondents' posteriors
  (:func:`_resolving_grid`).
* E-step: posterior weights ``w_ik`` of respondent ``i`` on node ``k`` from two
  matrix products; expected counts ``n_k = sum_i w_ik`` and
  ``r_jk = sum_i w_ik u_ij``. Identical response patterns (rows) are collapsed
  first, and so are identical items (columns: they have identical estimates), which
  halves the work on decodIRT's pools, where MLP-ladder rows repeat.
* M-step: up to two Fisher-scoring steps per item on the expected complete-data log
  posterior ``sum_k r_jk log P_jk + (n_k - r_jk) log(1 - P_jk) + log prior_j``
  (2×2 or 3×3 systems solved for every item at once; projected at the bounds;
  shortened to at most 1 per parameter), with step halving so that each item's
  objective never decreases (a generalised EM, hence monotone); the second step only
  for items the first moved by ``tol`` or more. The 1PL takes one joint Newton step on the
  shared discrimination and the difficulties instead (:func:`_rasch_step`).
* Guessing is optimised as ``gamma = logit(c)``; its Beta prior (in ``c``) keeps
  it off the boundaries.
* SQUAREM extrapolation (per item) accelerates the EM map; with ``IRTConfig.expanded_em`` (on for
  the monotone family; off for decodIRT's, where it changes which optima the start search reaches, docs/irt.md) each SQUAREM cycle begins with
  a parameter-expanded EM move (Liu, Rubin & Wu 1998) on the location and unit of the ability scale,
  along which EM creeps (:func:`_expanded_move`); see :func:`_run_em` for the stopping rule.
* Standard errors: per-item cross-product of the respondents' marginal scores
  (see :func:`_standard_errors`).
* Starts: the monotone family (``IRTConfig.model_family``, every a >= 0; the default) climbs once from
  the sum score. decodIRT's free-sign family climbs from seven candidate starts (:mod:`benchirt.irt.starts`), then from hops
  off the best optimum and seeded starts until :mod:`benchirt.irt.search`'s evidence says it has
  seen enough, then from recombinations of the optima found (:func:`_recombine`), and keeps the
  highest log posterior; the fit's ``starts`` record lists every start
  and the distinct optima found (:func:`_best_of_starts`). At each stop the
  3PL items' M-step objectives are searched on a grid (:mod:`benchirt.irt.modes`), and
  convergence requires a stationary marginal log posterior (:func:`_marginal_gradient`). The mirror image of the solution is the same fit; it
  is oriented by the classical item discriminations.

Items answered correctly (or wrongly) by every respondent carry no information:
they are left out of the likelihood and returned with flag ``all_correct`` /
``all_wrong`` (see :func:`benchirt.irt.fit.flagged_item_values`).
"""
from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy.special import expit, logit
from threadpoolctl import ThreadpoolController

from benchirt.errors import DataError
from benchirt.irt.config import IRTConfig
from benchirt.irt.fit import IRTFit, flagged_item_values
from benchirt.irt.models import quadrature, terms_from_logit
from benchirt.irt.modes import best_on_grid, item_grid
from benchirt.irt.search import explored_enough, file_optimum
from benchirt.irt.slope import ability_slopes
from benchirt.irt.starts import column_sums, orientation, start_scores
from benchirt.irt.validation import as_response_matrix

#: Largest change of any parameter (a, b, logit c) in one Fisher-scoring update.
_MAX_STEP = 1.0
#: Halvings tried before an item keeps its previous value in an M-step.
_HALVINGS = 8
#: Fisher-scoring steps per item in one M-step. One step (a generalised EM) left EM crawling along
#: flat ridges of weakly determined 3PL items: at 132 x 8000 it stopped 94 log-posterior units below
#: the optimum (``benchmarks/irt_fit.py --part scale --baseline``); a third step cost more than it saved there.
_M_STEPS = 2
#: The E- and M-step go through the items in blocks (:func:`_block_size`) whose item x node tables
#: take about this many bytes per response cell each, and at least :data:`_MIN_BLOCK` items.
_TABLE_BYTES_PER_CELL = 0.25
_MIN_BLOCK = 64
#: The 1-byte response patterns are read as float in pieces of about 1/16 of the items.
_FLOAT_PIECES = 16
_GAMMA_MIN = float(logit(1e-4))
#: Largest SQUAREM step length (per item); longer ones fail the log-posterior check more often
#: than they gain (measured on simulated and reference matrices).
_MAX_ALPHA = 3.0
#: The 1PL's SQUAREM step length, one for all parameters: a cap of 3 left its fits at 52 and 85 EM
#: steps (simulated 1000 x 2000 and 2000 x 1000), 100 at 16 and 27 (issue 23; a longer step that
#: fails the log-posterior check costs one EM step).
_MAX_ALPHA_1PL = 100.0
#: The parameter-expanded move (:func:`_expanded_move`) changes the ability scale's unit by at most
#: this factor's exponential (e^0.7 = 2.0) at once.
_EXPANSION_RANGE = 0.7
#: A later EM start this close (largest change of a, b or c) to an earlier start's optimum, with a
#: log posterior within ``tol_optimum`` of it, has reached that optimum (:func:`_joins`).
_JOIN = 0.1
#: ``starts="auto"`` (:func:`_search`): the fewest and the most starts that climb. All seven candidates
#: of :func:`~benchirt.irt.starts.start_scores` climb: stopping once the first two agreed missed the best
#: optimum on banknote and breast-w by 15.1 and 13.5 log-posterior units (their principal component and
#: sum score agree on a local optimum; directions 120-150 in the plane reach the best), docs/irt.md.
_MIN_CLIMBS = 7
_BUDGET = 20
#: Share of the items a hop (:class:`_Hops`) starts afresh, and every how many starts after the
#: candidates one is a hop (the others are the seeded mixtures of the deep search): hops alone missed
#: GesturePhaseSegmentation's best optimum, which one seeded mixture reaches, by 3.2 units.
_HOP_SHARE = 0.2
_HOP_EVERY = 2
#: The search's last phase (:func:`_recombine`), where it found more than one optimum: the items
#: whose other mode comes closest that are flipped one at a time (:func:`_mode_flips`, 3PL), and how
#: many crossovers with the next best optima (:class:`_Crossovers`) in a row may fail to raise the
#: best optimum; at most :data:`_RECOMBINE_BUDGET` climbs in all. With 15 flips and 40 climbs the
#: perturbed runs of the stationarity test ended 0.21 apart on digits (0.00 with 30 and 60); 45 and 90
#: changed nothing on kc2, digits and participation (exploratory runs, docs/irt.md, "Starts").
_FLIPS = 30
_CROSS_PATIENCE = 6
_CROSS_PARTNERS = 3
_RECOMBINE_BUDGET = 60
_FLIP_PREFIX = "flip_"  # the flips' names: flip_1, flip_2, ...
#: An item moves to a better grid point of its M-step objective when that gains more than this
#: (log-posterior units; :func:`_escape_item_modes`), at most :data:`_MAX_ESCAPES` times per start.
_ESCAPE_GAIN = 0.01
_MAX_ESCAPES = 10
#: The quadrature grid is doubled (old nodes plus midpoints) at most this many times: 41 -> 81 -> 161
#: -> 321 nodes by default (:func:`_resolving_grid`).
_MAX_REFINEMENTS = 3
#: The standard errors go through the items in this many blocks, so their (patterns, items, 3)
#: score arrays hold 1.5 bytes per response cell each instead of 24.
_SE_BLOCKS = 16


@dataclass
class _Problem:
    """The collapsed data and fixed quantities of one fit."""

    items: np.ndarray  # (m_unique, n_patterns) int8 0/1: the patterns item by item, read in item blocks as float
    counts: np.ndarray  # (n_patterns,) how many respondents share each pattern
    multiplicity: np.ndarray  # (m_unique,) how many items share each column
    nodes: np.ndarray  # (K,)
    log_weights: np.ndarray  # (K,)
    config: IRTConfig

    def __post_init__(self) -> None:
        self.node_powers = np.stack([np.ones_like(self.nodes), self.nodes, self.nodes**2], axis=1)
        m, n_patterns = self.items.shape
        self.block_size = _block_size(m, n_patterns, len(self.nodes))
        self.piece_size = max(_MIN_BLOCK, -(-m // _FLOAT_PIECES))
        config = self.config
        guessing = (_GAMMA_MIN, float(logit(config.max_guessing))) if self.estimates_guessing else (-np.inf, np.inf)
        lowest_a = 0.0 if self.monotone else -config.max_discrimination
        self.lower = np.array([lowest_a, -config.max_difficulty, guessing[0]])
        self.upper = np.array([config.max_discrimination, config.max_difficulty, guessing[1]])

    def on_grid(self, points: int) -> "_Problem":
        """The same problem with ``points`` quadrature nodes on the same range."""
        nodes, log_weights = quadrature(points, self.config.theta_max)
        return replace(self, nodes=nodes, log_weights=log_weights)

    def blocks(self, m: int | None = None) -> list[slice]:
        """The item blocks of ``m`` items (default: all items), see :func:`_block_size`."""
        return _item_blocks(len(self.multiplicity) if m is None else m, self.block_size)

    @property
    def estimates_guessing(self) -> bool:
        return self.config.model == "3PL"

    @property
    def monotone(self) -> bool:
        """Discriminations bounded below by 0 (``IRTConfig.model_family="monotone"``)."""
        return self.config.model_family == "monotone"


def fit_irt(responses, config: IRTConfig | None = None, initial: pd.DataFrame | None = None) -> IRTFit:
    """Estimate item parameters from a 0/1 response matrix (Cardoso et al. 2021 §4.1, §4.4).

    Parameters
    ----------
    responses : pandas.DataFrame or array_like, shape (n_respondents, n_items)
        1 = answered correctly. Index/columns name respondents/items.
    config : IRTConfig, optional
        Model, priors, quadrature, bounds and stopping rule; defaults to the 3PL
        with priors.
    initial : pandas.DataFrame, optional
        The item table (``discrimination``, ``difficulty``, ``guessing``, indexed by item) of a fit of
        a model that nests this one, on the same responses: EM climbs from it alone, with no start
        search (:func:`_nested_start`; :func:`benchirt.irt.compare.compare_models` fits the 2PL from
        the 3PL's solution and the 1PL from the 2PL's), on ``config.quadrature`` nodes, not refined
        (give the nesting fit's ``quadrature_nodes``).

    Returns
    -------
    IRTFit
        ``items`` (one row per item, finite values, ``flag`` column), convergence
        record (``converged``, ``n_iter``, ``max_change``, ``log_likelihood``,
        ``log_posterior``, ``seconds``) and methods for abilities, probabilities and
        True-Scores.

    Raises
    ------
    DataError
        Invalid entries (see :func:`benchirt.irt.validation.as_response_matrix`), fewer than 2
        items, fewer than ``config.min_respondents`` respondents, or no item that any two
        respondents answer differently.

    Examples
    --------
    >>> from benchirt.irt import IRTConfig, fit_irt
    >>> from benchirt.irt.simulate import simulate_responses
    >>> simulated = simulate_responses(n_respondents=40, n_items=12, model="2PL", seed=1)
    >>> fit = fit_irt(simulated.responses, IRTConfig(model="2PL"))
    >>> fit.items.shape
    (12, 9)
    >>> fit.items.columns[:3].tolist()
    ['discrimination', 'difficulty', 'guessing']
    >>> bool((fit.items["guessing"] == 0).all())     # the 2PL has no guessing parameter
    True
    """
    config = config or IRTConfig()
    start = time.perf_counter()
    # The products here are small (respondents x items x nodes): threads only add
    # contention, and the pipeline parallelises over datasets instead.
    with _blas_threads().limit(limits=1, user_api="blas"):
        return _fit(responses, config, start, initial)


@functools.cache
def _blas_threads() -> ThreadpoolController:
    """The process's BLAS thread pools, inspected once (inspecting costs ~1 ms per call)."""
    return ThreadpoolController()


def _fit(responses, config: IRTConfig, start: float, initial: pd.DataFrame | None = None) -> IRTFit:
    values, respondents, items = as_response_matrix(responses)
    n, m = values.shape
    if m < 2:
        raise DataError(
            f"responses: {m} item ({items[0]!r}) cannot be fitted as a {config.model}: an ability scale needs at "
            "least 2 items — give the full respondents x items matrix"
        )
    if n < config.min_respondents:
        raise DataError(
            f"responses: {n} respondent(s) cannot support {config.model} item parameters; need at least "
            f"{config.min_respondents} (IRTConfig.min_respondents) — add respondents (classifiers)"
        )
    p_correct = values.mean(axis=0)
    informative = (p_correct > 0) & (p_correct < 1)
    if not informative.any():
        raise DataError(
            f"responses: all {m} items are answered the same way by every respondent (all correct or all wrong); "
            "no item carries information — check that the respondents differ"
        )
    # collapse identical items and respondents on a 1-byte copy (no float copy of the matrix is kept)
    binary = values.astype(np.int8)[:, informative]
    del values
    rows, item_index, multiplicity = _unique_rows(np.ascontiguousarray(binary.T))
    del binary
    columns = np.ascontiguousarray(rows.T)
    del rows
    patterns, _, counts = _unique_rows(columns)
    patterns = np.ascontiguousarray(patterns.T)  # an item block is then one contiguous piece
    nodes, log_weights = quadrature(config.quadrature, config.theta_max)
    problem = _Problem(patterns, counts.astype(float), multiplicity.astype(float), nodes, log_weights,
                       config)
    del patterns

    if initial is None:
        params, record, starts, problem = _best_of_starts(columns, problem)
    else:
        params, record, starts, problem = _nested_start(columns, initial, items, informative, item_index, problem)
    del columns
    log_post = record.history[-1]
    quadrature_error = _grid_error(params, problem)
    log_lik = log_post - float(problem.multiplicity @ _log_prior(params, problem))
    post, _ = _posterior_at(params, problem)  # the respondents' posteriors, for the SEs and the slopes
    se = _standard_errors(params, problem, post)
    slopes = _ability_slopes(post, problem)
    item_index = np.ravel(item_index)
    params, se, slopes = params[item_index], se[item_index], slopes[item_index]

    table = _item_table(items, informative, p_correct, params, se, config, slopes)
    for optimum in starts["optima"]:  # every optimum found, as an item table (without standard errors)
        optimum["items"] = _item_table(items, informative, p_correct, optimum.pop("params")[item_index],
                                       np.zeros_like(se), config)
    return IRTFit(
        items=table,
        converged=record.converged,
        n_iter=record.n_iter,
        max_change=record.max_change,
        log_posterior_change=float(record.log_posterior_change),
        stopped_by=record.stopped_by,
        max_gradient=float(record.max_gradient),
        log_likelihood=float(log_lik),
        log_posterior=float(log_post),
        seconds=time.perf_counter() - start,
        model=config.model,
        config=config,
        n_respondents=n,
        quadrature_nodes=len(problem.nodes),
        quadrature_error=float(quadrature_error),
        respondents=respondents,
        history=np.asarray(record.history),
        starts=starts,
    )


def _unique_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``numpy.unique(values, axis=0, return_inverse=True, return_counts=True)`` for a C-contiguous
    1-byte matrix, each row compared as one block of bytes (the same sorted order): ``axis=0`` builds a
    structured dtype with a field per column, whose description costs ~2.5 bytes per response cell
    at 132 x 500."""
    keys = values.view(np.dtype((np.void, values.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    return values[first], np.ravel(inverse), counts


def _best_of_starts(columns: np.ndarray, problem: _Problem):
    """Run EM from the starts of :func:`benchirt.irt.starts.start_scores`; keep the highest log posterior.

    The first start climbs on the configured grid, and its optimum decides the grid of the search
    (:func:`_resolving_grid`; the monotone family climbs on from it on each finer grid instead,
    :func:`_refined_climb`, and with ``starts="auto"`` climbs once, from the sum score). Each start climbs to its optimum (:func:`_search`). ``config.starts="auto"``: the candidates of
    :func:`~benchirt.irt.starts.start_scores` in order, then hops from the best optimum found
    (:class:`_Hops`) alternating with seeded mixtures, until the evidence of
    :func:`benchirt.irt.search.explored_enough` (the best optimum reached by two starts other than
    hops, few of those ending in an optimum of their own) or :data:`_BUDGET` starts, then, where they
    ended in more than one optimum, recombinations of the optima (:func:`_recombine`); an integer ``k``:
    all of the first ``k`` starts of the list, no hops (the deep search of ``benchmarks/irt_fit.py
    --part starts``).

    Returns the best parameters, its EM record and the start table: ``reason``, ``runs`` (one row per
    start: its log posterior, ``n_iter``, ``stopped_by`` and ``status`` —
    ``"converged"``, ``"iteration_limit"`` or ``"better_optimum_exists"`` (another start reached a log
    posterior higher by more than ``config.tol_optimum``)), and ``optima``: the distinct optima (final
    log posteriors more than ``tol_optimum`` apart), best first, with the starts that reached each and
    their parameters (``params``; :func:`fit_irt` turns them into item tables); and the problem on the
    grid the search ran on.
    """
    config = problem.config
    scores, reason = start_scores(columns, problem.multiplicity, config.starts, monotone=problem.monotone)
    search = config.starts == "auto" and not problem.monotone
    if search:
        scores = scores + start_scores(columns, problem.multiplicity, _BUDGET)[0][len(scores):]
    climbed = _climb(_initial_values(columns, scores[0][1], problem), problem)
    first: tuple[np.ndarray, _Record] | None = climbed
    if problem.monotone:  # one optimum: each finer grid climbs on from the coarser grid's
        problem, first = _refined_climb(climbed, problem)
    else:
        resolved = _resolving_grid(climbed[0], problem)
        if resolved is not problem:  # the search climbs on the finer grid, the first start again
            problem, first = resolved, None
    runs, optima = _search(columns, scores, problem, auto=search, first=first)
    best = _chosen_run(runs, optima)
    assert best.params is not None  # the chosen run is one _release_unchosen keeps
    params = best.params.copy()
    if _symmetric(config):  # the mirror image is the same fit (see starts.py): orient it
        params[:, :2] *= orientation(columns, problem.multiplicity, params[:, 0])
        for optimum in optima:
            optimum["params"] = optimum["params"].copy()
            optimum["params"][:, :2] *= orientation(columns, problem.multiplicity, optimum["params"][:, 0])
    return params, best.record, {"reason": reason, "runs": _run_rows(runs, best, config), "optima": optima}, problem


@dataclass
class _Run:
    """Where one start's EM ended: its parameters and record."""

    name: str
    params: np.ndarray | None  # None once it cannot be the reported run (:func:`_release_unchosen`)
    record: "_Record"


def _search(columns: np.ndarray, scores: list[tuple[str, np.ndarray]], problem: _Problem, auto: bool,
            first: tuple[np.ndarray, "_Record"] | None = None) -> tuple[list[_Run], list[dict]]:
    """Every start climbs to its optimum (:func:`_climb`; a start that comes within :data:`_JOIN` of an
    optimum an earlier start converged to stops there), in order. With ``auto``, after the first
    :data:`_MIN_CLIMBS` ``scores`` (the candidates) the search stops once
    :func:`benchirt.irt.search.explored_enough` on the starts other than hops (a hop begins next to
    the best optimum, so its return there is no independent evidence), and otherwise alternates hops
    from the best optimum found so far (:class:`_Hops`) with the further ``scores`` (seeded mixtures
    of the first two principal components; only these where no hop is possible), up to
    :data:`_BUDGET` starts; then, where the starts ended in more than one optimum, it recombines them
    (:func:`_recombine`). ``first``: where the first score's start has climbed already (on this grid).
    Returns the runs and the distinct optima."""
    runs: list[_Run] = []
    optima: list[dict] = []
    queue = iter(scores)
    hops = _Hops(columns, dict(scores), problem)
    while len(runs) < (_BUDGET if auto else len(scores)):
        searched = auto and len(runs) >= _MIN_CLIMBS
        if searched and explored_enough(optima, independent=lambda name: not name.startswith(_Hops.PREFIX)):
            break
        if searched and optima and hops.possible and (len(runs) - _MIN_CLIMBS) % _HOP_EVERY == 0:
            name, start = hops.next(optima[0]["params"])
        else:
            queued = next(queue, None)
            if queued is None:
                break
            name, score = queued
            start = _initial_values(columns, score, problem)
        _climb_and_file(start, name, problem, runs, optima, climbed=first if not runs else None)
    if auto and len(optima) > 1:
        _recombine(problem, runs, optima)
    return runs, optima


def _climb_and_file(start: np.ndarray, name: str, problem: _Problem, runs: list[_Run], optima: list[dict],
                    climbed: tuple[np.ndarray, "_Record"] | None = None) -> bool:
    """Climb from ``start`` (:func:`_climb`; ``climbed``: its result, when known), add the run to
    ``runs`` and file its optimum under ``optima``; True when it raised the best optimum by more than
    ``tol_optimum``."""
    top = optima[0]["log_posterior"] if optima else -np.inf
    params, record = climbed or _climb(start, problem, list(optima))
    runs.append(_Run(name, params, record))
    if record.converged:
        file_optimum(optima, name, params, record.history[-1], record.joined, problem.config.tol_optimum)
    _release_unchosen(runs, optima)
    return bool(optima) and optima[0]["log_posterior"] > top + problem.config.tol_optimum


def _resolving_grid(params: np.ndarray, problem: _Problem) -> _Problem:
    """``problem`` on the coarsest grid that resolves the respondents' posteriors at ``params`` (the
    first start's optimum): the configured grid, doubled (:func:`_finer`) while doubling it changes
    the log posterior there by more than ``tol_optimum / 2`` (at most :data:`_MAX_REFINEMENTS` times;
    ``config.refine_quadrature`` False: never).

    The trapezoid rule on equally spaced nodes converges exponentially fast for a smooth integrand,
    but only once the spacing is below its width (Trefethen & Weideman 2014, on a Gaussian of SD
    sigma the relative error is about ``2 exp(-2 pi^2 sigma^2 / h^2)``). With many steep items a
    classifier's posterior of θ on decodIRT's pools is narrower than the default spacing of 0.3
    (SD 0.07-0.4), and the marginal log posterior then ripples with the spacing's period as the items
    move along the scale: optima of the grid, not of the model. On the embedded suite's participation
    matrix, shifting every difficulty of the best 41-node optimum by up to 0.45 gives a second
    maximum 0.2 to 0.25 away at 41 nodes and a single one at 81 or more (docs/irt.md, "The
    calibration grid"), and which of two optima 0.52 apart the search reached depended on ``_MAX_STEP``.
    An error below ``tol_optimum / 2`` at two optima keeps them apart in the model if the grid tells
    them apart by more than ``tol_optimum``. The error is judged at the first start's optimum only
    (one E-step per grid); the fit reports what remains at the optimum it returns
    (``IRTFit.quadrature_error``)."""
    config = problem.config
    for _ in range(_MAX_REFINEMENTS if config.refine_quadrature else 0):
        if _grid_error(params, problem) <= config.tol_optimum / 2:
            break
        problem = problem.on_grid(_finer(problem))
    return problem


def _refined_climb(climbed: tuple[np.ndarray, "_Record"], problem: _Problem) -> tuple[_Problem, tuple]:
    """The monotone family's grid: while doubling the grid changes the log posterior at the current
    optimum by more than ``tol_optimum / 2`` (at most :data:`_MAX_REFINEMENTS` times), EM climbs on
    from that optimum on the doubled grid. Unlike :func:`_resolving_grid` (the free-sign search, where
    the grid must be fixed before starts are compared) the grid is judged again at every optimum, the
    returned one included, and no climb starts over; the EM steps of all grids are added up, the
    log-posterior history is the final grid's."""
    params, record = climbed
    config = problem.config
    for _ in range(_MAX_REFINEMENTS if config.refine_quadrature else 0):
        if not record.converged or _grid_error(params, problem) <= config.tol_optimum / 2:
            break
        problem = problem.on_grid(_finer(problem))
        params, later = _climb(params, problem, max_iter=config.max_iter - record.n_iter)
        own = list(later.history)
        record = record.extend(later)
        record.history = own  # a coarser grid's log posteriors are of another integral
    return problem, (params, record)


def _finer(problem: _Problem) -> int:
    """The number of nodes of the grid with the midpoints of ``problem``'s added."""
    return 2 * len(problem.nodes) - 1


def _grid_error(params: np.ndarray, problem: _Problem) -> float:
    """How much the log posterior at ``params`` changes on the grid with twice ``problem``'s nodes."""
    return abs(_log_posterior(params, problem.on_grid(_finer(problem))) - _log_posterior(params, problem))


def _log_posterior(params: np.ndarray, problem: _Problem) -> float:
    """The marginal log posterior at ``params`` on ``problem``'s grid (one E-step)."""
    return float(_e_step(_Terms.at(params, problem), params, problem)[2])


def _release_unchosen(runs: list[_Run], optima: list[dict]) -> None:
    """Drop the parameters of the runs :func:`_chosen_run` can no longer report — all but the best
    optimum's starts and the highest run — so that a search of 80 climbs does not hold 80 item tables
    (the optima keep their own; at 132 x 8000 the runs' tables were 15 MB, 14 bytes per response cell)."""
    keep = set(optima[0]["starts"]) if optima else set()
    top = max(runs, key=lambda run: run.record.history[-1])
    for run in runs:
        if run is not top and run.name not in keep:
            run.params = None


def _recombine(problem: _Problem, runs: list[_Run], optima: list[dict]) -> None:
    """The search's last phase, a local search among the optima found: EM climbs from the best optimum
    with one item moved to its other mode (:func:`_mode_flips`, the :data:`_FLIPS` closest, one at a
    time, 3PL), then from crossovers of the best optimum with the next best (:class:`_Crossovers`);
    whenever a climb raises the best optimum the flips start again from the new best. Stops when
    all flips and :data:`_CROSS_PATIENCE` crossovers in a row fail, or after
    :data:`_RECOMBINE_BUDGET` climbs."""
    crossovers = _Crossovers(problem)
    end = len(runs) + _RECOMBINE_BUDGET
    flip_count = 0
    while len(runs) < end:
        best = optima[0]["params"]
        flips = _mode_flips(best, problem) if problem.estimates_guessing else []
        gained = False
        for item, value in flips:
            if len(runs) >= end:
                return
            start = best.copy()
            start[item] = value
            flip_count += 1
            if _climb_and_file(start, f"{_FLIP_PREFIX}{flip_count}", problem, runs, optima):
                gained = True
                break
        for _ in range(0 if gained else _CROSS_PATIENCE):
            if len(runs) >= end:
                return
            if _climb_and_file(*crossovers.next(optima), problem, runs, optima):
                gained = True
                break
        if not gained:
            return


def _mode_flips(params: np.ndarray, problem: _Problem) -> list[tuple[int, np.ndarray]]:
    """The :data:`_FLIPS` items whose M-step objective (at the E-step of ``params``) comes closest to
    its value in another mode (:func:`benchirt.irt.modes.other_mode`), closest first, each with the
    best grid point of that mode. The optima of decodIRT's pools differ in such items: on the embedded
    suite's participation matrix the flip of one item, whose objective there was 1.1 lower, led EM
    0.44 log-posterior units higher (docs/irt.md, "Starts")."""
    gains, values = _grid_gains(params, problem, other_mode=True)
    order = np.argsort(-gains, kind="stable")[:_FLIPS]
    return [(int(j), values[j]) for j in order if np.isfinite(gains[j])]


class _Crossovers:
    """Starts that recombine the best optimum found with the next best (uniform crossover, Syswerda
    1989): each item takes, with probability 1/2 (seeded), the partner's
    value instead of the best's. The partners are the second to :data:`_CROSS_PARTNERS` + 1st best
    optima in turn, each turned to the best's orientation (a mirror image is the same optimum). On
    decodIRT's kc2 pool three of six crossovers of the best optimum the candidates, mixtures and hops
    found with the second or third best reached the best optimum of a 20-start search, which 1 of its
    20 starts reached and none of those hops (an exploratory run, docs/irt.md, "Starts")."""

    PREFIX = "cross_"

    def __init__(self, problem: _Problem):
        self.problem = problem
        self.rng = np.random.default_rng(1)
        self.count = 0

    def next(self, optima: list[dict]) -> tuple[np.ndarray, str]:
        """The next crossover's starting parameters and name (``optima``: at least two, best first)."""
        best = optima[0]["params"]
        partner = optima[1 + self.count % min(_CROSS_PARTNERS, len(optima) - 1)]["params"]
        if _symmetric(self.problem.config) and np.sum(self.problem.multiplicity * best[:, 0] * partner[:, 0]) < 0:
            partner = partner.copy()
            partner[:, :2] *= -1
        self.count += 1
        start = best.copy()
        pick = self.rng.random(len(best)) < 0.5
        start[pick] = partner[pick]
        return start, f"{self.PREFIX}{self.count}"


class _Hops:
    """Starts near the best optimum found (basin hopping, Wales & Doye 1997): a random
    :data:`_HOP_SHARE` of the items take the starting values (:func:`_initial_values`) of a seeded
    random mixture of the first two principal components, the others keep their values at the optimum.

    The 3PL optima of decodIRT's pools differ in groups of items (which items a flat curve with a
    guessing floor explains, and which a gentle one), and the best ones lie close together: on the
    embedded suite's participation matrix hops from the best of the seven candidates reached -4818.86
    at the second hop, 1.7 log-posterior units above the best of a 20-start search, which 2 of its 20
    seeded starts reached (an exploratory run, docs/irt.md, "Starts")."""

    PREFIX = "hop_"  # the hops' names: hop_1, hop_2, ...

    def __init__(self, columns: np.ndarray, scores: dict, problem: _Problem):
        self.columns, self.problem = columns, problem
        self.plane = [scores[name] for name in ("principal_component", "direction_90") if name in scores]
        self.possible = len(self.plane) == 2
        self.rng = np.random.default_rng(0)
        self.count = 0

    def next(self, best: np.ndarray) -> tuple[str, np.ndarray]:
        """The next hop's name and starting parameters from the best optimum's ``best``."""
        self.count += 1
        mix = self.rng.standard_normal(2)
        start = best.copy()
        pick = self.rng.random(len(best)) < _HOP_SHARE
        start[pick] = _initial_values(self.columns, mix[0] * self.plane[0] + mix[1] * self.plane[1],
                                      self.problem)[pick]
        return f"{self.PREFIX}{self.count}", start


def _chosen_run(runs: list[_Run], optima: list[dict]) -> _Run:
    """The reported run: of the best optimum's starts, the highest that stopped on the stationarity
    test (a start that stopped on joining it lies within :data:`_JOIN` of it, its gradient untested);
    failing that, the highest run."""
    best_starts = optima[0]["starts"] if optima else []
    stationary = [run for run in runs if run.name in best_starts and run.record.stopped_by == "stationary"]
    return max(stationary or runs, key=lambda run: run.record.history[-1])


def _run_rows(runs: list[_Run], best: _Run, config: IRTConfig) -> list[dict]:
    """One JSON-ready row per start for the fit's start table (see :func:`_best_of_starts`)."""
    top = max(run.record.history[-1] for run in runs)
    rows = []
    for run in runs:
        record = run.record
        status = "converged" if record.converged else "iteration_limit"
        if status == "converged" and record.history[-1] < top - config.tol_optimum:
            status = "better_optimum_exists"
        rows.append({"start": run.name, "log_posterior": float(record.history[-1]), "n_iter": int(record.n_iter),
                     "stopped_by": record.stopped_by, "status": status, "chosen": run is best})
    return rows


def _nested_start(columns, initial: pd.DataFrame, items, informative, item_index, problem: _Problem):
    """EM from the solution ``initial`` (an item table) of a model that nests ``problem``'s: one start,
    no search; returns what :func:`_best_of_starts` returns.

    The 2PL starts from the 3PL's ``a, b``, the 1PL from the mean of the 2PL's ``a`` (shared) and its
    ``b``; identical items (collapsed into one column) start from their mean. This is where the
    fitted model's search already chose the direction of the latent scale: the nested models climb
    from it rather than search again (``benchmarks/irt_fit.py --part compare`` measures how often
    they end at the optimum of a full search, docs/irt.md)."""
    table = initial.reindex(pd.Index(items))
    if table[["discrimination", "difficulty"]].isna().any().any():
        raise ValueError("initial: the item table does not cover every item of the responses")
    shares = np.bincount(np.ravel(item_index), minlength=len(problem.multiplicity))
    params = np.empty((len(problem.multiplicity), 3))
    for col, name in enumerate(("discrimination", "difficulty")):
        params[:, col] = np.bincount(np.ravel(item_index), weights=table[name].to_numpy(float)[informative],
                                     minlength=len(shares)) / shares
    if problem.config.model == "1PL":
        params[:, 0] = problem.multiplicity @ params[:, 0] / problem.multiplicity.sum()
    if problem.estimates_guessing:
        c = np.bincount(np.ravel(item_index), weights=table["guessing"].to_numpy(float)[informative],
                        minlength=len(shares)) / shares
        params[:, 2] = logit(np.clip(c, 1e-4, problem.config.max_guessing))
    else:
        params[:, 2] = -np.inf
    params, record = _climb(_clip(params, problem), problem)
    value = float(record.history[-1])
    status = "converged" if record.converged else "iteration_limit"
    run = {"start": "nested", "log_posterior": value, "n_iter": int(record.n_iter),
           "stopped_by": record.stopped_by, "status": status, "chosen": True}
    if _symmetric(problem.config):
        params[:, :2] *= orientation(columns, problem.multiplicity, params[:, 0])
    optima = [{"log_posterior": value, "starts": ["nested"], "params": params.copy()}] if record.converged else []
    return params, record, {"reason": "from the solution of the model that nests it", "runs": [run],
                            "optima": optima}, problem


# --------------------------------------------------------------------------- parameters
# ``params`` is an (m, 3) array of [a, b, gamma]; gamma = logit(c) (3PL) or -inf (c = 0).


def _initial_values(values: np.ndarray, score: np.ndarray, problem: _Problem) -> np.ndarray:
    """Starting values from provisional abilities (Birnbaum's two-step method, Cardoso et al. 2021 §4.1).

    A start's score (n,) (:mod:`benchirt.irt.starts`) plays the initial abilities
    (``values``: respondents x distinct items); ``a`` comes from the item-ability
    correlation (sign kept, so negatively discriminating items start negative),
    ``b`` from the item's proportion correct.
    """
    config = problem.config
    z = (score - score.mean()) / (score.std() or 1.0)
    total = column_sums(values)
    p = (total + 0.5) / (values.shape[0] + 1.0)
    mean = total / values.shape[0]
    sd_item = np.sqrt(mean * (1.0 - mean))  # 0/1 items
    r = column_sums(values, z) / len(z) / np.where(sd_item > 0, sd_item, 1.0)  # z has mean 0: covariance over sd
    r = np.clip(r, -0.9, 0.9)
    a = np.clip(1.7 * r / np.sqrt(1 - r**2), -3.0, 3.0)
    if config.model == "1PL":
        a = np.full_like(a, max(float(np.median(np.abs(a))), 0.5))
    safe_a = np.where(np.abs(a) < 0.3, np.where(a < 0, -0.3, 0.3), a)
    b = np.clip(-logit(p) / safe_a, -3.0, 3.0)
    params = np.empty((values.shape[1], 3))
    params[:, 0] = a
    params[:, 1] = b
    if problem.estimates_guessing:
        alpha, beta = config.prior_guessing
        c0 = (alpha - 1) / (alpha + beta - 2) if config.prior and alpha + beta > 2 else 0.05
        params[:, 2] = logit(min(max(c0, 0.01), 0.3))
    else:
        params[:, 2] = -np.inf
    return _clip(params, problem)


def _guessing(params: np.ndarray) -> np.ndarray:
    return expit(params[:, 2])


def _log_prior(params: np.ndarray, problem: _Problem) -> np.ndarray:
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
        c = _guessing(params)
        lp = lp + (alpha - 1) * np.log(c) + (beta - 1) * np.log1p(-c)
    return lp


def _clip(params: np.ndarray, problem: _Problem) -> np.ndarray:
    """``params`` within the bounds (a copy); ``gamma = -inf`` (c = 0) stays where c is not estimated."""
    return np.clip(params, problem.lower, problem.upper)


@dataclass
class _Terms:
    """Per item and node (m, K): ``log P``, ``log(1-P)`` and ``s = sigma(z)`` at some params.

    ``P = c + (1 - c) s`` is not kept (one multiply-add where it is needed, a table less: 2.5 bytes
    per response cell with 132 respondents)."""

    _NAMES = ("log_p", "log_q", "s")
    log_p: np.ndarray
    log_q: np.ndarray
    s: np.ndarray

    @classmethod
    def at(cls, params: np.ndarray, problem: _Problem) -> "_Terms":
        """The tables at ``params``, built one item block at a time (their temporaries stay small)."""
        blocks = problem.blocks(len(params))
        if len(blocks) == 1:
            return cls.of_block(params, problem)
        shape = (len(params), len(problem.nodes))
        out = cls(np.empty(shape), np.empty(shape), np.empty(shape))
        for block in blocks:
            out.merge(block, cls.of_block(params[block], problem))
        return out

    @classmethod
    def of_block(cls, params: np.ndarray, problem: _Problem) -> "_Terms":
        """The tables at ``params`` in one piece (for one item block)."""
        z = params[:, 0:1] * (problem.nodes[None, :] - params[:, 1:2])
        s, _, log_p, log_q = terms_from_logit(z, _guessing(params)[:, None])
        return cls(log_p, log_q, s)

    def rows(self, rows: np.ndarray | slice) -> "_Terms":
        """The tables of items ``rows`` only (views for a slice, copies for an index array)."""
        return _Terms(*(getattr(self, name)[rows] for name in self._NAMES))

    def merge(self, rows: np.ndarray | slice, other: "_Terms") -> None:
        """Replace the rows (items) ``rows`` by ``other``'s (which holds only those rows)."""
        for name in self._NAMES:
            getattr(self, name)[rows] = getattr(other, name)


# --------------------------------------------------------------------------- EM with SQUAREM


@dataclass
class _Record:
    converged: bool = False
    stopped_by: str = "max_iter"
    n_iter: int = 0
    max_change: float = float("inf")
    log_posterior_change: float = float("inf")
    history: list[float] = field(default_factory=list)
    max_gradient: float = float("inf")
    #: items moved to a better mode of their M-step objective (:func:`_escape_item_modes`), and rounds
    items_moved: int = 0
    escapes: int = 0
    joined: dict | None = None  # the known optimum a "same_optimum" stop joined
    #: parameter-expanded moves (:func:`_expanded_move`) kept, and those the log-posterior check refused
    expanded_moves: int = 0
    expanded_rejected: int = 0

    def extend(self, later: "_Record") -> "_Record":
        """This record continued by ``later`` (EM resumed from this record's end)."""
        later.n_iter += self.n_iter
        later.history = self.history[:-1] + later.history
        later.items_moved += self.items_moved
        later.escapes += self.escapes
        later.expanded_moves += self.expanded_moves
        later.expanded_rejected += self.expanded_rejected
        return later


def _run_em(params: np.ndarray, problem: _Problem, known: Sequence[dict] = (),
            max_iter: int | None = None) -> tuple[np.ndarray, _Record]:
    """EM accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3, step length per item).

    Each cycle takes two EM steps ``x1 = F(x0)``, ``x2 = F(x1)``, extrapolates every
    item ``x' = x0 - 2 alpha r + alpha^2 v`` (``r = x1 - x0``, ``v = x2 - 2 x1 + x0``,
    ``alpha = -|r|/|v|`` in ``[-3, -1]``), clips ``x'`` to the bounds and takes one
    EM step from it; when ``x'`` has a lower log posterior than ``x0`` the cycle
    continues from ``x2`` instead, so the log posterior never decreases. With ``config.expanded_em``, before each
    cycle ``x0`` takes the parameter-expanded move of :func:`_expanded_move` (Liu, Rubin & Wu 1998) when the log
    posterior at the moved point (its E-step, which the cycle's first EM step then uses) is at least
    the one at ``x0``; otherwise EM goes on from ``x0`` and the next move is half as long (a kept move
    doubles it again, up to the full step).

    Convergence is judged on the plain EM step ``x0 -> x1`` of a cycle: it moves no
    parameter by ``tol`` or more, raises the log posterior by less than
    ``tol_log_posterior``, *and* the marginal log posterior's gradient at ``x1`` is below
    ``tol_gradient`` in every free parameter (:func:`_marginal_gradient`;
    ``stopped_by="stationary"``). Either of the first two tests alone stops early
    where EM is slow: small parameter steps while the log posterior still climbs, or a
    tiny log-posterior gain per step while items crawl along flat 3PL ridges (docs/irt.md,
    "Convergence rule"). A later start stops as soon as it comes
    within :data:`_JOIN` of ``known``, an optimum an earlier start converged to, or of
    its mirror image (``"same_optimum"``: EM's fixed point attracts its neighbourhood,
    so continuing would only reproduce it). ``max_iter`` (default ``config.max_iter``) bounds the
    EM steps.
    """
    config = problem.config
    record = _Record(history=[])
    cols = [0, 1, 2] if problem.estimates_guessing else [0, 1]

    def step(x, t, e=None):
        new, new_terms, log_post = _em_step(x, t, problem, e)
        record.n_iter += 1
        record.history.append(log_post)
        return new, new_terms, log_post

    x0, t0 = params, _Terms.at(params, problem)
    e0: tuple[np.ndarray, np.ndarray, float] | None
    e_moved: tuple[np.ndarray, np.ndarray, float] | None
    lp_prev = None
    length = 1.0  # of the expanded move: halved after each refused move, doubled (up to 1) after each kept one
    max_iter = config.max_iter if max_iter is None else max_iter
    while record.n_iter < max_iter:
        e0 = _e_step(t0, x0, problem)
        moved = _expanded_move(x0, t0, e0, problem, length) if config.uses_expanded_em else None
        if moved is not None:  # kept only where it raises the log posterior (one more E-step)
            del t0  # (one set of item x node tables at a time)
            t_moved = _Terms.at(moved, problem)
            e_moved = _e_step(t_moved, moved, problem)
            if e_moved[2] >= e0[2]:
                x0, t0, e0 = moved, t_moved, e_moved  # one name per table (see below)
                del t_moved
                record.expanded_moves += 1
                length = min(1.0, 2 * length)
            else:
                del t_moved
                t0 = _Terms.at(x0, problem)
                record.expanded_rejected += 1
                length /= 2
        x1, t1, lp0 = step(x0, t0, e0)
        e0 = e_moved = moved = None
        record.max_change = _max_change(x0, x1)
        if lp_prev is not None:
            record.log_posterior_change = lp0 - lp_prev
        _judge_stop(record, x0, lp0, x1, t1, known, problem)
        if record.stopped_by != "max_iter" or record.n_iter >= max_iter:
            x0, t0 = x1, t1
            break
        del t0  # release each item x node table once it is used (they dominate memory for small n)
        x2, t2, lp1 = step(x1, t1)
        del t1  # x2's tables are rebuilt in the rare case they are needed
        del t2
        record.log_posterior_change = lp1 - lp0
        r = x1[:, cols] - x0[:, cols]
        v = x2[:, cols] - 2 * x1[:, cols] + x0[:, cols]
        if problem.config.model == "1PL":
            # one step length for all parameters (Varadhan & Roland's own scheme): the shared
            # discrimination moves every difficulty with it, and EM crawls along that direction
            norm_v, norm_r = np.sqrt((v**2).sum()), np.sqrt((r**2).sum())
            longest = _MAX_ALPHA_1PL
        else:
            norm_v = np.sqrt((v**2).sum(axis=1, keepdims=True))
            norm_r = np.sqrt((r**2).sum(axis=1, keepdims=True))
            longest = _MAX_ALPHA
        alpha = np.minimum(-norm_r / np.where(norm_v > 0, norm_v, np.inf), -1.0)
        alpha = np.maximum(alpha, -longest)
        extrapolated = x0.copy()
        extrapolated[:, cols] = x0[:, cols] - 2 * alpha * r + alpha**2 * v
        extrapolated = _clip(extrapolated, problem)
        x3, t3, lp_ext = step(extrapolated, _Terms.at(extrapolated, problem))
        if lp_ext < lp1:  # extrapolation overshot: continue from plain EM instead
            record.history.pop()
            del t3
            if record.n_iter >= max_iter:  # no EM step left: end at x2
                x3, t3 = x2, _Terms.at(x2, problem)
            else:
                x3, t3, lp_ext = step(x2, _Terms.at(x2, problem))
        lp_prev = lp_ext
        x0, t0, t3 = x3, t3, None  # one name per table, so that releasing it frees it
    record.converged = record.stopped_by != "max_iter"
    # log posterior at the final estimates (one more E-step, no update)
    record.history.append(_e_step(t0, x0, problem)[2])
    return x0, record


def _judge_stop(record: _Record, x0: np.ndarray, lp0: float, x1: np.ndarray, t1: _Terms, known: Sequence[dict],
                problem: _Problem) -> None:
    """Set ``record.stopped_by`` after the plain EM step ``x0 -> x1`` (``lp0``: the log posterior at ``x0``)
    by the rule of :func:`_run_em`: ``"stationary"`` when the step is small in every parameter and in
    the log posterior and the marginal gradient at ``x1`` (tables ``t1``) is below ``tol_gradient``;
    otherwise ``"same_optimum"`` when ``x0`` joins an optimum of ``known`` (:func:`_joins`)."""
    config = problem.config
    if record.max_change < config.tol and record.log_posterior_change < config.tol_log_posterior:
        record.max_gradient = _largest_gradient(x1, t1, problem)
        if record.max_gradient < config.tol_gradient:
            record.stopped_by = "stationary"
    else:
        record.joined = next((optimum for optimum in known if _joins(x0, lp0, optimum, problem)), None)
        if record.joined is not None:
            record.stopped_by = "same_optimum"


def _expanded_move(params: np.ndarray, terms: _Terms, e_step: tuple, problem: _Problem,
                   length: float = 1.0) -> np.ndarray | None:
    """``params`` moved along the location and unit of the ability scale by a parameter-expanded EM
    step (PX-EM; Liu, Rubin & Wu 1998), or ``None`` where the move changes no parameter by
    ``config.tol`` or more. ``terms`` and ``e_step`` (:func:`_e_step`'s result) are those at ``params``.

    The model is unchanged by ``theta -> mu + sigma theta`` with ``a -> a / sigma``,
    ``b -> mu + sigma b``; only the N(0, 1) ability distribution pins mu and sigma, through the
    E-step's posteriors, which follow the items slowly, so EM creeps along this direction. PX-EM
    expands the ability distribution to N(mu, sigma^2), estimates (mu, sigma) in the M-step and
    reduces back: ``a -> a sigma``, ``b -> (b - mu) / sigma``, ``c`` unchanged (the 1PL's shared ``a``
    alike). Its (mu, sigma) step is the mean and SD of the posterior of theta over the respondents —
    in a continuous model, by integration by parts, the gradient of the marginal log-likelihood along
    the reduction divided by the expanded model's complete-data information (N for mu, 2N for
    log sigma). On the quadrature grid that identity fails (respondents' posteriors are narrower
    than the node spacing): at EM's optimum of simulated 3PL matrices the moments, with the priors
    (:func:`_log_prior`) in the (mu, sigma) M-step, still ask for mu = -0.077, sigma = 1.007
    (132 x 500) and mu = 0.040, sigma = 1.033 (1000 x 500), and a first version that moved by them
    took 237 EM steps instead of 78 from the principal-component start at 132 x 500 (74 of its 78
    moves refused). So the step is taken in its gradient form, ``mu = length G_mu / I_mu``,
    ``log sigma = length G_s / I_s`` (at most :data:`_EXPANSION_RANGE`), with ``G`` the exact gradient
    of the marginal log posterior along the reduction (Fisher's identity,
    :func:`_marginal_gradient`: ``G_mu = -sum_j w_j dL/db_j``, ``G_s = sum_j w_j (a_j dL/da_j -
    b_j dL/db_j)``) and ``I`` the complete-data information plus the priors' curvature along it.
    Its fixed points are then EM's; :func:`_run_em` keeps the move only where the log posterior does not fall."""
    scaled, n_k, _ = e_step
    config = problem.config
    grad = _marginal_gradient(params, terms, scaled, n_k, problem)
    w = problem.multiplicity
    a, b = params[:, 0], params[:, 1]
    along_a = a[0] * grad[0, 0] if config.model == "1PL" else w @ (a * grad[:, 0])
    g_location = -float(w @ grad[:, 1])
    g_scale = float(along_a - w @ (b * grad[:, 1]))
    total = float(n_k.sum())
    info_location, info_scale = total, 2 * total
    if config.prior:
        (ma, sa), (mb, sb) = config.prior_discrimination, config.prior_difficulty
        info_location += float(w.sum()) / sb**2
        info_scale += max(float(w @ (2 * b**2 - mb * b)) / sb**2, 0.0)
        if config.model != "1PL":
            info_scale += max(float(w @ (2 * a**2 - ma * a)) / sa**2, 0.0)
    mu = length * g_location / info_location
    sigma = float(np.exp(np.clip(length * g_scale / info_scale, -_EXPANSION_RANGE, _EXPANSION_RANGE)))
    moved = params.copy()
    moved[:, 0] *= sigma
    moved[:, 1] = (moved[:, 1] - mu) / sigma
    moved = _clip(moved, problem)
    return moved if _max_change(params, moved) >= config.tol else None


def _climb(params: np.ndarray, problem: _Problem, known: Sequence[dict] = (),
           max_iter: int | None = None) -> tuple[np.ndarray, _Record]:
    """EM (:func:`_run_em`) to a stationary point, then (3PL) each item's M-step objective searched
    on a grid (:func:`_escape_item_modes`); EM resumes from the items that moved, until none moves
    or :data:`_MAX_ESCAPES` rounds. Every round raises the log posterior (generalised EM).
    ``max_iter`` (default ``config.max_iter``) bounds the EM steps of all rounds together."""
    max_iter = problem.config.max_iter if max_iter is None else max_iter
    params, record = _run_em(params, problem, known, max_iter)
    while problem.estimates_guessing and record.stopped_by == "stationary" and record.escapes < _MAX_ESCAPES:
        moved, n_moved = _escape_item_modes(params, problem)
        if not n_moved:
            break
        record.escapes += 1
        record.items_moved += n_moved
        params, later = _run_em(moved, problem, known, max_iter - record.n_iter)
        record = record.extend(later)
    return params, record


def _escape_item_modes(params: np.ndarray, problem: _Problem) -> tuple[np.ndarray, int]:
    """``params`` with every item whose M-step objective at the E-step of ``params`` is higher by more
    than :data:`_ESCAPE_GAIN` at a point of :func:`benchirt.irt.modes.item_grid` moved there, and
    how many items moved."""
    gains, values = _grid_gains(params, problem)
    jump = gains > _ESCAPE_GAIN
    moved = params.copy()
    moved[jump] = values[jump]
    return moved, int(jump.sum())


def _grid_gains(params: np.ndarray, problem: _Problem, other_mode: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per item, how much higher its M-step objective (at the E-step of ``params``) is at the best point
    of :func:`benchirt.irt.modes.item_grid` than at its values, and that point (m, 3); with
    ``other_mode``, the best point in another mode than the item's values
    (:func:`benchirt.irt.modes.other_mode`; -inf where the grid has none)."""
    grid = item_grid(problem.lower, problem.upper)
    grid_prior = _log_prior(grid, problem)
    terms = _Terms.at(params, problem)
    scaled, n_k, _ = _e_step(terms, params, problem)
    gains, values = [], []
    for block in problem.blocks():
        r = _expected_correct(scaled, block, problem)
        current = _item_objective(params[block], terms.rows(block), r, n_k, problem)
        best, index = best_on_grid(grid, problem.nodes, r, n_k, grid_prior,
                                   away_from=params[block] if other_mode else None)
        gains.append(best - current)
        values.append(grid[index])
    return np.concatenate(gains), np.concatenate(values)


# --------------------------------------------------------------------------- E-step


def _e_step(terms: _Terms, params: np.ndarray, problem: _Problem) -> tuple[np.ndarray, np.ndarray, float]:
    """Posterior weights times pattern counts (n_patterns, K), expected counts ``n_k`` (K,) and the
    marginal log posterior at ``params``; each item block's ``r_jk`` comes from :func:`_expected_correct`."""
    post, log_marginal = _posterior(terms, problem)
    scaled = post * problem.counts[:, None]
    n_k = scaled.sum(axis=0)
    log_post = float(problem.counts @ log_marginal + problem.multiplicity @ _log_prior(params, problem))
    return scaled, n_k, log_post


def _expected_correct(scaled: np.ndarray, block, problem: _Problem) -> np.ndarray:
    """``r_jk = sum_i w_ik u_ij`` of the items ``block`` (a slice or an index array): (block size, K)."""
    n_items = len(range(len(problem.multiplicity))[block]) if isinstance(block, slice) else len(block)
    if n_items <= problem.piece_size:
        return next(_float_pieces(block, problem))[1] @ scaled
    r = np.empty((n_items, scaled.shape[1]))
    for rows, values in _float_pieces(block, problem):
        r[rows] = values @ scaled
    return r


def _float_pieces(block, problem: _Problem):
    """``(rows within block, float responses (rows, n_patterns))`` for the items ``block`` (a slice or
    an index array) in pieces of ``problem.piece_size`` items: the float copies of the 1-byte
    patterns stay small."""
    size = problem.piece_size
    if isinstance(block, slice):
        for start in range(block.start, block.stop, size):
            stop = min(start + size, block.stop)
            yield slice(start - block.start, stop - block.start), problem.items[start:stop].astype(float)
    else:
        for i in range(0, len(block), size):
            yield slice(i, i + size), problem.items[block[i:i + size]].astype(float)


def _block_size(m: int, n_patterns: int, n_nodes: int) -> int:
    """Items per block: a block's item x node table takes :data:`_TABLE_BYTES_PER_CELL` bytes per
    response cell (one table of all items takes ``8 K / n_patterns``: 2.5 bytes with 132 patterns and
    41 nodes, so the temporaries of a step would otherwise dominate memory), at least
    :data:`_MIN_BLOCK` items. Few, large blocks where patterns are many: each block costs the same
    Python overhead however small."""
    return max(_MIN_BLOCK, int(_TABLE_BYTES_PER_CELL * n_patterns * m / (8 * n_nodes)))


def _item_blocks(m: int, size: int) -> list[slice]:
    """Consecutive slices of ``size`` items covering ``m``."""
    return [slice(i, min(i + size, m)) for i in range(0, m, size)]


def _posterior(terms: _Terms, problem: _Problem) -> tuple[np.ndarray, np.ndarray]:
    """Posterior weights (n_patterns, K) and marginal log-likelihood per pattern (n_patterns,)."""
    return _posterior_of_blocks(lambda block: (terms.log_p[block], terms.log_q[block]), problem)


def _posterior_at(params: np.ndarray, problem: _Problem) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_posterior` at ``params``, building the item x node tables one item block at a time."""
    def block_terms(block):
        terms = _Terms.at(params[block], problem)
        return terms.log_p, terms.log_q
    return _posterior_of_blocks(block_terms, problem)


def _posterior_of_blocks(block_terms, problem: _Problem) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_posterior` from ``block_terms(block) -> (log P, log(1 - P))`` of each item block."""
    joint = np.repeat(problem.log_weights[None, :], problem.items.shape[1], axis=0)
    for block in problem.blocks():
        w = problem.multiplicity[block]
        log_p, log_q = block_terms(block)
        odds = np.subtract(log_p, log_q)
        odds *= w[:, None]
        for rows, values in _float_pieces(block, problem):
            joint += values.T @ odds[rows]
        joint += w @ log_q
    peak = joint.max(axis=1, keepdims=True)
    shifted = joint - peak
    # weights below e^-69 (1e-30) are dropped: they change no count, and their products
    # would turn into subnormal numbers, which make the matrix products ~5x slower
    weights = np.where(shifted > -69.0, np.exp(np.maximum(shifted, -69.0)), 0.0)
    total = weights.sum(axis=1, keepdims=True)
    return weights / total, (peak + np.log(total))[:, 0]


def _largest_gradient(params: np.ndarray, terms: _Terms, problem: _Problem) -> float:
    """Largest absolute component of :func:`_marginal_gradient` at ``params`` (one more E-step)."""
    scaled, n_k, _ = _e_step(terms, params, problem)
    return float(np.abs(_marginal_gradient(params, terms, scaled, n_k, problem)[0]).max())


def _marginal_gradient(params: np.ndarray, terms: _Terms, scaled: np.ndarray, n_k: np.ndarray,
                       problem: _Problem) -> np.ndarray:
    """Gradient of the marginal log posterior at ``params`` per distinct item, (m, 3), projected at
    the bounds (a component that pushes a parameter on its bound outward counts 0; unestimated
    parameters 0).

    By Fisher's identity (Louis 1982, eq. 3.1) the gradient of the marginal log-likelihood is the
    gradient of EM's expected complete-data log-likelihood taken at the E-step of the same
    parameters, so one E-step (``scaled``, ``n_k`` at ``params``) and the M-step's own gradient give
    it exactly. The 1PL's shared discrimination is one parameter: its gradient (summed over the
    items) stands in row 0, column 0."""
    free = np.isin(np.arange(3), _free_columns(problem))
    grad = np.zeros(params.shape)
    for block in problem.blocks():
        r = _expected_correct(scaled, block, problem)
        g, _ = _gradient_information(params[block], terms.rows(block), r, n_k, problem)
        grad[block] = g * free
        if problem.config.model == "1PL":
            grad[0, 0] += problem.multiplicity[block] @ g[:, 0]
    grad[_pinned(params, grad, problem)] = 0.0
    return grad


# --------------------------------------------------------------------------- M-step


def _free_columns(problem: _Problem) -> list[int]:
    """Columns of ``params`` estimated per item: [a, b, gamma] / [a, b] / [b] (1PL)."""
    return {"3PL": [0, 1, 2], "2PL": [0, 1], "1PL": [1]}[problem.config.model]


def _gradient_information(
    params: np.ndarray, terms: _Terms, r: np.ndarray, n_k: np.ndarray, problem: _Problem
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient (m, 3) and Fisher information (m, 3, 3) of each item's expected log posterior.

    With ``z = a(theta - b)``, ``s = sigma(z)``, ``P = c + (1-c)s`` and residual
    ``e_k = r_jk - n_k P_jk``: ``dQ/dz = e s/P``, ``dQ/dgamma = e c/P``;
    information weights ``(1-c)s^2(1-s)/P``, ``c(1-c)s(1-s)/P`` and ``c^2(1-c)(1-s)/P``.
    """
    a, b = params[:, 0], params[:, 1]
    c = _guessing(params)
    s = terms.s
    p = c[:, None] + (1 - c[:, None]) * s if problem.estimates_guessing else s
    powers = problem.node_powers  # (K, 3): 1, theta, theta^2
    # sums over nodes of x * (theta - b)^q come from x @ [1, theta, theta^2]; the item x node
    # temporaries are built in place (two at a time), factors constant per item applied after the sums
    grad = np.zeros(params.shape)
    info = np.zeros(params.shape + (3,))
    e_over_p = np.multiply(p, n_k[None, :])
    np.subtract(r, e_over_p, out=e_over_p)
    e_over_p /= p  # e / P
    if problem.estimates_guessing:
        grad[:, 2] = c * e_over_p.sum(axis=1)  # sum e c / P
    e_over_p *= s  # e s / P
    g1, gt = (e_over_p @ powers[:, :2]).T
    del e_over_p
    u = np.subtract(1.0, s)  # 1 - s
    if problem.estimates_guessing:
        # sum n_k (1-c) c^2 (1-s) / P
        info[:, 2, 2] = (1 - c) * c**2 * ((u / p) @ n_k)
    u *= s
    u /= p
    u *= n_k[None, :]  # n_k s (1-s) / P
    if problem.estimates_guessing:
        k1, kt = (u @ powers[:, :2]).T * ((1 - c) * c)
        info[:, 0, 2] = info[:, 2, 0] = kt - b * k1
        info[:, 1, 2] = info[:, 2, 1] = -a * k1
    u *= s  # n_k s^2 (1-s) / P
    h1, ht, htt = (u @ powers).T * (1 - c)
    grad[:, 0] = gt - b * g1
    grad[:, 1] = -a * g1
    info[:, 0, 0] = htt - 2 * b * ht + b**2 * h1
    info[:, 0, 1] = info[:, 1, 0] = -a * (ht - b * h1)
    info[:, 1, 1] = a**2 * h1
    _add_prior_terms(params, grad, info, problem)
    return grad, info


def _add_prior_terms(params: np.ndarray, grad: np.ndarray, info: np.ndarray, problem: _Problem) -> None:
    config = problem.config
    if not config.prior:
        return
    (ma, sa), (mb, sb) = config.prior_discrimination, config.prior_difficulty
    if config.model != "1PL":
        grad[:, 0] -= (params[:, 0] - ma) / sa**2
        info[:, 0, 0] += 1 / sa**2
    grad[:, 1] -= (params[:, 1] - mb) / sb**2
    info[:, 1, 1] += 1 / sb**2
    if problem.estimates_guessing:
        alpha, beta = config.prior_guessing
        c = _guessing(params)
        grad[:, 2] += (alpha - 1) * (1 - c) - (beta - 1) * c
        info[:, 2, 2] += (alpha + beta - 2) * c * (1 - c)


def _item_objective(params: np.ndarray, terms: _Terms, r: np.ndarray, n_k: np.ndarray, problem: _Problem):
    """Expected complete-data log posterior of each item, shape (m,)."""
    # sum_k r log P + (n_k - r) log(1 - P) = sum_k r (log P - log(1 - P)) + sum_k n_k log(1 - P)
    odds = np.subtract(terms.log_p, terms.log_q)
    odds *= r
    return odds.sum(axis=1) + terms.log_q @ n_k + _log_prior(params, problem)


def _em_step(params: np.ndarray, terms: _Terms, problem: _Problem,
             e_step: tuple | None = None) -> tuple[np.ndarray, _Terms, float]:
    """One EM iteration ``F``: E-step at ``params`` (or ``e_step``, :func:`_e_step`'s result there), then
    up to :data:`_M_STEPS` damped Fisher-scoring
    steps per item (:func:`_scoring_pass`); an item takes another step only while its last one moved
    a parameter by ``config.tol`` or more. The 1PL takes one joint Newton step on the shared
    discrimination and all difficulties instead (:func:`_rasch_step`). Returns the new params, their
    terms (``terms`` updated in place: the old ones are not needed again) and the log posterior at the
    *old* params."""
    scaled, n_k, log_post = e_step or _e_step(terms, params, problem)
    if problem.config.model == "1PL":
        new = _rasch_step(params, terms, scaled, n_k, problem)
        return new, terms, log_post
    new, moved = _scoring_pass(params, terms, scaled, n_k, problem)
    for _ in range(_M_STEPS - 1):
        rows = np.flatnonzero(moved >= problem.config.tol)
        if not len(rows):
            break
        new, moved = _scoring_pass(new, terms, scaled, n_k, problem, rows)
    return new, terms, log_post


def _scoring_pass(params, terms, scaled, n_k, problem, rows=None) -> tuple[np.ndarray, np.ndarray]:
    """One projected, damped Fisher-scoring step for each item (of ``rows``, default all), item block
    by item block, halved until the item's objective does not decrease (items where no halving helps
    keep their parameters). ``terms`` is updated in place. Returns the new params and how far each
    item moved (largest change of a, b, logit c; 0 for items outside ``rows``).

    The halvings run once, on the few items whose full step failed, gathered from all blocks."""
    new = params.copy()
    if rows is None:
        chunks = problem.blocks()
    else:
        chunks = [rows[i:i + problem.block_size] for i in range(0, len(rows), problem.block_size)]
    failed = []  # per chunk: (items, step, r, objective before the step) of steps that lowered it
    for chunk in chunks:
        r = _expected_correct(scaled, chunk, problem)
        old_terms = terms.rows(chunk)
        step = _scoring_direction(params[chunk], old_terms, r, n_k, problem)
        old_obj = _item_objective(params[chunk], old_terms, r, n_k, problem)
        trial = _clip(params[chunk] + step, problem)
        trial_terms = _Terms.of_block(trial, problem)
        worse = np.flatnonzero(_item_objective(trial, trial_terms, r, n_k, problem) < old_obj - 1e-10)
        new[chunk] = trial
        terms.merge(chunk, trial_terms)
        if len(worse):
            items = np.arange(chunk.start, chunk.stop)[worse] if isinstance(chunk, slice) else chunk[worse]
            failed.append((items, step[worse], r[worse], old_obj[worse]))
    if failed:
        items, steps, expected, objectives = (np.concatenate(parts) for parts in zip(*failed))
        _halve_failed_steps(params, new, terms, items, steps, expected, objectives, n_k, problem)
    cols = _free_columns(problem)
    moved = np.abs(new[:, cols] - params[:, cols]).max(axis=1)
    return new, moved


def _halve_failed_steps(params, new, terms, items, step, r, old_obj, n_k, problem) -> None:
    """Step halving for ``items``, whose full step lowered their objective: each keeps the largest
    ``step / 2^h`` that does not, or its previous parameters; ``new`` and ``terms`` updated in place."""
    scale = 0.5
    for _ in range(_HALVINGS):
        trial = _clip(params[items] + scale * step, problem)
        trial_terms = _Terms.of_block(trial, problem)
        new[items] = trial
        terms.merge(items, trial_terms)
        still = _item_objective(trial, trial_terms, r, n_k, problem) < old_obj - 1e-10
        items, step, r, old_obj = items[still], step[still], r[still], old_obj[still]
        if not len(items):
            return
        scale /= 2
    new[items] = params[items]
    terms.merge(items, _Terms.of_block(params[items], problem))


def _scoring_direction(params, terms, r, n_k, problem) -> np.ndarray:
    """The Fisher-scoring step (m, 3) of each item: projected at the bounds, at most
    :data:`_MAX_STEP` per parameter."""
    cols = _free_columns(problem)
    grad, info = _gradient_information(params, terms, r, n_k, problem)
    step = np.zeros_like(params)
    if problem.config.model == "1PL":
        step[:, 1] = grad[:, 1] / (info[:, 1, 1] + 1e-9)
    else:
        sub_grad = grad[:, cols]
        sub_info = info[:, cols][:, :, cols]
        sub_info[:, range(len(cols)), range(len(cols))] += 1e-6
        step[:, cols] = _solve_small(sub_info, sub_grad)
        # parameters on a bound that the step pushes outward are held there and the
        # others re-solved (a projected Newton step), so clipping cannot spoil the step
        pinned = _pinned(params, step, problem)[:, cols]
        rows = np.flatnonzero(pinned.any(axis=1))
        if len(rows):
            keep = ~pinned[rows]
            fixed_info = sub_info[rows] * keep[:, :, None] * keep[:, None, :] + np.eye(len(cols)) * ~keep[:, None, :]
            step[np.ix_(rows, np.asarray(cols))] = _solve_small(fixed_info, sub_grad[rows] * keep)
    # shorten long steps as a whole (clipping each component would change their direction)
    longest = np.abs(step).max(axis=1, keepdims=True)
    return step * (_MAX_STEP / np.maximum(longest, _MAX_STEP))


def _solve_small(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``numpy.linalg.solve(matrix, rhs[..., None])[..., 0]`` for a stack of symmetric 2 x 2 or 3 x 3
    systems, by the adjugate (Cramer's rule): a handful of array operations instead of one LAPACK
    call per system, which took 7 % of a 3PL fit's time at 132 x 8000 (issue 23)."""
    if matrix.shape[-1] == 2:
        p, q, r = matrix[:, 0, 0], matrix[:, 0, 1], matrix[:, 1, 1]
        x, y = rhs[:, 0], rhs[:, 1]
        det = p * r - q * q
        return np.stack([r * x - q * y, p * y - q * x], axis=1) / det[:, None]
    a, b, c, d, e, f = (matrix[:, i, j] for i, j in ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)))
    # cofactors of the symmetric matrix [[a, b, c], [b, d, e], [c, e, f]]
    A, B, C = d * f - e * e, c * e - b * f, b * e - c * d
    D, E, F = a * f - c * c, b * c - a * e, a * d - b * b
    det = a * A + b * B + c * C
    x, y, z = rhs[:, 0], rhs[:, 1], rhs[:, 2]
    return np.stack([A * x + B * y + C * z, B * x + D * y + E * z, C * x + E * y + F * z], axis=1) / det[:, None]


def _pinned(params: np.ndarray, step: np.ndarray, problem: _Problem) -> np.ndarray:
    """(m, 3) mask of parameters sitting on a bound with a step pointing outward."""
    eps = 1e-9
    return ((params >= problem.upper - eps) & (step > 0)) | ((params <= problem.lower + eps) & (step < 0))


def _rasch_step(params, terms, scaled, n_k, problem) -> np.ndarray:
    """1PL M-step: one damped Newton (Fisher-scoring) step on the shared discrimination ``a`` and
    every difficulty ``b_j`` jointly, halved as a whole until the summed objective
    ``sum_j w_j Q_j(a, b_j)`` does not decrease (a generalised EM); ``terms`` updated in place.

    The information matrix is an arrow: ``a`` couples with every ``b_j``, the ``b_j`` not with each
    other, so the system is solved through the Schur complement of its diagonal part, in O(m):
    ``da = (G_a - sum_j w_j I_ab g_b / I_bb) / (H_aa - sum_j w_j I_ab^2 / I_bb)``,
    ``db_j = (g_b - I_ab da) / I_bb`` (``G_a = sum_j w_j g_a``, ``H_aa = sum_j w_j I_aa``). Taking ``a``
    and the ``b_j`` in turn instead (a Newton step on ``a`` after the items' steps) crawled: ``a``
    rescales every ``b``, and the 1PL took twice the 2PL's EM steps (issue 23)."""
    w = problem.multiplicity
    grad = np.empty((len(params), 2))
    info = np.empty((len(params), 3))  # I_aa, I_ab, I_bb
    old_obj = 0.0
    for block in problem.blocks():  # pass 1: gradient and information of every item at the E-step
        r = _expected_correct(scaled, block, problem)
        block_terms = terms.rows(block)
        g, i = _gradient_information(params[block], block_terms, r, n_k, problem)
        grad[block] = g[:, :2]
        info[block] = np.stack([i[:, 0, 0], i[:, 0, 1], i[:, 1, 1]], axis=1)
        old_obj += w[block] @ _item_objective(params[block], block_terms, r, n_k, problem)
    i_bb = info[:, 2] + 1e-9
    step = np.zeros((len(params), 3))
    # a difficulty on its bound whose own step points outward is held there, and so is the shared a:
    # the system is solved for the others (a projected Newton step; clipping afterwards would spoil
    # the coupled step of a)
    free = ~_pinned(params, np.stack([grad[:, 0], grad[:, 1] / i_bb, np.zeros(len(params))], axis=1),
                    problem)[:, 1]
    a_free = not _pinned(params[:1], np.array([[w @ grad[:, 0], 0.0, 0.0]]), problem)[0, 0]
    held = np.zeros(len(params))  # the fixed step of a difficulty that is not free
    for _ in range(2):  # a difficulty whose step would cross its bound goes onto it and the system is re-solved
        # with that step fixed: clipped afterwards, it could not follow a, and a step of a few 1e-5 in a then
        # lowered the objective at every halving (a 1PL start stalled for 1000 EM steps, issue 23)
        ratio = np.where(free, info[:, 1] / i_bb, 0.0)
        if a_free:
            schur = w @ (info[:, 0] - info[:, 1] * ratio) + 1e-9
            step[:, 0] = (w @ (grad[:, 0] - ratio * grad[:, 1] - info[:, 1] * held)) / schur
        step[:, 1] = np.where(free, (grad[:, 1] - info[:, 1] * step[:, 0]) / i_bb, held)
        reached = params[:, 1] + step[:, 1]
        crossing = free & ((reached > problem.upper[1]) | (reached < problem.lower[1]))
        if not crossing.any():
            break
        free &= ~crossing
        held[crossing] = np.clip(reached[crossing], problem.lower[1], problem.upper[1]) - params[crossing, 1]
    # each component at most _MAX_STEP (a difficulty's clipped alone: the halvings below keep the whole
    # step monotone either way)
    np.clip(step[:, :2], -_MAX_STEP, _MAX_STEP, out=step[:, :2])
    scale = 1.0
    for _ in range(_HALVINGS + 1):
        trial = _clip(params + scale * step, problem)
        new_obj = 0.0
        for block in problem.blocks():  # pass 2: the objective at the trial, its tables kept
            r = _expected_correct(scaled, block, problem)
            trial_terms = _Terms.of_block(trial[block], problem)
            new_obj += w[block] @ _item_objective(trial[block], trial_terms, r, n_k, problem)
            terms.merge(block, trial_terms)
        if new_obj >= old_obj - 1e-10 * len(params):  # as each item's step in :func:`_scoring_pass`
            return trial
        scale /= 2
    terms.merge(slice(0, len(params)), _Terms.at(params, problem))
    return params.copy()


def _joins(params: np.ndarray, log_posterior: float, optimum: dict, problem: _Problem) -> bool:
    """True when ``params`` lies within :data:`_JOIN` of a known ``optimum`` (``params``,
    ``log_posterior``) or of its mirror image (-a, -b, c), with a log posterior no more than
    ``tol_optimum`` below it: EM's fixed point attracts its neighbourhood, so continuing would only
    reproduce it."""
    if log_posterior < optimum["log_posterior"] - problem.config.tol_optimum:
        return False
    known = optimum["params"]
    if _max_change(params, known) < _JOIN:
        return True
    mirror = known.copy()
    mirror[:, :2] *= -1
    return _symmetric(problem.config) and _max_change(params, mirror) < _JOIN


def _symmetric(config: IRTConfig) -> bool:
    """The log posterior is unchanged by theta, a, b -> -theta, -a, -b (free-sign discriminations and
    priors centred on 0, or none)."""
    if config.model_family == "monotone":
        return False
    return not config.prior or (config.prior_discrimination[0], config.prior_difficulty[0]) == (0.0, 0.0)


def _max_change(old: np.ndarray, new: np.ndarray) -> float:
    change = np.abs(new[:, :2] - old[:, :2]).max()
    if np.isfinite(old[:, 2]).all():
        change = max(change, np.abs(expit(new[:, 2]) - expit(old[:, 2])).max())
    return float(change)


# --------------------------------------------------------------------------- standard errors


def _standard_errors(params: np.ndarray, problem: _Problem, post: np.ndarray) -> np.ndarray:
    """Per-item standard errors (m, 3) from the cross-product of respondents' marginal scores.

    For each item the observed information is approximated by
    ``sum_i s_ij s_ij^T`` (+ the prior's precision), where ``s_ij`` is respondent
    ``i``'s posterior-mean score for that item's parameters — mirt's "crossprod"
    estimator restricted to the item's own block (cross-item terms are ignored,
    which is what makes it cheap: one extra pass over the E-step). SEs of ``c``
    are on the ``c`` scale (delta method). Unestimated parameters get 0. ``post``: the patterns' posterior
    weights at ``params`` (:func:`_posterior_at`).
    """
    cols = _free_columns(problem)
    if problem.config.model == "1PL":
        cols = [0, 1]
    m = params.shape[0]
    size = len(cols)
    xpd = np.zeros((m, size, size))
    common = np.zeros(problem.items.shape[1])  # 1PL: the shared a's score per pattern
    block = max(8, -(-m // _SE_BLOCKS))
    for start in range(0, m, block):  # items in blocks: the (patterns, items, 3) scores never exist whole
        rows = slice(start, start + block)
        scores = _item_scores(params[rows], problem.items[rows].T, post, problem.nodes)
        weighted = scores * problem.counts[:, None, None]
        if problem.config.model == "1PL":
            common += scores[:, :, 0] @ problem.multiplicity[rows]
        xpd[rows] = np.stack([np.stack([(weighted[..., q] * scores[..., r]).sum(axis=0) for r in cols], -1)
                              for q in cols], -2)
    if problem.config.model == "1PL":
        xpd_b = xpd[:, 1, 1]
        if problem.config.prior:
            xpd_b = xpd_b + 1 / problem.config.prior_difficulty[1] ** 2
        se = np.zeros(params.shape)
        se[:, 1] = 1 / np.sqrt(np.maximum(xpd_b, 1e-12))
        se[:, 0] = 1 / np.sqrt(max(float(problem.counts @ common**2), 1e-12))
        return se
    prior_info = np.zeros((params.shape[0], 3, 3))
    _add_prior_terms(params, np.zeros(params.shape), prior_info, problem)
    xpd = xpd + prior_info[:, cols][:, :, cols] + 1e-8 * np.eye(len(cols))
    cov = np.linalg.inv(xpd)
    se = np.zeros(params.shape)
    se[:, cols] = np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0, None))
    if problem.estimates_guessing:
        c = _guessing(params)
        se[:, 2] = se[:, 2] * (c * (1 - c))
    return se


def _item_scores(params: np.ndarray, u: np.ndarray, post: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Posterior-mean complete-data score of each pattern for each item's (a, b, gamma): (n_pat, m, 3).

    At a node the score of an answer u is ``(u - P) * [s/P (theta-b), -a s/P, c/P]``; its
    posterior mean is ``u * E[base] - E[P base]`` (``post``: (n_pat, K) posterior weights).
    """
    theta = nodes[None, :]
    a, b = params[:, 0:1], params[:, 1:2]
    c = _guessing(params)[:, None]
    s = expit(a * (theta - b))
    p = c + (1 - c) * s
    base = np.stack([s / p * (theta - b), -a * s / p, np.broadcast_to(c / p, s.shape)], axis=-1)  # (m, K, 3)
    m, n_nodes = s.shape
    w_base = (post @ base.transpose(1, 0, 2).reshape(n_nodes, 3 * m)).reshape(-1, m, 3)
    w_p_base = (post @ (p[..., None] * base).transpose(1, 0, 2).reshape(n_nodes, 3 * m)).reshape(-1, m, 3)
    return u[..., None] * w_base - w_p_base


# --------------------------------------------------------------------------- output


def _ability_slopes(post: np.ndarray, problem: _Problem) -> np.ndarray:
    """Each distinct item's logistic slope on the respondents' EAP abilities (``post``: the patterns' posterior
    weights on the fit's grid): :func:`benchirt.irt.slope.ability_slopes`, one item block at a time."""
    theta = post @ problem.nodes
    prior_sd = problem.config.prior_discrimination[1]
    return np.concatenate([ability_slopes(problem.items[block], theta, problem.counts, prior_sd)[0]
                           for block in problem.blocks()])


def _item_table(items, informative, p_correct, params, se, config: IRTConfig,
                slopes: np.ndarray | None = None) -> pd.DataFrame:
    """One row per item, in input order: parameters, SEs, proportion correct, the slope on ability
    (:func:`_ability_slopes`; 0 for the items without information, absent for an optimum's table) and flag."""
    m = len(items)
    table = pd.DataFrame(index=pd.Index(items, name="item"))
    a = np.zeros(m)
    b = np.zeros(m)
    c = np.zeros(m)
    se_full = np.zeros((m, 3))
    a[informative] = params[:, 0]
    b[informative] = params[:, 1]
    c[informative] = _guessing(params) if config.model == "3PL" else 0.0
    se_full[informative] = se
    flag = np.full(m, "ok", dtype=object)
    at_bound = (np.abs(params[:, 0]) >= config.max_discrimination - 1e-9) | (
        np.abs(params[:, 1]) >= config.max_difficulty - 1e-9
    )
    if config.model == "3PL":
        at_bound |= _guessing(params) >= config.max_guessing - 1e-9
    flag[np.flatnonzero(informative)[at_bound]] = "at_bound"
    for kind in ("all_correct", "all_wrong"):
        mask = p_correct == (1.0 if kind == "all_correct" else 0.0)
        values = flagged_item_values(kind, config)
        a[mask], b[mask], c[mask] = values
        flag[mask] = kind
    table["discrimination"] = a
    table["difficulty"] = b
    table["guessing"] = c
    table["se_discrimination"] = se_full[:, 0]
    table["se_difficulty"] = se_full[:, 1]
    table["se_guessing"] = se_full[:, 2]
    table["p_correct"] = p_correct
    if slopes is not None:
        slope = np.zeros(m)
        slope[informative] = slopes
        table["ability_slope"] = slope
    table["flag"] = flag
    return table

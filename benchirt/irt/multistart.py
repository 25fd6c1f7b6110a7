"""The search over EM starts: from which starts EM climbs, in which order, and which optimum the fit reports.

The monotone family (every a >= 0; the default) climbs once, from the sum score. decodIRT's free-sign family climbs from
seven candidate starts (:func:`benchirt.irt.starts.start_scores`; starting values by Birnbaum's two-step method, Cardoso
et al. 2021 §4.1), then from hops off the best optimum (basin hopping, Wales & Doye 1997) alternating with seeded starts
until :func:`benchirt.irt.search.explored_enough` (Good 1953; Finch, Mendell & Thode 1989), then from recombinations of
the optima found (:mod:`benchirt.irt.recombine`), and keeps the highest log posterior. A nested model climbs from its
nesting model's solution (:func:`nested_start`). Hand-written: no library runs a multistart search around this EM."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import logit

from benchirt.irt.climb import climb, climb_and_file
from benchirt.irt.em import Record
from benchirt.irt.problem import Problem, clip, symmetric
from benchirt.irt.quadrature_grid import refined_climb, resolving_grid
from benchirt.irt.recombine import recombine
from benchirt.irt.search import Run, chosen_run, explored_enough, run_rows
from benchirt.irt.starts import column_sums, orientation, start_scores

#: ``starts="auto"`` (:func:`_search`): the fewest and most starts that climb. All seven candidates of
#: :func:`~benchirt.irt.starts.start_scores` climb, as the first two can agree on a local optimum.
_MIN_CLIMBS = 7
_BUDGET = 20
#: Share of the items a hop (:class:`_Hops`) starts afresh, and every how many starts after the candidates one is a
#: hop (the others are the deep search's seeded mixtures, which reach optima hops alone miss).
_HOP_SHARE = 0.2
_HOP_EVERY = 2


def best_of_starts(columns: np.ndarray, problem: Problem):
    """Run EM from the starts of :func:`benchirt.irt.starts.start_scores` (:func:`_search`); keep the highest log
    posterior.

    The first start climbs on the configured grid, and its optimum decides the search's grid
    (:func:`benchirt.irt.quadrature_grid.resolving_grid`; the monotone family instead finishes on the resolving grid,
    :func:`benchirt.irt.quadrature_grid.refined_climb`). An integer ``config.starts`` ``k`` climbs all of the first
    ``k`` starts, no hops.

    Returns the best parameters, its EM record, the start table and the problem on the search's grid. The table holds
    ``reason``, ``runs`` (per start: log posterior, ``n_iter``, ``stopped_by``, ``status`` — ``"converged"``,
    ``"iteration_limit"`` or ``"better_optimum_exists"``: another start beat it by more than ``config.tol_optimum``) and
    ``optima`` (final log posteriors more than ``tol_optimum`` apart, best first, with their starts and ``params``)."""
    config = problem.config
    scores, reason = start_scores(columns, problem.multiplicity, config.starts, monotone=problem.monotone)
    search = config.starts == "auto" and not problem.monotone
    if search:
        scores = scores + start_scores(columns, problem.multiplicity, _BUDGET)[0][len(scores):]
    start = initial_values(columns, scores[0][1], problem)
    first: tuple[np.ndarray, Record] | None
    if problem.monotone:  # one optimum: climbed roughly on the configured grid, finished on the resolving one
        problem, first = refined_climb(start, problem)
    else:
        first = climb(start, problem)
        resolved = resolving_grid(first[0], problem)
        if resolved is not problem:  # the search climbs on the finer grid, the first start again
            problem, first = resolved, None
    runs, optima = _search(columns, scores, problem, auto=search, first=first)
    best = chosen_run(runs, optima)
    assert best.params is not None  # the chosen run is one release_unchosen keeps
    params = best.params.copy()
    if symmetric(config):  # the mirror image is the same fit (see starts.py): orient it
        params[:, :2] *= orientation(columns, problem.multiplicity, params[:, 0])
        for optimum in optima:
            optimum["params"] = optimum["params"].copy()
            optimum["params"][:, :2] *= orientation(columns, problem.multiplicity, optimum["params"][:, 0])
    return params, best.record, {"reason": reason, "runs": run_rows(runs, best, config), "optima": optima}, problem


def _search(columns: np.ndarray, scores: list[tuple[str, np.ndarray]], problem: Problem, auto: bool,
            first: tuple[np.ndarray, "Record"] | None = None) -> tuple[list[Run], list[dict]]:
    """Every start climbs to its optimum in order (:func:`benchirt.irt.climb.climb`; a start within
    :data:`benchirt.irt.stationarity.JOIN` of an earlier optimum stops there).

    With ``auto``, after the first :data:`_MIN_CLIMBS` candidates the search stops once
    :func:`benchirt.irt.search.explored_enough` on the starts other than hops (a hop begins next to the best optimum, so
    its return there is no independent evidence); otherwise it alternates hops (:class:`_Hops`) with the further
    ``scores`` (seeded mixtures), up to :data:`_BUDGET` starts; then, where the starts ended in more than one optimum,
    it recombines them (:func:`benchirt.irt.recombine.recombine`). ``first``: where the first score's start has climbed
    already (on this grid). Returns the runs and the distinct optima."""
    runs: list[Run] = []
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
            start = initial_values(columns, score, problem)
        climb_and_file(start, name, problem, runs, optima, climbed=first if not runs else None)
    if auto and len(optima) > 1:
        recombine(problem, runs, optima)
    return runs, optima


class _Hops:
    """Starts near the best optimum found (basin hopping, Wales & Doye 1997): a random :data:`_HOP_SHARE` of the items
    take the starting values (:func:`initial_values`) of a seeded random mixture of the first two principal
    components, the others keep their values at the optimum. The 3PL optima of decodIRT's pools differ in groups of
    items and the best lie close together, so a hop reaches neighbouring optima that independent starts rarely reach
    (docs/irt.md, "Starts")."""

    PREFIX = "hop_"  # the hops' names: hop_1, hop_2, ...

    def __init__(self, columns: np.ndarray, scores: dict, problem: Problem):
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
        start[pick] = initial_values(self.columns, mix[0] * self.plane[0] + mix[1] * self.plane[1],
                                     self.problem)[pick]
        return f"{self.PREFIX}{self.count}", start


def nested_start(columns, initial: pd.DataFrame, items, informative, item_index, problem: Problem):
    """EM from the solution ``initial`` (an item table) of a model that nests ``problem``'s: one start, no search;
    returns what :func:`best_of_starts` returns. The 2PL starts from the 3PL's ``a, b``, the 1PL from the mean of the
    2PL's ``a`` (shared) and its ``b``; identical (collapsed) items start from their mean. The nesting fit's search
    already chose the direction of the latent scale."""
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
    params, record = climb(clip(params, problem), problem)
    value = float(record.history[-1])
    status = "converged" if record.converged else "iteration_limit"
    run = {"start": "nested", "log_posterior": value, "n_iter": int(record.n_iter),
           "stopped_by": record.stopped_by, "status": status, "chosen": True}
    if symmetric(problem.config):
        params[:, :2] *= orientation(columns, problem.multiplicity, params[:, 0])
    optima = [{"log_posterior": value, "starts": ["nested"], "params": params.copy()}] if record.converged else []
    return params, record, {"reason": "from the solution of the model that nests it", "runs": [run],
                            "optima": optima}, problem


def initial_values(values: np.ndarray, score: np.ndarray, problem: Problem) -> np.ndarray:
    """Starting values from provisional abilities (Birnbaum's two-step method, Cardoso et al. 2021 §4.1). A start's
    score (n,) plays the initial abilities (``values``: respondents x distinct items); ``a`` comes from the
    item-ability correlation (sign kept, so negatively discriminating items start negative), ``b`` from the item's
    proportion correct."""
    config = problem.config
    z = (score - score.mean()) / (score.std() or 1.0)
    total = column_sums(values)
    p = (total + 0.5) / (values.shape[0] + 1.0)
    mean = total / values.shape[0]
    sd_item = np.sqrt(mean * (1.0 - mean))  # 0/1 items
    r = column_sums(values, row_weights=z) / len(z) / np.where(sd_item > 0, sd_item, 1.0)  # z has mean 0: covariance over sd
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
    return clip(params, problem)

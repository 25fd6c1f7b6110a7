"""Marginal maximum likelihood / Bayes modal estimation of the 1PL, 2PL and 3PL by EM: :func:`fit_irt`.

Why hand-written: decodIRT called R's ``ltm`` (not available here, and its estimates are often degenerate); ``girth``
does not run on numpy 2; ``mirt`` (PyPI) clamps discrimination to ``[0, 5]``, so it cannot reproduce decodIRT's
free-sign model (the negative discriminations Cardoso et al. 2021 §5.2 reads as a signal), and integrates on a fixed
grid too coarse for classifier pools (docs/irt.md, "The calibration grid"). The estimator keeps the standard algorithm
(Bock & Aitkin's EM over a quadrature grid) and adds the monotone default and decodIRT's free-sign mode, priors, bounds
on every parameter, a grid refined from the data, flags instead of NaN, and vectorised steps.

This module checks and collapses the responses and composes the fit from modules with one job each:

* :mod:`benchirt.irt.problem` — the collapsed data (identical respondents and items; Bock & Aitkin 1981's pattern
  frequencies), item blocks, bounds and priors;
* :mod:`benchirt.irt.estep` — posterior weights on ``K`` equally spaced nodes in ``[-theta_max, theta_max]`` of the
  standard normal ability distribution (it fixes the scale), expected counts ``n_k`` and ``r_jk``, the marginal log
  posterior;
* :mod:`benchirt.irt.mstep` — damped, projected Fisher scoring per item, a generalised EM (Dempster, Laird & Rubin
  1977); the 1PL's joint Newton step;
* :mod:`benchirt.irt.em` — EM accelerated by SQUAREM (Varadhan & Roland 2008) and the parameter-expanded move (Liu,
  Rubin & Wu 1998);
* :mod:`benchirt.irt.stationarity` — converged means a stationary marginal log posterior, by Fisher's identity (Louis
  1982, eq. 3.1);
* :mod:`benchirt.irt.climb` — one start's climb: EM, then 3PL items moved to better modes (:mod:`benchirt.irt.modes`);
* :mod:`benchirt.irt.quadrature_grid` — the grid doubled until it resolves the posteriors (Trefethen & Weideman 2014);
* :mod:`benchirt.irt.multistart` — starts (:mod:`benchirt.irt.starts`), hops (Wales & Doye 1997), the stopping evidence
  of :mod:`benchirt.irt.search` and recombination (:mod:`benchirt.irt.recombine`, Syswerda 1989); a free-sign solution's
  mirror image is oriented by the classical item discriminations;
* :mod:`benchirt.irt.standard_errors` — per-item cross-product standard errors;
* :mod:`benchirt.irt.item_table` — the item table; items answered correctly (or wrongly) by everyone carry no
  information, are left out of the likelihood and flagged ``all_correct`` / ``all_wrong``
  (:func:`benchirt.irt.fit.flagged_item_values`)."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.irt.config import IRTConfig
from benchirt.irt.estep import posterior_at
from benchirt.irt.fit import IRTFit
from benchirt.irt.item_table import fitted_slopes, item_table
from benchirt.irt.models import quadrature
from benchirt.irt.multistart import best_of_starts, nested_start
from benchirt.irt.problem import Problem, log_prior, unique_rows
from benchirt.irt.quadrature_grid import grid_error
from benchirt.irt.standard_errors import standard_errors
from benchirt.irt.validation import as_response_matrix
from benchirt.threads import blas_one_thread


def fit_irt(responses, *, config: IRTConfig | None = None, initial: pd.DataFrame | None = None) -> IRTFit:
    """Estimate item parameters from a 0/1 response matrix (Cardoso et al. 2021 §4.1, §4.4).

    Parameters
    ----------
    responses : pandas.DataFrame or array_like, shape (n_respondents, n_items)
        1 = answered correctly. Index/columns name respondents/items.
    config : IRTConfig, optional
        Model, priors, quadrature, bounds and stopping rule; defaults to the 3PL with priors.
    initial : pandas.DataFrame, optional
        The item table (``discrimination``, ``difficulty``, ``guessing``, indexed by item) of a fit of a model nesting
        this one, on the same responses: EM climbs from it alone, no start search
        (:func:`benchirt.irt.multistart.nested_start`, as :func:`benchirt.irt.compare.compare_models` does), on
        ``config.quadrature`` nodes, not refined (give the nesting fit's ``quadrature_nodes``).

    Returns
    -------
    IRTFit
        ``items`` (one row per item, finite values, ``flag`` column), the convergence record and methods for abilities,
        probabilities and True-Scores.

    Raises
    ------
    DataError
        Invalid entries (:func:`benchirt.irt.validation.as_response_matrix`), fewer than 2 items, fewer than
        ``config.min_respondents`` respondents, or no item that any two respondents answer differently.

    Examples
    --------
    >>> from benchirt.irt import IRTConfig, fit_irt
    >>> from benchirt.irt.simulate import simulate_responses
    >>> simulated = simulate_responses(n_respondents=40, n_items=12, model="2PL", seed=1)
    >>> fit = fit_irt(simulated.responses, config=IRTConfig(model="2PL"))
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
    with blas_one_thread():
        return _fit(responses, config, start, initial)


def _fit(responses, config: IRTConfig, start: float, initial: pd.DataFrame | None = None) -> IRTFit:
    values, respondents, items = as_response_matrix(responses, dtype=np.int8)  # 0/1: one byte per answer
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
    binary = values[:, informative]
    del values
    rows, item_index, multiplicity = unique_rows(np.ascontiguousarray(binary.T))
    del binary
    columns = np.ascontiguousarray(rows.T)
    del rows
    patterns, _, counts = unique_rows(columns)
    patterns = np.ascontiguousarray(patterns.T)  # an item block is then one contiguous piece
    nodes, log_weights = quadrature(config.quadrature, config.theta_max)
    problem = Problem(items=patterns, counts=counts.astype(float), multiplicity=multiplicity.astype(float),
                      nodes=nodes, log_weights=log_weights, config=config)
    del patterns

    if initial is None:
        params, record, starts, problem = best_of_starts(columns, problem)
    else:
        params, record, starts, problem = nested_start(columns, initial, items, informative, item_index, problem)
    del columns
    starts["grid_steps"] = [[int(nodes), int(steps)] for nodes, steps in record.grid_steps]
    log_post = record.history[-1]
    quadrature_error = grid_error(params, problem)
    log_lik = log_post - float(problem.multiplicity @ log_prior(params, problem))
    post, _ = posterior_at(params, problem)  # the respondents' posteriors, for the SEs and the slopes
    se = standard_errors(params, problem, post)
    slopes = fitted_slopes(post, problem)
    item_index = np.ravel(item_index)
    params, se, slopes = params[item_index], se[item_index], slopes[item_index]

    table = item_table(items, informative, p_correct, params, se, config, slopes=slopes)
    for optimum in starts["optima"]:  # every optimum found, as an item table (without standard errors)
        optimum["items"] = item_table(items, informative, p_correct, optimum.pop("params")[item_index],
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

"""The fitted IRT model: item table, convergence record, abilities, P(correct), True-Score."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.irt.config import IRTConfig
from benchirt.irt.models import probability as _probability
from benchirt.irt.scoring import align_responses, score_aligned
from benchirt.results import interval_frame, normal_interval

#: Flags of items without estimated parameters.
NO_INFORMATION_FLAGS = ("all_correct", "all_wrong")


def flagged_item_values(kind: str, config: IRTConfig) -> tuple[float, float, float]:
    """Finite ``(a, b, c)`` reported for an item without information, which reproduce its P with eq. 1.

    An item everyone answers correctly (``"all_correct"``) is the limit ``b -> -inf``, P = 1 at every ability; one
    nobody answers correctly (``"all_wrong"``) the limit ``b -> +inf``, P = 0. They are reported as the steepest curve
    the options allow (``a = max_discrimination``, ``c = 0``) placed ``max_difficulty`` beyond the ability range,
    ``b = ∓(theta_max + max_difficulty)``, so that Cardoso et al. 2021 eq. 1 applied to the row of ``items.csv`` gives P
    within ``exp(-max_discrimination * max_difficulty)`` of 1 or 0 on ``[-theta_max, theta_max]`` (not the P = 0.5 of
    ``a = 0``). Such items stay flagged: the log-likelihood and the abilities leave them out, :meth:`IRTFit.probability`
    uses the limits themselves, and :func:`benchirt.irt.summary.item_summary` never counts them as discriminative."""
    if kind not in NO_INFORMATION_FLAGS:
        raise ValueError(f"unknown flag {kind!r}")
    side = -1.0 if kind == "all_correct" else 1.0
    return config.max_discrimination, side * (config.theta_max + config.max_difficulty), 0.0


def falling_measure(items: pd.DataFrame, config: IRTConfig) -> pd.Series:
    """Per item, the number whose sign says its answers fall with ability (Cardoso et al. 2021 §5.2): the discrimination
    of decodIRT's free-sign model, the ``ability_slope`` of the monotone one (:mod:`benchirt.irt.slope`; an item
    table without that column falls back on the discrimination)."""
    if config.model_family == "monotone" and "ability_slope" in items:
        return items["ability_slope"]
    return items["discrimination"]


@dataclass
class IRTFit:
    """A fitted 1PL/2PL/3PL model (returned by :func:`benchirt.irt.fit_irt`).

    Attributes
    ----------
    items : pandas.DataFrame, index ``item``
        ``discrimination, difficulty, guessing`` (``a, b, c`` of Cardoso et al. 2021 eq. 1, D = 1),
        ``se_discrimination, se_difficulty, se_guessing`` (0 where not estimated), ``p_correct`` (share of calibration
        respondents correct) and ``flag``: ``ok``, ``at_bound`` (an estimate sits on a configured bound),
        ``all_correct`` / ``all_wrong`` (no information; :func:`flagged_item_values`). Every value is finite.
    converged, n_iter : bool, int
        EM met a convergence criterion before ``config.max_iter`` (see ``stopped_by``); EM steps taken (SQUAREM
        extrapolations included).
    max_change, log_posterior_change : float
        Largest change of ``a``, ``b`` or ``c``, and gain of the log posterior, in the last plain EM step.
    stopped_by : str
        ``"stationary"`` (``max_change < tol``, ``log_posterior_change < tol_log_posterior`` and
        ``max_gradient < tol_gradient``), ``"same_optimum"`` (a later EM start reached an earlier start's optimum) or
        ``"max_iter"`` (not converged).
    max_gradient : float
        Largest absolute component of the marginal log posterior's gradient (projected at the bounds) at the chosen
        start's last convergence test.
    log_likelihood, log_posterior : float
        Marginal log-likelihood of the calibration responses at the estimates (flagged items excluded), and the same
        plus the log prior.
    seconds, model, config, n_respondents : float, str, IRTConfig, int
        Wall time of :func:`fit_irt`, and what was fitted.
    quadrature_nodes : int
        Nodes of the calibration grid (``config.quadrature``, doubled where ``config.refine_quadrature`` found it too
        coarse).
    quadrature_error : float
        How much the log posterior at the estimates changes on a grid with twice the nodes. The grid is chosen at the
        first start's optimum, where this is at most ``tol_optimum / 2`` unless refinement stopped at 321 nodes; the
        reported optimum can have steeper items and a larger error.
    respondents : list of str
        Calibration respondents.
    history : numpy.ndarray, shape (n_iter,)
        Log posterior before each EM iteration of the chosen start (non-decreasing).
    starts : dict
        ``reason`` (why these starts), ``grid_steps`` (:attr:`grid_steps`), ``optima`` (:attr:`optima`) and ``runs``:
        one row per EM start (``start``, ``log_posterior``, ``n_iter``, ``stopped_by``, ``status``, ``chosen``);
        ``status`` is ``converged``, ``iteration_limit`` or ``better_optimum_exists`` (another start found a higher log
        posterior)."""

    items: pd.DataFrame
    converged: bool
    n_iter: int
    max_change: float
    log_posterior_change: float
    stopped_by: str
    max_gradient: float
    log_likelihood: float
    log_posterior: float
    seconds: float
    model: str
    config: IRTConfig
    n_respondents: int
    quadrature_nodes: int
    quadrature_error: float
    respondents: list[str] = field(default_factory=list)
    history: np.ndarray = field(default_factory=lambda: np.zeros(0))
    starts: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ parameters
    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def informative(self) -> np.ndarray:
        """Boolean mask (m,) of items with estimated parameters."""
        return ~self.items["flag"].isin(NO_INFORMATION_FLAGS).to_numpy()

    def _params(self, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        items = self.items if mask is None else self.items[mask]
        return (
            items["discrimination"].to_numpy(float),
            items["difficulty"].to_numpy(float),
            items["guessing"].to_numpy(float),
        )

    # ------------------------------------------------------------------ abilities
    def ability_table(self, responses, *, method: str | None = None) -> pd.DataFrame:
        """θ, its standard error and the True-Score of each respondent: index = respondents, columns
        ``theta, se, true_score``. ``responses`` (n, m): 0/1 answers on this fit's items — calibration respondents or
        new ones (e.g. the artificial classifiers, Cardoso et al. 2021 §4.3); a DataFrame must have the fit's item
        columns (any order; extra columns are an error). ``method``: ``"EAP"`` or ``"MAP"``, default
        ``config.ability``."""
        return score_aligned(self._aligned(responses), self.items, method or self.config.ability, self.config)

    def abilities(self, responses, *, method: str | None = None) -> pd.Series:
        """θ per respondent (EAP or MAP), a Series named ``theta``; see :meth:`ability_table`."""
        return self.ability_table(responses, method=method)["theta"]

    def _aligned(self, responses):
        """``responses`` with this fit's items as columns, in order, without copying the data."""
        items = list(self.items.index)
        if isinstance(responses, pd.DataFrame):
            return align_responses(responses, items, "fitted")
        array = np.asarray(responses)
        if array.ndim != 2:
            raise DataError(f"responses: expected a 2-D respondents x items matrix, got shape {array.shape}")
        if array.shape[1] != len(items):
            raise DataError(f"responses have {array.shape[1]} columns but the fit has {len(items)} items")
        return pd.DataFrame(array, columns=items, index=[str(i) for i in range(array.shape[0])], copy=False)

    # ------------------------------------------------------------------ probabilities
    def probability(self, theta) -> np.ndarray:
        """P(correct) of respondents with abilities ``theta`` (n,) on every item: (n, m). Cardoso et al. 2021 eq. 1;
        items flagged ``all_correct`` / ``all_wrong`` get 1 / 0."""
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        prob = _probability(theta, *self._params())
        flag = self.items["flag"].to_numpy()
        prob[:, flag == "all_correct"] = 1.0
        prob[:, flag == "all_wrong"] = 0.0
        return prob

    def true_score(self, theta) -> np.ndarray:
        """True-Score ``sum_j P_j(theta)`` over this fit's items (Cardoso et al. 2021 §2.5, §4.5): shape (n,)."""
        return self.probability(theta).sum(axis=1)

    # ------------------------------------------------------------------ reporting
    @property
    def status(self) -> str:
        """``"converged"`` (a stopping criterion met) or ``"iteration_limit"`` (stopped by ``max_iter``) of the returned
        solution; the starts it beat have status ``"better_optimum_exists"`` in ``starts["runs"]``."""
        return "converged" if self.converged else "iteration_limit"

    def convergence(self) -> dict[str, Any]:
        """The JSON-ready record written to ``fit.json``."""
        runs = self.starts.get("runs", [])
        return {
            "model": self.model,
            "status": self.status,
            "converged": bool(self.converged),
            "n_iter": int(self.n_iter),
            "stopped_by": self.stopped_by,
            "max_change": float(self.max_change),
            "tol": float(self.config.tol),
            "log_posterior_change": float(self.log_posterior_change),
            "tol_log_posterior": float(self.config.tol_log_posterior),
            "max_gradient": float(self.max_gradient),
            "tol_gradient": float(self.config.tol_gradient),
            "log_likelihood": float(self.log_likelihood),
            "log_posterior": float(self.log_posterior),
            "seconds": float(self.seconds),
            "quadrature_nodes": int(self.quadrature_nodes),
            "quadrature_error": float(self.quadrature_error),
            "quadrature_grids": self.grid_steps,
            "n_respondents": int(self.n_respondents),
            "n_items": int(self.n_items),
            "n_flagged": int((~self.informative).sum()),
            "n_at_bound": int((self.items["flag"] == "at_bound").sum()),
            "prior": bool(self.config.prior),
            "starts": self.starts.get("reason", ""),
            "start_runs": runs,
            "n_local_optima": sum(run["status"] == "better_optimum_exists" for run in runs),
            "n_optima": len(self.optima),
            "optima": [{"log_posterior": optimum["log_posterior"], "starts": list(optimum["starts"])}
                       for optimum in self.optima],
        }

    @property
    def grid_steps(self) -> list[dict]:
        """The chosen start's EM steps on each quadrature grid it climbed, in order: ``nodes`` and ``n_iter``
        (:func:`benchirt.irt.quadrature_grid.refined_climb`); the steps add up to :attr:`n_iter`."""
        return [{"nodes": int(nodes), "n_iter": int(steps)} for nodes, steps in self.starts.get("grid_steps", [])]

    @property
    def optima(self) -> list[dict]:
        """The distinct optima the starts reached, best first: ``log_posterior``, ``starts`` (the starts that reached
        it) and ``items`` (its item table, standard errors 0)."""
        return self.starts.get("optima", [])

    def at_optimum(self, index: int) -> "IRTFit":
        """This fit with the item parameters of optimum ``index`` of :attr:`optima` (0: the best, which this fit already
        reports, standard errors included)."""
        optimum = self.optima[index]
        if index == 0:
            return self
        return replace(self, items=optimum["items"], log_posterior=optimum["log_posterior"],
                       log_likelihood=float("nan"), starts={**self.starts, "optima": []})

    def __repr__(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        return (
            f"IRTFit({self.model}, {self.n_respondents} respondents x {self.n_items} items, {state} "
            f"in {self.n_iter} iterations, logLik={self.log_likelihood:.2f}, {self.seconds:.2f}s)"
        )

    # ------------------------------------------------------------------ the result protocol
    def summary(self) -> str:
        """A few lines for a terminal: model, size, convergence, starts and flagged items."""
        record = self.convergence()
        lines = [repr(self),
                 f"stopped by {self.stopped_by}; largest gradient {self.max_gradient:.2g}; "
                 f"{record['n_local_optima']} of {len(record['start_runs'])} starts at a worse optimum",
                 f"quadrature: {self.quadrature_nodes} nodes (doubling them changes the log posterior by "
                 f"{self.quadrature_error:.2g}); EM steps per grid: "
                 + ", ".join(f"{grid['nodes']} nodes {grid['n_iter']}" for grid in self.grid_steps),
                 f"items: {record['n_flagged']} without information (all correct or all wrong), "
                 f"{record['n_at_bound']} at a bound"]
        return "\n".join(lines)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``items`` (the item table, ``item`` a column) and ``starts`` (one row per EM start)."""
        return {"items": self.items.reset_index(), "starts": pd.DataFrame(self.starts.get("runs", []))}

    def conf_int(self, level: float = 0.95) -> pd.DataFrame:
        """Wald intervals ``estimate ± z·SE`` of the estimated item parameters (Bock & Aitkin 1981).

        One row per informative item and estimated parameter (1PL: the shared discrimination and each difficulty; 2PL:
        discrimination and difficulty; 3PL: also guessing), columns ``item, parameter, se, estimate, low, high``. Items
        without information have no SE and are left out. The SEs are those of ``items``
        (:func:`benchirt.irt.standard_errors.standard_errors`); ``tests/test_interval_coverage.py`` checks their
        coverage."""
        parameters = {"1PL": ("discrimination", "difficulty"), "2PL": ("discrimination", "difficulty")}.get(
            self.model, ("discrimination", "difficulty", "guessing"))
        items = self.items[self.informative]
        long = pd.DataFrame({
            "item": np.repeat(items.index.to_numpy(), len(parameters)),
            "parameter": np.tile(parameters, len(items)),
            "estimate": items[list(parameters)].to_numpy(float).ravel(),
            "se": items[[f"se_{name}" for name in parameters]].to_numpy(float).ravel(),
        })
        low, high = normal_interval(long["estimate"], long["se"], level=level)
        return interval_frame({"item": long["item"], "parameter": long["parameter"]}, long["estimate"],
                              low, high, se=long["se"])

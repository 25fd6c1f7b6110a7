"""Bookkeeping of the search over EM starts: the distinct optima found, and when to stop looking.

No rule can prove the best optimum found global; the stopping rule asks for evidence of two kinds, counted from where
the starts ended:

* **agreement**: the best optimum has been reached from at least :data:`AGREEMENT` starts;
* **coverage**: the share of starts that ended in an optimum no other start reached, ``f1 / n``, is at most
  :data:`UNSEEN_SHARE` — Good's (1953) estimate of the probability that one more start finds an unseen optimum, which
  Finch, Mendell & Thode (1989) propose for judging a multistart maximum-likelihood search.

The estimator asks only after its informed candidates have all climbed; recombination starts
(:mod:`benchirt.irt.recombine`) begin at known optima and are no evidence here. Each climb is kept as a :class:`Run`
(its parameters released once it can no longer be reported, :func:`release_unchosen`); :func:`chosen_run` picks the
reported run and :func:`run_rows` lists every start. Hand-written: a few lines of counting."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: the EM modules import this one
    from benchirt.irt.config import IRTConfig
    from benchirt.irt.em import Record

#: Starts that must have reached the best optimum found before the search may stop.
AGREEMENT = 2
#: Largest share of starts ending in an optimum reached by no other start (Good's estimate of the
#: chance that one more start finds a new optimum) at which the search may stop.
UNSEEN_SHARE = 0.2


def file_optimum(optima: list[dict], name: str, params: np.ndarray, log_posterior: float, joined: dict | None,
                 tol: float) -> dict:
    """File where start ``name`` ended under ``optima`` (distinct optima, best first): with the known optimum it
    ``joined`` or whose log posterior is within ``tol`` of its own, else as a new optimum (``log_posterior``,
    ``starts``, ``params``). A start that did not stop by joining and ended higher than its optimum becomes that
    optimum's values. Returns the optimum filed under."""
    for optimum in optima:
        if optimum is joined or abs(optimum["log_posterior"] - log_posterior) <= tol:
            optimum["starts"].append(name)
            if joined is None and log_posterior > optimum["log_posterior"]:
                optimum.update(log_posterior=float(log_posterior), params=params)
                optima.sort(key=lambda known: -known["log_posterior"])
            return optimum
    optimum = {"log_posterior": float(log_posterior), "starts": [name], "params": params}
    optima.append(optimum)
    optima.sort(key=lambda known: -known["log_posterior"])
    return optimum


def unseen_share(optima: list[dict], *, independent=lambda name: True) -> float:
    """Good's (1953) estimate of the probability that one more start ends in an optimum not found yet: the share of
    starts whose optimum no other start reached (1 before any start), counting only the starts ``independent(name)``
    says were drawn independently of the optima found."""
    counts = [sum(map(independent, optimum["starts"])) for optimum in optima]
    n = sum(counts)
    return sum(count == 1 for count in counts) / n if n else 1.0


def explored_enough(optima: list[dict], *, independent=lambda name: True) -> bool:
    """The best optimum has been reached from :data:`AGREEMENT` independent starts and at most :data:`UNSEEN_SHARE` of
    them ended in an optimum of their own (:func:`unseen_share`); ``independent(name)`` leaves out starts that began
    next to a known optimum (hops)."""
    return bool(optima) and sum(map(independent, optima[0]["starts"])) >= AGREEMENT and \
        unseen_share(optima, independent=independent) <= UNSEEN_SHARE


@dataclass
class Run:
    """Where one start's EM ended: its parameters and record."""

    name: str
    params: np.ndarray | None  # None once it cannot be the reported run (:func:`release_unchosen`)
    record: "Record"


def release_unchosen(runs: list[Run], optima: list[dict]) -> None:
    """Drop the parameters of the runs :func:`chosen_run` can no longer report — all but the best optimum's starts and
    the highest run — so a long search does not hold one item table per climb (the optima keep their own)."""
    keep = set(optima[0]["starts"]) if optima else set()
    top = max(runs, key=lambda run: run.record.history[-1])
    for run in runs:
        if run is not top and run.name not in keep:
            run.params = None


def chosen_run(runs: list[Run], optima: list[dict]) -> Run:
    """The reported run: of the best optimum's starts, the highest that stopped on the stationarity test (one that
    stopped on joining it lies within :data:`benchirt.irt.stationarity.JOIN`, its gradient untested); failing that,
    the highest run."""
    best_starts = optima[0]["starts"] if optima else []
    stationary = [run for run in runs if run.name in best_starts and run.record.stopped_by == "stationary"]
    return max(stationary or runs, key=lambda run: run.record.history[-1])


def run_rows(runs: list[Run], best: Run, config: IRTConfig) -> list[dict]:
    """One JSON-ready row per start for the fit's start table (:func:`benchirt.irt.multistart.best_of_starts`)."""
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

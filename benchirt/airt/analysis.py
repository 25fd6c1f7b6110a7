"""The AIRT analysis of a performance matrix: Kandanaarachchi & Smith-Miles 2023 Algorithm 1 in one call, :func:`fit_airt`."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchirt.airt.aslib import check_performance
from benchirt.airt.compat import fit_continuous_r, r_logit, r_predicted, replace_extremes
from benchirt.airt.config import AIRTConfig
from benchirt.airt.continuous import ContinuousFit, expit, fit_continuous, logit
from benchirt.airt.goodness import ModelGoodness, model_goodness
from benchirt.airt.latent import MIN_DISTINCT_DIFFICULTIES, LatentTraitAnalysis, latent_trait_analysis
from benchirt.airt.metrics import algorithm_metrics, dataset_metrics
from benchirt.airt.polytomous import GRMConfig, bin_performance, fit_grm
from benchirt.airt.sparse import observed_field
from benchirt.errors import DataError


@dataclass(frozen=True)
class AIRTResult:
    """Everything AIRT says about a portfolio of algorithms and a set of datasets.

    Attributes
    ----------
    algorithms : pd.DataFrame, n rows
        ``algorithm, discrimination, difficulty, scale, anomalous, consistency, difficulty_limit, flag``,
        ``lto_strength, lto_weakness`` (LTO at ``config.epsilon``); see :func:`benchirt.airt.metrics.algorithm_metrics`.
    datasets : pd.DataFrame, N rows
        ``dataset, difficulty, easiness`` (delta = -theta, Kandanaarachchi & Smith-Miles 2023 eqs. 10-11).
    goodness, model_goodness : pd.DataFrame, ModelGoodness
        ``algorithm, mse, aucdf, auaec, aupec, effectiveness_gap`` (§4.4-4.5); the same with the residual CDFs and
        effectiveness curves.
    latent : LatentTraitAnalysis
        Latent trait curves, strengths, weaknesses, LTO and portfolios (§4.1-4.3).
    fit : ContinuousFit
    performance, predicted : pd.DataFrame, shape (N, n)
        The input, higher is better, on [0, 1]; the model's most likely performance x_hat_ij = expit((theta_i - beta_j)
        / gamma_j).
    config : AIRTConfig
    notes : tuple of str
        What the user should know (constant or anomalous algorithms, EM not converged).
    seconds : float
        Wall time of the analysis.
    polytomous : pd.DataFrame or None
        With ``config.polytomous``: per algorithm of the polytomous model
        ``algorithm, discrimination, consistency, anomalous, difficulty_limit, n_categories, thresholds`` (';'-joined,
        lowest level first); algorithms with a single observed level are left out (said in ``notes``)."""

    algorithms: pd.DataFrame
    datasets: pd.DataFrame
    goodness: pd.DataFrame
    model_goodness: ModelGoodness
    latent: LatentTraitAnalysis
    fit: ContinuousFit
    performance: pd.DataFrame
    predicted: pd.DataFrame
    config: AIRTConfig
    notes: tuple[str, ...]
    seconds: float
    polytomous: pd.DataFrame | None = None

    def portfolio(self, epsilon: float | None = None) -> list[str]:
        """The airt portfolio A(epsilon), ordered by decreasing LTO (default epsilon: ``config.epsilon``)."""
        return self.latent.portfolio(self.config.epsilon if epsilon is None else epsilon)

    def portfolio_table(self) -> pd.DataFrame:
        """A(epsilon) for every ``config.epsilons``: columns ``epsilon, rank, algorithm, lto``."""
        return self.latent.portfolio_table(self.config.epsilons)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``algorithms``, ``datasets``, ``goodness``, ``portfolios`` (every ``config.epsilons``), the ``performance``
        and ``predicted`` matrices (``dataset`` a column) and, with ``config.polytomous``, ``polytomous``."""
        frames = {"algorithms": self.algorithms, "datasets": self.datasets, "goodness": self.goodness,
                  "portfolios": self.portfolio_table(),
                  "performance": self.performance.rename_axis("dataset").reset_index(),
                  "predicted": self.predicted.rename_axis("dataset").reset_index()}
        if self.polytomous is not None:
            frames["polytomous"] = self.polytomous
        return frames

    def summary(self) -> str:
        """A few lines for a terminal: size, convergence, anomalous algorithms, portfolio, worst fit."""
        fit = self.fit
        anomalous = self.algorithms.loc[self.algorithms["anomalous"], "algorithm"].tolist()
        worst = self.goodness.sort_values("aucdf").iloc[0]
        if self.config.compat is None:
            how = (f"EM {'converged' if fit.converged else 'NOT converged'} after {fit.n_iter} accelerated "
                   "iterations")
        else:
            how = f"{self.config.compat} mode: EM stopped after {fit.n_iter} cycles by airt's rule"
        lines = [
            f"AIRT: {len(self.datasets)} datasets x {len(self.algorithms)} algorithms; {how} "
            f"(log-likelihood {fit.log_likelihood:.2f})",
            f"anomalous algorithms: {', '.join(anomalous) if anomalous else 'none'}",
        ]
        lines += [f"airt portfolio A({eps:g}): {', '.join(self.portfolio(eps))}" for eps in self.config.epsilons]
        lines.append(f"worst model fit: {worst['algorithm']} (AUCDF {worst['aucdf']:.3f}, MSE {worst['mse']:.4f})")
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


def fit_airt(perf: pd.DataFrame, *, config: AIRTConfig | None = None) -> AIRTResult:
    """Run AIRT (Kandanaarachchi & Smith-Miles 2023 Algorithm 1) on a performance matrix.

    Stage 1: z_ij = logit(y_ij) guarded at 0 and 1 (``config.logit_epsilon``), the continuous response model by
    Shojima's EM with negative discrimination, theta_i by eq. 10. Stage 2: anomalous indicator, consistency, difficulty
    limit, dataset difficulty delta_i = -theta_i. Stage 3: latent trait curves, strengths/weaknesses, LTO and the airt
    portfolio; then the model goodness measures (§4.4-4.5).

    Parameters
    ----------
    perf : pd.DataFrame, shape (N, n)
        Rows datasets/problem instances, columns algorithms, higher is better, values in [0, 1] (map other scales first
        with :func:`benchirt.airt.aslib.to_unit_interval`), NaN where an algorithm has no result on a dataset: the model
        is then fitted to the observed cells (:mod:`benchirt.airt.observed`; Mislevy & Wu 1996), after leaving out the
        datasets and algorithms with too few results (:mod:`benchirt.airt.sparse`), and the notes say how each output
        reads the gaps.
    config : AIRTConfig

    Raises
    ------
    DataError
        Non-numeric or out-of-range values, missing ones with ``compat="airt-r"``, duplicated names, fewer than 5
        datasets or 2 algorithms (kept), every algorithm constant.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> perf = pd.DataFrame(rng.uniform(0.05, 0.95, (8, 3)), index=[f"problem{i}" for i in range(8)],
    ...                     columns=["A", "B", "C"])
    >>> result = fit_airt(perf)
    >>> result.algorithms["algorithm"].tolist()
    ['A', 'B', 'C']
    >>> {"discrimination", "consistency", "difficulty_limit"} <= set(result.algorithms.columns)
    True
    """
    config = config or AIRTConfig()
    start = time.perf_counter()
    perf, observed_notes = _observed(check_performance(perf, where="AIRT input", missing=config.compat is None))
    if perf.shape[0] < MIN_DISTINCT_DIFFICULTIES:
        raise DataError(f"AIRT input: {perf.shape[0]} dataset(s); AIRT needs at least {MIN_DISTINCT_DIFFICULTIES} "
                        "datasets/instances (rows) to estimate dataset difficulty and fit the latent trait curves"
                        + (f" ({'; '.join(observed_notes)})" if observed_notes else ""))
    if perf.shape[1] < 2:
        raise DataError(f"AIRT input: {perf.shape[1]} algorithm(s) kept; AIRT needs at least 2 ({'; '.join(observed_notes)})")
    if config.compat == "airt-r":
        fit, z, actual, predicted_values, notes = _fit_airt_r(perf, config)
    else:
        z = logit(perf.to_numpy(), epsilon=config.logit_epsilon)
        fit = fit_continuous(z, max_iter=config.max_iter, tol=config.tol,
                             prior_mean=config.prior_mean, prior_sd=config.prior_sd,
                             max_discrimination=config.max_discrimination)
        predicted_values = expit(fit.predicted_logit())
        constant = perf.to_numpy()[:, ~fit.informative]
        predicted_values[:, ~fit.informative] = np.nanmax(constant, axis=0)
        actual, notes = perf, observed_notes
    algorithms = algorithm_metrics(fit, perf.columns, z, sign_rule=config.compat == "airt-r")
    datasets = dataset_metrics(fit, perf.index)
    predicted = pd.DataFrame(predicted_values, index=perf.index, columns=perf.columns)

    latent = latent_trait_analysis(perf, pd.Series(-fit.theta, index=perf.index), lam=config.spline_lam,
                                   grid_size=config.grid_size, max_points=config.spline_points,
                                   max_df=config.spline_max_df)
    algorithms = algorithms.merge(latent.occupancy(config.epsilon), on="algorithm", how="left")
    goodness = model_goodness(actual, predicted)

    constant = ~fit.informative
    if not fit.converged and config.compat is None:
        notes.append(f"the EM did not converge in {config.max_iter} cycles; raise max_iter")
    if constant.any():
        notes.append(f"constant algorithm(s) {', '.join(map(str, perf.columns[constant]))}: same performance on every dataset, "
                     "left out of the model (discrimination 0, flagged 'constant')")
    if fit.at_bound.any():
        notes.append(f"algorithm(s) {', '.join(map(str, perf.columns[fit.at_bound]))} reached |discrimination| = "
                     f"{config.max_discrimination:g} (Heywood case: results almost a function of dataset "
                     "difficulty); flagged 'discrimination at bound'")
    anomalous = algorithms.loc[algorithms["anomalous"], "algorithm"].tolist()
    if anomalous:
        rule = ("negative discrimination, airt's rule" if config.compat == "airt-r" else
                "95 % interval of the discrimination below 0")
        notes.append(f"anomalous algorithm(s) {', '.join(anomalous)}: better on harder datasets ({rule})")
    implausible = algorithms.loc[algorithms["flag"] != "ok", ["algorithm", "flag"]]
    notes += [f"algorithm {name}: {flag} (its consistency and difficulty limit are not meaningful)"
              for name, flag in implausible.itertuples(index=False)
              if flag not in ("constant", "discrimination at bound", "consistency capped")]
    polytomous = None
    if config.polytomous is not None:
        polytomous, polytomous_notes = _polytomous_table(perf, config)
        notes += polytomous_notes
    return AIRTResult(algorithms=algorithms, datasets=datasets, goodness=goodness.table, model_goodness=goodness,
                      latent=latent, fit=fit, performance=perf, predicted=predicted, config=config,
                      notes=tuple(notes), seconds=time.perf_counter() - start, polytomous=polytomous)


def _observed(perf: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The part of a matrix with missing cells AIRT fits on its observed cells (:mod:`benchirt.airt.sparse`) and the
    notes saying so and how each derived output reads them; a complete matrix unchanged, no notes."""
    if not perf.isna().any().any():
        return perf, []
    field = observed_field(perf)
    missing = field.table.isna().any().any()
    return field.table, [*field.notes(), *(OBSERVED_OUTPUT_NOTES if missing else ())]


#: How AIRT's outputs read a matrix with missing cells (said in a fit's notes whenever one is missing).
OBSERVED_OUTPUT_NOTES = (
    "with missing cells: each algorithm's parameters come from the datasets it ran on, its 95 % discrimination "
    "interval from their number, and each dataset's difficulty (eq. 10) from the algorithms it has",
    "with missing cells: model goodness (MSE, AUCDF, AUAEC, AUPEC) is computed on each algorithm's observed cells "
    "only; predicted.csv holds the model's prediction for every cell, performance.csv leaves the missing ones empty",
    "with missing cells: each latent trait curve is fitted to the datasets its algorithm ran on and drawn over "
    "every difficulty (beyond the range of those datasets it is extrapolated), so strengths, weaknesses, LTO and "
    "the airt portfolio compare curves at difficulties where some algorithms have no result",
)


def _polytomous_table(perf: pd.DataFrame, config: AIRTConfig) -> tuple[pd.DataFrame, list[str]]:
    """The polytomous model of ``config.polytomous`` on quantile levels; its algorithm table and notes."""
    definition = "lowest" if config.compat == "airt-r" else "highest"
    assert config.polytomous is not None  # asked for only with a polytomous model
    fit = fit_grm(bin_performance(perf, n_levels=int(config.polytomous_levels)),
                  config=GRMConfig(model=config.polytomous, difficulty_limit=definition))
    items = fit.items.reset_index()
    table = pd.DataFrame({
        "algorithm": items["algorithm"], "discrimination": items["discrimination"],
        "consistency": items["consistency"], "anomalous": items["anomalous"],
        "difficulty_limit": items["difficulty_limit"], "n_categories": items["n_categories"],
        "thresholds": items["thresholds"].map(lambda t: ";".join(f"{v:.6g}" for v in t)),
    })
    name = {"grm": "graded response model", "gpcm": "generalized partial credit model"}[config.polytomous]
    notes = [f"polytomous {name} on {config.polytomous_levels} quantile levels: "
             f"{'converged' if fit.converged else 'NOT converged'} after {fit.n_iter} L-BFGS iterations "
             f"(log-likelihood {fit.log_likelihood:.2f}); difficulty limit = -threshold of the {definition} level"
             + (" (the airt vignette's definition)" if definition == "lowest" else "")
             + ("; missing cells left out of its likelihood" if perf.isna().any().any() else "")]
    notes += [f"polytomous model: algorithm {name_} left out: {reason}" for name_, reason in fit.skipped.items()]
    return table, notes


def _fit_airt_r(perf: pd.DataFrame, config: AIRTConfig) -> tuple[ContinuousFit, np.ndarray, pd.DataFrame, np.ndarray,
                                                                  list[str]]:
    """Stage 1 with the R package airt's estimator (``config.compat == "airt-r"``, :mod:`benchirt.airt.compat`): the
    fit, its logits, the performances as airt compares them with its predictions (shifted onto [0, M], exact extremes
    replaced), the predictions, and the notes on how the fit was obtained."""
    values = perf.to_numpy(dtype=float)
    low, high = (values.min(), values.max()) if config.compat_range == "data" else (0.0, 1.0)  # unit: R's defaults
    z = r_logit(values, low, high)
    r_fit = fit_continuous_r(z)
    shifted, _ = replace_extremes(values, low, high)
    rule = (f"its stopping rule (expected complete-data log-likelihood change < .01) ended the EM after "
            f"{r_fit.n_cycles} cycles" if r_fit.stopped_by_rule else
            f"the EM stopped at airt's limit of {r_fit.n_cycles} cycles")
    notes = [f"airt-r compatibility mode: the R package airt's estimator on the scale [{low:g}, {high:g}]; {rule}, "
             "which is not a convergence check (reported as not converged); exact extremes replaced by .01 from "
             "the bounds; dataset easiness standardised; airt's prediction formula (docs/airt.md)"]
    actual = pd.DataFrame(shifted, index=perf.index, columns=perf.columns)
    return r_fit.fit, z, actual, r_predicted(shifted, r_fit.fit), notes

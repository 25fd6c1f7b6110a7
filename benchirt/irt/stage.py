"""The IRT stage of the pipeline: one dataset's response matrix in, items, θ and True-Scores out (Cardoso et al. 2021
§4, steps 3-4; decodIRT_MLtIRT and decodIRT_analysis, §4.4-4.5)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

import pandas as pd

from benchirt.errors import DataError
from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit
from benchirt.irt.scorer import fit_scoring_model, with_ranking_slopes
from benchirt.irt.compare import compare_models
from benchirt.irt.itemfit import item_fit
from benchirt.irt.summary import MISMATCH_SHARE, default_model_check, default_model_sentence, item_summary
from benchirt.irt.suspects import COLUMNS as SUSPECT_COLUMNS
from benchirt.irt.suspects import label_evidence, select_suspects
from benchirt.results import interval_frame, normal_interval


@dataclass
class DatasetIRT:
    """One dataset's IRT result.

    Attributes
    ----------
    dataset : str
    fit : IRTFit
        Item parameters calibrated on ``config.calibration_roles`` (the item model, ``config.model``).
    abilities : pandas.DataFrame
        One row per respondent (calibrated or not): ``respondent, role, calibrated, theta, se, true_score``, from
        :attr:`scorer`.
    statistics : dict
        The dataset's summary statistics: :func:`benchirt.irt.summary.item_summary` plus ``converged``, ``status``,
        ``n_iter``, ``seconds``, ``model``, ``quadrature_nodes``, ``quadrature_error`` (see ``IRTFit``), ``n_misfit``,
        ``n_suspect_labels`` and :func:`optima_summary`.
    item_fit, model_comparison : pandas.DataFrame
        Per item ``infit, outfit, misfit`` on the calibration respondents (:func:`benchirt.irt.itemfit.item_fit`);
        1PL/2PL/3PL log-likelihood, AIC, BIC (:func:`benchirt.irt.compare.compare_models`), empty when
        ``config.compare_models`` is off.
    suspect_labels, label_evidence : pandas.DataFrame
        Test instances whose label is probably wrong, with their dataset row, label and the real classifiers' consensus
        (:func:`benchirt.irt.suspects.suspect_labels`); what the rule reads of every item a real classifier gets wrong
        (:func:`benchirt.irt.suspects.label_evidence`; empty in a result stored before it was kept).
    scoring_fit : IRTFit or None
        The model that scores the respondents when it is not the item model (``config.resolved_scoring_model``,
        :mod:`benchirt.irt.scorer`); ``None``: ``fit`` scores them.

    The statistics that read thresholds and the suspect labels are derived by :meth:`with_summaries`, so a threshold
    change (:data:`benchirt.irt.config.SUMMARY_OPTIONS`) re-derives them from a stored result without fitting again."""

    dataset: str
    fit: IRTFit
    abilities: pd.DataFrame
    statistics: dict = field(default_factory=dict)
    item_fit: pd.DataFrame = field(default_factory=pd.DataFrame)
    model_comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    suspect_labels: pd.DataFrame = field(default_factory=pd.DataFrame)
    scoring_fit: IRTFit | None = None
    label_evidence: pd.DataFrame = field(default_factory=pd.DataFrame)

    def with_summaries(self, config: IRTConfig) -> "DatasetIRT":
        """This result with the tables that read ``config``'s thresholds derived again from the fit, nothing refitted:
        the ``pct_*`` statistics (:func:`benchirt.irt.summary.item_summary`), the suspect labels
        (:func:`benchirt.irt.suspects.select_suspects` of :attr:`label_evidence`) and their number. A result without
        :attr:`label_evidence` keeps its suspect labels."""
        suspects = (select_suspects(self.label_evidence, self.fit.items, agreement=config.suspect_agreement,
                                    rising_alpha=config.suspect_rising_alpha)
                    if "real_wrong_share" in self.label_evidence else self.suspect_labels)
        summary = item_summary(self.fit.items, config=config)
        statistics = {**summary, **{key: value for key, value in self.statistics.items() if key not in summary}}
        statistics["n_suspect_labels"] = len(suspects)  # in its place when the result had it
        return replace(self, statistics=statistics, suspect_labels=suspects)

    @property
    def scorer(self) -> IRTFit:
        """The fit whose items score respondents: new classifiers are scored on its frozen items."""
        return self.fit if self.scoring_fit is None else self.scoring_fit

    def summary(self) -> str:
        """A few lines for a terminal: the fit, the share of discriminating items, misfits, suspect labels."""
        stats = self.statistics
        shares = ", ".join(f"{key} {value:.1f} %" for key, value in stats.items()
                           if key.startswith("pct_") and isinstance(value, (int, float)))
        calibrated = self.abilities[self.abilities["calibrated"]] if len(self.abilities) else self.abilities
        lines = [f"{self.dataset}: {self.fit!r}",
                 f"{len(self.abilities)} respondents scored ({len(calibrated)} calibrated the items)"]
        if shares:
            lines.append(f"items: {shares}")
        lines.append(f"{stats.get('n_misfit', 0)} misfitting items, "
                     f"{stats.get('n_suspect_labels', len(self.suspect_labels))} suspect labels")
        mismatch = self.default_model_warning()
        if mismatch:
            lines.append(f"WARNING: {mismatch}")
        return "\n".join(lines)

    def default_model_warning(self) -> str | None:
        """The line saying the monotone model does not fit this dataset's items
        (:func:`benchirt.irt.summary.default_model_sentence`), or None (it fits, or was not checked)."""
        stats = self.statistics
        if "default_model_share" not in stats:  # the free-sign family, or a result stored before the check
            return None
        check = {"share_misfit": stats["default_model_share"], "fits": bool(stats["default_model_fits"]),
                 "n_falling": stats["n_falling"], "n_at_zero": stats["n_at_zero"],
                 "n_informative": stats["n_informative"], "threshold": MISMATCH_SHARE}
        return default_model_sentence(check, fix="irt: {model_family: decodirt} (benchirt irt --compat decodirt)")

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``items``, ``abilities``, ``item_fit``, ``model_comparison``, ``suspect_labels`` and ``statistics`` (one
        row); the empty tables of analyses that did not run are left out."""
        frames = {"items": self.fit.items.reset_index(), "abilities": self.abilities,
                  "item_fit": self.item_fit.reset_index() if len(self.item_fit) else self.item_fit,
                  "model_comparison": self.model_comparison, "suspect_labels": self.suspect_labels,
                  "statistics": pd.DataFrame([{"dataset": self.dataset, **self.statistics}])}
        return {name: frame for name, frame in frames.items() if len(frame)}

    def conf_int(self, level: float = 0.95) -> pd.DataFrame:
        """Intervals ``θ ± z·SE`` of every respondent's ability: ``respondent, role, se, estimate, low, high``. ``se``
        is the posterior SD of θ for EAP and the inverse square root of the test information at θ for MAP (Bock &
        Aitkin 1981; :mod:`benchirt.irt.ability`); the item parameters' intervals are ``self.fit.conf_int(level)``."""
        table = self.abilities
        low, high = normal_interval(table["theta"], table["se"], level=level)
        return interval_frame({"respondent": table["respondent"], "role": table["role"]}, table["theta"],
                              low, high, se=table["se"])


def irt_for_responses(result, *, config: IRTConfig | None = None) -> DatasetIRT:
    """Calibrate the items of one dataset and score every respondent.

    Parameters
    ----------
    result : ResponseResult
        Uses ``.dataset``, ``.responses`` (respondents × items of 0/1), ``.roles`` (respondent → "real" / "ladder" /
        "artificial") and, when present, ``.predictions`` and ``.test_labels`` (they describe the suspect labels).
    config : IRTConfig, optional

    Raises
    ------
    DataError
        No respondent has a calibration role, or the calibration matrix is unusable (see :func:`benchirt.irt.fit_irt`);
        the message names the dataset."""
    config = config or IRTConfig()
    responses = result.responses
    roles = result.roles.reindex(responses.index)
    if roles.isna().any():
        unknown = list(roles.index[roles.isna()][:5])
        raise DataError(f"{result.dataset}: respondents {unknown} have no role in ResponseResult.roles")
    calibrate = roles.isin(config.calibration_roles).to_numpy()
    if not calibrate.any():
        raise DataError(
            f"{result.dataset}: no respondent has a calibration role {config.calibration_roles}; "
            f"roles present: {sorted(roles.unique())}"
        )
    calibration = responses if calibrate.all() else responses[calibrate]
    try:
        fit = fit_irt(calibration, config=config)
        scorer = fit_scoring_model(calibration, fit)
        fit = with_ranking_slopes(fit, scorer, calibration)
        table = scorer.ability_table(responses, method=config.ability)
        # the item model's own abilities judge its items (item fit, suspect labels' curves)
        item_theta = (table if scorer is fit else fit.ability_table(responses, method=config.ability))["theta"]
        comparison = (compare_models(calibration, config=config, fitted=(fit, scorer)) if config.compare_models
                      else pd.DataFrame())
    except DataError as exc:
        raise DataError(f"{result.dataset}: {exc}") from None
    abilities = table.reset_index()
    abilities.insert(1, "role", roles.to_numpy())
    abilities.insert(2, "calibrated", calibrate)
    fit_table = item_fit(fit, calibration, theta=item_theta.to_numpy()[calibrate])
    real = roles.index[roles == "real"]
    predictions = getattr(result, "predictions", None)
    evidence = label_evidence(fit, responses.loc[real], item_theta.loc[real].to_numpy(),
                              predictions=predictions.loc[real] if predictions is not None and len(real) else None,
                              labels=getattr(result, "test_labels", None))
    statistics = dict(converged=fit.converged, status=fit.status, n_iter=fit.n_iter, seconds=fit.seconds,
                      model=fit.model, scoring_model=scorer.model, scoring_converged=scorer.converged,
                      quadrature_nodes=fit.quadrature_nodes, quadrature_error=fit.quadrature_error,
                      n_misfit=int(fit_table["misfit"].sum()), n_suspect_labels=0,  # counted by with_summaries
                      **optima_summary(fit, responses.loc[real] if len(real) else None))
    check = default_model_check(fit.items, config)
    if check is not None:  # the monotone family only (no NaN for the free-sign one)
        statistics.update(default_model_share=check["share_misfit"], default_model_fits=check["fits"],
                          n_falling=check["n_falling"], n_at_zero=check["n_at_zero"],
                          n_informative=check["n_informative"])
    irt = DatasetIRT(dataset=result.dataset, fit=fit, abilities=abilities, statistics=statistics, item_fit=fit_table,
                     model_comparison=comparison, scoring_fit=None if scorer is fit else scorer,
                     label_evidence=evidence)
    return irt.with_summaries(config)


def optima_summary(fit: IRTFit, real_responses: pd.DataFrame | None) -> dict:
    """How many distinct optima the fit's starts reached, their log posteriors (best first, ``;`` separated), and
    whether the real classifiers' True-Score order at any other optimum differs from the best's
    (``true_score_order_differs``; ``None`` without real classifiers or with one optimum)."""
    optima = fit.optima
    differs = None
    if real_responses is not None and len(real_responses) > 1 and len(optima) > 1:
        order = fit.ability_table(real_responses)["true_score"].rank(method="min")
        differs = any(not fit.at_optimum(i).ability_table(real_responses)["true_score"].rank(method="min").equals(order)
                      for i in range(1, len(optima)))
    return {"n_optima": len(optima), "optima_log_posterior": ";".join(f"{o['log_posterior']:.2f}" for o in optima),
            "true_score_order_differs": differs}


def summaries_frame(irts: Sequence[DatasetIRT]) -> pd.DataFrame:
    """The summary statistics of several datasets, index = dataset (input of ``dataset_rankings``)."""
    return pd.DataFrame([irt.statistics for irt in irts], index=pd.Index([i.dataset for i in irts], name="dataset"))


def true_score_table(irts: Sequence[DatasetIRT], *, roles: Sequence[str] = ("real", "artificial"),
                     column: str = "true_score") -> pd.DataFrame:
    """True-Scores (or another ability column) of the reported classifiers on every dataset, long form (the rating
    input).

    Parameters
    ----------
    irts : sequence of DatasetIRT
    roles : sequence of str
        Respondent roles to report (decodIRT reports the real and artificial classifiers, Cardoso et al. 2021 §5.2).
    column : {"true_score", "theta"}
        The ability column reported as ``score``.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, classifier, score`` (True-Score, Cardoso et al. 2021 §2.5, or θ)."""
    frames = []
    for irt in irts:
        rows = irt.abilities[irt.abilities["role"].isin(roles)]
        frames.append(
            pd.DataFrame({"dataset": irt.dataset, "classifier": rows["respondent"], "score": rows[column]})
        )
    if not frames:
        return pd.DataFrame(columns=["dataset", "classifier", "score"])
    return pd.concat(frames, ignore_index=True)


def model_comparison_table(irts: Sequence[DatasetIRT]) -> pd.DataFrame:
    """Log-likelihood, AIC and BIC of the 1PL, 2PL and 3PL, one row per dataset with a comparison: ``dataset``,
    ``loglik_<model>``, ``aic_<model>``, ``bic_<model>``, ``best_aic``, ``best_bic`` (the model with the lowest
    criterion) and ``status`` (every model's fit status, when one did not converge)."""
    rows = []
    for irt in irts:
        table = irt.model_comparison
        if table is None or not len(table):
            continue
        row: dict = {"dataset": irt.dataset}
        for _, fitted in table.iterrows():
            for column, name in (("log_likelihood", "loglik"), ("aic", "aic"), ("bic", "bic")):
                row[f"{name}_{fitted['model']}"] = float(fitted[column])
        row["best_aic"] = str(table.loc[table["aic"].idxmin(), "model"])
        row["best_bic"] = str(table.loc[table["bic"].idxmin(), "model"])
        unconverged = table.loc[table["status"] != "converged", "model"].tolist()
        row["status"] = "converged" if not unconverged else "not converged: " + ", ".join(unconverged)
        rows.append(row)
    return pd.DataFrame(rows)


def suspect_label_table(irts: Sequence[DatasetIRT]) -> pd.DataFrame:
    """Every dataset's suspect labels in one long table (``dataset`` first, then :data:`benchirt.irt.suspects.COLUMNS`).
    """
    frames = [irt.suspect_labels.assign(dataset=irt.dataset) for irt in irts if len(irt.suspect_labels)]
    if not frames:
        return pd.DataFrame(columns=["dataset", *SUSPECT_COLUMNS])
    return pd.concat(frames, ignore_index=True)[["dataset", *SUSPECT_COLUMNS]]

"""Evaluating benchmark subsets: rankings, parameter balance, reliability and fidelity (Cardoso et al. 2021 §5.4–5.6).

:func:`evaluate_subsets` rates the classifiers on the full suite and on every subset with the Glicko-2 tournament of
:mod:`benchirt.rating` (one period per dataset, Cardoso et al. 2021 §4.7), in sorted dataset order and over random
orders. From these it builds the paper's tables — percentages of very discriminating and difficult items (Table 5), RD
and volatility spread (Table 6), the datasets' characterisation (Tables 7–9) — and what the paper judged by eye: each
subset's ranking fidelity against random subsets of the same size (:mod:`benchirt.subsets.fidelity`) and the
innate-ability verdict (:mod:`benchirt.subsets.innate`).

Who is rated. A tournament costs entrants² per dataset and the evaluation plays hundreds (orders, random subsets). What
§5.4–5.6 reads off them concerns the classifiers a reader chooses between and the references that bound them, so a field
with more real classifiers than ``n_contenders`` (:data:`benchirt.subsets.budget.CONTENDERS`) is rated in every
tournament here — hence the ratings, reliability, fidelity, lead-share and innate tables — among its contenders (the
real classifiers with the highest mean score, :func:`benchirt.subsets.budget.contenders`), plus on any dataset where
fewer than two of them ran its best real classifiers up to two, plus every artificial classifier. :func:`rated_field`
chooses them and writes the note. A field within the bound is rated whole. The tables that rate no one (membership,
parameter balance, characterisation) always cover the whole suite.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchirt.errors import DataError
from benchirt.options import Integer
from benchirt.rating.batch import play_orders
from benchirt.rating.config import RatingConfig
from benchirt.rating.glicko import games_weighting, glicko_tournament
from benchirt.rating.permutation import permutation_analysis
from benchirt.rating.scores import score_column, score_matrix, validate_scores
from benchirt.subsets import characterization, fidelity, innate
from benchirt.subsets.budget import CONTENDERS, contenders
from benchirt.subsets.config import SubsetConfig
from benchirt.subsets.selection import PARAMETER_COLUMNS, normalize_summaries

#: Name of the full suite among the evaluated scenarios.
FULL = "full"

#: Summary columns reported per subset: the three selection percentages and, when the IRT stage gives
#: it, the share of items with negative discrimination (Cardoso et al. 2021 §5.2: a sign of noisy items).
REPORTED_COLUMNS = (*PARAMETER_COLUMNS.values(), "pct_negative_discrimination")


@dataclass
class SubsetEvaluation:
    """Everything :func:`evaluate_subsets` measured. Every table is tidy and free of NaN.

    Attributes
    ----------
    subsets : dict
        ``{subset name: [dataset, ...]}`` as evaluated (without the full suite).
    membership : DataFrame
        ``subset, dataset, position`` and the dataset's IRT percentages; one row per member.
    ratings : DataFrame
        ``subset, classifier, role, rating, rd, volatility, rank`` (sorted dataset order) and, when permutations ran,
        ``mean_rating, sd_rating, min_rank, max_rank, mean_rank``; ``subset`` is ``"full"`` for the whole suite. The
        rated classifiers as in the module docstring.
    parameters : DataFrame
        Table 5: ``subset, n_datasets`` and mean/sd (ddof = 1; 0 for one dataset) of each percentage column
        (``discrimination_mean``, ``difficulty_sd``, ...).
    reliability : DataFrame
        Table 6: ``subset, rd_variance, rd_sd, volatility_variance, volatility_sd`` over the rated classifiers (ddof =
        1).
    fidelity, random_draws : DataFrame
        Per subset: ``n_datasets, kendall_tau, separation`` and, against ``n_random`` random subsets of equal size,
        ``*_random_mean, *_random_sd, *_percentile, *_p_value``; every random subset's ``n_datasets, draw,
        kendall_tau, separation``.
    innate, leaders : DataFrame
        Per real classifier and scenario: rating, rank among the real classifiers, volatility; per scenario: the leading
        real classifier, its margin and whether the lead is separable.
    innate_verdict : str
        The classifier whose lead is the most consistent, with its uncertainty, in one paragraph.
    characterization, metadata_summary : DataFrame or None
        Tables 7–8 (``subset, task, data_type, share``) and 9 (``subset, metadata, mean, median, sd``), when metadata
        was given.
    config : SubsetConfig
    notes : list of str
        What could not be computed and why (e.g. no baseline artificial classifier).
    dataset_value, rule_comparison : DataFrame or None
        In a run: :func:`benchirt.subsets.value.dataset_value` and the budget rule against its baselines on held-out
        contenders (:func:`benchirt.subsets.held_out.compare_rules`).
    """

    subsets: dict[str, list[str]]
    membership: pd.DataFrame
    ratings: pd.DataFrame
    parameters: pd.DataFrame
    reliability: pd.DataFrame
    fidelity: pd.DataFrame
    random_draws: pd.DataFrame
    innate: pd.DataFrame
    leaders: pd.DataFrame
    innate_verdict: str
    characterization: pd.DataFrame | None = None
    metadata_summary: pd.DataFrame | None = None
    config: SubsetConfig = field(default_factory=SubsetConfig)
    notes: list[str] = field(default_factory=list)
    dataset_value: pd.DataFrame | None = None
    rule_comparison: pd.DataFrame | None = None

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by file stem (``membership``, ``ratings``, ``parameters``, ...), for writing."""
        frames = {
            "membership": self.membership,
            "ratings": self.ratings,
            "parameters": self.parameters,
            "reliability": self.reliability,
            "fidelity": self.fidelity,
            "random_draws": self.random_draws,
            "innate": self.innate,
            "leaders": self.leaders,
        }
        if self.characterization is not None:
            frames["characterization"] = self.characterization
        if self.metadata_summary is not None:
            frames["metadata_summary"] = self.metadata_summary
        if self.dataset_value is not None:
            frames["dataset_value"] = self.dataset_value
        if self.rule_comparison is not None:
            frames["rule_comparison"] = self.rule_comparison
        return frames

    def summary(self) -> str:
        """A plain-text summary: fidelity table, parameter balance and the innate-ability verdict."""
        with pd.option_context("display.width", 160, "display.max_columns", 20):
            parts = [
                "Fidelity to the full suite (vs random subsets of equal size):",
                self.fidelity.round(3).to_string(index=False),
                "",
                "Percentages of very discriminating / difficult items (Cardoso et al. 2021 Table 5):",
                self.parameters.round(2).to_string(index=False),
                "",
                self.innate_verdict,
            ]
            if self.rule_comparison is not None:
                from benchirt.subsets.held_out import recommendation

                parts += ["", "The budget rule against its baselines on held-out classifiers (rule_comparison.csv):",
                          self.rule_comparison.round(3).to_string(index=False), "",
                          recommendation(self.rule_comparison)]
        if self.notes:
            parts += ["", "Notes:"] + [f"- {note}" for note in self.notes]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.summary()


def evaluate_subsets(
    subsets: Mapping[str, list[str]],
    scores: pd.DataFrame,
    summaries: pd.DataFrame,
    *, metadata: pd.DataFrame | None = None,
    roles: pd.Series | Mapping[str, str] | None = None,
    config: SubsetConfig | None = None,
    rating_config: RatingConfig | None = None,
    n_contenders: int = CONTENDERS,
) -> SubsetEvaluation:
    """Rate the classifiers on the full suite and on each subset, and measure every subset.

    Parameters
    ----------
    subsets : mapping
        ``{name: [dataset, ...]}``, e.g. from :func:`benchirt.subsets.build_subsets`.
    scores : DataFrame, long
        ``dataset, classifier, score`` (True-Score, :func:`benchirt.irt.true_score_table`); its datasets form the full
        suite.
    summaries : DataFrame, one row per dataset
        IRT item summaries (index or column ``dataset``; ``pct_discrimination_gt``, ``pct_difficulty_gt``, optionally
        ``pct_guessing_gt``), covering every dataset of ``scores``.
    metadata : DataFrame, optional
        Dataset metadata (index or column ``dataset``; :data:`benchirt.data.dataset.METADATA_COLUMNS`) for the
        characterisation tables.
    roles : Series or mapping, classifier -> role
        ``"real"``, ``"artificial"`` (or ``"ladder"``) for every classifier; required, benchirt never guesses a role
        from a name.
    config, rating_config : SubsetConfig, RatingConfig, optional
        ``n_random``, ``n_permutations``, ``seed``; the Glicko-2 options. Defaults when None.
    n_contenders : int
        The most real classifiers rated (≥ 2): a field with more is rated among its contenders and the artificial
        classifiers (:func:`rated_field`), and a note says so.

    Returns
    -------
    SubsetEvaluation

    Raises
    ------
    DataError
        Scores without the needed columns, a subset naming a dataset the scores lack, summaries not covering the suite,
        a classifier without a role, fewer than two real classifiers.
    ConfigError
        ``n_contenders`` not an integer ≥ 2.
    """
    config = config or SubsetConfig()
    rating_config = rating_config or RatingConfig()
    scores = validate_scores(scores, column=score_column(scores, score=rating_config.score))
    suite = sorted(scores["dataset"].unique())
    subsets = _check_subsets(subsets, suite)
    role_of = _check_roles(roles, scores)
    scores, role_of, matrix, weighting, bound_note = _rated_and_weighting(scores, role_of, rating_config,
                                                                         n_contenders=n_contenders)
    summaries = normalize_summaries(summaries, columns=[c for c in REPORTED_COLUMNS if c in summaries.columns])
    uncovered = sorted(set(suite) - set(summaries.index))
    if uncovered:
        raise DataError(
            f"the IRT summaries lack dataset(s) {', '.join(uncovered)} that the scores contain; "
            "summarise every dataset of the suite (or drop it from the scores)"
        )
    scenarios = {FULL: suite, **subsets}
    real = pd.Index(sorted(role_of.index[role_of == "real"]), dtype=object)
    artificial = pd.Index(sorted(role_of.index[role_of == "artificial"]), dtype=object)

    tournaments = {
        name: _table(glicko_tournament(_subset_scores(scores, datasets), config=rating_config, weighting=weighting))
        for name, datasets in scenarios.items()
    }
    orders = {}
    if config.n_permutations:
        orders = {
            name: permutation_analysis(_subset_scores(scores, datasets), n_permutations=config.n_permutations, seed=config.seed,
                                       config=rating_config, weighted=weighting is not None)
            for name, datasets in scenarios.items()
        }
    ratings = _ratings_table(tournaments, orders, role_of)

    notes: list[str] = [note for note in (bound_note, weighting) if note]
    uppers = fidelity.upper_references(matrix, real, artificial)
    baselines = artificial.difference(uppers)
    if len(uppers):
        notes.append(f"upper reference(s) left out of the separation: {', '.join(uppers)}")
    if len(baselines) == 0:
        notes.append("no baseline artificial classifier (an artificial one that is not an upper reference): "
                     "separation not measured")
    fid, draws = _fidelity(matrix, subsets, real, baselines, config, rating_config, weighting is not None)
    absent = matrix.columns[matrix.isna().any()]
    if len(absent):
        notes.append(f"a sparse field: {len(absent)} of {matrix.shape[1]} classifiers are absent from some of the "
                     f"{matrix.shape[0]} datasets; each subset (and each random subset) rates the classifiers present "
                     "on its datasets, and its Kendall τ with the full suite compares the real classifiers that "
                     "played on it (one absent from all its datasets is left out of that τ)")

    innate_table, leaders, verdict = innate.innate_ability(ratings, list(scenarios),
                                                           lead_shares=_lead_shares(orders, real))
    char = meta = None
    if metadata is not None:
        char, meta = characterization.characterize(scenarios, metadata)
    return SubsetEvaluation(
        subsets=dict(subsets),
        membership=_membership(subsets, summaries),
        ratings=ratings,
        parameters=_parameter_balance(scenarios, summaries),
        reliability=_reliability(tournaments),
        fidelity=fid,
        random_draws=draws,
        innate=innate_table,
        leaders=leaders,
        innate_verdict=verdict,
        characterization=char,
        metadata_summary=meta,
        config=config,
        notes=notes,
    )


def _check_subsets(subsets: Mapping[str, list[str]], suite: list[str]) -> dict[str, list[str]]:
    known = set(suite)
    checked = {}
    for name, datasets in subsets.items():
        datasets = [str(d) for d in datasets]
        unknown = sorted(set(datasets) - known)
        if unknown:
            raise DataError(
                f"subset {name!r} names dataset(s) {', '.join(unknown)} that the scores lack; "
                "build subsets from the summaries of the same run"
            )
        if not datasets:
            raise DataError(f"subset {name!r} is empty")
        repeated = sorted({d for d in datasets if datasets.count(d) > 1})
        if repeated:
            raise DataError(f"subset {name!r} lists dataset(s) {', '.join(repeated)} more than once")
        if name == FULL:
            raise DataError(f"a subset may not be called {FULL!r}: that name is the whole suite")
        checked[str(name)] = datasets
    return checked


def _check_roles(roles, scores: pd.DataFrame) -> pd.Series:
    if roles is None:
        raise DataError(
            "no classifier roles given; pass roles (classifier -> 'real' | 'artificial') so that real "
            "and artificial classifiers can be told apart"
        )
    roles = pd.Series(roles, dtype=object) if not isinstance(roles, pd.Series) else roles.astype(object)
    roles.index = roles.index.map(str)
    classifiers = scores["classifier"].unique()
    unknown = sorted(set(classifiers) - set(roles.index))
    if unknown:
        raise DataError(f"no role given for classifier(s) {', '.join(unknown)}; give each 'real' or 'artificial'")
    roles = roles.loc[classifiers]
    if (roles == "real").sum() < 2:
        raise DataError("fewer than two real classifiers in the scores: a ranking of real classifiers needs two")
    return roles


def _rated_and_weighting(scores: pd.DataFrame, roles: pd.Series, rating_config: RatingConfig, *, n_contenders: int):
    """The rated field (:func:`rated_field`: scores, roles, its datasets × classifiers matrix, the note) and whether its
    games are weighted per dataset, decided on the whole field's full suite as the rating stage does
    (:func:`benchirt.rating.glicko.games_weighting`)."""
    whole = score_matrix(scores)
    weighting = games_weighting(whole.to_numpy(), rating_config)
    rated, roles, note = rated_field(scores, roles, n_contenders=n_contenders)
    return rated, roles, whole if rated is scores else score_matrix(rated), weighting, note


def rated_field(scores: pd.DataFrame, roles: pd.Series, *, n_contenders: int = CONTENDERS
                ) -> tuple[pd.DataFrame, pd.Series, str]:
    """The classifiers the evaluation rates (module docstring): for a field with at most ``n_contenders`` (≥ 2) real
    classifiers ``scores`` (checked long table) and ``roles`` (Series) unchanged and no note; else those of its
    contenders (:func:`benchirt.subsets.budget.contenders`), of the best real classifiers (up to two) of each dataset
    on which fewer than two contenders ran, and of every artificial classifier, with the note naming who is left out."""
    n_contenders = Integer(minimum=2).check("subset", "n_contenders", n_contenders)
    real = roles.index[roles == "real"]
    if len(real) <= n_contenders:
        return scores, roles, ""
    matrix = score_matrix(scores[scores["classifier"].isin(real)])
    strongest = matrix.columns[contenders(matrix.to_numpy(), n_contenders=n_contenders)]
    covering = _covering(matrix, strongest)
    artificial = roles.index[roles == "artificial"]
    n_ladder = int((roles == "ladder").sum())
    kept = set(strongest).union(covering, artificial)
    others = len(real) - len(strongest) - len(covering)
    rated = [f"the {len(strongest)} real classifiers with the highest mean score"]
    rated += [f"{len(covering)} more that keep two real classifiers on every dataset"] if covering else []
    rated += [f"the {len(artificial)} artificial one(s)"] if len(artificial) else []
    note = (f"a field of {len(real):,} real classifiers: the subset ratings, their reliability, fidelity (Kendall τ, "
            "separation, random subsets), order and innate-ability tables (Cardoso et al. 2021 §5.4–5.6) rate "
            + " and ".join([", ".join(rated[:-1]), rated[-1]] if len(rated) > 1 else rated)
            + f"; the other {others:,} real " + (f"and {n_ladder} ladder " if n_ladder else "")
            + "classifiers are not part of those tables (each Glicko-2 period compares every pair present, entrants² "
            "per dataset; the rating stage rates the whole field on the full suite)")
    return scores[scores["classifier"].isin(kept)], roles[roles.index.isin(kept)], note


def _covering(matrix: pd.DataFrame, strongest: pd.Index) -> list[str]:
    """On each dataset (row of the datasets × real classifiers ``matrix``) where fewer than two of ``strongest``
    have a score, its best other real classifiers (ties by name) until two do or none is left."""
    added: list[str] = []
    for _, row in matrix.iterrows():
        present = row.dropna()
        missing = 2 - int(present.index.isin([*strongest, *added]).sum())
        if missing > 0:
            candidates = present.drop([*strongest, *added], errors="ignore")
            added += [name for _, name in sorted(zip(-candidates.to_numpy(), candidates.index))[:missing]]
    return added


def _subset_scores(scores: pd.DataFrame, datasets: list[str]) -> pd.DataFrame:
    return scores[scores["dataset"].isin(datasets)]


def _table(tournament) -> pd.DataFrame:
    return tournament.table.set_index("classifier")


#: Columns of the permutation summary carried into :attr:`SubsetEvaluation.ratings`.
ORDER_COLUMNS = ("rating_mean", "rating_sd", "rank_mean", "rank_min", "rank_max")


def _ratings_table(tournaments, orders, roles: pd.Series) -> pd.DataFrame:
    rows = []
    for name, table in tournaments.items():
        frame = table[["rating", "rd", "volatility", "low", "high", "rank"]].copy()
        if name in orders:
            frame = frame.join(orders[name].summary.set_index("classifier")[list(ORDER_COLUMNS)])
        frame.insert(0, "role", roles.reindex(frame.index).to_numpy())
        frame.insert(0, "subset", name)
        rows.append(frame.rename_axis("classifier").reset_index())
    return pd.concat(rows, ignore_index=True)


def _lead_shares(orders, real: pd.Index) -> dict[str, pd.Series]:
    """Per scenario: share of dataset orders in which each real classifier alone rates highest among the
    real ones (an order where several share the top rating is a tie and counts for none)."""
    shares = {}
    for name, analysis in orders.items():
        present = real.intersection(analysis.ratings.columns, sort=False)   # a sparse field: those on the subset
        ratings = analysis.ratings[list(present)].to_numpy()
        top = ratings == ratings.max(axis=1, keepdims=True)
        leads = top & (top.sum(axis=1, keepdims=True) == 1)
        shares[name] = pd.Series(leads.mean(axis=0), index=present).reindex(real, fill_value=0.0)
    return shares


def _fidelity(matrix: pd.DataFrame, subsets, real, baselines, config: SubsetConfig, rating_config: RatingConfig,
              weighted: bool):
    """Kendall τ and separation of every subset, and of ``n_random`` random subsets per size.

    All tournaments here are played in sorted dataset order with the batched engine of :mod:`benchirt.rating.batch`, so
    a subset and its random rivals are rated alike; with games weighted per dataset (``weighted``) when the full suite's
    tournament needs it. In a sparse field a subset's τ and separation compare only the classifiers that played on it.
    """
    datasets, classifiers = list(matrix.index), list(matrix.columns)
    position = {name: i for i, name in enumerate(datasets)}
    suite_scores = matrix.to_numpy()

    def play(rows: np.ndarray) -> np.ndarray:
        result = play_orders(suite_scores, rows, tie_tolerance=rating_config.tie_tolerance, initial=rating_config.initial,
                             glicko=rating_config.glicko, weighted=weighted)
        return np.where(result.n_played > 0, result.rating, np.nan)

    full = play(np.arange(len(datasets))[None, :])[0]
    # positions of the real classifiers (sorted, as the columns are) and of the baselines among the columns
    real_at, baseline_at = np.flatnonzero(np.isin(classifiers, real)), np.flatnonzero(np.isin(classifiers, baselines))
    reference = full[real_at]

    def statistics(rating_row: np.ndarray) -> dict:
        rated = rating_row[real_at]
        played = ~np.isnan(rated)
        stats = {"kendall_tau": fidelity.paired_tau(reference[played], rated[played])}
        if len(baselines):
            base = rating_row[baseline_at]
            stats["separation"] = fidelity.rating_gap(rated[played], base[~np.isnan(base)])
        return stats

    stat_names = ["kendall_tau"] + (["separation"] if len(baselines) else [])
    draws = []
    if config.n_random:
        for size in sorted({len(members) for members in subsets.values()}):
            rows = fidelity.random_subsets(len(datasets), size, config.n_random, seed=config.seed)
            draws += [{"n_datasets": size, "draw": i, **statistics(r)} for i, r in enumerate(play(rows))]
    draws = pd.DataFrame(draws, columns=["n_datasets", "draw", *stat_names])

    full_stats = statistics(full)
    table = []
    for name, members in subsets.items():
        rows = np.array([sorted(position[d] for d in members)])
        row = {"subset": name, "n_datasets": len(members), **statistics(play(rows)[0])}
        if "separation" in full_stats:
            row["separation_full"] = full_stats["separation"]
        rivals = draws[draws["n_datasets"] == len(members)]
        for stat in stat_names if len(rivals) else []:
            values = rivals[stat].to_numpy(float)
            percentile, p_value = fidelity.place_in_distribution(row[stat], values)
            row[f"{stat}_random_mean"] = float(values.mean())
            row[f"{stat}_random_sd"] = float(values.std(ddof=1))
            row[f"{stat}_percentile"] = percentile
            row[f"{stat}_p_value"] = p_value
        table.append(row)
    return pd.DataFrame(table), draws


def _membership(subsets, summaries: pd.DataFrame) -> pd.DataFrame:
    columns = [c for c in REPORTED_COLUMNS if c in summaries.columns]
    rows = [
        {"subset": name, "dataset": dataset, "position": position, **summaries.loc[dataset, columns].to_dict()}
        for name, datasets in subsets.items()
        for position, dataset in enumerate(datasets, start=1)
    ]
    return pd.DataFrame(rows, columns=["subset", "dataset", "position", *columns])


def _parameter_balance(scenarios, summaries: pd.DataFrame) -> pd.DataFrame:
    """Cardoso et al. 2021 Table 5: mean and sd (ddof = 1, 0 for a single dataset) of each percentage column."""
    columns = [c for c in REPORTED_COLUMNS if c in summaries.columns]
    rows = []
    for name, datasets in scenarios.items():
        values = summaries.loc[datasets, columns]
        row = {"subset": name, "n_datasets": len(datasets)}
        for column in columns:
            label = column.removeprefix("pct_").removesuffix("_gt")
            row[f"{label}_mean"] = float(values[column].mean())
            row[f"{label}_sd"] = float(values[column].std(ddof=1)) if len(values) > 1 else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


def _reliability(tournaments) -> pd.DataFrame:
    """Cardoso et al. 2021 Table 6: variance and sd (ddof = 1) of RD and volatility over all rated classifiers."""
    rows = []
    for name, table in tournaments.items():
        row = {"subset": name}
        for column in ("rd", "volatility"):
            variance = float(table[column].var(ddof=1)) if len(table) > 1 else 0.0
            row[f"{column}_variance"] = variance
            row[f"{column}_sd"] = float(np.sqrt(variance))
        rows.append(row)
    return pd.DataFrame(rows)

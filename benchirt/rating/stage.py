"""The rating stage of the pipeline: tournament, order analysis and tests in one call.

Every entrant of the field is a row of its leaderboard: those on enough datasets to be tested
(:func:`benchirt.rating.sparse.ranked_field`) with their Bradley–Terry rating and joint rank interval, the others
placed among them by a model across datasets (:mod:`benchirt.rating.placed`), marked ``placed_by_model``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import pandas as pd

from benchirt.errors import DataError
from benchirt.rating.config import RatingConfig
from benchirt.rating.glicko import Tournament, glicko_tournament
from benchirt.rating.leaderboard import ORDER_SPREAD, LeaderboardError, bootstrap_conf_int, leaderboard
from benchirt.rating.scores import CheckedScores, checked_scores
from benchirt.rating.permutation import PermutationAnalysis, permutation_analysis
from benchirt.rating.placed import PLACED_LEVEL, board_with_placed, place_entrants
from benchirt.rating.sensitivity import field_sensitivity, sensitivity_note
from benchirt.rating.sparse import ranked_field
from benchirt.rating.statistics import StatisticalComparison, friedman_nemenyi
from benchirt.rating.verdict import leaderboard_text, leaderboard_verdict, measured

#: Columns of the permutation summary carried into the single-order table, and their names there.
ORDER_COLUMNS = {
    "rating_mean": "orders_rating_mean",
    "rating_sd": "orders_rating_sd",
    "rank_min": "orders_rank_min",
    "rank_max": "orders_rank_max",
    "p_first": "orders_p_first",
}


@dataclass(kw_only=True, repr=False)
class RatingResult:
    """Everything the rating stage produces.

    Attributes
    ----------
    tournament : Tournament
        The single-order Glicko-2 tournament (order ``config.order``).
    permutation : PermutationAnalysis or None
        The same tournament under ``config.n_permutations`` random orders (None when 0).
    comparisons : dict of str to StatisticalComparison
        Friedman/Nemenyi per score name, the rated score first.
    skipped : dict of str to str
        Score name → why its tests could not run.
    config : RatingConfig
    leaderboard : pandas.DataFrame
        Every entrant, best first: the tested ones' Bradley–Terry leaderboard (``Leaderboard.table``, then
        :data:`benchirt.rating.leaderboard.ON_SUITE_COLUMNS`), ``placed_by_model`` False; in a sparse field the entrants
        on too few datasets, ``placed_by_model`` True, at their placed rank
        (:func:`benchirt.rating.placed.board_with_placed`: ``rank, rank_low, rank_high`` are the placed rank and its
        multiple-imputation interval, not a joint interval). Code over the tested rows reads
        :func:`benchirt.rating.verdict.measured`.
    pairwise : pandas.DataFrame
        Every pair of tested classifiers (:data:`benchirt.rating.pairwise.PAIRWISE_COLUMNS`); above
        ``rate.pairwise_up_to`` the contenders' pairs.
    score : str
        Name of the score that decided the matches, the leaderboard and the first test.
    notes : list of str
        What the leaderboard could not do (undefined intervals, absences, ...), said in every output.
    bootstrap : pandas.DataFrame, shape (n_bootstrap, k)
        The leaderboard's bootstrap ratings, read by :meth:`conf_int`.
    left_out : pandas.DataFrame
        The untested classifiers of a sparse field with why and their placement
        (:data:`benchirt.rating.sparse.LEFT_OUT_COLUMNS`, :data:`benchirt.rating.placed.PLACED_COLUMNS`); empty when
        every entrant was tested.
    """

    tournament: Tournament
    permutation: PermutationAnalysis | None
    comparisons: dict[str, StatisticalComparison]
    skipped: dict[str, str] = field(default_factory=dict)
    config: RatingConfig = field(default_factory=RatingConfig)
    leaderboard: pd.DataFrame = field(default_factory=pd.DataFrame)
    pairwise: pd.DataFrame = field(default_factory=pd.DataFrame)
    score: str = "true_score"
    notes: list[str] = field(default_factory=list)
    bootstrap: pd.DataFrame = field(default_factory=pd.DataFrame)
    left_out: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def verdict(self) -> str:
        """One sentence on the leaderboard (:func:`benchirt.rating.leaderboard_verdict`), or why there is none."""
        if len(measured(self.leaderboard)) < 2:
            return "; ".join(self.notes) or "no leaderboard"
        return leaderboard_verdict(self.leaderboard, self.pairwise)

    def summary(self) -> str:
        """The leaderboard with its intervals, the verdict, the Glicko-2 leader, skipped tests and notes."""
        tested = len(measured(self.leaderboard))
        placed = f" and {len(self.leaderboard) - tested} placed by a model" if len(self.leaderboard) > tested else ""
        lines = [f"Rating on {self.score}: {tested} classifiers tested{placed} over {len(self.tournament.order)} "
                 "datasets"]
        if len(self.leaderboard):
            lines.append(leaderboard_text(self.leaderboard))
        lines.append(self.verdict)
        lines.append(f"Glicko-2 leader (single order): {self.tournament.leader}")
        lines += [f"test skipped for {name}: {why}" for name, why in self.skipped.items()]
        lines += [f"note: {note}" for note in self.notes if note not in self.verdict]
        return "\n".join(lines)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``leaderboard``, ``pairwise``, ``ratings`` (single order, with the order spread), ``trajectory``,
        ``left_out`` (classifiers of a sparse field not tested, why, and their placement, when any)."""
        frames = {"leaderboard": self.leaderboard, "pairwise": self.pairwise, "ratings": self.ratings,
                  "trajectory": self.tournament.trajectory, "left_out": self.left_out}
        return {name: frame for name, frame in frames.items() if len(frame)}

    def conf_int(self, level: float = 0.95, *, kind: str = "bradley_terry") -> pd.DataFrame:
        """Intervals at ``level``: ``kind="bradley_terry"`` the leaderboard's bootstrap percentile intervals
        (:meth:`benchirt.rating.leaderboard.Leaderboard.conf_int`), ``"glicko"`` the single-order Glicko-2
        R ± z·RD (:meth:`benchirt.rating.glicko.Tournament.conf_int`)."""
        if kind == "glicko":
            return self.tournament.conf_int(level)
        if kind != "bradley_terry":
            raise ValueError(f"kind must be 'bradley_terry' or 'glicko', got {kind!r}")
        if not len(self.leaderboard):
            return bootstrap_conf_int(pd.DataFrame({"classifier": [], "bt_rating": []}), self.bootstrap, level=level)
        return bootstrap_conf_int(measured(self.leaderboard), self.bootstrap, level=level)

    def __repr__(self) -> str:
        return (f"RatingResult(score={self.score!r}, {self.tournament!r}, permutation={self.permutation!r}, "
                f"comparisons={list(self.comparisons)}, skipped={list(self.skipped)})")

    @property
    def ratings(self) -> pd.DataFrame:
        """The single-order table with the order analysis beside it (columns ``orders_*``)."""
        table = self.tournament.table
        if self.permutation is None:
            return table.copy()
        spread = self.permutation.summary.set_index("classifier")[list(ORDER_COLUMNS)].rename(columns=ORDER_COLUMNS)
        return table.join(spread, on="classifier")


def placed_left_out(scores: pd.DataFrame, left_out: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, str]:
    """The entrants left out of the tests with their place by a model (:func:`benchirt.rating.placed.place_entrants`)
    and the sentence that says so; unchanged when nobody was left out."""
    if left_out.empty:
        return left_out, ""
    placed = place_entrants(scores, left_out["classifier"].tolist(), seed=seed)
    table = left_out.merge(placed, on="classifier", how="left")
    best = table.sort_values(["placed_rank", "classifier"]).head(3)
    shown = ", ".join(f"{row.classifier} {row.placed_rank} ({row.placed_rank_low}–{row.placed_rank_high})"
                      for row in best.itertuples(index=False))
    return table, (f"the {len(table)} entrants not tested are placed on the leaderboard by a model across datasets "
                   f"(chained equations with Bayesian ridge, {100 * PLACED_LEVEL:g} % intervals over multiple "
                   f"imputations; a prediction, not a tested result; rows marked placed_by_model) among all "
                   f"{int(table['n_ranked'].iloc[0])}: the best placed {shown}")


def rate(
    scores: pd.DataFrame,
    *,
    config: RatingConfig | None = None,
    other_scores: Mapping[str, pd.DataFrame] | None = None,
    compare: Sequence[str] | None = None,
    rows: Mapping[str, pd.DataFrame] | None = None,
    roles: Mapping[str, str] | None = None,
) -> RatingResult:
    """Run the rating stage (Cardoso et al. 2021 §4.7, §5.3, with the order analysis and valid tests).

    Parameters
    ----------
    scores : pandas.DataFrame
        Long ``dataset, classifier, score`` table that decides the matches (True-Scores by default).
    config : RatingConfig, optional
    other_scores : mapping of str to pandas.DataFrame, optional
        Further long tables (e.g. ``{"test_accuracy": ...}``) that get the Friedman/Nemenyi tests too.
    compare : sequence of str, optional
        Restrict the tests to these classifiers (Cardoso et al. 2021 §5.3 tested the real ones only).
    rows, roles : mapping, optional
        As :func:`benchirt.rating.leaderboard.leaderboard` takes them (test-row answers per dataset; classifier roles).

    Returns
    -------
    RatingResult
        With the Bradley–Terry leaderboard and pairwise comparisons (one classifier only: no leaderboard, said in
        ``notes``). In a sparse field the classifiers on too few datasets are left out of the tests
        (:func:`benchirt.rating.sparse.ranked_field`) and placed by a model, marked ``placed_by_model``; the Glicko-2
        tournament keeps them. Tests that cannot run (fewer than 3 classifiers or 2 datasets) are listed in ``skipped``
        instead of failing the stage.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({
    ...     "dataset": [d for d in ["d1", "d2", "d3", "d4", "d5", "d6"] for _ in range(3)],
    ...     "classifier": ["tree", "forest", "stump"] * 6,
    ...     "score": [0.80, 0.90, 0.70, 0.80, 0.85, 0.60, 0.70, 0.95, 0.65,
    ...               0.85, 0.90, 0.60, 0.75, 0.80, 0.70, 0.60, 0.90, 0.50]})
    >>> result = rate(scores, config=RatingConfig(n_permutations=20))
    >>> result.ratings["classifier"].tolist()        # forest beats tree beats stump on every dataset
    ['forest', 'tree', 'stump']
    """
    config = config or RatingConfig()
    checked = checked_scores(scores, score=config.score)   # checked once here; the functions below take it as it is
    tournament = glicko_tournament(checked, config=config)
    one_order = len(tournament.order) < 2
    permutation = permutation_analysis(checked, config=config) if config.n_permutations and not one_order else None
    order_note = (["no dataset-order analysis and no Glicko-2 intervals: one dataset is a single rating period "
                   "in a single order"] if one_order else [])
    comparisons: dict[str, StatisticalComparison] = {}
    skipped: dict[str, str] = {}
    tables: dict[str, pd.DataFrame | CheckedScores] = {config.score: checked, **dict(other_scores or {})}
    for name, table in tables.items():
        try:
            comparisons[name] = friedman_nemenyi(table, config=replace(config, score=name), classifiers=compare)
        except DataError as exc:
            skipped[name] = str(exc)
    ranked_rows, left_out, sparse_note = ranked_field(checked.table, config.alpha)
    ranked = CheckedScores(ranked_rows)   # rows of the checked table
    left_out, placed_note = placed_left_out(checked.table, left_out, config.seed)
    try:
        board = leaderboard(ranked, config=config, tournament=tournament, permutation=permutation, rows=rows,
                            roles=roles)
    except LeaderboardError as exc:
        return RatingResult(tournament=tournament, permutation=permutation, comparisons=comparisons, skipped=skipped,
                            config=config, score=config.score, notes=[f"no leaderboard: {exc}", *order_note])
    sensitivity = sensitivity_note(field_sensitivity(ranked, config=config))
    table = board_with_placed(board.table, left_out, played=_played(tournament, permutation), roles=roles)
    notes = [*([sparse_note] if sparse_note else []), *([placed_note] if placed_note else []), *board.notes, *order_note, *([sensitivity] if sensitivity else [])]
    return RatingResult(tournament=tournament, permutation=permutation, comparisons=comparisons, skipped=skipped,
                        config=config, leaderboard=table, pairwise=board.pairwise, score=config.score,
                        notes=notes, bootstrap=board.bootstrap, left_out=left_out)


def _played(tournament: Tournament, permutation: PermutationAnalysis | None) -> pd.DataFrame:
    """Per classifier (index) the leaderboard's columns from the Glicko-2 tournament every entrant played:
    ``glicko_rating, glicko_rd`` and, with the order analysis, the ``orders_*`` spread."""
    played = tournament.table.set_index("classifier")[["rating", "rd"]].rename(
        columns={"rating": "glicko_rating", "rd": "glicko_rd"})
    if permutation is None:
        return played
    return played.join(permutation.summary.set_index("classifier")[list(ORDER_SPREAD)].rename(columns=ORDER_SPREAD))

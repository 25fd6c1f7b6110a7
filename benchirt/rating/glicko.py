"""Glicko-2 round-robin tournament of classifiers over benchmark datasets (Cardoso et al. 2021 §2.6, §4.7).

Every dataset is one rating period, in which every classifier meets every other present and scores 1 / 0.5 / 0 when its
score is higher / equal / lower. All updates of a period use the pre-period ratings and RDs (decodIRT's procedure). A
classifier absent from a dataset does not play that period: its RD grows to sqrt(φ² + σ²), rating and volatility stay
(Glickman's step 6; the package's ``did_not_compete``).

Two engines (``RatingConfig.glicko``): ``"glickman"`` (default, :func:`benchirt.rating.batch.update_period`) and
``"decodirt"``, the ``glicko2`` package decodIRT used, whose volatility step differs from the paper (docs/rating.md).

When the tournament with every game counted as independent diverges (:func:`benchirt.rating.batch.diverges`, typically
with hundreds of classifiers per dataset), it is replayed with games weighted per dataset (:mod:`benchirt.rating.batch`)
and :attr:`Tournament.weighting` says so; the permutation analysis and the subsets decide the same way.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

import glicko2
import numpy as np
import pandas as pd

from benchirt.rating.batch import DIVERGED, SCALE, diverges, match_outcomes, play_periods
from benchirt.rating.config import RatingConfig
from benchirt.rating.scores import CheckedScores, checked_scores, resolve_order, score_matrix
from benchirt.results import interval_frame, normal_interval

TABLE_COLUMNS = (
    "classifier", "rating", "rd", "volatility", "low", "high", "rank", "separable_from_leader", "n_played",
)
TRAJECTORY_COLUMNS = ("period", "dataset", "classifier", "rating", "rd", "volatility", "played")


@dataclass(repr=False)
class Tournament:
    """Result of one Glicko-2 tournament.

    Attributes
    ----------
    table : pandas.DataFrame, shape (n_classifiers, 9)
        Columns :data:`TABLE_COLUMNS`, sorted by rating (descending). ``low``/``high`` is [R − 2RD, R + 2RD] (Cardoso et
        al. 2021 §2.6); ``rank`` 1 = best (ties share the smaller rank); ``separable_from_leader`` is True when the
        interval lies wholly below the leader's; ``n_played`` counts the periods played.
    trajectory : pandas.DataFrame, shape (n_periods * n_classifiers, 7)
        Long: ``period`` (1-based), ``dataset``, ``classifier``, ``rating``, ``rd``, ``volatility`` after that period,
        ``played``.
    order, config
        The datasets in the order played; the :class:`RatingConfig`.
    weighting : str or None
        Why the games were weighted per dataset (:func:`games_weighting`), None when every game counted.
    """

    table: pd.DataFrame
    trajectory: pd.DataFrame
    order: list[str]
    config: RatingConfig = field(default_factory=RatingConfig)
    weighting: str | None = None

    @property
    def leader(self) -> str:
        """The classifier with the highest final rating."""
        return str(self.table["classifier"].iloc[0])

    @property
    def inseparable_from_leader(self) -> list[str]:
        """Classifiers (leader excluded) whose interval overlaps the leader's."""
        rows = self.table.iloc[1:]
        return rows.loc[~rows["separable_from_leader"], "classifier"].tolist()

    def rating_matrix(self, value: str = "rating") -> pd.DataFrame:
        """Trajectory as periods × classifiers of ``value`` (``rating``, ``rd`` or ``volatility``)."""
        matrix = self.trajectory.pivot(index="period", columns="classifier", values=value)
        matrix.columns.name = None
        return matrix

    def summary(self) -> str:
        """The final table with each rating's R ± 2RD interval (what ``str(tournament)`` prints)."""
        return str(self)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``ratings`` (the final table) and ``trajectory`` (every period)."""
        return {"ratings": self.table, "trajectory": self.trajectory}

    def conf_int(self, level: float = 0.95) -> pd.DataFrame:
        """Intervals ``R ± z·RD`` of the final ratings (Glickman 2012: RD is the rating's standard deviation).

        ``classifier, se, estimate, low, high`` in table order, ``se`` = RD; level 0.9545 gives the table's ``low,
        high`` (R ± 2RD, Cardoso et al. 2021 §2.6).
        """
        low, high = normal_interval(self.table["rating"], self.table["rd"], level=level)
        return interval_frame({"classifier": self.table["classifier"]}, self.table["rating"], low, high,
                              se=self.table["rd"])

    def __repr__(self) -> str:
        return (f"Tournament(leader={self.leader!r}, classifiers={len(self.table)}, periods={len(self.order)}, "
                f"inseparable_from_leader={self.inseparable_from_leader!r})")

    def __str__(self) -> str:
        shown = self.table.assign(
            interval=[f"[{lo:.1f}, {hi:.1f}]" for lo, hi in zip(self.table["low"], self.table["high"])]
        )[["rank", "classifier", "rating", "rd", "volatility", "interval", "separable_from_leader"]]
        return (
            f"Glicko-2 tournament over {len(self.order)} datasets (periods), {len(self.table)} classifiers\n"
            + shown.to_string(index=False, float_format=lambda v: f"{v:.4g}" if abs(v) < 1 else f"{v:.2f}")
        )


def glicko_tournament(
    scores: pd.DataFrame | CheckedScores,
    *, order: str | os.PathLike | Sequence[str] | None = None,
    config: RatingConfig | None = None,
    weighting: str | None = None,
) -> Tournament:
    """Rate classifiers by a Glicko-2 round-robin over datasets (Cardoso et al. 2021 §4.7); returns :class:`Tournament`.

    ``scores``: long table ``dataset, classifier, score`` (a classifier may be absent from some datasets; a column named
    ``config.score`` is used instead of ``score`` when present). ``order``: the rating periods
    (:func:`benchirt.rating.scores.resolve_order`), default ``config.order``. ``weighting``: play the games weighted per
    dataset for this reason (e.g. a subset, weighted as its full suite is); default decided by :func:`games_weighting`.
    """
    config = config or RatingConfig()
    clean = checked_scores(scores, score=config.score).table
    periods = resolve_order(clean["dataset"].tolist(), order=config.order if order is None else order)
    matrix = score_matrix(clean, datasets=periods)
    classifiers = list(matrix.columns)
    values = matrix.to_numpy()
    weighting = weighting or games_weighting(values, config)
    if weighting is not None:
        states, played = _play_glickman(values, config, weighted=True)
    elif config.glicko == "glickman":
        states, played = _play_glickman(values, config)
    else:
        states, played = _play_package(values, config)
    rows = [
        (period, dataset, name, *state, bool(was))
        for period, (dataset, period_states, period_played) in enumerate(zip(periods, states, played), start=1)
        for name, state, was in zip(classifiers, period_states, period_played)
    ]
    trajectory = pd.DataFrame(rows, columns=list(TRAJECTORY_COLUMNS))
    final = states[-1]
    table = rating_table(classifiers, final[:, 0], final[:, 1], final[:, 2], played.sum(axis=0))
    return Tournament(table=table, trajectory=trajectory, order=periods, config=config, weighting=weighting)


def games_weighting(scores: np.ndarray, config: RatingConfig) -> str | None:
    """Whether a tournament's games are weighted per dataset, and why: None when the tournament with every game
    counted (datasets in the order of the rows of ``scores``, datasets × classifiers) keeps every volatility at or
    below :data:`~benchirt.rating.batch.DIVERGED`, else the sentence that says so (notes, summary, report)."""
    n_diverged = diverges(scores, tie_tolerance=config.tie_tolerance, initial=config.initial, glicko=config.glicko)
    if not n_diverged:
        return None
    k = np.shape(scores)[1]
    return (f"Glicko-2 with every game counted diverged for {n_diverged} of {k} classifiers (volatility above "
            f"{DIVERGED:g}): a dataset's games all derive from one score per classifier, yet Glicko-2 counts each "
            "as independent; the tournament was played with each game of a dataset weighted 1/(opponents met "
            "there), one game's worth per dataset (a composite likelihood, Varin et al. 2011), so its RDs are "
            "those of one game per dataset")


def _play_glickman(scores: np.ndarray, config: RatingConfig, weighted: bool = False):
    """Periods in order with the batched engine (Glickman's algorithm, or ``config.glicko``'s step 5 when the games
    are weighted per dataset): (T, k, 3) rating/RD/volatility after each, (T, k) played."""
    glicko = config.glicko if weighted else "glickman"
    states, played = [], []
    for mu, phi, sigma, was in play_periods(scores, np.arange(len(scores))[None, :], tie_tolerance=config.tie_tolerance,
                                            initial=config.initial, glicko=glicko, weighted=weighted):
        states.append(np.stack([mu[0] * SCALE + 1500.0, phi[0] * SCALE, sigma[0]], axis=1))
        played.append(was[0])
    return np.array(states), np.array(played)


def _play_package(scores: np.ndarray, config: RatingConfig):
    """Periods in order with the ``glicko2`` package (decodIRT): same outputs as :func:`_play_glickman`."""
    players = [glicko2.Player(*config.initial) for _ in range(np.shape(scores)[1])]
    states, played = [], []
    for period_scores in scores:
        period_outcomes = match_outcomes(period_scores, tie_tolerance=config.tie_tolerance)
        before = [(p.getRating(), p.getRd()) for p in players]
        for i, player in enumerate(players):
            opponents = np.flatnonzero(~np.isnan(period_outcomes[i]))
            if opponents.size == 0:
                player.did_not_compete()
                continue
            player.update_player(
                [before[j][0] for j in opponents],
                [before[j][1] for j in opponents],
                period_outcomes[i, opponents].tolist(),
            )
        states.append([[p.getRating(), p.getRd(), p.vol] for p in players])
        played.append(~np.isnan(period_outcomes).all(axis=1))
    return np.array(states), np.array(played)


def rating_table(
    classifiers: Sequence[str],
    rating: np.ndarray,
    rd: np.ndarray,
    volatility: np.ndarray,
    n_played: np.ndarray,
) -> pd.DataFrame:
    """Assemble the final table: intervals [R − 2RD, R + 2RD] (Cardoso et al. 2021 §2.6), ranks, leader overlap.

    All array arguments have shape (k,). Returns the :data:`TABLE_COLUMNS` frame sorted by rating.
    """
    table = pd.DataFrame(
        {
            "classifier": list(classifiers),
            "rating": rating,
            "rd": rd,
            "volatility": volatility,
            "low": rating - 2 * rd,
            "high": rating + 2 * rd,
        }
    )
    table["rank"] = table["rating"].rank(ascending=False, method="min").astype(int)
    table = table.sort_values(["rating", "classifier"], ascending=[False, True], kind="stable")
    leader_low = table["low"].iloc[0]
    table["separable_from_leader"] = table["high"] < leader_low
    table["n_played"] = np.asarray(n_played)[table.index]
    return table.reset_index(drop=True)[list(TABLE_COLUMNS)]

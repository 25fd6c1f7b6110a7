"""The order-free leaderboard: Bradley–Terry ratings with bootstrap intervals, rank intervals and tiers.

One Bradley–Terry fit over all pairwise outcomes of all datasets (:mod:`benchirt.rating.bradley_terry`) gives each
classifier a rating on the 1500 ± 400·log10 scale; its interval (``bt_low, bt_high``) is the 2.5–97.5 % percentile of a
seeded bootstrap over datasets, the sampled units of a benchmark (Efron 1979). Separations, joint rank intervals
(``rank_low, rank_high``) and tiers come from the primary verdict (:mod:`benchirt.rating.decisions`: step-down max-T,
Wilcoxon–Holm or the range test). Beside it: the single-order Glicko-2 rating and RD, the mean per-dataset rank, the
spread over dataset orders, and every pairwise comparison (:mod:`benchirt.rating.pairwise`). Above
``rate.pairwise_up_to`` tested entrants both verdicts come from one simultaneous interval per entrant
(:mod:`benchirt.rating.simultaneous`, :mod:`benchirt.rating.on_suite_scale`) and the pairwise table keeps the
contenders' pairs.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from benchirt.errors import BenchirtError
from benchirt.rating.batch import DIVERGED
from benchirt.rating.bradley_terry import bootstrap_counts
from benchirt.rating.bt_grid import BOOTSTRAP_GRID_STEP, DatasetOrders, dataset_orders, fit_field
from benchirt.rating.config import RatingConfig
from benchirt.rating.decisions import Decisions, interval_decisions, primary_decisions
from benchirt.rating.glicko import Tournament, glicko_tournament
from benchirt.rating.on_suite import OnSuite, on_suite_step_down
from benchirt.rating.on_suite_scale import SuiteIntervals, on_suite_intervals
from benchirt.rating.pairwise import pairwise_comparisons
from benchirt.rating.permutation import PermutationAnalysis
from benchirt.rating.scores import CheckedScores, checked_scores, score_matrix
from benchirt.rating.simultaneous import listed_pairs
from benchirt.rating.verdict import RATING_TIE, leaderboard_text, leaderboard_verdict, top_contenders
from benchirt.results import interval_frame, percentile_interval

#: Columns of ``leaderboard.csv``, in order (the ``orders_*`` spread follows when it was computed).
LEADERBOARD_COLUMNS = (
    "classifier", "bt_rating", "bt_low", "bt_high", "rank", "rank_low", "rank_high", "tier",
    "glicko_rating", "glicko_rd", "mean_rank", "p_above_next", "n_datasets", "wins", "losses", "ties",
)
#: After the Glicko-2 and order columns: whether the primary verdict leaves the classifier a chance of being the
#: best (its joint rank interval starts at 1), its role (``real``, or ``artificial`` for a reference such as the
#: optimal classifier), and its joint rank interval in the verdict on this suite (:mod:`benchirt.rating.on_suite`).
ON_SUITE_COLUMNS = ("could_be_best", "role", "rank_low_on_suite", "rank_high_on_suite")
#: The verdict on this suite per pair (``pairwise.csv``): the accuracy difference, its statistic, adjusted
#: p-value and decision.
ON_SUITE_PAIR_COLUMNS = ("difference_on_suite", "statistic_on_suite", "p_adjusted_on_suite", "separated_on_suite")
#: Permutation-summary columns carried into the leaderboard, and their names there.
ORDER_SPREAD = {"rating_sd": "orders_rating_sd", "rank_min": "orders_rank_min", "rank_max": "orders_rank_max"}
#: The primary decision on each pair, appended to the pairwise table (``pairwise.csv``).
SEPARATION_COLUMNS = ("bt_difference", "statistic", "p_adjusted", "alpha", "method", "resampling", "separated")
#: With ``rating.verdict: range``, the range test's pair distances follow (:mod:`benchirt.rating.separation`).
RANGE_COLUMNS = ("bt_difference_low", "bt_difference_high", "bt_critical_value")
#: Central share of the bootstrap distribution the intervals cover.
LEVEL = 0.95
#: Glicko-2 volatility above which the tournament is said to have diverged (:data:`benchirt.rating.batch.DIVERGED`;
#: a tournament that would is played with games weighted per dataset, :func:`benchirt.rating.glicko.games_weighting`).
GLICKO_DIVERGED = DIVERGED


class LeaderboardError(BenchirtError):
    """The scores cannot give a leaderboard (e.g. a single classifier)."""


@dataclass(kw_only=True, repr=False)
class Leaderboard:
    """Result of :func:`leaderboard`.

    Attributes
    ----------
    table : pandas.DataFrame, shape (k, ≥ 16)
        One row per classifier, best first, columns :data:`LEADERBOARD_COLUMNS` (then ``orders_*``): ``bt_rating``
        (Bradley–Terry MAP rating), ``bt_low/bt_high`` (95 % bootstrap percentile interval; NaN when undefined, see
        ``notes``), ``rank`` (1 = best, equal ratings share the smaller rank), ``rank_low/rank_high`` (joint rank
        intervals of the primary verdict at level 1 − alpha; NaN without a verdict), ``tier`` (1, 2, …; a boundary only
        where every classifier above is separated from every one below), ``glicko_rating/glicko_rd`` (single-order
        Glicko-2), ``mean_rank`` (mean per-dataset rank, ties averaged, over the classifier's datasets),
        ``p_above_next`` (share of bootstrap replicates rating it above the next row by more than ``RATING_TIE``),
        ``n_datasets`` and total ``wins/losses/ties``.
    pairwise : pandas.DataFrame
        :func:`benchirt.rating.pairwise.pairwise_comparisons`, pairs in leaderboard order (above ``rate.pairwise_up_to``
        entrants only the contenders' pairs and the best real classifier's), then the primary decision
        (:data:`SEPARATION_COLUMNS`): ``bt_difference`` (rating of a − rating of b), ``statistic`` (signed-rank
        statistic of a − b; the rating difference for the range test), ``p_adjusted`` (NaN for the range test and
        untested pairs), ``alpha``, ``method`` (``rate.verdict``; none when no test ran), ``resampling`` (reflection or
        shuffle; empty for Wilcoxon–Holm) and ``separated`` (the sign of ``statistic`` says which is better); with the
        range test also :data:`RANGE_COLUMNS`.
    score, n_bootstrap, seed
        The score that decided the comparisons, the replicates and their seed.
    notes : list of str
        What the reader must know (undefined intervals, replicates without convergence, absences).
    bootstrap : pandas.DataFrame, shape (n_bootstrap, k)
        Each classifier's (column) rating per bootstrap replicate, NaN where the replicate drew none of its datasets;
        empty without intervals. :meth:`conf_int` reads it.
    """

    table: pd.DataFrame
    pairwise: pd.DataFrame
    score: str
    n_bootstrap: int
    seed: int
    notes: list[str] = field(default_factory=list)
    bootstrap: pd.DataFrame = field(default_factory=pd.DataFrame)

    def verdict(self) -> str:
        """One sentence: :func:`leaderboard_verdict`."""
        return leaderboard_verdict(self.table, self.pairwise)

    def summary(self) -> str:
        """The table's interval columns, the verdict and the notes (what ``str(leaderboard)`` prints)."""
        return str(self)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``leaderboard`` (the table) and ``pairwise``."""
        return {"leaderboard": self.table, "pairwise": self.pairwise}

    def conf_int(self, level: float = 0.95) -> pd.DataFrame:
        """Bootstrap percentile intervals of the Bradley–Terry ratings at any ``level`` (Efron & Tibshirani 1993).

        ``classifier, estimate, low, high`` in table order (at 0.95 ``bt_low, bt_high``); NaN where the table has no
        interval.
        """
        return bootstrap_conf_int(self.table, self.bootstrap, level=level)

    def __repr__(self) -> str:
        return (f"Leaderboard(score={self.score!r}, classifiers={len(self.table)}, n_bootstrap={self.n_bootstrap}, "
                f"leader={self.table['classifier'].iloc[0]!r})")

    def __str__(self) -> str:
        lines = [f"Bradley–Terry leaderboard on {self.score} ({self.n_bootstrap} bootstrap replicates over datasets)",
                 leaderboard_text(self.table), self.verdict(), *self.notes]
        return "\n".join(lines)


def leaderboard(
    scores: pd.DataFrame | CheckedScores,
    *,
    config: RatingConfig | None = None,
    tournament: Tournament | None = None,
    permutation: PermutationAnalysis | None = None,
    rows: Mapping[str, pd.DataFrame] | None = None,
    roles: Mapping[str, str] | None = None,
) -> Leaderboard:
    """Build the leaderboard of the classifiers in a long score table.

    Parameters
    ----------
    scores : pandas.DataFrame
        Long ``dataset, classifier, score`` table (higher is better; a classifier may be absent from some datasets).
    config : RatingConfig, optional
        Uses ``score``, ``n_bootstrap``, ``seed``, ``rope``, ``tie_tolerance`` (and the Glicko-2 options without
        ``tournament``).
    tournament, permutation : optional
        The single-order Glicko-2 tournament of the same scores (computed when not given) and its order analysis (adds
        the ``orders_*`` columns).
    rows : mapping of str to pandas.DataFrame, optional
        Dataset → the classifiers' answers on its test rows (respondents × rows, 1 correct), for the verdict on this
        suite (:mod:`benchirt.rating.on_suite`); without them its columns are empty and the notes say why.
    roles : mapping of str to str, optional
        Classifier → ``"real"`` or ``"artificial"`` (a reference such as the optimal classifier); real by default.

    Returns
    -------
    Leaderboard

    Raises
    ------
    LeaderboardError
        Fewer than two classifiers.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({
    ...     "dataset": [d for d in ["d1", "d2", "d3", "d4", "d5", "d6"] for _ in range(3)],
    ...     "classifier": ["tree", "forest", "stump"] * 6,
    ...     "score": [0.80, 0.90, 0.70, 0.80, 0.85, 0.60, 0.70, 0.95, 0.65,
    ...               0.85, 0.90, 0.60, 0.75, 0.80, 0.70, 0.60, 0.90, 0.50]})
    >>> board = leaderboard(scores)
    >>> board.table[["classifier", "wins", "losses"]]
      classifier  wins  losses
    0     forest    12       0
    1       tree     6       6
    2      stump     0      12
    """
    config = config or RatingConfig()
    clean = checked_scores(scores, score=config.score)
    table, notes, decisions, replicates = bradley_terry_table(clean, config=config)
    matrix = score_matrix(clean.table)
    tournament = tournament or glicko_tournament(clean, config=config)
    glicko = tournament.table.set_index("classifier")
    notes += [tournament.weighting] if tournament.weighting else glicko_divergence_note(glicko)
    table.insert(8, "glicko_rating", glicko.loc[table["classifier"], "rating"].to_numpy())
    table.insert(9, "glicko_rd", glicko.loc[table["classifier"], "rd"].to_numpy())
    mean_rank = pd.Series(rankdata(-matrix.to_numpy(), axis=1, nan_policy="omit").mean(axis=0), matrix.columns)
    table.insert(10, "mean_rank", mean_rank.loc[table["classifier"]].to_numpy())
    if permutation is not None:
        spread = permutation.summary.set_index("classifier")[list(ORDER_SPREAD)].rename(columns=ORDER_SPREAD)
        table = table.join(spread, on="classifier")
    compared = table["classifier"].tolist()
    checked = config.max_pairwise
    if checked is not None and len(compared) > checked:
        notes.append(f"the agreement checks (each pair's Wilcoxon test with Holm's correction over their "
                     f"{checked * (checked - 1) // 2} pairs, the Bayesian sign test) compare the {checked} best-rated "
                     f"of {len(compared)} classifiers only (rate.max_pairwise); the primary verdict tests every "
                     f"{'pair' if len(compared) <= config.pairwise_up_to else 'entrant'}")
    table["could_be_best"] = table["rank_low"].isna() | (table["rank_low"] == 1)
    table["role"] = [(roles or {}).get(name, "real") for name in table["classifier"]]
    suite, suite_notes = _on_suite(table, rows, config)
    notes += suite_notes
    table = _with_suite_ranks(table, suite)
    pairs = _listed(table, checked) if len(compared) > config.pairwise_up_to else None
    pairwise = pairwise_comparisons(matrix, order=compared, rope=config.rope, tie_tolerance=config.tie_tolerance,
                                    seed=config.seed, checked=checked, pairs=pairs)
    pairwise = _with_separation(pairwise, table, decisions)
    pairwise = _with_suite_pairs(pairwise, table, suite)
    return Leaderboard(table=table, pairwise=pairwise, score=config.score, n_bootstrap=config.n_bootstrap,
                       seed=config.seed, notes=notes, bootstrap=replicates)


def _on_suite(table: pd.DataFrame, rows: Mapping[str, pd.DataFrame] | None, config: RatingConfig
              ) -> tuple[OnSuite | SuiteIntervals | None, list[str]]:
    """The verdict on this suite's test rows of the table's classifiers: pair by pair (:mod:`benchirt.rating.on_suite`)
    up to ``config.pairwise_up_to`` of them, by simultaneous intervals above (:mod:`benchirt.rating.on_suite_scale`);
    None and the reason when it cannot be computed."""
    if rows is None:
        return None, ["no verdict on this suite: only scores were given, and it needs each dataset's test rows (the "
                      "response matrices)"]
    if config.n_bootstrap == 0:
        return None, ["no verdict on this suite: n_bootstrap = 0 draws no sign-flipped tables"]
    classifiers = table["classifier"].tolist()
    if len(classifiers) > config.pairwise_up_to:
        result = on_suite_intervals(rows, classifiers, n_tables=config.n_bootstrap, alpha=config.alpha,
                                    seed=config.seed)
        return result, result.notes
    return on_suite_step_down(rows, classifiers, n_tables=config.n_bootstrap, alpha=config.alpha,
                              seed=config.seed), []


def _with_suite_ranks(table: pd.DataFrame, suite: OnSuite | SuiteIntervals | None) -> pd.DataFrame:
    """``rank_low_on_suite, rank_high_on_suite`` (empty without a verdict on this suite)."""
    if suite is None:
        empty_rank = pd.array([pd.NA] * len(table), dtype="Int64")
        return table.assign(rank_low_on_suite=empty_rank, rank_high_on_suite=empty_rank.copy())
    ranks = suite.intervals if isinstance(suite, SuiteIntervals) else suite
    return table.assign(rank_low_on_suite=pd.array(ranks.rank_low, dtype="Int64"),
                        rank_high_on_suite=pd.array(ranks.rank_high, dtype="Int64"))


def _with_suite_pairs(pairwise: pd.DataFrame, table: pd.DataFrame, suite: OnSuite | SuiteIntervals | None
                      ) -> pd.DataFrame:
    """:data:`ON_SUITE_PAIR_COLUMNS` of each pair: with simultaneous intervals the difference of the entrants'
    accuracies on the suite (adjusted for their datasets) is also the statistic, and there is no p-value."""
    if suite is None:
        return pairwise.assign(difference_on_suite=np.nan, statistic_on_suite=np.nan, p_adjusted_on_suite=np.nan,
                               separated_on_suite=pd.array([pd.NA] * len(pairwise), dtype="boolean"))
    position = {name: n for n, name in enumerate(table["classifier"])}
    i, j = pairwise["a"].map(position).to_numpy(), pairwise["b"].map(position).to_numpy()
    if isinstance(suite, SuiteIntervals):
        intervals = suite.intervals
        difference = intervals.estimate[i] - intervals.estimate[j]
        return pairwise.assign(difference_on_suite=difference, statistic_on_suite=difference,
                               p_adjusted_on_suite=np.nan,
                               separated_on_suite=intervals.better(i, j) | intervals.better(j, i))
    return pairwise.assign(difference_on_suite=suite.difference[i, j], statistic_on_suite=suite.statistic[i, j],
                           p_adjusted_on_suite=suite.p_adjusted[i, j],
                           separated_on_suite=suite.better[i, j] | suite.better[j, i])


def _listed(table: pd.DataFrame, checked: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``pairwise.csv`` lists in a field decided by simultaneous intervals: those among the possible top
    entrants (:func:`benchirt.rating.verdict.top_contenders`) and the ``checked`` best rated, and the best real
    classifier's pair with every other (:func:`benchirt.rating.simultaneous.listed_pairs`)."""
    could = top_contenders(table)
    could[:checked or 0] = True
    real = np.flatnonzero(table["role"].astype(str).to_numpy() != "artificial")
    return listed_pairs(could, int(real[0]) if real.size else 0)


def glicko_divergence_note(glicko: pd.DataFrame) -> list[str]:
    """A note when the Glicko-2 tournament diverged (a volatility above :data:`GLICKO_DIVERGED`), else nothing; the
    stage plays such a tournament weighted per dataset, so the note is for a tournament given from outside.

    Why: every dataset is one rating period in which a classifier plays all k − 1 others, and Glicko-2 (Glickman 2013)
    counts those games as independent, so the variance v of a period's estimate shrinks like 1/k. A classifier whose
    rank on one dataset is far from its rating then has Δ² ≫ φ² + v, its volatility jumps, and the next one-step update
    lands thousands of points away, where e^{gΔμ} overflows and Σ g² E (1 − E) underflows to 0. That is Glickman's
    algorithm outside its designed setting, not an arithmetic slip; the Bradley–Terry columns are unaffected.
    """
    diverged = glicko["volatility"] > GLICKO_DIVERGED
    if not diverged.any():
        return []
    return [f"Glicko-2 diverged for {int(diverged.sum())} of {len(glicko)} classifiers (volatility above "
            f"{GLICKO_DIVERGED:g}, largest {glicko['volatility'].max():.3g}): each dataset is {len(glicko) - 1} "
            "games per classifier decided together, which Glicko-2 counts as independent; its ratings and the "
            "order analysis are not meaningful here — read the Bradley–Terry rating"]


def bootstrap_conf_int(table: pd.DataFrame, bootstrap: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Percentile intervals of ``table``'s ``bt_rating`` from the replicates ``bootstrap`` (columns = classifiers).

    ``classifier, estimate, low, high``; NaN intervals when ``bootstrap`` is empty (no bootstrap ran).
    """
    classifiers = table["classifier"].astype(str).tolist()
    if bootstrap.empty:
        low = high = np.full(len(classifiers), np.nan)
    else:
        low, high = percentile_interval(bootstrap[classifiers].to_numpy(float), level=level)
    return interval_frame({"classifier": classifiers}, table["bt_rating"], low, high)


def bradley_terry_table(scores: pd.DataFrame | CheckedScores, *, config: RatingConfig | None = None
                        ) -> tuple[pd.DataFrame, list[str], Decisions, pd.DataFrame]:
    """The Bradley–Terry part of the leaderboard: ratings, bootstrap intervals, ranks, tiers, counts.

    ``config`` uses ``n_bootstrap``, ``seed``, ``tie_tolerance``, ``verdict``, ``alpha`` and ``max_pairwise``. Returns
    ``table`` (best first; :data:`LEADERBOARD_COLUMNS` but ``glicko_rating, glicko_rd, mean_rank``), ``notes``
    (undefined intervals, fits without convergence, absences), ``decisions`` (the primary verdict's, in table order) and
    ``replicates`` ((n_bootstrap, k) bootstrap ratings, NaN where a replicate drew none of the classifier's datasets;
    empty without intervals). Raises ``LeaderboardError`` with fewer than two classifiers.
    """
    config = config or RatingConfig()
    matrix = score_matrix(checked_scores(scores, score=config.score).table)   # names sorted
    classifiers = list(matrix.columns)
    if len(classifiers) < 2:
        raise LeaderboardError(f"a leaderboard needs at least two classifiers, found {len(classifiers)}")
    orders = dataset_orders(matrix.to_numpy(), tie_tolerance=config.tie_tolerance)
    point = fit_field(orders, np.ones(matrix.shape[0]))
    notes = []
    if not point.converged.all():
        notes.append("the Bradley–Terry fit did not converge "
                     f"(largest remaining step {point.max_step.max():.2g} points)")
    table = pd.DataFrame({"classifier": classifiers, "bt_rating": point.rating[0]})
    table["rank"] = _ranks(point.rating)[0]
    intervals, replicates, more_notes = _bootstrap(orders, config, point.theta[0])
    notes += more_notes
    table = table.join(intervals)
    # Equal ratings (within RATING_TIE: e.g. two classifiers with the same record in a full round robin) are
    # ordered by name, not by the last digits the fit leaves.
    table = table.iloc[np.lexsort((table["classifier"].to_numpy(), table["rank"].to_numpy()))]
    position = table.index.to_numpy()
    ordered = None if replicates is None else replicates[:, position]
    if len(classifiers) > config.pairwise_up_to and config.verdict != "holm":
        decisions = interval_decisions(table["bt_rating"].to_numpy(), ordered, config.alpha,
                                       datasets=(~np.isnan(matrix.to_numpy()[:, position])).sum(axis=0))
    else:
        decisions = primary_decisions(matrix.to_numpy(), position, table["bt_rating"].to_numpy(), ordered, config)
    notes += decisions.notes
    table["rank_low"], table["rank_high"] = decisions.rank_low, decisions.rank_high
    table["tier"] = decisions.tier
    table["p_above_next"] = (np.append(_share_above(replicates, position[:-1], position[1:]), np.nan)
                             if replicates is not None else np.nan)
    table["n_datasets"] = matrix.notna().sum(axis=0).to_numpy()[position]
    table["wins"] = orders.won.sum(axis=0)[position]
    table["losses"] = orders.lost.sum(axis=0)[position]
    table["ties"] = orders.tied.sum(axis=0)[position]
    columns = [c for c in LEADERBOARD_COLUMNS if c not in ("glicko_rating", "glicko_rd", "mean_rank")]
    table = table.reset_index(drop=True)[columns]
    table[["rank_low", "rank_high"]] = table[["rank_low", "rank_high"]].round().astype("Int64")
    absent = table.loc[table["n_datasets"] < matrix.shape[0], ["classifier", "n_datasets"]]
    if len(absent):   # a sparse field: name the first few, the column n_datasets has every one
        shown = ", ".join(f"{name} ({n} of {matrix.shape[0]} datasets)" for name, n in absent.head(10).itertuples(index=False))
        more = f" and {len(absent) - 10} more (column n_datasets)" if len(absent) > 10 else ""
        notes.append(f"compared only where present ({len(absent)} of {len(table)} classifiers are on some of the "
                     f"{matrix.shape[0]} datasets only; each pair is compared on the datasets both are on): {shown}{more}")
    bootstrap = pd.DataFrame(replicates, columns=classifiers) if replicates is not None else pd.DataFrame()
    return table, notes, decisions, bootstrap


def _with_separation(pairwise: pd.DataFrame, table: pd.DataFrame, decisions: Decisions) -> pd.DataFrame:
    """The pairwise table with the primary decision on each pair (:data:`SEPARATION_COLUMNS`, then
    :data:`RANGE_COLUMNS` for the range test)."""
    position = {name: i for i, name in enumerate(table["classifier"])}
    i = pairwise["a"].map(position).to_numpy()
    j = pairwise["b"].map(position).to_numpy()
    rating = table["bt_rating"].to_numpy()
    difference = rating[i] - rating[j]
    separated, statistic, p_adjusted = decisions.on_pairs(i, j)
    pairwise = pairwise.assign(bt_difference=difference, statistic=statistic, p_adjusted=p_adjusted,
                               alpha=decisions.alpha, method=decisions.method, resampling=decisions.resampling,
                               separated=separated)
    if decisions.range_test is None:
        return pairwise
    margin = decisions.range_test.distance[i, j]
    return pairwise.assign(bt_difference_low=difference - margin, bt_difference_high=difference + margin,
                           bt_critical_value=decisions.range_test.critical_value)


def _share_above(replicates: np.ndarray, upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """Per pair (``upper[n]``, ``lower[n]``): the share of bootstrap replicates rating the first above the second by
    more than :data:`RATING_TIE` (a replicate that drew neither's datasets counts as not above)."""
    return (replicates[:, upper] - replicates[:, lower] > RATING_TIE).mean(axis=0)


def _ranks(ratings: np.ndarray) -> np.ndarray:
    """Ranks per row of (B, k) ratings, 1 = best; ratings within :data:`RATING_TIE` share the smaller rank."""
    return rankdata(-np.round(ratings / RATING_TIE) * RATING_TIE, method="min", axis=1).astype(int)


def _bootstrap(orders: DatasetOrders, config: RatingConfig, start: np.ndarray):
    """Percentile intervals of rating and rank over bootstrap replicates of the datasets, each fit started from the
    point estimate ``start``. Returns the rating-interval frame (index = classifier position), the (B, k) replicate
    ratings (NaN where a classifier was not drawn; None without intervals), and notes."""
    present = orders.present
    n_datasets, k = present.shape
    undefined = pd.DataFrame({"bt_low": np.nan, "bt_high": np.nan}, index=range(k))
    if config.n_bootstrap == 0:
        return undefined, None, ["intervals not computed (n_bootstrap = 0)"]
    if n_datasets < 2:
        return undefined, None, [
            "intervals undefined: a bootstrap over datasets needs at least 2 datasets, found 1; "
            "no classifier can be separated from another"
        ]
    counts = bootstrap_counts(n_datasets, config.n_bootstrap, seed=config.seed)
    fit = fit_field(orders, counts, start=start, grid_step=BOOTSTRAP_GRID_STEP)
    notes = []
    if not fit.converged.all():
        notes.append(f"{int((~fit.converged).sum())} of {config.n_bootstrap} bootstrap fits did not converge "
                     f"(largest remaining step {fit.max_step.max():.2g} points); intervals include them")
    rating = fit.rating
    # A classifier drawn on no dataset of a replicate has only the prior there: leave it out of its intervals.
    drawn = (counts @ present) > 0
    rating = np.where(drawn, rating, np.nan)
    if not drawn.all():
        notes.append(f"{int((~drawn).sum())} (replicate, classifier) cases without any dataset of the classifier "
                     "were left out of its intervals")
    tail = (1.0 - LEVEL) / 2.0
    intervals = pd.DataFrame({
        "bt_low": np.nanquantile(rating, tail, axis=0),
        "bt_high": np.nanquantile(rating, 1.0 - tail, axis=0),
    })
    return intervals, rating, notes

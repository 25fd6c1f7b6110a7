"""Polytomous AIRT: quantile binning (Kandanaarachchi & Smith-Miles 2023, appendix A eq. 9), Samejima's graded response
model (Kandanaarachchi & Smith-Miles 2023 §2.1) and Muraki's generalized partial credit model (the model the R
package airt fits).

Items are algorithms and respondents are datasets/instances (the inverted mapping of Kandanaarachchi & Smith-Miles 2023
§3), so θ is dataset *easiness* and a negative discrimination marks an *anomalous* algorithm, better on the datasets the
others find hard. Educational IRT software assumes positive slopes (Python ``mirt`` bounds GRM slopes to [0.1, 5],
girth's ``grm_mml`` to [0.2, 5]), so both models are written here with a free slope sign (``GRMConfig.model``). They are
fitted by marginal maximum likelihood (Bock & Aitkin) over a fixed quadrature grid with a standard normal θ population:
the E-step posterior gives the exact gradient, and L-BFGS takes the M-steps for all items jointly. A normal prior on the
slope with mean 0 keeps estimates finite for items that separate the datasets perfectly without favouring either sign; a
weak normal prior does the same for the intercepts.

Models (D = 1), for item j with C_j observed categories 0 < 1 < ... < C_j - 1::

    GRM   P(X_ij >= k | θ) = 1 / (1 + exp(-a_j (θ - d_jk)))   k = 1 .. C_j - 1
          P(X_ij  = k | θ) = P(X_ij >= k | θ) - P(X_ij >= k + 1 | θ)
    GPCM  P(X_ij  = k | θ) ∝ exp(sum_{v <= k} a_j (θ - b_jv))   (step difficulties b_jv; empty sum for k = 0)

AIRT metrics per algorithm (Kandanaarachchi & Smith-Miles 2023 §3.3-3.5; the airt vignette, Kandanaarachchi 2023):
anomalous = a_j < 0; consistency = 1 / |a_j|; difficulty limit = -d_{j, C_j - 1} (GRM) or -b_{j, C_j - 1} (GPCM), the
threshold of the highest level, or with ``difficulty_limit="lowest"`` -d_j1 / -b_j1, as the airt vignette prints;
stability = K - |a_j| with K = max_j |a_j| (the vignette's definition)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit, logsumexp
from threadpoolctl import threadpool_limits

from benchirt.errors import DataError
from benchirt.options import Choice, Constraint, Integer, Number, checked_options, validate_fields

_LOG_FLOOR = 1e-300
#: Polytomous models: Samejima's graded response model, Muraki's generalized partial credit model.
POLYTOMOUS_MODELS = ("grm", "gpcm")
#: Definitions of the polytomous difficulty limit (see ``GRMConfig.difficulty_limit``).
DIFFICULTY_LIMITS = ("highest", "lowest")


# ----------------------------------------------------------------------------------------------------------
# binning
# ----------------------------------------------------------------------------------------------------------
def bin_performance(perf: pd.DataFrame, *, n_levels: int = 5, maximize: bool = True) -> pd.DataFrame:
    """Turn continuous performance into ordered levels by quantiles of the whole matrix (Kandanaarachchi & Smith-Miles
    2023, appendix A eq. 9).

    If smaller raw values are better they are first reversed, ``z = max(y) - y`` (§A.0.1). The cut points
    ``a_0 < ... < a_L`` are the minimum, the ``100 k / L`` percentiles (k = 1..L-1, numpy's linear interpolation, R's
    type 7) and the maximum of all ``z_ij`` together; level ``k`` is ``z in [a_{k-1}, a_k)``, the last interval closed
    on the right. Ties: coinciding cut points (many equal values, e.g. timeouts) leave empty intervals, which are
    dropped and the levels renumbered, so fewer than ``n_levels`` levels result (as §A.3 reports for graph colouring).

    Parameters
    ----------
    perf : pd.DataFrame, shape (N, n)
        Rows datasets/instances, columns algorithms; finite numbers (missing values stay missing).
    n_levels : int
        Number of quantile bins L (>= 2).
    maximize : bool
        ``False`` when smaller raw values are better.

    Returns
    -------
    pd.DataFrame, shape (N, n)
        Nullable integer levels 1..L' (L' <= L), 1 = worst; ``attrs["cut_points"]`` holds the distinct cut points used.
    """
    if not isinstance(n_levels, (int, np.integer)) or n_levels < 2:
        raise DataError(f"n_levels must be an integer >= 2, got {n_levels!r}")
    values = perf.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    if (np.isnan(values) & perf.notna().to_numpy()).any():
        raise DataError("bin_performance: non-numeric performance values; every entry must be a number")
    observed = values[np.isfinite(values)]
    if np.isinf(values).any():
        raise DataError("bin_performance: infinite performance values")
    if observed.size == 0:
        raise DataError("bin_performance: no performance values to bin")
    z = values if maximize else np.nanmax(values) - values
    z_obs = z[np.isfinite(z)]
    cuts = np.unique(np.quantile(z_obs, np.linspace(0.0, 1.0, n_levels + 1)))
    if cuts.size == 1:
        levels = np.where(np.isnan(z), np.nan, 1.0)
    else:
        # interior cut points decide the level; z == a_k falls in [a_k, a_{k+1}), the maximum in the last bin
        levels = np.searchsorted(cuts[1:-1], z, side="right").astype(float) + 1.0
        levels[np.isnan(z)] = np.nan
    out = pd.DataFrame(levels, index=perf.index, columns=perf.columns).astype("Int64")
    out.attrs["cut_points"] = cuts.tolist()
    return out


# ----------------------------------------------------------------------------------------------------------
# graded response model
# ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GRMConfig:
    """Options of :func:`fit_grm`: ``n_quadrature`` equally spaced θ nodes on ``[-quadrature_bound, quadrature_bound]``
    (standard normal population); ``slope_prior_sd``, the SD of the normal prior N(0, sd²) on the discrimination a
    (allows a < 0); ``intercept_prior_sd``, that of the normal prior on the slope-intercept form ``c_k = -a d_k``;
    ``max_iter`` L-BFGS iterations and ``tol`` on the projected gradient (per parameter).

    ``model``: ``"grm"`` (default), Samejima's graded response model, or ``"gpcm"``, Muraki's generalized partial credit
    model, which the R package airt fits (R mirt, ``itemtype = 'gpcm'``). ``difficulty_limit``: ``"highest"`` (default;
    -d of the top level: the dataset difficulty up to which the algorithm's best level is likely) or ``"lowest"`` (-b of
    the first threshold, as the airt vignette prints)."""

    n_quadrature: int = 61
    quadrature_bound: float = 6.0
    slope_prior_sd: float = 3.0
    intercept_prior_sd: float = 6.0
    max_iter: int = 2000
    tol: float = 1e-6
    model: str = "grm"
    difficulty_limit: str = "highest"

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "n_quadrature": Integer(minimum=5),
        "quadrature_bound": Number(above=0),
        "slope_prior_sd": Number(above=0),
        "intercept_prior_sd": Number(above=0),
        "max_iter": Integer(minimum=1),
        "tol": Number(above=0),
        "model": Choice(choices=POLYTOMOUS_MODELS),
        "difficulty_limit": Choice(choices=DIFFICULTY_LIMITS),
    }

    def __post_init__(self) -> None:
        validate_fields("GRM", self, self.OPTIONS)

    @classmethod
    def from_dict(cls, options: dict) -> "GRMConfig":
        """Build from a mapping of options; unknown keys or invalid values raise ``ConfigError``."""
        return cls(**checked_options("GRM", options, cls))


@dataclass
class GRMFit:
    """A fitted graded response model over algorithms (items) and datasets (respondents).

    Attributes
    ----------
    items : pd.DataFrame
        Index algorithm; columns ``discrimination`` (a), ``n_categories`` (C_j), ``levels`` (the observed original
        levels, lowest first), ``thresholds`` (tuple d_1..d_{C_j-1}), ``difficulty_limit`` (-d_{C_j-1}), ``consistency``
        (1/|a|), ``anomalous`` (a < 0), ``stability`` (K - |a|).
    theta : pd.DataFrame
        Index dataset; columns ``theta`` (EAP easiness), ``theta_sd`` (posterior SD), ``difficulty`` (-θ).
    skipped : dict[str, str]
        Algorithms left out of the model with the reason (a single observed level: no information).
    log_likelihood : float
        Marginal log-likelihood at the estimate (without the priors); also ``converged``, ``n_iter``, ``seconds``."""

    items: pd.DataFrame
    theta: pd.DataFrame
    skipped: dict[str, str]
    log_likelihood: float
    converged: bool
    n_iter: int
    seconds: float
    _slopes: np.ndarray = field(repr=False)
    _intercepts: np.ndarray = field(repr=False)   # (n_items, K_max), -inf padded
    model: str = "grm"

    def category_probabilities(self, theta) -> np.ndarray:
        """P(X_j = k | θ) for every θ (m,), item and category index k = 0..C_j-1: shape (m, n_items, C_max), padded
        categories 0."""
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        probs = _gpcm_category_probs if self.model == "gpcm" else _category_probs
        return probs(self._slopes, self._intercepts, theta).transpose(1, 0, 2)

    def trace_lines(self, theta=None) -> pd.DataFrame:
        """Item trace lines P(X = level | θ) in long form, columns ``algorithm, theta, level, probability`` (``level`` =
        original label; Kandanaarachchi & Smith-Miles 2023, appendix A Fig. 29; the airt vignette). ``theta``:
        default 121 points on [-4, 4]."""
        theta = np.linspace(-4.0, 4.0, 121) if theta is None else np.atleast_1d(np.asarray(theta, float))
        probs = self.category_probabilities(theta)
        frames = []
        for j, (name, row) in enumerate(self.items.iterrows()):
            for k, level in enumerate(row["levels"]):
                frames.append(pd.DataFrame({"algorithm": name, "theta": theta, "level": level,
                                            "probability": probs[:, j, k]}))
        return pd.concat(frames, ignore_index=True)

    def expected_level(self, theta=None) -> pd.DataFrame:
        """Expected level E[X_j | θ] (original level labels) per dataset and algorithm, shape (m, n_items); ``theta``
        (m,) defaults to the fitted EAP easiness of every dataset."""
        index, probs = self._probabilities_at(theta)
        labels = self._level_matrix()
        expected = np.einsum("mjc,jc->mj", probs, labels)
        return pd.DataFrame(expected, index=index, columns=self.items.index)

    def most_likely_level(self, theta=None) -> pd.DataFrame:
        """The level with the highest probability at θ (Kandanaarachchi & Smith-Miles 2023 §4.4's predicted category):
        integer original labels, shape (m, n_items); ``theta`` as for :meth:`expected_level`."""
        index, probs = self._probabilities_at(theta)
        best = probs.argmax(axis=2)
        labels = self._level_matrix()
        predicted = np.take_along_axis(labels[None, :, :], best[:, :, None], axis=2)[:, :, 0]
        return pd.DataFrame(predicted.astype(int), index=index, columns=self.items.index)

    def goodness(self, levels: pd.DataFrame):
        """Model goodness of the polytomous model: MSE, AUCDF, AUAEC, AUPEC (Kandanaarachchi & Smith-Miles 2023
        §4.4-4.5, appendix A A.1), as :class:`benchirt.airt.goodness.ModelGoodness`. ``levels`` (the levels the model
        was fitted to) are compared with the most likely level at each dataset's EAP easiness; one step between
        successive levels counts 1 in the MSE (§A.1). Missing levels and skipped algorithms are left out."""
        from benchirt.airt.goodness import model_goodness

        actual = levels.loc[self.theta.index, self.items.index]
        complete = actual.notna().all(axis=1).to_numpy()
        lowest = min(min(lv) for lv in self.items["levels"])
        highest = max(max(lv) for lv in self.items["levels"])
        actual_codes = actual[complete].astype(int) - lowest
        predicted_codes = self.most_likely_level()[complete] - lowest
        return model_goodness(actual_codes, predicted_codes, levels=highest - lowest + 1)

    def _probabilities_at(self, theta) -> tuple[pd.Index | None, np.ndarray]:
        """Category probabilities at ``theta`` (default: every dataset's fitted easiness, indexed by dataset)."""
        if theta is None:
            return self.theta.index, self.category_probabilities(self.theta["theta"].to_numpy())
        return None, self.category_probabilities(theta)

    def _level_matrix(self) -> np.ndarray:
        c_max = self._intercepts.shape[1] + 1
        labels = np.zeros((len(self.items), c_max))
        for j, levels in enumerate(self.items["levels"]):
            labels[j, : len(levels)] = levels
        return labels


def _category_probs(slopes: np.ndarray, intercepts: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """P(X_j = k | θ_q), shape (n_items, m, C_max), from slopes (n,) and -inf-padded intercepts (n, K_max)."""
    cumulative = _cumulative(slopes, intercepts, theta)
    return np.clip(cumulative[:, :, :-1] - cumulative[:, :, 1:], 0.0, 1.0)


def _cumulative(slopes: np.ndarray, intercepts: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """P(X_j >= k | θ_q) for k = 0..K_max+1, shape (n_items, m, K_max + 2); k=0 is 1, padded/top are 0."""
    linear = slopes[:, None, None] * theta[None, :, None] + intercepts[:, None, :]
    star = expit(linear)  # -inf intercept -> 0
    n, m = star.shape[:2]
    return np.concatenate([np.ones((n, m, 1)), star, np.zeros((n, m, 1))], axis=2)


class _GRMProblem:
    """Marginal log-likelihood of the GRM and its gradient for a coded response matrix. Parameters are packed per item
    as (a_j, c_j1, log gaps η_j2..η_jK): the intercepts c_jk = c_j1 - Σ_{l<=k} exp(η_jl) decrease with k, so the
    cumulative curves never cross whatever the sign of a_j."""

    def __init__(self, codes: np.ndarray, n_thresholds: np.ndarray, config: GRMConfig,
                 pattern_counts: np.ndarray | None = None):
        # codes: (P, n) distinct response patterns (-1 = missing), each seen pattern_counts[p] times
        self.pattern_counts = np.ones(codes.shape[0]) if pattern_counts is None else pattern_counts
        self.k = n_thresholds                       # (n,) K_j = C_j - 1 >= 1
        self.k_max = int(n_thresholds.max())
        self.n_items = codes.shape[1]
        self.nodes = np.linspace(-config.quadrature_bound, config.quadrature_bound, config.n_quadrature)
        log_w = -0.5 * self.nodes ** 2
        self.log_weights = log_w - logsumexp(log_w)
        self.config = config
        c_max = self.k_max + 1
        # one-hot (N, n, C_max) of observed categories; missing rows are all zero
        onehot = np.zeros(codes.shape + (c_max,))
        rows, cols = np.nonzero(codes >= 0)
        onehot[rows, cols, codes[rows, cols]] = 1.0
        self.onehot = onehot.reshape(codes.shape[0], -1)                    # (N, n * C_max) for matmuls
        self.c_max = c_max
        self.pad = np.arange(self.k_max)[None, :] >= self.k[:, None]        # (n, K_max) True = unused
        self.gap_mask = (~self.pad).copy()
        self.gap_mask[:, 0] = False                                         # first slot holds c_1, not a gap

    # packing ---------------------------------------------------------------------------------------------
    def unpack(self, params: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Slopes (n,), intercepts (n, K_max) with -inf padding, and the gaps exp(η) (n, K_max - 1)."""
        block = params.reshape(self.n_items, self.k_max + 1)
        slopes = block[:, 0]
        gaps = np.where(self.gap_mask[:, 1:], np.exp(np.clip(block[:, 2:], -30.0, 30.0)), 0.0)
        drops = np.concatenate([np.zeros((self.n_items, 1)), np.cumsum(gaps, axis=1)], axis=1)
        intercepts = np.where(self.pad, -np.inf, block[:, 1:2] - drops)
        return slopes, intercepts, gaps

    def pack(self, slopes: np.ndarray, intercepts: np.ndarray) -> np.ndarray:
        block = np.zeros((self.n_items, self.k_max + 1))
        block[:, 0] = slopes
        block[:, 1] = intercepts[:, 0]
        for j in range(self.n_items):
            kj = self.k[j]
            if kj > 1:
                diffs = intercepts[j, : kj - 1] - intercepts[j, 1:kj]
                block[j, 2 : kj + 1] = np.log(np.maximum(diffs, 1e-6))
        return block.ravel()

    # likelihood ------------------------------------------------------------------------------------------
    def log_item_probs(self, slopes, intercepts) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative (n, Q, K_max+2) and category (n, Q, C_max) probabilities at the nodes."""
        cumulative = _cumulative(slopes, intercepts, self.nodes)
        return cumulative, np.clip(cumulative[:, :, :-1] - cumulative[:, :, 1:], 0.0, 1.0)

    def person_loglik(self, probs: np.ndarray) -> np.ndarray:
        """log P(x_i | θ_q), shape (N, Q)."""
        log_probs = np.log(np.maximum(probs, _LOG_FLOOR))                  # (n, Q, C)
        return self.onehot @ log_probs.transpose(0, 2, 1).reshape(-1, log_probs.shape[1])

    def objective(self, params: np.ndarray) -> tuple[float, np.ndarray]:
        slopes, intercepts, gaps = self.unpack(params)
        cumulative, probs = self.log_item_probs(slopes, intercepts)
        joint = self.person_loglik(probs) + self.log_weights[None, :]      # (N, Q)
        marginal = logsumexp(joint, axis=1)
        posterior = np.exp(joint - marginal[:, None]) * self.pattern_counts[:, None]   # (P, Q)
        counts = (posterior.T @ self.onehot).reshape(-1, self.n_items, self.c_max).transpose(1, 0, 2)  # r_jqc
        ratio = np.where(counts > 0, counts / np.maximum(probs, _LOG_FLOOR), 0.0)   # r / P
        star = cumulative[:, :, 1:-1]                                       # (n, Q, K_max)
        w = star * (1.0 - star)                                             # dP*/d(linear)
        # P_c = P*_c - P*_{c+1}: threshold k (index k-1) enters P_k with + and P_{k-1} with -
        g_star = w * (ratio[:, :, 1:] - ratio[:, :, :-1])                   # (n, Q, K_max) dℓ/d(linear_k)
        g_intercepts = g_star.sum(axis=1)                                    # (n, K_max)
        g_slopes = np.einsum("jqk,q->j", g_star, self.nodes)
        cfg = self.config
        finite = ~self.pad
        c_used = np.where(finite, intercepts, 0.0)
        log_prior = (-0.5 * np.sum((slopes / cfg.slope_prior_sd) ** 2)
                     - 0.5 * np.sum((c_used / cfg.intercept_prior_sd) ** 2))
        g_slopes = g_slopes - slopes / cfg.slope_prior_sd ** 2
        g_intercepts = np.where(finite, g_intercepts - c_used / cfg.intercept_prior_sd ** 2, 0.0)
        # chain rule to the packed parameters: c_k = c_1 - Σ_{l=2..k} exp(η_l)
        block = np.zeros((self.n_items, self.k_max + 1))
        block[:, 0] = g_slopes
        block[:, 1] = g_intercepts.sum(axis=1)
        if self.k_max > 1:
            # dc_k/dη_l = -exp(η_l) for k >= l  ->  dℓ/dη_l = -exp(η_l) Σ_{k>=l} dℓ/dc_k
            tail = np.cumsum(g_intercepts[:, ::-1], axis=1)[:, ::-1]
            block[:, 2:] = -gaps * tail[:, 1:]
        self.last_loglik = float(marginal @ self.pattern_counts)
        value = -(self.last_loglik + log_prior)
        return value, -block.ravel()

    def posterior(self, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """EAP θ and posterior SD per respondent, shape (N,) each."""
        slopes, intercepts, _ = self.unpack(params)
        _, probs = self.log_item_probs(slopes, intercepts)
        joint = self.person_loglik(probs) + self.log_weights[None, :]
        post = np.exp(joint - logsumexp(joint, axis=1)[:, None])
        mean = post @ self.nodes
        sd = np.sqrt(np.maximum(post @ self.nodes ** 2 - mean ** 2, 0.0))
        return mean, sd


def _gpcm_category_probs(slopes: np.ndarray, intercepts: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """GPCM P(X_j = k | θ_q), shape (n_items, m, C_max): softmax over k of k a_j θ + d_jk (d_j0 = 0); ``intercepts`` (n,
    K_max) holds d_j1..d_jK, -inf padded."""
    c_max = intercepts.shape[1] + 1
    d = np.concatenate([np.zeros((len(slopes), 1)), intercepts], axis=1)          # (n, C_max)
    logits = np.arange(c_max)[None, None, :] * slopes[:, None, None] * theta[None, :, None] + d[:, None, :]
    return np.exp(logits - logsumexp(logits, axis=2, keepdims=True))


class _GPCMProblem(_GRMProblem):
    """Marginal log-likelihood of Muraki's generalized partial credit model and its gradient.

    P(X_j = k | θ) ∝ exp(k a_j θ + d_jk), d_j0 = 0 (slope-intercept form of R mirt's ``gpcm``; step difficulties b_jk =
    -(d_jk - d_j,k-1) / a_j). Parameters are packed per item as (a_j, d_j1..d_jK), zeros in unused slots; priors N(0,
    slope_prior_sd²) on a and N(0, intercept_prior_sd²) on d."""

    # the GPCM has no gaps and no cumulative probabilities: None where the GRM's methods give them (its own
    # objective and posterior do not read them)
    def unpack(self, params: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:  # type: ignore[override]
        block = params.reshape(self.n_items, self.k_max + 1)
        return block[:, 0], np.where(self.pad, -np.inf, block[:, 1:]), None

    def pack(self, slopes: np.ndarray, intercepts: np.ndarray) -> np.ndarray:
        block = np.zeros((self.n_items, self.k_max + 1))
        block[:, 0] = slopes
        block[:, 1:] = np.where(self.pad, 0.0, intercepts)
        return block.ravel()

    def log_item_probs(self, slopes, intercepts) -> tuple[None, np.ndarray]:  # type: ignore[override]
        return None, _gpcm_category_probs(slopes, intercepts, self.nodes)

    def objective(self, params: np.ndarray) -> tuple[float, np.ndarray]:
        slopes, intercepts, _ = self.unpack(params)
        _, probs = self.log_item_probs(slopes, intercepts)                # (n, Q, C)
        joint = self.person_loglik(probs) + self.log_weights[None, :]
        marginal = logsumexp(joint, axis=1)
        posterior = np.exp(joint - marginal[:, None]) * self.pattern_counts[:, None]
        counts = (posterior.T @ self.onehot).reshape(-1, self.n_items, self.c_max).transpose(1, 0, 2)
        resid = counts - counts.sum(axis=2, keepdims=True) * probs          # dℓ/d logit_k
        cfg = self.config
        d_used = np.where(self.pad, 0.0, intercepts)
        block = np.zeros((self.n_items, self.k_max + 1))
        block[:, 0] = (np.einsum("jqc,c,q->j", resid, np.arange(self.c_max, dtype=float), self.nodes)
                       - slopes / cfg.slope_prior_sd ** 2)
        block[:, 1:] = np.where(self.pad, 0.0, resid[:, :, 1:].sum(axis=1) - d_used / cfg.intercept_prior_sd ** 2)
        log_prior = (-0.5 * np.sum((slopes / cfg.slope_prior_sd) ** 2)
                     - 0.5 * np.sum((d_used / cfg.intercept_prior_sd) ** 2))
        self.last_loglik = float(marginal @ self.pattern_counts)
        return -(self.last_loglik + log_prior), -block.ravel()


def _gpcm_starting_intercepts(codes: np.ndarray, n_thresholds: np.ndarray, k_max: int) -> np.ndarray:
    """d_jk = ln(p_jk / p_j0) from the observed category proportions (the GPCM at θ = 0), -inf padded."""
    intercepts = np.full((codes.shape[1], k_max), -np.inf)
    for j in range(codes.shape[1]):
        observed = codes[codes[:, j] >= 0, j]
        p = np.clip(np.bincount(observed, minlength=n_thresholds[j] + 1) / observed.size, 0.01, None)
        intercepts[j, : n_thresholds[j]] = np.log(p[1:] / p[0])
    return intercepts


def _code_levels(levels: pd.DataFrame) -> tuple[np.ndarray, list[list[int]], dict[str, str], list[str]]:
    """Recode each algorithm's observed levels to 0..C_j-1; list algorithms with fewer than 2 levels."""
    codes, level_lists, skipped, kept = [], [], {}, []
    for column in levels.columns:
        series = levels[column]
        observed = sorted(int(v) for v in pd.unique(series.dropna()))
        if len(observed) < 2:
            skipped[str(column)] = (f"a single observed level ({observed[0] if observed else 'none'}) on every "
                                    "dataset: no information to estimate its parameters")
            continue
        mapping = {level: code for code, level in enumerate(observed)}
        codes.append(series.map(lambda v: mapping.get(int(v), -1) if pd.notna(v) else -1).to_numpy(dtype=int))
        level_lists.append(observed)
        kept.append(str(column))
    matrix = np.column_stack(codes) if codes else np.zeros((len(levels), 0), dtype=int)
    return matrix, level_lists, skipped, kept


def _starting_values(codes: np.ndarray, n_thresholds: np.ndarray, k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Slopes from item-rest correlations (sign kept), intercepts from the cumulative proportions."""
    n_items = codes.shape[1]
    observed = codes >= 0
    scaled = np.where(observed, codes / np.maximum(n_thresholds[None, :], 1), np.nan)
    total = np.nanmean(scaled, axis=1)
    slopes = np.ones(n_items)
    intercepts = np.full((n_items, k_max), -np.inf)
    for j in range(n_items):
        mask = observed[:, j]
        rest = total[mask]
        x = scaled[mask, j]
        if rest.std() > 0 and x.std() > 0:
            r = np.corrcoef(x, rest)[0, 1]
            slopes[j] = np.clip(1.7 * r / np.sqrt(max(1.0 - r * r, 0.05)), -4.0, 4.0)
            if abs(slopes[j]) < 0.1:
                slopes[j] = 0.1 if r >= 0 else -0.1
        for k in range(1, n_thresholds[j] + 1):
            p = np.clip(np.mean(codes[mask, j] >= k), 0.01, 0.99)
            intercepts[j, k - 1] = np.log(p / (1 - p))
        # strictly decreasing
        for k in range(1, n_thresholds[j]):
            intercepts[j, k] = min(intercepts[j, k], intercepts[j, k - 1] - 0.05)
    return slopes, intercepts


def fit_grm(levels: pd.DataFrame, *, config: GRMConfig | None = None) -> GRMFit:
    """Fit Samejima's graded response model (or, with ``config.model="gpcm"``, Muraki's generalized partial credit
    model) with the inverted AIRT mapping (Kandanaarachchi & Smith-Miles 2023 §2.1, §3).

    Parameters
    ----------
    levels : pd.DataFrame, shape (N, n)
        Ordered integer levels (higher = better) per dataset (rows) and algorithm (columns), e.g. from
        :func:`bin_performance`; missing entries are left out of the likelihood. Each algorithm's observed levels are
        recoded to 0..C_j-1 (unused levels carry no information).
    config : GRMConfig

    Returns
    -------
    GRMFit
        θ is dataset easiness: an estimate anticorrelated with the datasets' mean level has all slopes and θ flipped
        (same likelihood).

    Raises
    ------
    DataError
        Non-integer levels, fewer than 2 datasets, or fewer than 2 algorithms with at least 2 levels."""
    config = config or GRMConfig()
    start = time.perf_counter()
    codes, level_lists, skipped, kept = _code_levels(_integer_levels(levels))
    if len(kept) < 2:
        raise DataError(f"fit_grm: needs at least 2 algorithms with 2 or more observed levels; got {kept}, "
                        f"skipped {sorted(skipped)}")
    n_thresholds = np.array([len(lv) - 1 for lv in level_lists])
    # identical response patterns (frequent among many instances and few levels) are evaluated once
    patterns, inverse, pattern_counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    problem_class = _GPCMProblem if config.model == "gpcm" else _GRMProblem
    problem = problem_class(patterns, n_thresholds, config, pattern_counts.astype(float))
    slopes0, intercepts0 = _starting_values(codes, n_thresholds, problem.k_max)
    if config.model == "gpcm":
        intercepts0 = _gpcm_starting_intercepts(codes, n_thresholds, problem.k_max)
    x0 = problem.pack(slopes0, intercepts0)
    # L-BFGS-B's small BLAS calls are ~25x slower with a multi-threaded BLAS than with one thread
    with threadpool_limits(limits=1, user_api="blas"):
        result = minimize(problem.objective, x0, jac=True, method="L-BFGS-B",
                          options={"maxiter": config.max_iter, "gtol": config.tol, "ftol": 1e-12})
    params = result.x
    problem.objective(params)
    log_likelihood = problem.last_loglik
    slopes, intercepts, _ = problem.unpack(params)
    theta, theta_sd = (values[inverse.ravel()] for values in problem.posterior(params))
    mean_level = np.nanmean(np.where(codes >= 0, codes / n_thresholds[None, :], np.nan), axis=1)
    if np.std(theta) > 0 and np.std(mean_level) > 0 and np.corrcoef(theta, mean_level)[0, 1] < 0:
        slopes, theta = -slopes, -theta
    thresholds = _thresholds(config.model, slopes, np.where(problem.pad, 0.0, intercepts), n_thresholds)
    items = _item_table(slopes, thresholds, level_lists, kept, config.difficulty_limit)
    theta_frame = pd.DataFrame({"theta": theta, "theta_sd": theta_sd, "difficulty": -theta},
                               index=levels.index)
    return GRMFit(items=items, theta=theta_frame, skipped=skipped, log_likelihood=log_likelihood,
                  converged=bool(result.success), n_iter=int(result.nit),
                  seconds=time.perf_counter() - start, _slopes=slopes, _intercepts=intercepts, model=config.model)


def _integer_levels(levels: pd.DataFrame) -> pd.DataFrame:
    """``levels`` as numbers; refused unless a DataFrame of whole numbers (missing allowed) with ≥ 2 rows."""
    if not isinstance(levels, pd.DataFrame):
        raise DataError("fit_grm: expected a DataFrame of levels (rows datasets, columns algorithms)")
    numeric = levels.apply(pd.to_numeric, errors="coerce")
    if (numeric.isna() & levels.notna()).any().any():
        raise DataError("fit_grm: levels must be integers (e.g. from bin_performance); found non-numeric values")
    finite = numeric.to_numpy(dtype=float)
    if (np.abs(finite[~np.isnan(finite)] - np.round(finite[~np.isnan(finite)])) > 1e-9).any():
        raise DataError("fit_grm: levels must be integers; bin continuous performance with bin_performance first")
    if len(levels) < 2:
        raise DataError(f"fit_grm: needs at least 2 datasets/instances (rows), got {len(levels)}")
    return numeric


def _thresholds(model: str, slopes: np.ndarray, intercepts: np.ndarray, n_thresholds: np.ndarray) -> list[tuple]:
    """Each item's thresholds on the θ scale: the GRM's d_k = -c_k / a, the GPCM's step difficulties b_k = -(c_k -
    c_{k-1}) / a; ``intercepts`` padded with 0 past each item's last."""
    if model == "gpcm":
        steps = np.diff(np.concatenate([np.zeros((len(slopes), 1)), intercepts], axis=1))
        return [tuple(float(v) for v in -steps[j, : n_thresholds[j]] / slopes[j]) for j in range(len(slopes))]
    return [tuple(float(d) for d in -intercepts[j, : n_thresholds[j]] / slopes[j]) for j in range(len(slopes))]


def _item_table(slopes: np.ndarray, thresholds: list[tuple], level_lists: list, kept: list[str],
                difficulty_limit: str) -> pd.DataFrame:
    """The fit's item table: discrimination, categories, levels, thresholds and the AIRT indicators (difficulty limit,
    consistency 1/|a|, anomalous a < 0, stability max|a| - |a|)."""
    limit_index = -1 if difficulty_limit == "highest" else 0
    abs_a = np.abs(slopes)
    return pd.DataFrame({
        "discrimination": slopes,
        "n_categories": np.array([len(t) for t in thresholds]) + 1,
        "levels": [tuple(lv) for lv in level_lists],
        "thresholds": thresholds,
        "difficulty_limit": [-t[limit_index] for t in thresholds],
        "consistency": 1.0 / np.maximum(abs_a, 1e-12),
        "anomalous": slopes < 0,
        "stability": abs_a.max() - abs_a,
    }, index=pd.Index(kept, name="algorithm"))


def simulate_grm(slopes, thresholds, n_respondents: int, *, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Draw levels from a GRM with standard normal θ (for parameter-recovery checks): ``(levels, theta)``, levels 1..K+1
    in columns ``item0..``. ``slopes`` (n,) may be negative; ``thresholds`` per item d_1 < ... < d_K for a > 0 (for a
    < 0 in the order that keeps the intercepts ``-a d_k`` decreasing, i.e. d decreasing)."""
    intercepts = [-np.asarray(d, dtype=float) for d in thresholds]   # -a d_k, times a below
    return _draw_levels(_category_probs, slopes, intercepts, n_respondents, seed)


def simulate_gpcm(slopes, steps, n_respondents: int, *, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Draw levels from a generalized partial credit model with standard normal θ (recovery checks). ``steps``: per item
    the step difficulties b_1..b_K (any order: GPCM steps need not be ordered); the rest as for :func:`simulate_grm`."""
    intercepts = [-np.cumsum(np.asarray(b, dtype=float)) for b in steps]   # -a (b_1 + ... + b_k), times a below
    return _draw_levels(_gpcm_category_probs, slopes, intercepts, n_respondents, seed)


def _draw_levels(category_probs, slopes, per_item: list[np.ndarray], n_respondents: int,
                 seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """θ ~ N(0, 1), then one level per (respondent, item) from ``category_probs`` (n, N, C) by inversion, with the
    intercepts ``slopes[j] * per_item[j]`` (-inf padded)."""
    rng = np.random.default_rng(seed)
    slopes = np.asarray(slopes, dtype=float)
    intercepts = np.full((len(slopes), max(len(v) for v in per_item)), -np.inf)
    for j, values in enumerate(per_item):
        intercepts[j, : len(values)] = slopes[j] * values
    theta = rng.standard_normal(n_respondents)
    cumulative = category_probs(slopes, intercepts, theta).cumsum(axis=2)
    categories = (rng.random((len(slopes), n_respondents, 1)) > cumulative).sum(axis=2)   # (n, N)
    levels = pd.DataFrame(categories.T + 1, columns=[f"item{j}" for j in range(len(slopes))])
    return levels, theta

"""A low-rank model of the calibration's datasets × classifiers score matrix, and a new classifier's column.

Why hand-written: a truncated SVD (numpy) and conjugate Bayesian linear regression under a Gaussian-mixture prior, a few
lines each; no maintained library combines a pool-derived mixture prior, per-dataset noise from leave-one-classifier-out
residuals and the greedy design of :mod:`benchirt.placement.design`.

The model, in the spirit of IRT-based benchmark compression (Maia Polo et al. 2024, tinyBenchmarks: a latent factor per
respondent, item loadings learned on a calibration pool):

* each dataset's scores are standardised over the pool, ``z_dc = (s_dc - m_d) / sd_d``;
* ``Z ≈ F Wᵀ`` with the first ``rank`` singular vectors: ``F`` (datasets × rank) the dataset loadings, the rows of ``W``
  the pool members' latent skills;
* a new classifier has skills ``w`` and scores ``z_d = F_d w + e_d``, ``e_d ~ N(0, noise_d)``, ``noise_d`` the mean
  squared leave-one-classifier-out residual of dataset ``d``, so the intervals carry the error of predicting an unseen
  column. Under the mixture prior the residuals are in the pool's standardised units and the estimate is iterated twice
  from unit noise, since the mixture's weights depend on it;
* the prior of ``w`` (``prior``):

  - ``"mixture"`` (default): new classifiers resemble existing ones. With probability ``(1 - broad) / C`` the skills lie
    near pool member ``c``, ``w ~ N(W_c, spread · Σ_W)``, with probability ``broad`` they are a fresh draw from the
    pool, ``w ~ N(mean(W), Σ_W)`` (``Σ_W`` the pool's skill covariance). The rank defaults to the largest the pool
    supports (``min(D - 1, C - 2)``), so a component reproduces its member's whole profile. The posterior mixture's
    weights are each component's marginal likelihood of the observed scores (Bayesian model averaging, Hoeting et al.
    1999), so they depend on the observed *values*, which makes the design adaptive.
  - ``"gaussian"``: the single component ``N(mean(W), Σ_W)`` at rank 3, for comparison.

* given the observed datasets, every component's posterior is Gaussian (conjugate regression); a dataset's prediction is
  the mixture of the components' predictions, its 90 % interval the 5 % and 95 % quantiles of that mixture.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import norm

from benchirt.errors import DataError
from benchirt.options import Choice, Constraint, Integer, validated
from benchirt.results import check_level, interval_frame

#: Latent factors of the ``"gaussian"`` prior (chosen on the decodIRT reference scores).
GAUSSIAN_RANK = 3
#: Priors of :func:`fit_score_model`.
PRIORS = ("mixture", "gaussian")
#: The declared constraint of every option of :func:`fit_score_model` (``benchirt plan/predict --prior/--rank``).
MODEL_OPTIONS: dict[str, Constraint] = {"prior": Choice(choices=PRIORS), "rank": Integer(minimum=1, optional=True)}
#: Mixture prior: each member component's covariance as a share of the pool's skill covariance.
MIXTURE_SPREAD = 0.2
#: Mixture prior: weight of the broad component (a classifier unlike every pool member).
MIXTURE_BROAD = 0.1


@dataclass
class Mixture:
    """A Gaussian mixture over a new classifier's skills: ``weights (K,)``, ``means (K, r)``, ``covs (K, r, r)``."""

    weights: np.ndarray
    means: np.ndarray
    covs: np.ndarray


@dataclass
class ScoreModel:
    """The fitted calibration (module docstring): ``scores`` (datasets × pool classifiers), ``center, scale`` (D,) the
    per-dataset pool mean and SD, ``loadings`` (D, rank), ``prior`` (:class:`Mixture`, of a new classifier's skills),
    ``noise`` (D,) the residual variance per dataset in standardised units, ``kind`` (``"mixture"`` or
    ``"gaussian"``) and ``notes``."""

    scores: pd.DataFrame
    center: np.ndarray
    scale: np.ndarray
    loadings: np.ndarray
    prior: Mixture
    noise: np.ndarray
    kind: str = "mixture"
    notes: list[str] = field(default_factory=list)

    @property
    def datasets(self) -> list[str]:
        return [str(d) for d in self.scores.index]

    @property
    def rank(self) -> int:
        return self.loadings.shape[1]

    def standardise(self, scores: pd.Series) -> pd.Series:
        """Scores of some datasets (index = dataset) on the pool's standardised scale."""
        position = self.positions(scores.index)
        return pd.Series((scores.to_numpy(float) - self.center[position]) / self.scale[position], index=scores.index)

    def positions(self, datasets) -> np.ndarray:
        """Row positions of dataset names; DataError naming the ones the calibration lacks."""
        index = {name: i for i, name in enumerate(self.datasets)}
        unknown = [str(d) for d in datasets if str(d) not in index]
        if unknown:
            raise DataError(
                f"dataset(s) {unknown[:5]}{'…' if len(unknown) > 5 else ''} are not in the calibration "
                f"({len(index)} datasets, e.g. {self.datasets[:3]}); observe datasets of the calibrated suite"
            )
        return np.array([index[str(d)] for d in datasets], dtype=int)

    def posterior(self, observed: pd.Series) -> Mixture:
        """The mixture posterior of a new classifier's skills given its observed scores (index = dataset)."""
        return self.posterior_from(self.positions(observed.index), self.standardise(observed).to_numpy())

    def posterior_from(self, positions: np.ndarray, z: np.ndarray) -> Mixture:
        """:meth:`posterior` from row positions and standardised scores."""
        return _conjugate(self.prior, self.loadings[positions], self.noise[positions], z)

    def moments(self, posterior: Mixture) -> tuple[np.ndarray, np.ndarray]:
        """Mean (D,) and covariance (D, D) of the standardised scores on every dataset under ``posterior``: the
        mixture's within- plus between-component covariance plus the residual noise."""
        component_means = posterior.means @ self.loadings.T                      # K x D
        mean = posterior.weights @ component_means
        spread = component_means - mean
        within = np.einsum("k,kab->ab", posterior.weights, posterior.covs)
        cov = (self.loadings @ within @ self.loadings.T + (spread.T * posterior.weights) @ spread
               + np.diag(self.noise))
        return mean, cov

    def component_predictions(self, posterior: Mixture) -> tuple[np.ndarray, np.ndarray]:
        """Each component's predictive mean and SD of the standardised score on every dataset, (K, D) each."""
        means = posterior.means @ self.loadings.T
        sds = np.sqrt(np.einsum("dk,nkl,dl->nd", self.loadings, posterior.covs, self.loadings) + self.noise)
        return means, sds

    def predict(self, observed: pd.Series, *, level: float = 0.9) -> pd.DataFrame:
        """Every dataset's score of one new classifier: measured where observed, predicted elsewhere.

        ``observed``: measured scores indexed by calibration dataset (may be empty); ``level``: central probability of
        the intervals. Returns, indexed by ``dataset`` in calibration order, ``score, low, high, sd, observed``: the
        predictive mean, the central ``level`` interval of the predictive mixture and its SD; measured rows have ``low =
        high = score``, ``sd = 0``.
        """
        posterior = self.posterior(observed)
        component_means, component_sd = self.component_predictions(posterior)
        z_mean = posterior.weights @ component_means
        z_sd = np.sqrt(posterior.weights @ (component_sd**2 + (component_means - z_mean) ** 2))
        tail = (1 - level) / 2
        low, high = (_mixture_quantile(posterior.weights, component_means, component_sd, q) for q in (tail, 1 - tail))
        frame = pd.DataFrame({
            "score": self.center + self.scale * z_mean,
            "low": self.center + self.scale * low,
            "high": self.center + self.scale * high,
            "sd": self.scale * z_sd,
            "observed": False,
        }, index=pd.Index(self.datasets, name="dataset"))
        if len(observed):
            names = [str(d) for d in observed.index]
            values = observed.to_numpy(float)
            frame.loc[names, ["score", "low", "high"]] = np.repeat(values[:, None], 3, axis=1)
            frame.loc[names, "sd"] = 0.0
            frame.loc[names, "observed"] = True
        return frame

    def conf_int(self, observed: pd.Series, *, level: float = 0.95) -> pd.DataFrame:
        """The :meth:`predict` intervals at ``level`` in the protocol's form (:mod:`benchirt.results`): ``dataset,
        observed, se, estimate, low, high``, ``se`` the predictive SD, ``low, high`` the central interval of the
        predictive mixture (not estimate ± z·se: the mixture need not be normal); observed datasets have ``low = high
        = estimate``."""
        frame = self.predict(observed, level=check_level(level))
        table = interval_frame({"dataset": frame.index.astype(str), "observed": frame["observed"]},
                               frame["score"], frame["low"], frame["high"], se=frame["sd"])
        return table.astype({"observed": bool})

    def draw(self, observed: pd.Series, n_draws: int, *, seed: int = 0) -> np.ndarray:
        """Joint draws (n_draws, D) of the new classifier's scores on every dataset: a component of the posterior
        mixture, skills from it, plus independent residuals on the unobserved datasets; observed datasets keep their
        measured score."""
        rng = np.random.default_rng(seed)
        posterior = self.posterior(observed)
        component = rng.choice(len(posterior.weights), size=n_draws, p=posterior.weights)
        skills = np.empty((n_draws, self.rank))
        for k in np.unique(component):
            rows = np.flatnonzero(component == k)
            skills[rows] = rng.multivariate_normal(posterior.means[k], posterior.covs[k], size=len(rows), method="eigh")
        z = skills @ self.loadings.T + rng.standard_normal((n_draws, len(self.noise))) * np.sqrt(self.noise)
        draws = self.center + self.scale * z
        if len(observed):
            draws[:, self.positions(observed.index)] = observed.to_numpy(float)
        return draws


def fit_score_model(scores: pd.DataFrame, *, rank: int | None = None, prior: str = "mixture") -> ScoreModel:
    """Fit :class:`ScoreModel` to a complete datasets × classifiers ``scores`` matrix (higher = better).

    ``rank``: latent factors, default ``min(D - 1, C - 2)`` for the mixture prior and 3 for the Gaussian one, lowered
    (with a note) to what the calibration supports. ``prior``: ``"mixture"`` or ``"gaussian"``.

    Raises
    ------
    DataError
        Missing scores, fewer than 4 classifiers or fewer than 2 datasets.
    ConfigError
        An unknown prior, a rank below 1.
    """
    validated("placement", {"prior": prior, "rank": rank}, MODEL_OPTIONS)
    if scores.isna().any().any():
        raise DataError("the calibration score matrix has missing entries; drop incomplete classifiers first")
    n_datasets, n_classifiers = scores.shape
    if n_classifiers < 4 or n_datasets < 2:
        raise DataError(
            f"the calibration has {n_classifiers} classifiers on {n_datasets} datasets; predicting a new classifier "
            "needs at least 4 classifiers and 2 datasets"
        )
    most = min(n_datasets - 1, n_classifiers - (2 if prior == "mixture" else 3))
    wanted = rank if rank is not None else (most if prior == "mixture" else GAUSSIAN_RANK)
    usable = min(wanted, most)
    matrix = scores.to_numpy(float)
    notes = []
    if usable < wanted:
        notes.append(f"rank {usable} instead of {wanted}: {n_classifiers} classifiers on {n_datasets} datasets "
                     "support no more latent factors")
    center, scale, z = _standardise(matrix, notes)
    if prior == "gaussian":  # the previous model, unchanged: held-out fits on re-standardised scores
        noise = _loco_noise(matrix, usable, prior, None, restandardise=True)
    else:  # the mixture's weights depend on the noise: two passes from unit noise, in the pool's units
        noise = np.ones(n_datasets)
        for _ in range(2):
            noise = _loco_noise(z, usable, prior, noise, restandardise=False)
    loadings, mixture, _ = _factor(z, usable, prior, noise)
    return ScoreModel(scores=scores, center=center, scale=scale, loadings=loadings, prior=mixture, noise=noise,
                      kind=prior, notes=notes)


def _loco_noise(matrix: np.ndarray, rank: int, prior: str, noise: np.ndarray | None,
                restandardise: bool) -> np.ndarray:
    """Mean squared leave-one-classifier-out residual per dataset: each column predicted from all datasets by a model
    fitted without it. ``restandardise``: the held-out fit standardises the remaining scores afresh (Gaussian prior);
    otherwise ``matrix`` is already the pool's standardised scores and the residuals are in those units (mixture
    prior)."""
    residuals = np.empty(matrix.shape)
    for c in range(matrix.shape[1]):
        rest = np.delete(matrix, c, axis=1)
        column = matrix[:, c]
        if restandardise:
            center, scale, rest = _standardise(rest, [])
            column = (column - center) / scale
        loadings, mixture, rest_noise = _factor(rest, rank, prior, noise)
        posterior = _conjugate(mixture, loadings, rest_noise, column)
        residuals[:, c] = column - loadings @ (posterior.weights @ posterior.means)
    return np.maximum((residuals**2).mean(axis=1), 1e-6)


def _standardise(matrix: np.ndarray, notes: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-dataset pool mean, SD (1 where every member scores the same, with a note) and standardised scores."""
    center = matrix.mean(axis=1)
    scale = matrix.std(axis=1, ddof=1)
    flat = scale <= 1e-12 * np.maximum(1.0, np.abs(center))
    if flat.any():
        notes.append(f"{int(flat.sum())} dataset(s) where every pool member scores the same: they carry no "
                     "information on the ranking and get unit scale")
        scale = np.where(flat, 1.0, scale)
    return center, scale, (matrix - center[:, None]) / scale[:, None]


def _factor(z: np.ndarray, rank: int, prior: str, noise: np.ndarray | None) -> tuple[np.ndarray, Mixture, np.ndarray]:
    """Truncated SVD of standardised scores and the pool prior; ``noise`` given, or the in-sample residual variance."""
    u, singular, vt = np.linalg.svd(z, full_matrices=False)
    n_classifiers = z.shape[1]
    loadings = u[:, :rank] * singular[:rank] / np.sqrt(n_classifiers)
    skills = vt[:rank].T * np.sqrt(n_classifiers)
    skill_cov = np.atleast_2d(np.cov(skills.T)) + 1e-6 * np.eye(rank)
    if noise is None:
        residual = z - loadings @ skills.T
        noise = np.maximum((residual**2).sum(axis=1) / max(n_classifiers - rank - 1, 1), 1e-6)
    broad = Mixture(np.ones(1), skills.mean(axis=0)[None], skill_cov[None])
    if prior == "gaussian":
        return loadings, broad, noise
    mixture = Mixture(
        np.append(np.full(n_classifiers, (1 - MIXTURE_BROAD) / n_classifiers), MIXTURE_BROAD),
        np.vstack([skills, broad.means]),
        np.concatenate([np.repeat(MIXTURE_SPREAD * skill_cov[None], n_classifiers, axis=0), broad.covs]),
    )
    return loadings, mixture, noise


def _conjugate(prior: Mixture, loadings: np.ndarray, noise: np.ndarray, z: np.ndarray) -> Mixture:
    """Posterior mixture of skills ``w`` given ``z = loadings @ w + e``, ``e ~ N(0, diag(noise))``: each component
    updates conjugately and its weight is multiplied by the marginal likelihood ``N(z; loadings m_k, loadings S_k
    loadingsᵀ + diag(noise))``, evaluated in the latent space with the Woodbury identity and the matrix determinant
    lemma."""
    weight = 1.0 / noise
    gram = loadings.T @ (loadings * weight[:, None])
    covs = np.linalg.inv(np.linalg.inv(prior.covs) + gram)                      # K x r x r
    covs = (covs + np.swapaxes(covs, 1, 2)) / 2
    residual = z[None] - prior.means @ loadings.T                               # K x n
    b = (residual * weight) @ loadings                                          # K x r
    shift = np.einsum("kab,kb->ka", covs, b)
    log_det = np.linalg.slogdet(prior.covs)[1] - np.linalg.slogdet(covs)[1]
    log_evidence = -0.5 * (log_det + (residual**2 * weight).sum(axis=1) - (b * shift).sum(axis=1))
    log_weights = np.log(prior.weights) + log_evidence
    posterior = np.exp(log_weights - log_weights.max())
    return Mixture(posterior / posterior.sum(), prior.means + shift, covs)


def _mixture_quantile(weights: np.ndarray, means: np.ndarray, sds: np.ndarray, q: float) -> np.ndarray:
    """Per-dataset ``q`` quantile of ``sum_k weights_k N(means_kd, sds_kd²)`` (bisection on the CDF), shape (D,)."""
    low = (means - 9 * sds).min(axis=0)
    high = (means + 9 * sds).max(axis=0)
    for _ in range(60):
        middle = (low + high) / 2
        below = weights @ norm.cdf((middle - means) / sds) < q
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return (low + high) / 2

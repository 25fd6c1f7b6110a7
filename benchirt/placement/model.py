"""A low-rank model of the calibration's datasets × classifiers score matrix, and a new classifier's column.

Why hand-written: the pieces are a truncated SVD (numpy) and conjugate Bayesian linear regression,
a few lines each; no maintained library offers the combination of a pool-derived prior, per-dataset
noise from leave-one-classifier-out residuals and the greedy design of :mod:`benchirt.placement.design`.

The model, in the spirit of IRT-based benchmark compression (Maia Polo et al. 2024, tinyBenchmarks:
a latent factor per respondent, item loadings learned on a calibration pool):

* each dataset's scores are standardised over the pool, ``z_dc = (s_dc - m_d) / sd_d``;
* ``Z ≈ F Wᵀ`` with the first ``rank`` singular vectors: ``F`` (datasets × rank) are dataset loadings,
  the rows of ``W`` the pool members' latent skills;
* a new classifier has skills ``w ~ N(mean(W), cov(W))`` (the pool's spread is the prior) and scores
  ``z_d = F_d w + e_d``, ``e_d ~ N(0, noise_d)``, where ``noise_d`` is the mean squared
  leave-one-classifier-out residual of dataset ``d`` (each pool member predicted from a model fitted
  without it, from all datasets), so the intervals carry the error of predicting an unseen column;
* given the datasets observed so far, the posterior of ``w`` is Gaussian (conjugate regression),
  and so is the prediction of every other dataset: 90 % intervals are ``mean ± 1.645 sd``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import norm

from benchirt.errors import DataError

#: Default number of latent factors (chosen on the decodIRT reference scores: docs/new-classifier.md).
DEFAULT_RANK = 3


@dataclass
class ScoreModel:
    """The fitted calibration (see the module docstring).

    Attributes
    ----------
    scores : pandas.DataFrame, datasets × pool classifiers
    center, scale : numpy.ndarray, shape (D,)
        Per-dataset pool mean and standard deviation of the scores.
    loadings : numpy.ndarray, shape (D, rank)
    prior_mean : numpy.ndarray, shape (rank,)
    prior_cov : numpy.ndarray, shape (rank, rank)
    noise : numpy.ndarray, shape (D,)
        Residual variance per dataset, in standardised units.
    notes : list of str
    """

    scores: pd.DataFrame
    center: np.ndarray
    scale: np.ndarray
    loadings: np.ndarray
    prior_mean: np.ndarray
    prior_cov: np.ndarray
    noise: np.ndarray
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

    def posterior(self, observed: pd.Series) -> tuple[np.ndarray, np.ndarray]:
        """Mean (rank,) and covariance (rank, rank) of a new classifier's skills given observed scores."""
        z = self.standardise(observed).to_numpy()
        return self.posterior_from(self.positions(observed.index), z)

    def posterior_from(self, positions: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`posterior` from row positions and standardised scores."""
        return _conjugate(self.prior_mean, self.prior_cov, self.loadings[positions], self.noise[positions], z)

    def predict(self, observed: pd.Series, level: float = 0.9) -> pd.DataFrame:
        """Every dataset's score of one new classifier: measured where observed, predicted elsewhere.

        Parameters
        ----------
        observed : pandas.Series
            Measured scores, index = dataset names of the calibration (may be empty).
        level : float
            Central probability of the intervals.

        Returns
        -------
        pandas.DataFrame, index ``dataset`` (calibration order)
            ``score, low, high, sd, observed``: measured rows have ``low = high = score``, ``sd = 0``.
        """
        mean, cov = self.posterior(observed)
        z_mean = self.loadings @ mean
        z_sd = np.sqrt(np.einsum("dk,kl,dl->d", self.loadings, cov, self.loadings) + self.noise)
        quantile = norm.ppf(0.5 + level / 2)
        frame = pd.DataFrame({
            "score": self.center + self.scale * z_mean,
            "low": self.center + self.scale * (z_mean - quantile * z_sd),
            "high": self.center + self.scale * (z_mean + quantile * z_sd),
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

    def draw(self, observed: pd.Series, n_draws: int, seed: int = 0) -> np.ndarray:
        """Joint draws of the new classifier's scores on every dataset, shape (n_draws, D).

        Skills from the posterior, plus independent residuals on the unobserved datasets;
        observed datasets keep their measured score.
        """
        rng = np.random.default_rng(seed)
        mean, cov = self.posterior(observed)
        skills = rng.multivariate_normal(mean, cov, size=n_draws, method="eigh")
        z = skills @ self.loadings.T + rng.standard_normal((n_draws, len(self.noise))) * np.sqrt(self.noise)
        draws = self.center + self.scale * z
        if len(observed):
            draws[:, self.positions(observed.index)] = observed.to_numpy(float)
        return draws


def fit_score_model(scores: pd.DataFrame, rank: int = DEFAULT_RANK) -> ScoreModel:
    """Fit :class:`ScoreModel` to a complete datasets × classifiers matrix (higher = better).

    The rank is lowered (with a note) to at most ``D - 1`` and ``C - 3``.

    Raises
    ------
    DataError
        Missing scores, fewer than 4 classifiers or fewer than 2 datasets.
    """
    if scores.isna().any().any():
        raise DataError("the calibration score matrix has missing entries; drop incomplete classifiers first")
    n_datasets, n_classifiers = scores.shape
    usable = min(rank, n_datasets - 1, n_classifiers - 3)
    if usable < 1:
        raise DataError(
            f"the calibration has {n_classifiers} classifiers on {n_datasets} datasets; predicting a new classifier "
            "needs at least 4 classifiers and 2 datasets"
        )
    model, notes = _fit(scores.to_numpy(float), usable)
    if usable < rank:
        notes.insert(0, f"rank {usable} instead of {rank}: {n_classifiers} classifiers on {n_datasets} datasets "
                        "support no more latent factors")
    residuals = np.empty(scores.shape)
    for c in range(n_classifiers):  # leave-one-classifier-out residuals: the error of an unseen column
        rest, _ = _fit(np.delete(scores.to_numpy(float), c, axis=1), usable)
        column = (scores.to_numpy(float)[:, c] - rest["center"]) / rest["scale"]
        mean, _ = _conjugate(rest["prior_mean"], rest["prior_cov"], rest["loadings"], rest["noise"], column)
        residuals[:, c] = column - rest["loadings"] @ mean
    noise = np.maximum((residuals**2).mean(axis=1), 1e-6)
    return ScoreModel(scores=scores, center=model["center"], scale=model["scale"], loadings=model["loadings"],
                      prior_mean=model["prior_mean"], prior_cov=model["prior_cov"], noise=noise, notes=notes)


def _fit(matrix: np.ndarray, rank: int) -> tuple[dict, list[str]]:
    """Standardise rows, truncated SVD, pool prior and in-sample residual variance."""
    notes = []
    center = matrix.mean(axis=1)
    scale = matrix.std(axis=1, ddof=1)
    flat = scale <= 1e-12 * np.maximum(1.0, np.abs(center))
    if flat.any():
        notes.append(f"{int(flat.sum())} dataset(s) where every pool member scores the same: they carry no "
                     "information on the ranking and get unit scale")
        scale = np.where(flat, 1.0, scale)
    z = (matrix - center[:, None]) / scale[:, None]
    u, singular, vt = np.linalg.svd(z, full_matrices=False)
    n_classifiers = matrix.shape[1]
    loadings = u[:, :rank] * singular[:rank] / np.sqrt(n_classifiers)
    skills = vt[:rank].T * np.sqrt(n_classifiers)
    prior_cov = np.atleast_2d(np.cov(skills.T)) + 1e-6 * np.eye(rank)
    residual = z - loadings @ skills.T
    noise = np.maximum((residual**2).sum(axis=1) / max(n_classifiers - rank - 1, 1), 1e-6)
    return {"center": center, "scale": scale, "loadings": loadings, "prior_mean": skills.mean(axis=0),
            "prior_cov": prior_cov, "noise": noise}, notes


def _conjugate(prior_mean: np.ndarray, prior_cov: np.ndarray, loadings: np.ndarray, noise: np.ndarray,
               z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Posterior N(mean, cov) of skills ``w`` given ``z = loadings @ w + e``, ``e ~ N(0, diag(noise))``."""
    precision = np.linalg.inv(prior_cov)
    weight = 1.0 / noise
    cov = np.linalg.inv(precision + loadings.T @ (loadings * weight[:, None]))
    mean = cov @ (precision @ prior_mean + loadings.T @ (weight * z))
    return mean, (cov + cov.T) / 2

"""AIRT — Algorithmic IRT (Kandanaarachchi & Smith-Miles 2023): evaluate a portfolio of algorithms over many datasets.

Datasets (or problem instances) are the respondents and algorithms the items of a continuous IRT model
(Samejima's continuous response model fitted by Shojima's EM, allowing negative discrimination).

Public API
----------
``fit_airt(perf, config=None) -> AIRTResult``
    The whole analysis (Kandanaarachchi & Smith-Miles 2023 Algorithm 1). ``perf``: DataFrame, rows datasets/instances, columns
    algorithms, higher is better, values in [0, 1] (see ``benchirt.airt.aslib.to_unit_interval`` for other
    scales) or NaN where not observed (fitted on the observed cells: :mod:`benchirt.airt.observed`,
    :mod:`benchirt.airt.sparse`), at least 5 rows and 2 columns. ``AIRTResult`` has ``algorithms`` (algorithm, discrimination,
    difficulty, scale, anomalous, consistency, difficulty_limit, flag, lto_strength, lto_weakness),
    ``datasets`` (dataset, difficulty, easiness), ``goodness`` (algorithm, mse, aucdf, auaec, aupec,
    effectiveness_gap), ``model_goodness``, ``latent``, ``fit``, ``performance``, ``predicted``, ``notes``,
    and ``portfolio(epsilon)``, ``portfolio_table()``, ``summary()``.
``AIRTConfig``
    Options (frozen dataclass, ``AIRTConfig.from_dict`` rejects unknown keys). ``compat="airt-r"`` runs the
    R package airt's estimator (:mod:`benchirt.airt.compat`, ``docs/airt.md``); ``polytomous="grm"|"gpcm"``
    adds the polytomous model's table (``AIRTResult.polytomous``, :mod:`benchirt.airt.polytomous`).
``fit_continuous(z, *, max_iter, tol, prior_mean, prior_sd) -> ContinuousFit``
    The continuous response model on a logit matrix z (N respondents x n items); ``logit(x, epsilon)`` and
    ``expit(z)`` convert between performances and logits; ``easiness(z, a, b, g)`` is Kandanaarachchi & Smith-Miles 2023 eq. 10.
``algorithm_metrics(fit, algorithms)``, ``dataset_metrics(fit, datasets)``
    Anomalous indicator, consistency, difficulty limit; dataset difficulty.
``latent_trait_analysis(performance, difficulty, *, lam=None, grid_size=500) -> LatentTraitAnalysis``
    Latent trait curves for any model that gives a dataset difficulty; ``.strengths(eps)``,
    ``.weaknesses(eps)``, ``.occupancy(eps)`` (LTO), ``.intervals(eps)``, ``.portfolio(eps)`` (A(eps), ordered
    by LTO), ``.portfolio_table(epsilons)``.
``model_goodness(actual, predicted, *, levels=None) -> ModelGoodness``
    MSE, AUCDF, AUAEC, AUPEC and their curves; ``levels=C`` for a polytomous model with categories 0..C-1.
Plots: ``benchirt.airt.plots`` (heatmaps, trace lines, latent curves, strengths/weaknesses, effectiveness,
residual CDF, AUAEC vs AUPEC, portfolio gap). Command: ``benchirt airt`` (``benchirt.airt.command``).
"""
from benchirt.lazy import attach_stub

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)

"""Options of the AIRT stage (seed 000, Algorithm 1)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from benchirt.errors import ConfigError
from benchirt.options import checked_options


#: ``AIRTConfig.compat`` values: benchirt's converged estimator (None) or the R package airt's.
COMPAT_MODES = (None, "airt-r")
#: ``AIRTConfig.compat_range`` values.
COMPAT_RANGES = ("data", "unit")


@dataclass(frozen=True)
class AIRTConfig:
    """Options of :func:`benchirt.airt.fit_airt`.

    Attributes
    ----------
    logit_epsilon : float
        Guard of the logit transform ``z = ln(x / (1 - x))`` (seed 000 eq. 2): performances are clipped
        to ``[logit_epsilon, 1 - logit_epsilon]`` first, so 0 and 1 map to ``-/+ ln((1 - e) / e)``
        (±4.6 for the default 0.01, the offset the R package airt uses) instead of ``-/+inf``.
        Clipping is monotone, unlike replacing only the exact extremes.
    max_iter : int
        Maximum number of SQUAREM-accelerated iterations of Shojima's EM (three EM cycles each, seed 000 §2.2).
    tol : float
        The EM stops when the marginal log-likelihood changes by less than ``tol * (1 + |loglik|)``.
    max_discrimination : float
        Bound on |alpha|. An algorithm whose results are (nearly) a linear function of the latent trait is a
        Heywood case: the likelihood grows without limit as |alpha| -> infinity. The bound (10: a residual
        SD of 0.1 prior SDs of theta, consistency >= 0.1) stops it there; such algorithms are flagged.
    prior_mean, prior_sd : float
        Normal prior N(mu, sigma^2) of the dataset easiness theta; it fixes the origin and unit of the
        latent scale (seed 000 §2.2).
    epsilon : float
        The epsilon of the strengths, weaknesses and latent trait occupancy written to the algorithm
        table (seed 000 §4.2). 0 keeps only the best (worst) curve at every difficulty.
    epsilons : tuple of float
        The epsilons at which the airt portfolio A(epsilon) (seed 000 §4.3) is tabulated.
    spline_lam : float or None
        Smoothing parameter lambda of the latent trait curves h_j (seed 000 §4.1). ``None`` picks it
        per algorithm by generalised cross-validation (scipy ``make_smoothing_spline``).
    spline_max_df : float
        Most effective degrees of freedom of a GCV-chosen latent trait curve (10, like the 10-basis-function
        smoother the R package airt draws); keeps GCV from following the 0/1 pattern of timeouts.
    spline_points : int
        With more distinct dataset difficulties than this, the latent trait curves are fitted to this many
        equal-width bins of difficulty (weighted by their size), as statistical packages do for large N.
    grid_size : int
        Number of dataset-difficulty points at which the latent trait curves, strengths and weaknesses
        are evaluated (between the easiest and the hardest dataset).
    compat : str or None
        ``None`` (default): the converged estimator above. ``"airt-r"``: the R package airt's estimator
        (:mod:`benchirt.airt.compat`: its .01 replacement of exact extremes, its stopping rule, its
        standardised dataset easiness and its prediction formula), which reproduces the published AIRT
        numbers; ``logit_epsilon``, ``max_iter``, ``tol``, ``max_discrimination`` and the prior do not apply.
        ``docs/airt.md`` says what differs and by how much.
    polytomous : str or None
        Also fit a polytomous model to the performances binned into ``polytomous_levels`` quantile levels
        (seed 001 eq. 9): ``"grm"`` (Samejima's graded response model) or ``"gpcm"`` (Muraki's generalized
        partial credit model, the one the R package airt fits); ``None`` (default) skips it. Its difficulty
        limit is -d of the highest threshold, or in ``airt-r`` mode -b of the lowest (the airt vignette).
    polytomous_levels : int
        Number of quantile levels of the polytomous model (the AIRT paper and the vignette use 5).
    compat_range : str
        In ``airt-r`` mode, the scale airt's ``min.item``/``max.item`` describe: ``"data"`` (default) the
        smallest and largest value of the whole matrix, as the AIRT paper's scripts set them; ``"unit"``
        [0, 1], the package's defaults (the vignette).
    """

    logit_epsilon: float = 0.01
    max_iter: int = 1000
    tol: float = 1e-9
    max_discrimination: float = 10.0
    prior_mean: float = 0.0
    prior_sd: float = 1.0
    epsilon: float = 0.0
    epsilons: tuple[float, ...] = (0.0, 0.01, 0.05)
    spline_lam: float | None = None
    spline_max_df: float = 10.0
    spline_points: int = 100
    grid_size: int = 500
    compat: str | None = None
    compat_range: str = "data"
    polytomous: str | None = None
    polytomous_levels: int = 5

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilons", tuple(float(e) for e in self.epsilons))
        checks = (
            (0.0 < self.logit_epsilon < 0.5, "logit_epsilon must lie in (0, 0.5)"),
            (int(self.max_iter) == self.max_iter and self.max_iter >= 1, "max_iter must be an integer >= 1"),
            (self.tol > 0, "tol must be positive"),
            (self.max_discrimination > 0, "max_discrimination must be positive"),
            (math.isfinite(self.prior_mean), "prior_mean must be finite"),
            (self.prior_sd > 0 and math.isfinite(self.prior_sd), "prior_sd must be positive"),
            (0.0 <= self.epsilon <= 1.0, "epsilon must lie in [0, 1] (performance is on [0, 1])"),
            (len(self.epsilons) > 0 and all(0.0 <= e <= 1.0 for e in self.epsilons),
             "epsilons must be a non-empty list of values in [0, 1]"),
            (self.spline_lam is None or self.spline_lam >= 0, "spline_lam must be null (GCV) or >= 0"),
            (self.spline_max_df >= 2, "spline_max_df must be >= 2 (a straight line has 2)"),
            (int(self.spline_points) == self.spline_points and self.spline_points >= 10,
             "spline_points must be an integer >= 10"),
            (int(self.grid_size) == self.grid_size and self.grid_size >= 10, "grid_size must be an integer >= 10"),
            (self.compat in COMPAT_MODES, f"compat must be one of {COMPAT_MODES} (null: benchirt's estimator)"),
            (self.compat_range in COMPAT_RANGES, f"compat_range must be one of {COMPAT_RANGES}"),
            (self.polytomous in (None, "grm", "gpcm"), "polytomous must be null, 'grm' or 'gpcm'"),
            (int(self.polytomous_levels) == self.polytomous_levels and self.polytomous_levels >= 2,
             "polytomous_levels must be an integer >= 2"),
            (self.compat is not None or self.compat_range == "data",
             "compat_range applies only with compat: airt-r"),
            (self.polytomous is not None or self.polytomous_levels == 5,
             "polytomous_levels applies only with polytomous: grm or gpcm"),
        )
        for ok, message in checks:
            if not ok:
                raise ConfigError(f"AIRT configuration: {message}")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "AIRTConfig":
        """Build the options from a mapping (the ``airt`` section of a YAML config).

        Raises
        ------
        ConfigError
            For an unknown key (the message lists the valid ones) or an invalid value.
        """
        d = checked_options("airt", d, cls)
        try:
            return cls(**d)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"AIRT configuration: invalid value ({exc})") from None

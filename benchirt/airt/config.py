"""Options of the AIRT stage (Kandanaarachchi & Smith-Miles 2023, Algorithm 1)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from benchirt.options import (
    Choice, Constraint, Integer, Number, Numbers, checked_options, require, validate_fields,
)


#: ``AIRTConfig.compat`` values: benchirt's converged estimator (None) or the R package airt's.
COMPAT_MODES = (None, "airt-r")
#: How performance values are rescaled (:func:`benchirt.airt.aslib.load_performance`): x or log10(x + 1).
TRANSFORMS = ("linear", "log")
#: ``AIRTConfig.compat_range`` values.
COMPAT_RANGES = ("unit", "data")
#: ``AIRTConfig.polytomous`` values besides None (:data:`benchirt.airt.polytomous.POLYTOMOUS_MODELS`).
POLYTOMOUS_MODES = ("grm", "gpcm")


@dataclass(frozen=True)
class AIRTConfig:
    """Options of :func:`benchirt.airt.fit_airt`.

    Attributes
    ----------
    logit_epsilon : float
        Guard of the logit ``z = ln(x / (1 - x))`` (Kandanaarachchi & Smith-Miles 2023 eq. 2): performances are clipped
        to ``[logit_epsilon, 1 - logit_epsilon]`` first, so 0 and 1 map to ``-/+ ln((1 - e) / e)`` (the default 0.01 is
        the R package airt's offset) instead of ``-/+inf``. Clipping is monotone, unlike replacing only the exact
        extremes.
    max_iter : int
        Maximum SQUAREM-accelerated iterations of Shojima's EM (three EM cycles each, §2.2).
    tol : float
        The EM stops when the marginal log-likelihood changes by less than ``tol * (1 + |loglik|)``.
    max_discrimination : float
        Bound on |alpha|. An algorithm whose results are (nearly) a linear function of the latent trait is a Heywood
        case (the likelihood grows without limit as |alpha| -> infinity); the bound stops it there (10: a residual SD of
        0.1 prior SDs of theta) and such algorithms are flagged.
    prior_mean, prior_sd : float
        Normal prior N(mu, sigma^2) of the dataset easiness theta; it fixes the origin and unit of the latent scale
        (§2.2).
    epsilon : float
        The epsilon of the strengths, weaknesses and latent trait occupancy in the algorithm table (§4.2); 0 keeps only
        the best (worst) curve at every difficulty.
    epsilons : tuple of float
        The epsilons at which the airt portfolio A(epsilon) (§4.3) is tabulated.
    spline_lam : float or None
        Smoothing parameter lambda of the latent trait curves h_j (§4.1); ``None``: per algorithm by generalised
        cross-validation.
    spline_max_df : float
        Most effective degrees of freedom of a GCV-chosen curve (like the 10-basis-function smoother of the R package
        airt); keeps GCV from following the 0/1 pattern of timeouts.
    spline_points : int
        With more distinct dataset difficulties, the curves are fitted to this many equal-width bins of difficulty
        (weighted by size).
    grid_size : int
        Dataset-difficulty points (from the easiest to the hardest dataset) at which curves, strengths and weaknesses
        are evaluated.
    compat : str or None
        ``None`` (default): the converged estimator above. ``"airt-r"``: the R package airt's estimator
        (:mod:`benchirt.airt.compat`), which reproduces the published AIRT numbers; ``logit_epsilon``, ``max_iter``,
        ``tol``, ``max_discrimination`` and the prior do not apply. ``docs/airt.md`` says what differs.
    polytomous : str or None
        Also fit a polytomous model to the performances binned into ``polytomous_levels`` quantile levels (appendix A
        eq. 9): ``"grm"`` (Samejima's graded response model) or ``"gpcm"`` (Muraki's generalized partial credit model,
        which the R package airt fits); ``None`` (default) skips it. Its difficulty limit is -d of the highest
        threshold, or in ``airt-r`` mode -b of the lowest (the airt vignette).
    polytomous_levels : int
        Number of quantile levels of the polytomous model (the AIRT paper and the vignette use 5).
    compat_range : str
        In ``airt-r`` mode, the scale airt's ``min.item``/``max.item`` describe: ``"unit"`` (default) [0, 1], the
        package's defaults, which reproduce the airt vignette; ``"data"`` the smallest and largest value of the whole
        matrix, as the AIRT paper's scripts set them (its Table 4)."""

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
    compat_range: str = "unit"
    polytomous: str | None = None
    polytomous_levels: int = 5

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "logit_epsilon": Number(above=0, below=0.5),
        "max_iter": Integer(minimum=1),
        "tol": Number(above=0),
        "max_discrimination": Number(above=0),
        "prior_mean": Number(),
        "prior_sd": Number(above=0),
        "epsilon": Number(at_least=0, at_most=1),
        "epsilons": Numbers(at_least=0, at_most=1),
        "spline_lam": Number(at_least=0, optional=True),
        "spline_max_df": Number(at_least=2),  # a straight line has 2
        "spline_points": Integer(minimum=10),
        "grid_size": Integer(minimum=10),
        "compat": Choice(choices=tuple(mode for mode in COMPAT_MODES if mode), optional=True),
        "compat_range": Choice(choices=COMPAT_RANGES),
        "polytomous": Choice(choices=POLYTOMOUS_MODES, optional=True),
        "polytomous_levels": Integer(minimum=2),
    }

    def __post_init__(self) -> None:
        validate_fields("airt", self, self.OPTIONS)
        self._check_modes()

    def _check_modes(self) -> None:
        """``compat_range`` applies to ``compat: airt-r`` and ``polytomous_levels`` to a polytomous model only (rules
        between fields)."""
        require(self.compat is not None or self.compat_range == "unit", "airt", "compat_range", self.compat_range,
                "unit (the default) unless compat is airt-r")
        require(self.polytomous is not None or self.polytomous_levels == 5, "airt", "polytomous_levels",
                self.polytomous_levels, "5 (the default) unless polytomous is grm or gpcm")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "AIRTConfig":
        """Build the options from a mapping (the ``airt`` section of a YAML config); :class:`ConfigError` for an unknown
        key (the message lists the valid ones) or an invalid value."""
        return cls(**checked_options("airt", d, cls))

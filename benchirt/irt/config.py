"""Options of the IRT stage (:class:`IRTConfig`)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Mapping

from benchirt.options import (
    AnyOf, Boolean, Choice, Constraint, Integer, Names, Number, Numbers, checked_options, require, validate_fields,
)

#: The models :func:`benchirt.irt.fit_irt` estimates (Cardoso et al. 2021 eq. 1; :mod:`benchirt.irt.models`).
MODELS = ("1PL", "2PL", "3PL")
ABILITY_METHODS = ("EAP", "MAP")
#: ``monotone``: discriminations >= 0, so every score rises with every correct answer (the default;
#: docs/irt.md, "Which model scores, and why"); ``decodirt``: decodIRT's free-sign model and its start
#: search (Cardoso et al. 2021 §4.1, §5.2), which reproduces its reference tables.
MODEL_FAMILIES = ("monotone", "decodirt")
#: The options only the tables derived from a fit read (:meth:`benchirt.irt.stage.DatasetIRT.with_summaries`: the
#: ``pct_*`` statistics and the suspect labels), not the fit: a stored fit is keyed without them (:func:`fit_options`),
#: so changing one re-derives those tables instead of fitting every dataset again.
SUMMARY_OPTIONS = ("difficulty_threshold", "discrimination_threshold", "guessing_threshold", "suspect_agreement",
                   "suspect_rising_alpha")


@dataclass(frozen=True)
class IRTConfig:
    """How :func:`benchirt.irt.fit_irt` estimates a model and how the stage summarises it.

    Estimation
    ----------
    model : {"1PL", "2PL", "3PL"}
        Item response function (Cardoso et al. 2021 eq. 1; the study uses the 3PL, §4.1).
    model_family : {"monotone", "decodirt"}
        ``"monotone"`` (default): every discrimination is at least 0, as in operational IRT (mirt's default), so each
        item's curve rises with ability, one more correct answer never lowers an ability or True-Score, and the latent
        dimension is the one every item agrees on. The start is the sum score and the fit climbs once
        (``starts="auto"``); an item whose answers fall with ability is reported by ``ability_slope`` < 0
        (:mod:`benchirt.irt.slope`). ``"decodirt"``: decodIRT's free-sign model, which keeps negative discriminations
        (Cardoso et al. 2021 §5.2) and so has many optima on classifier data; ``starts="auto"`` then runs the full start
        search (docs/irt.md, "Which model scores, and why").
    scoring_model : {"auto", "1PL", "2PL", "3PL"}
        The model whose abilities and True-Scores score the respondents, fitted on the calibration respondents from the
        item model's solution (``model``'s items describe the test instances). ``"auto"``: the 1PL (Rasch) for the
        monotone family — its ability is a monotone function of the number correct (Rasch 1960), and item weights
        estimated on a pool do not transfer to the classifiers it ranks (docs/irt.md, "Which model scores, and why");
        ``model`` itself for decodIRT's family.
    prior, prior_discrimination, prior_difficulty, prior_guessing : bool, (mean, sd), (mean, sd), (alpha, beta)
        Bayes modal estimation (``prior=True``) with these priors, or plain marginal maximum likelihood (estimates then
        rely on the bounds only). Normal priors on ``a`` and ``b``: centred at 0 the one on ``a`` is indifferent to the
        sign, shrinks weakly supported slopes toward "no discrimination" and keeps perfectly separating items finite;
        the one on ``b`` keeps it finite for items almost everybody answers alike or with ``a`` near 0. Beta prior on
        ``c`` (3PL only), mode ``(alpha-1)/(alpha+beta-2)``.
    quadrature : int
        Equally spaced ability nodes on ``[-theta_max, theta_max]`` (standard normal weights) of the coarsest
        calibration grid.
    refine_quadrature : bool
        Double the grid (nodes plus midpoints: 41, 81, 161, 321) while that changes the log posterior at the first
        start's optimum by more than ``tol_optimum / 2``: with many steep items a posterior is narrower than the spacing
        and a coarse grid makes optima of its own (docs/irt.md, "The calibration grid"). The fit reports
        ``quadrature_nodes`` and ``quadrature_error``.
    ability_quadrature : int
        Nodes of the finer grid EAP abilities use: a respondent's posterior is narrow, and EAP on the calibration grid
        would snap θ toward its nodes.
    theta_max : float
        Range of the quadrature grids and bound of MAP abilities.
    max_iter, tol, tol_log_posterior, tol_gradient : int, float, float, float
        EM has converged when one step changes no item parameter by ``tol`` or more, raises the log posterior by less
        than ``tol_log_posterior`` (PyPI ``mirt`` stops on this test alone) and the marginal log posterior's gradient is
        below ``tol_gradient`` in every a, b and logit c (stationary; docs/irt.md); it stops unconverged after
        ``max_iter`` steps.
    starts : "auto" or int
        Starting points of EM (:func:`benchirt.irt.starts.start_scores`); the fit keeps the one with the highest log
        posterior. ``"auto"``: the monotone family climbs once from the sum score; with ``model_family="decodirt"``,
        seven candidates (principal component, sum score, directions in the plane of the first two components), then, up
        to 20 starts where they disagree, hops from the best optimum and seeded starts (:mod:`benchirt.irt.search`),
        then recombinations of the optima found (at most 60 more climbs; docs/irt.md, "Starts"). An integer asks for
        that many starts, each climbed (1: the principal component only).
    expanded_em : "auto" or bool
        Begin every SQUAREM cycle with the parameter-expanded EM move on the ability scale's location and unit (Liu,
        Rubin & Wu 1998; :func:`benchirt.irt.em.expanded_move`). ``"auto"``: on for the monotone family, whose single
        climb reaches an optimum that does not depend on the path, so the move only saves EM steps; off for decodIRT's,
        where it changes which optima the start search reaches.
    tol_optimum : float
        Two starts whose final log posteriors differ by more than this found different optima; the lower one is reported
        as ``better_optimum_exists``.
    max_discrimination, max_difficulty, max_guessing : float
        Bounds ``|a| <= max_discrimination``, ``|b| <= max_difficulty``, ``0 <= c <= max_guessing``: every estimate is
        finite even without priors.
    min_respondents : int
        Fewer respondents than this cannot support item parameters: a ``DataError``.

    Summaries and abilities
    -----------------------
    These thresholds (:data:`SUMMARY_OPTIONS`) are read only by the tables derived from a fit, so a stored fit is keyed
    without them and a change re-derives those tables (:meth:`benchirt.irt.stage.DatasetIRT.with_summaries`).

    difficulty_threshold, discrimination_threshold, guessing_threshold : float
        An item is "difficult", "very discriminative", "prone to guessing" above these values (defaults from Cardoso et
        al. 2021 §4.5: 1, 0.75, 0.2).
    ability : {"EAP", "MAP"}
        Ability estimator of the stage's respondent table.
    compare_models : bool
        Also fit the other two of 1PL/2PL/3PL and store their log-likelihood, AIC and BIC
        (:func:`benchirt.irt.compare.compare_models`).
    suspect_agreement, suspect_rising_alpha : float
        An item is a suspect label when at least ``suspect_agreement`` of the real classifiers get it wrong (Brodley &
        Friedl 1999's consensus filter) unless those that get it right are abler at level ``suspect_rising_alpha``
        (:mod:`benchirt.irt.suspects`).
    calibration_roles : tuple of str
        Respondent roles whose answers calibrate the items in :func:`benchirt.irt.irt_for_responses` — decodIRT's pool:
        the MLP ladder and the real classifiers; the artificial ones are only scored (Cardoso et al. 2021 §4.3)."""

    model: str = "3PL"
    model_family: str = "monotone"
    scoring_model: str = "auto"
    prior: bool = True
    prior_discrimination: tuple[float, float] = (0.0, 2.5)
    prior_difficulty: tuple[float, float] = (0.0, 3.0)
    prior_guessing: tuple[float, float] = (2.0, 6.0)
    quadrature: int = 41
    refine_quadrature: bool = True
    ability_quadrature: int = 241
    theta_max: float = 6.0
    max_iter: int = 1000
    tol: float = 1e-3
    tol_log_posterior: float = 1e-4
    tol_gradient: float = 0.1
    starts: int | Literal["auto"] = "auto"
    expanded_em: bool | str = "auto"
    tol_optimum: float = 0.1
    max_discrimination: float = 10.0
    max_difficulty: float = 6.0
    max_guessing: float = 0.95
    min_respondents: int = 10
    difficulty_threshold: float = 1.0
    discrimination_threshold: float = 0.75
    guessing_threshold: float = 0.2
    ability: str = "EAP"
    compare_models: bool = True
    suspect_agreement: float = 0.8
    suspect_rising_alpha: float = 0.05
    calibration_roles: tuple[str, ...] = ("ladder", "real")

    #: The declared constraint of every option (:func:`benchirt.options.validated`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "model": Choice(choices=MODELS),
        "model_family": Choice(choices=MODEL_FAMILIES),
        "scoring_model": Choice(choices=("auto", *MODELS)),
        "prior": Boolean(),
        "prior_discrimination": Numbers(entries=("mean", "sd"), positive=("sd",)),
        "prior_difficulty": Numbers(entries=("mean", "sd"), positive=("sd",)),
        "prior_guessing": Numbers(entries=("alpha", "beta"), at_least=1),  # >= 1: the Beta prior has a finite mode
        "quadrature": Integer(minimum=5),
        "refine_quadrature": Boolean(),
        "ability_quadrature": Integer(minimum=5),
        "theta_max": Number(above=0),
        "max_iter": Integer(minimum=1),
        "tol": Number(above=0),
        "tol_log_posterior": Number(above=0),
        "tol_gradient": Number(above=0),
        "starts": AnyOf(members=(Choice(choices=("auto",)), Integer(minimum=1))),
        "expanded_em": AnyOf(members=(Choice(choices=("auto",)), Boolean())),
        "tol_optimum": Number(above=0),
        "max_discrimination": Number(above=0),
        "max_difficulty": Number(above=0),
        "max_guessing": Number(above=0, below=1),
        "min_respondents": Integer(minimum=2),
        "difficulty_threshold": Number(),
        "discrimination_threshold": Number(),
        "guessing_threshold": Number(),
        "ability": Choice(choices=ABILITY_METHODS),
        "compare_models": Boolean(),
        "suspect_agreement": Number(above=0, at_most=1),
        "suspect_rising_alpha": Number(above=0, below=1),
        "calibration_roles": Names(what="respondent roles (ladder, real, artificial)", single=True),
    }

    def __post_init__(self) -> None:
        validate_fields("irt", self, self.OPTIONS)
        self._check_scoring_model()

    def _check_scoring_model(self) -> None:
        """decodIRT's family scores with its item model (a rule between ``model_family``, ``model`` and
        ``scoring_model``)."""
        require(self.model_family == "monotone" or self.scoring_model in ("auto", self.model), "irt",
                "scoring_model", self.scoring_model,
                f"'auto' or {self.model!r} with model_family decodirt (decodIRT scores with its item model)")

    @property
    def resolved_scoring_model(self) -> str:
        """The model that scores the respondents (``scoring_model``, ``"auto"`` resolved)."""
        if self.scoring_model != "auto":
            return self.scoring_model
        return "1PL" if self.model_family == "monotone" else self.model

    @property
    def uses_expanded_em(self) -> bool:
        """Whether EM takes the parameter-expanded move (``expanded_em``, ``"auto"`` resolved)."""
        return self.model_family == "monotone" if self.expanded_em == "auto" else bool(self.expanded_em)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "IRTConfig":
        """Build from a mapping (a YAML section); unknown keys or invalid values raise ``ConfigError``."""
        return cls(**checked_options("irt", d, cls))

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping (lists for the tuples) that :meth:`from_dict` reads back."""
        return {
            f.name: list(getattr(self, f.name)) if isinstance(getattr(self, f.name), tuple) else getattr(self, f.name)
            for f in fields(self)
        }


def fit_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a fit reads (``IRTConfig.to_dict()`` less :data:`SUMMARY_OPTIONS`): what a stored fit is keyed by.

    Examples
    --------
    >>> options = IRTConfig(difficulty_threshold=2.0).to_dict()
    >>> fit_options(options) == fit_options(IRTConfig().to_dict())
    True
    >>> "model" in fit_options(options), "difficulty_threshold" in fit_options(options)
    (True, False)
    """
    return {key: value for key, value in options.items() if key not in SUMMARY_OPTIONS}


def summary_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options only the derived tables read (:data:`SUMMARY_OPTIONS`) of ``IRTConfig.to_dict()``: what a stage
    reading those tables adds to its key."""
    return {key: options[key] for key in SUMMARY_OPTIONS if key in options}

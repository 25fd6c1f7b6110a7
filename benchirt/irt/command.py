"""``benchirt irt RESPONSES.csv --out DIR``: fit an IRT model to one response matrix. Registering the sub-command
imports only argparse and the options layer; numpy, pandas and scipy are imported when the command runs."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from benchirt.errors import ConfigError, DataError
from benchirt.irt.config import ABILITY_METHODS, MODELS, IRTConfig
from benchirt.options import from_arguments
from benchirt.out_folder import add_force_option, claim_out, refuse_foreign_out

if TYPE_CHECKING:
    import pandas as pd

#: What the command may write into --out (a file of such a name that it did not write is never replaced).
WRITES = ("items.csv", "abilities.csv", "scoring_items.csv", "fit.json", "model_comparison.csv", "icc.png",
          "ccc_*.png", "parameters.png")

DESCRIPTION = """\
Estimate item parameters (discrimination a, difficulty b, guessing c; P = c + (1-c)/(1+exp(-a(θ-b))))
by marginal maximum likelihood with priors (Bayes modal), then each respondent's ability θ and
True-Score (sum of P over the items). The default model is monotone: every a >= 0, and an item whose
answers fall with ability is reported by its ability_slope (< 0) in items.csv. Abilities and
True-Scores come from the 1PL fitted from the items' solution (--scoring-model to choose), a monotone
function of the number correct: one more correct answer never lowers them (docs/irt.md, "Which model
scores, and why"). --compat decodirt fits decodIRT's free-sign 3PL (negative discriminations allowed,
with its full start search) and scores with it, which reproduces decodIRT's tables.

RESPONSES.csv: respondents x items of 0/1, comma-separated, with a header row of item names, as
decodIRT's responses_pool.csv (--no-header: no header row, items named V1..Vm); a first column
holding anything but 0/1, if present, names the respondents (otherwise they are numbered 1..n).
Refused with the fix: a first row of answers (no header), another delimiter, an item or
respondent name given twice, rows of different lengths. Any width: a header longer than 64 KiB
(e.g. 96,000 items) is read to its end.

Writes DIR/items.csv (item, discrimination, difficulty, guessing, se_*, p_correct, flag: ok,
at_bound, or all_correct / all_wrong for items without information, reported as a step beyond the
ability range, a = 10, b = -12 / +12 with the defaults, for which the formula gives P = 1 / 0;
infit, outfit and misfit: either mean square above 1.5; ability_slope: the logistic slope of the
item's answers on the respondents' abilities),
DIR/abilities.csv (respondent, theta, se, true_score; from the scoring model, whose items go to
DIR/scoring_items.csv when it is not the item model), DIR/fit.json (status, converged, n_iter,
log_likelihood, seconds, model, n_respondents, n_items, the EM starts: start_runs with each start's
log posterior and status converged / iteration_limit / better_optimum_exists, item summary, and for the
default model default_model_check: the share of informative items falling with ability or held at a = 0;
above 35 % the console warns that the monotone model does not fit and names --compat decodirt) and, with --plots,
icc.png, ccc_difficulty.png, ccc_discrimination.png, parameters.png. With --compare-models also
DIR/model_comparison.csv (model, log_likelihood, n_parameters, aic, bic, status, start, best_aic, best_bic).

`benchirt irt score RESPONSES.csv --items ITEMS.csv --out DIR` (or the same without the word `score`)
does NOT refit the items: the respondents of RESPONSES.csv are scored against those frozen parameters
(an items.csv of this command or of a run, or decodIRT's ltm_item_params.csv) and only
DIR/abilities.csv (respondent, theta, se, true_score) is written."""

#: The word that selects frozen-item scoring: ``benchirt irt score RESPONSES.csv --items ITEMS.csv``.
SCORE_WORD = "score"


SCORE_DESCRIPTION = """\
Score the respondents of RESPONSES.csv against frozen item parameters: the items are NOT refitted.
ITEMS.csv is an items.csv of 'benchirt irt' or of a run, or decodIRT's ltm_item_params.csv.
RESPONSES.csv is read as 'benchirt irt' reads it (see 'benchirt irt --help'). Writes only
DIR/abilities.csv (respondent, theta, se, true_score)."""


class _Help(argparse.Action):
    """``-h``/``--help``: the scoring help after the word ``score`` (``benchirt irt score --help``), else the fit's."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        words = getattr(namespace, "responses", None) or []
        (score_parser() if words[:1] == [SCORE_WORD] else parser).print_help()
        parser.exit()


def _add_score_options(parser: argparse.ArgumentParser, scoring: bool = False) -> None:
    """The options scoring on frozen items reads (shared by the fit's parser and :func:`score_parser`, where ``--items``
    is required)."""
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    add_force_option(parser)
    parser.add_argument("--ability", metavar="{" + ",".join(ABILITY_METHODS) + "}", default="EAP",
                        help="ability estimator (default EAP)")
    parser.add_argument("--items", metavar="ITEMS.csv", required=scoring,
                        help="score the respondents against these frozen item parameters instead of fitting")
    parser.add_argument("--no-header", action="store_true",
                        help="RESPONSES.csv has no header row: its first row is a respondent; items are named V1..Vm")


def score_parser() -> argparse.ArgumentParser:
    """The parser ``benchirt irt score --help`` shows: only what scoring on frozen items reads."""
    parser = argparse.ArgumentParser(prog="benchirt irt score", description=SCORE_DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("responses", metavar="RESPONSES.csv", help="respondents x items matrix of 0/1")
    _add_score_options(parser, scoring=True)
    return parser


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "irt",
        help="fit a 1PL/2PL/3PL model to a response matrix",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    parser.add_argument("-h", "--help", action=_Help, help="show this help message and exit (after 'score': the "
                                                            "scoring help)")
    parser.add_argument("responses", nargs="+", metavar="[score] RESPONSES.csv",
                        help="respondents x items matrix of 0/1; with the word 'score' first, score it on --items")
    _add_score_options(parser)
    # the values are checked by IRTConfig's declarations (irt.model, irt.scoring_model), in their words
    parser.add_argument("--model", metavar="{" + ",".join(MODELS) + "}", default="3PL",
                        help="item response model (default 3PL)")
    parser.add_argument("--scoring-model", metavar="{" + ",".join(("auto", *MODELS)) + "}", default="auto",
                        help="the model whose abilities and True-Scores score the respondents (auto: the 1PL, "
                             "or the item model with --compat decodirt)")
    parser.add_argument("--compat", choices=("decodirt",), default=None,
                        help="decodirt: decodIRT's free-sign model (negative discriminations, full start search) "
                             "instead of the monotone default")
    parser.add_argument(
        "--no-prior", action="store_true", help="plain marginal maximum likelihood (estimates held by bounds only)"
    )
    parser.add_argument("--max-iter", default=str(IRTConfig.max_iter), metavar="N",
                        help="EM step limit (default %(default)s)")
    parser.add_argument("--starts", default="auto", metavar="auto|N",
                        help="EM starts: 'auto' (monotone: the sum score; --compat decodirt: 7 candidates, up to 20 "
                             "where they disagree, hopping from the best optimum, then recombining the optima found) "
                             "or a number, "
                             "each climbed to its optimum (a deeper search; default auto)")
    parser.add_argument("--expanded-em", action="store_true",
                        help="parameter-expanded EM move on the ability scale before every EM cycle: fewer EM steps "
                             "per start, but the start search may end in another optimum (docs/irt.md; on by default "
                             "for the monotone model, off for --compat decodirt)")
    parser.add_argument("--quadrature", default="auto", metavar="auto|N",
                        help="calibration grid: 'auto' (41 nodes, doubled while doubling changes the log posterior "
                             "at the first start's optimum by more than 0.05; docs/irt.md) or N nodes, fixed "
                             "(default auto)")
    parser.add_argument("--compare-models", action="store_true",
                        help="also fit the other two of 1PL/2PL/3PL; write model_comparison.csv (log-likelihood, "
                             "AIC, BIC) and print it")
    parser.add_argument("--plots", action="store_true", help="also write the PNG figures")
    parser.set_defaults(func=run)


def _responses_argument(args: argparse.Namespace) -> tuple[str, bool]:
    """The response file and whether to score it on frozen items (``score`` word or ``--items``)."""
    words = args.responses
    if len(words) == 2 and words[0] == SCORE_WORD:
        if not args.items:
            raise ConfigError("benchirt irt score needs --items ITEMS.csv: the frozen item parameters to score against")
        return words[1], True
    if len(words) == 1:
        return words[0], bool(args.items)
    raise ConfigError(
        f"benchirt irt takes one RESPONSES.csv (or 'score RESPONSES.csv --items ITEMS.csv'), got: {' '.join(words)}"
    )


def run(args: argparse.Namespace) -> int:
    from benchirt.io import atomic_write_csv, atomic_write_json
    from benchirt.irt.compare import compare_models
    from benchirt.irt.estimation import fit_irt
    from benchirt.irt.itemfit import MISFIT_ABOVE, item_fit
    from benchirt.irt.matrix_file import read_responses_csv
    from benchirt.irt.scorer import fit_scoring_model, with_ranking_slopes

    family = "decodirt" if args.compat == "decodirt" else "monotone"
    grid = {} if args.quadrature == "auto" else {"quadrature": args.quadrature}  # N nodes: fixed, not refined
    config = IRTConfig(model=args.model, model_family=family, scoring_model=args.scoring_model,
                       prior=not args.no_prior, ability=args.ability, expanded_em=True if args.expanded_em else "auto",
                       refine_quadrature=not grid,
                       **from_arguments(IRTConfig.OPTIONS, {"max_iter": args.max_iter, "starts": args.starts, **grid}))
    responses_path, scoring = _responses_argument(args)
    refuse_foreign_out(args.out, "irt", force=args.force, writes=WRITES)
    responses = read_responses_csv(responses_path, header=not args.no_header)
    if scoring:
        return _score(args, responses_path, responses, config)
    try:
        fit = fit_irt(responses, config=config)
        scorer = fit_scoring_model(responses, fit)
        fit = with_ranking_slopes(fit, scorer, responses)
        comparison = compare_models(responses, config=config, fitted=(fit, scorer)) if args.compare_models else None
    except DataError as exc:
        raise DataError(f"{responses_path}: {exc}") from None
    table = scorer.ability_table(responses, method=config.ability)
    item_theta = table if scorer is fit else fit.ability_table(responses, method=config.ability)
    fit_table = item_fit(fit, responses, theta=item_theta["theta"].to_numpy())
    out = claim_out(args.out, "irt", force=args.force, writes=WRITES)
    atomic_write_csv(out / "items.csv", fit.items.join(fit_table).reset_index())
    atomic_write_csv(out / "abilities.csv", table.reset_index())
    if scorer is not fit:  # the frozen items new respondents are scored on (benchirt irt score)
        atomic_write_csv(out / "scoring_items.csv", scorer.items.reset_index())
    record = _fit_record(fit, scorer, config, responses_path)
    mismatch = record.get("default_model_check", {}).get("warning")
    atomic_write_json(out / "fit.json", record)
    if args.plots:
        _write_plots(fit, responses, out)
    state = "converged" if fit.converged else "did NOT converge (stopped at the iteration limit)"
    runs = record["start_runs"]
    print(
        f"{fit.model}: {fit.n_respondents} respondents x {fit.n_items} items, {state} in {fit.n_iter} EM steps "
        f"({fit.seconds:.2f} s), log-likelihood {fit.log_likelihood:.2f}; "
        f"{record['n_flagged']} items without information, {record['n_at_bound']} at a bound"
    )
    if scorer is not fit:
        print(f"abilities and True-Scores from the {scorer.model} ({scorer.status}; its items in scoring_items.csv): "
              f"monotone in the number correct (docs/irt.md, \"Which model scores, and why\")")
    optima = "; ".join(f"{o['log_posterior']:.2f}" for o in record["optima"])
    print(f"best of {len(runs)} EM start(s) ({record['starts']}); {record['n_optima']} distinct optima "
          f"(log posterior {optima}); {record['n_local_optima']} start(s) ended in a local optimum")
    print(f"quadrature: {fit.quadrature_nodes} nodes; doubling them changes the log posterior at the optimum by "
          f"{fit.quadrature_error:.3g}")
    print(f"{int(fit_table['misfit'].sum())} item(s) misfit (infit or outfit above {MISFIT_ABOVE})")
    if mismatch:
        print(f"WARNING: {mismatch}")
    if comparison is not None:
        atomic_write_csv(out / "model_comparison.csv", comparison)
        print(comparison.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"wrote {out}")
    return 0


def _fit_record(fit, scorer, config: IRTConfig, responses_path: str) -> dict:
    """fit.json: the fit's convergence record, the scoring model, the item summary and, for the default family, whether
    it fits (:func:`benchirt.irt.summary.default_model_check`, with its warning line or None)."""
    from benchirt.irt.summary import default_model_check, default_model_sentence, item_summary

    record = fit.convergence()
    record["scoring_model"] = scorer.model
    record["scoring_converged"] = scorer.converged
    record["summary"] = item_summary(fit.items, config=config)
    check = default_model_check(fit.items, config)
    if check is not None:
        record["default_model_check"] = {**check, "warning": default_model_sentence(check)}
    record["ability"] = config.ability
    record["input"] = str(responses_path)
    return record


def _score(args: argparse.Namespace, responses_path: str, responses: pd.DataFrame, config: IRTConfig) -> int:
    """``score`` / ``--items``: θ, SE and True-Score against frozen items (no refit)."""
    from benchirt.io import atomic_write_csv
    from benchirt.irt.scoring import read_items, score_frozen

    items = read_items(args.items)
    try:
        table = score_frozen(items, responses, method=config.ability, config=config)
    except DataError as exc:
        raise DataError(f"{responses_path}: {exc}") from None
    out = claim_out(args.out, "irt", force=args.force, writes=WRITES)
    atomic_write_csv(out / "abilities.csv", table.reset_index())
    print(f"scored {len(table)} respondents on {len(items)} frozen items of {args.items} ({config.ability}; not refitted)")
    print(f"wrote {out / 'abilities.csv'}")
    return 0


def _write_plots(fit, responses: pd.DataFrame, out: Path) -> None:
    import matplotlib.pyplot as plt

    from benchirt.io import atomic_write_figure
    from benchirt.irt.plots import plot_classifier_curves, plot_item_curves, plot_parameter_histograms

    figures = {
        "icc.png": plot_item_curves(fit),
        "ccc_difficulty.png": plot_classifier_curves(fit, responses, by="difficulty"),
        "ccc_discrimination.png": plot_classifier_curves(fit, responses, by="discrimination"),
        "parameters.png": plot_parameter_histograms(fit),
    }
    for name, figure in figures.items():
        atomic_write_figure(out / name, figure, dpi=110)
        plt.close(figure)

"""``benchirt airt``: the AIRT analysis of a performance matrix or an ASlib scenario. Registering the sub-command
imports only argparse and the options layer; pandas and the analysis are imported when the command runs."""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from benchirt.airt.config import COMPAT_MODES, COMPAT_RANGES, POLYTOMOUS_MODES, TRANSFORMS, AIRTConfig
from benchirt.errors import ConfigError
from benchirt.io import atomic_write_csv, atomic_write_figure, atomic_write_json
from benchirt.options import choices_metavar, from_arguments
from benchirt.out_folder import add_force_option, claim_out, refuse_foreign_out

if TYPE_CHECKING:
    from benchirt.airt.analysis import AIRTResult

#: The options whose text is read as :attr:`AIRTConfig.OPTIONS` declares it (each ``dest`` is the field's name).
ARGUMENTS = ("epsilon", "epsilons", "logit_epsilon", "spline_lam", "compat", "compat_range", "polytomous",
             "polytomous_levels")

#: What the command may write into --out (a file of such a name that it did not write is never replaced).
WRITES = ("algorithms.csv", "datasets.csv", "goodness.csv", "latent_curves.csv", "strengths.csv", "portfolio.csv",
          "predicted.csv", "polytomous.csv", "fit.json", "plots")

DESCRIPTION = """\
Algorithmic IRT (AIRT, Kandanaarachchi & Smith-Miles): datasets/problem instances are the respondents,
algorithms the items of a continuous IRT model. Reports per algorithm the anomalous indicator, consistency
and difficulty limit, per dataset its difficulty, the latent trait curves with strengths and weaknesses,
the airt portfolio and the model goodness (MSE, AUCDF, AUAEC, AUPEC).

Input: PERF.csv with one row per dataset (first column = name) and one column per algorithm, higher is
better, in [0, 1] — or use --lower-is-better / --rescale for runtimes, PAR10 or other scales (one min-max
scaling over the whole matrix, Kandanaarachchi & Smith-Miles 2023 §5.2) — or an ASlib scenario folder with --aslib.
An empty cell is an algorithm not run on a dataset: the fit reads the observed cells (not with --compat airt-r).

Writes to --out: algorithms.csv, datasets.csv, goodness.csv, latent_curves.csv, strengths.csv,
portfolio.csv, predicted.csv, fit.json, with --polytomous polytomous.csv, and with --plots the figures in
plots/. --compat airt-r uses the R package airt's estimator (the published AIRT numbers; docs/airt.md).
"""


def register(subparsers) -> None:
    """Add the ``airt`` sub-command."""
    parser = subparsers.add_parser("airt", help="AIRT: evaluate a portfolio of algorithms over many datasets",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("perf", nargs="?", metavar="PERF.csv", help="performance matrix (rows datasets)")
    parser.add_argument("--aslib", metavar="SCENARIO_DIR", help="read an ASlib scenario folder instead of PERF.csv")
    parser.add_argument("--measure", help="ASlib performance measure (default: the scenario's first)")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    add_force_option(parser)
    parser.add_argument("--lower-is-better", "--minimize", dest="lower_is_better", action="store_true",
                        help="smaller values are better (runtimes, PAR10, errors); implies --rescale")
    parser.add_argument("--rescale", action="store_true",
                        help="min-max scale the whole matrix to [0, 1] (needed for values outside [0, 1])")
    parser.add_argument("--transform", choices=TRANSFORMS, default="linear",
                        help="with rescaling: 'log' scales log10(x + 1) instead of x (heavy-tailed runtimes)")
    # the values are read and checked by AIRTConfig's declarations (airt.<option>: got …, expected …)
    defaults, declared = AIRTConfig(), AIRTConfig.OPTIONS
    parser.add_argument("--epsilon", metavar="E",
                        help="epsilon of the strengths/weaknesses and LTO columns: "
                             f"{declared['epsilon'].describe()} (default {defaults.epsilon})")
    parser.add_argument("--epsilons", metavar="E1,E2,...",
                        help=f"epsilons of the airt portfolio table: {declared['epsilons'].describe()} (default "
                             f"{','.join(f'{e:g}' for e in defaults.epsilons)})")
    parser.add_argument("--logit-epsilon", metavar="E",
                        help=f"performances are clipped to [e, 1-e] before the logit, e {declared['logit_epsilon'].describe()} (default "
                             f"{defaults.logit_epsilon})")
    parser.add_argument("--spline-lam", metavar="LAMBDA",
                        help="fixed smoothing parameter of the latent trait curves, "
                             f"{declared['spline_lam'].expected()} (default: GCV)")
    parser.add_argument("--compat", metavar=choices_metavar(mode for mode in COMPAT_MODES if mode),
                        help="airt-r: the R package airt's estimator, which reproduces the published AIRT numbers "
                             "(default: benchirt's converged estimator; docs/airt.md lists the differences)")
    parser.add_argument("--compat-range", metavar=choices_metavar(COMPAT_RANGES),
                        help="with --compat airt-r: the scale airt's min.item/max.item describe, 'unit' ([0, 1], "
                             "the package's defaults, its vignette) or 'data' (the matrix's extremes, as the AIRT "
                             f"paper's scripts, its Table 4) (default {defaults.compat_range})")
    parser.add_argument("--polytomous", metavar=choices_metavar(POLYTOMOUS_MODES),
                        help="also fit a polytomous model to quantile levels of the performances: 'grm' (graded "
                             "response) or 'gpcm' (generalized partial credit, as R airt); writes polytomous.csv")
    parser.add_argument("--polytomous-levels", metavar="N",
                        help=f"number of quantile levels of --polytomous, {declared['polytomous_levels'].describe()} "
                             f"(default {defaults.polytomous_levels})")
    parser.add_argument("--plots", action="store_true", help="also write the figures (PNG) to DIR/plots/")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read the input, fit AIRT, write the tables (and figures); returns the exit code."""
    from benchirt.airt.analysis import fit_airt
    from benchirt.airt.aslib import load_aslib, load_performance

    if (args.perf is None) == (args.aslib is None):
        raise ConfigError("give either PERF.csv or --aslib SCENARIO_DIR (exactly one)")
    config = AIRTConfig(**from_arguments(AIRTConfig.OPTIONS, {key: getattr(args, key) for key in ARGUMENTS}))
    refuse_foreign_out(args.out, "airt", force=args.force, writes=WRITES)
    input_notes: list[str] = []
    if args.aslib is not None:
        scenario = load_aslib(args.aslib, measure=args.measure, transform=args.transform)
        perf, source = scenario.performance, {"aslib": str(args.aslib), "scenario": scenario.name,
                                              "measure": scenario.measure}
        input_notes += scenario.notes
    else:
        perf = load_performance(args.perf, maximize=not args.lower_is_better, rescale=args.rescale,
                                transform=args.transform, missing=config.compat is None)
        source = {"perf": str(args.perf)}
        if args.lower_is_better or args.rescale:
            input_notes.append(f"min-max scaled to [0, 1] over the whole matrix "
                               f"({'lower is better' if args.lower_is_better else 'higher is better'}, "
                               f"transform {args.transform})")
    result = fit_airt(perf, config=config)
    write_result(result, claim_out(args.out, "airt", force=args.force, writes=WRITES), source=source, input_notes=input_notes, plots=args.plots)
    print(result.summary())
    for note in input_notes:
        print(f"input: {note}")
    print(f"written to {args.out}")
    return 0


def write_result(result: AIRTResult, out: Path, *, source: dict | None = None,
                 input_notes: list[str] | None = None, plots: bool = False) -> None:
    """Write the tables of an AIRT result to ``out`` atomically (and the figures to ``out/plots``): ``algorithms.csv``,
    ``datasets.csv``, ``goodness.csv``, ``latent_curves.csv`` (difficulty, algorithm, performance), ``strengths.csv``
    (epsilon, kind, algorithm, start, end), ``portfolio.csv`` (epsilon, rank, algorithm, lto), ``predicted.csv``
    (datasets x algorithms) and ``fit.json`` (converged, n_iter, log_likelihood, seconds, sizes, config, notes,
    source)."""
    import pandas as pd

    config = result.config
    atomic_write_csv(out / "algorithms.csv", result.algorithms)
    atomic_write_csv(out / "datasets.csv", result.datasets)
    atomic_write_csv(out / "goodness.csv", result.goodness)
    atomic_write_csv(out / "latent_curves.csv", result.latent.curves_long())
    epsilons = sorted(set(config.epsilons) | {config.epsilon})
    atomic_write_csv(out / "strengths.csv", pd.concat([result.latent.intervals(e) for e in epsilons],
                                                      ignore_index=True))
    atomic_write_csv(out / "portfolio.csv", result.portfolio_table())
    atomic_write_csv(out / "predicted.csv", result.predicted.rename_axis("dataset"), index=True)
    if result.polytomous is not None:
        atomic_write_csv(out / "polytomous.csv", result.polytomous)
    fit = result.fit
    atomic_write_json(out / "fit.json", {
        "model": "continuous response model (Samejima), Shojima EM with negative discrimination",
        "compat": config.compat,
        "converged": bool(fit.converged), "n_iter": int(fit.n_iter), "log_likelihood": float(fit.log_likelihood),
        "seconds": float(result.seconds), "n_datasets": int(result.performance.shape[0]),
        "n_algorithms": int(result.performance.shape[1]), "config": dataclasses.asdict(config),
        "notes": list(result.notes), "input_notes": list(input_notes or []), "source": source or {},
    })
    if plots:
        import matplotlib.pyplot as plt  # matplotlib only when figures are asked for

        from benchirt.airt.plots import STANDARD_PLOTS

        for stem, plot in STANDARD_PLOTS.items():
            figure = plot(result)
            atomic_write_figure(out / "plots" / f"{stem}.png", figure, dpi=110)
            plt.close(figure)

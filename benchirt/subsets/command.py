"""``benchirt subset SUMMARIES SCORES --out DIR``: IRT-filtered benchmark subsets, evaluated and exported.

Registering the sub-command imports only argparse and the options layer (``benchirt subset --help``
stays light); pandas and the stage are imported by the functions that use them.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from benchirt.errors import DataError
from benchirt.io import atomic_write_csv, atomic_write_figure, atomic_write_json, atomic_write_text
from benchirt.options import choices_metavar, from_arguments
from benchirt.out_folder import add_force_option, claim_out, refuse_foreign_out
from benchirt.rating.config import RatingConfig
from benchirt.subsets.config import RULES, SubsetConfig

if TYPE_CHECKING:
    import pandas as pd

    from benchirt.data.spec import DatasetSpec
    from benchirt.subsets.evaluation import SubsetEvaluation

#: The command's defaults are the options' (one source: :class:`SubsetConfig`).
DEFAULTS = SubsetConfig()
#: What the command may write into --out (a file of such a name that it did not write is never replaced).
WRITES = ("suites", "subsets.json", "published.json", "summary.txt", *(f"{stem}.csv" for stem in (
    "membership", "ratings", "parameters", "reliability", "fidelity", "random_draws", "innate", "leaders",
    "characterization", "metadata_summary", "rule_comparison")), "*.png")
#: The options whose text is read as :attr:`SubsetConfig.OPTIONS` declares it (each ``dest`` is the field's name).
ARGUMENTS = ("cuts", "rule", "n_random", "n_permutations", "seed")

DESCRIPTION = """\
Choose benchmark subsets from the IRT item summaries of each dataset (Cardoso et al. 2021 §4.6, §5.4) and
measure them: the Glicko-2 ranking on each subset (single order and over random orders), the
item-parameter balance (Table 5), RD/volatility spread (Table 6), the fidelity of each subset's
ranking to the full suite against random subsets of the same size, the innate-ability verdict,
and — with --metadata — the dataset characterisation (Tables 7-9).

SUMMARIES is a CSV with one row per dataset: a 'dataset' column and pct_discrimination_gt,
pct_difficulty_gt (and pct_guessing_gt) in percent; or a folder with one sub-folder per dataset
holding item parameters — items.csv as 'benchirt irt' writes it, or decodIRT's
ltm_item_params.csv — summarised with the thresholds of Cardoso et al. 2021 §4.5 (a > 0.75, b > 1, c > 0.2).
SCORES is what 'benchirt rate' reads: a folder of <dataset>/true_scores.csv (Clf,Score) or a long
CSV dataset,classifier,score.

Rules: budget (default): the cheapest datasets that keep the full suite's verdict, a cut of p%
spending p% of the suite's training CPU (from the datasets' shapes in --metadata; without it every
dataset counts 1), measured against cheapest-first, top-10 spread, farthest-first and random subsets
of equal cost on held-out classifiers (rule_comparison.csv). decodirt (decodIRT's: half the cut from
the most discriminating datasets, the rest from the most difficult ones not yet chosen),
discrimination, difficulty, guessing: a cut of p% keeps ceil(p/100 * N) datasets; ties go to the
dataset name.

Roles: --roles CSV (classifier,role with role real|artificial|ladder), or --artificial NAMES;
by default benchirt's artificial names (optimal, pessimal, majority, minority, random1-3, and
decodIRT's otimo, pessimo, majoritario, minoritario, rand1-3) are artificial, mlp_epoch_* are
the ladder and every other classifier is real.

Suite files: --suite names the full suite as 'benchirt run' takes it (cc18-offline, a folder, a
suite file, OpenML-CC18, ...) so that each subset is written with its members' sources; --ids
adds OpenML dataset/task ids by name (CSV with name/dataset and openml_id/openml_did, task_id).
A subset whose datasets have neither is listed in subsets.json but gets no suite file.

Writes DIR/subsets.json, DIR/suites/<subset>.yaml (suite files 'benchirt run' accepts), the tables membership.csv, ratings.csv, parameters.csv,
reliability.csv, fidelity.csv, random_draws.csv, innate.csv, leaders.csv (+ characterization.csv,
metadata_summary.csv, rule_comparison.csv), summary.txt and the figures fidelity.png, ratings.png,
parameter_balance.png, innate.png. --publish creates one OpenML benchmark suite per subset
(API key from $OPENML_APIKEY or openml's config; never written or printed) and writes
DIR/published.json."""

EPILOG = """\
example:
  benchirt subset ../shared/data/decodirt-reference ../shared/data/decodirt-reference \\
      --cuts 30,50,70 --rule decodirt --random 200 --out runs/subsets
  benchirt subset summaries.csv scores.csv --suite cc18-offline --cuts 50 --publish \\
      --out runs/subsets50"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "subset", help="IRT-filtered benchmark subsets: build, evaluate against chance, export/publish",
        description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("summaries", metavar="SUMMARIES",
                        help="CSV of per-dataset IRT summaries, or a folder of <dataset>/items.csv")
    parser.add_argument("scores", metavar="SCORES", help="folder of <dataset>/true_scores.csv or a long CSV")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    add_force_option(parser)
    cuts = ",".join(f"{cut:g}" for cut in DEFAULTS.cuts)
    # the values are read and checked by SubsetConfig's declarations (subset.<option>: got …, expected …)
    parser.add_argument("--cuts", metavar="P,P,...",
                        help=f"percentages of the suite to keep, each in (0, 100] (default {cuts})")
    parser.add_argument("--rule", metavar=choices_metavar(RULES), help=f"selection rule (default {DEFAULTS.rule})")
    parser.add_argument("--random", dest="n_random", metavar="N",
                        help="random subsets per size for the fidelity-vs-chance comparison "
                             f"(default {DEFAULTS.n_random}; 0 = off)")
    parser.add_argument("--permutations", dest="n_permutations", metavar="N",
                        help=f"random dataset orders for the order-robust ranking (default {DEFAULTS.n_permutations}; "
                             "0 = off)")
    parser.add_argument("--seed", metavar="SEED",
                        help=f"seed of the random subsets and orders (default {DEFAULTS.seed})")
    parser.add_argument("--score", default=RatingConfig().score, metavar="NAME",
                        help=f"score deciding the matches (as in 'benchirt rate'; default {RatingConfig().score})")
    parser.add_argument("--roles", metavar="CSV", help="classifier,role table (role: real, artificial or ladder)")
    parser.add_argument("--artificial", metavar="NAMES",
                        help="comma-separated artificial classifiers (every other one is real)")
    parser.add_argument("--metadata", metavar="CSV",
                        help="dataset metadata (dataset + Dataset.metadata() columns) for Tables 7-9")
    parser.add_argument("--suite", metavar="SPEC",
                        help="the full suite as 'benchirt run' takes it, for the subsets' suite files")
    parser.add_argument("--ids", metavar="FILE",
                        help="dataset names with OpenML ids: CSV (name/dataset, openml_id/openml_did, task_id) "
                             "or a suite file")
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml", help="suite file format (default yaml)")
    parser.add_argument("--no-plots", action="store_true", help="do not write the PNG figures")
    parser.add_argument("--publish", action="store_true",
                        help="publish every subset as an OpenML benchmark suite (needs ids and an API key)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchirt.rating.scores import read_scores
    from benchirt.subsets.evaluation import evaluate_subsets
    from benchirt.subsets.export import publish_suite, read_dataset_ids, subset_specs
    from benchirt.subsets.budget import real_matrix
    from benchirt.subsets.held_out import compare_rules

    config = SubsetConfig(**from_arguments(SubsetConfig.OPTIONS, {key: getattr(args, key) for key in ARGUMENTS}))
    rating = RatingConfig(score=args.score)
    refuse_foreign_out(args.out, "subset", force=args.force, writes=WRITES)
    summaries = read_summaries(args.summaries)
    scores = read_scores(args.scores, score=rating.score)
    roles = (read_roles(args.roles) if args.roles
             else default_roles(scores["classifier"].unique(), artificial=args.artificial))
    metadata = _read_table(args.metadata, "dataset metadata") if args.metadata else None
    ids = read_dataset_ids(args.ids) if args.ids else None
    suite = None
    if args.suite:
        from benchirt.data import resolve_suite

        suite = resolve_suite(args.suite)

    subsets, notes = choose(scores, summaries, metadata, roles, config, rating)
    evaluation = evaluate_subsets(subsets, scores, summaries, metadata=metadata, roles=roles, config=config,
                                  rating_config=rating)
    evaluation.notes.extend(notes)
    if config.rule == "budget":
        evaluation.rule_comparison = compare_rules(
            real_matrix(scores, roles.index[roles == "real"]), _costs(metadata), None,
            [cut / 100.0 for cut in config.cuts],
            n_random=config.n_random, n_tables=rating.n_bootstrap, alpha=rating.alpha, seed=rating.seed)
    out = claim_out(args.out, "subset", force=args.force, writes=WRITES)
    unexported = write_outputs(evaluation, out, suite=suite, ids=ids, suite_format=args.format,
                               plots=not args.no_plots)
    print(evaluation.summary())
    for name, missing in unexported.items():
        print(f"benchirt subset: no suite file for {name}: no source for {', '.join(missing[:5])}"
              f"{' ...' if len(missing) > 5 else ''} (give --suite or --ids)", file=sys.stderr)
    if args.publish:
        published = {}
        for name, datasets in evaluation.subsets.items():
            specs, missing = subset_specs(datasets, suite=suite, ids=ids)
            if missing:
                raise DataError(f"cannot publish {name}: dataset(s) {', '.join(missing)} have no OpenML id "
                                "(give --suite or --ids)")
            published[name] = publish_suite(name, specs, description=_description(name, evaluation))
        atomic_write_json(out / "published.json", published)
        for name, suite_id in published.items():
            print(f"published {name} as OpenML suite {suite_id}")
    print(f"wrote {out}")
    return 0


def choose(scores: pd.DataFrame, summaries: pd.DataFrame, metadata: pd.DataFrame | None, roles: pd.Series,
           config: SubsetConfig, rating: RatingConfig) -> tuple[dict[str, list[str]], list[str]]:
    """The subsets of ``config.rule`` and the notes on how they were chosen: the budget rule from the real
    classifiers' scores and the costs of the datasets' shapes in ``metadata`` (counts without), decodIRT's rules
    from the IRT summaries."""
    from benchirt.subsets.budget import budget_subsets, real_matrix
    from benchirt.subsets.selection import build_subsets

    if config.rule != "budget":
        return build_subsets(summaries, cuts=config.cuts, rule=config.rule), []
    return budget_subsets(real_matrix(scores, roles.index[roles == "real"]), _costs(metadata), config.cuts,
                          n_tables=rating.n_bootstrap,
                          alpha=rating.alpha, seed=rating.seed)


def _costs(metadata: pd.DataFrame | None) -> pd.Series:
    """Each dataset's training cost from its shape in ``metadata`` (empty without: the budget rule then counts)."""
    import pandas as pd  # noqa: F811  (lazy: the sub-command's registration stays light)

    from benchirt.subsets.costs import training_costs

    if metadata is None:
        return pd.Series(dtype=float)
    frame = metadata.set_index("dataset") if "dataset" in metadata.columns else metadata
    return training_costs({str(name): row.to_dict() for name, row in frame.iterrows()})


def write_outputs(
    evaluation: SubsetEvaluation,
    out: str | Path,
    *, suite: Iterable[DatasetSpec] | None = None,
    ids: pd.DataFrame | None = None,
    suite_format: str = "yaml",
    plots: bool = True,
) -> dict[str, list[str]]:
    """Write subsets, suite files, tables, summary and figures into ``out`` (created when missing; each file
    atomically).

    ``suite``, ``ids``: sources of the members for the suite files (:func:`benchirt.subsets.export.subset_specs`);
    ``suite_format``: ``"yaml"`` or ``"json"``; ``plots``: also write the PNG figures. Returns ``{subset: [datasets
    without a source]}`` for the subsets that got no suite file.
    """
    from benchirt.subsets.export import export_suite, subset_specs

    out = Path(out)
    suite = list(suite or [])
    unexported = {}
    for name, datasets in evaluation.subsets.items():
        specs, missing = subset_specs(datasets, suite=suite, ids=ids)
        if missing:
            unexported[name] = missing
        else:
            export_suite(name, specs, out / "suites" / f"{name}.{suite_format}",
                         description=_description(name, evaluation))
    atomic_write_json(out / "subsets.json", {
        "config": evaluation.config.to_dict(),
        "subsets": evaluation.subsets,
        "without_suite_file": unexported,
    })
    for stem, frame in evaluation.to_frames().items():
        atomic_write_csv(out / f"{stem}.csv", frame)
    atomic_write_text(out / "summary.txt", evaluation.summary() + "\n")
    if plots:
        from benchirt.subsets.plots import all_figures

        for stem, figure in all_figures(evaluation).items():
            atomic_write_figure(out / f"{stem}.png", figure, dpi=120)
    return unexported


def default_roles(classifiers, *, artificial: str | None = None) -> pd.Series:
    """Roles from names: ``--artificial`` if given; else names in :data:`benchirt.pool.ARTIFICIAL_NAMES` (directly or
    through :data:`benchirt.pool.DECODIRT_NAMES`) are artificial, ``mlp_epoch_*`` the ladder, the rest real."""
    import pandas as pd

    from benchirt.pool import ARTIFICIAL_NAMES, DECODIRT_NAMES

    if artificial is not None:
        chosen = {name.strip() for name in artificial.split(",") if name.strip()}
        return pd.Series({c: "artificial" if c in chosen else "real" for c in classifiers}, dtype=object)

    def role(name: str) -> str:
        if DECODIRT_NAMES.get(name, name) in ARTIFICIAL_NAMES:
            return "artificial"
        return "ladder" if name.startswith("mlp_epoch_") else "real"

    return pd.Series({c: role(c) for c in classifiers}, dtype=object)


def read_roles(path: str | Path) -> pd.Series:
    """A ``classifier,role`` CSV as a Series (index = classifier)."""
    import pandas as pd

    frame = _read_table(path, "classifier roles")
    missing = [c for c in ("classifier", "role") if c not in frame.columns]
    if missing:
        raise DataError(f"{path}: the roles table needs the columns classifier, role; missing {', '.join(missing)}")
    bad = sorted(set(frame["role"]) - {"real", "artificial", "ladder"})
    if bad:
        raise DataError(f"{path}: unknown role(s) {', '.join(map(str, bad))}; use real, artificial or ladder")
    return pd.Series(frame["role"].to_numpy(), index=frame["classifier"].astype(str), dtype=object)


#: Item-parameter files of a dataset folder, with their columns for discrimination, difficulty, guessing.
ITEM_FILES = {
    "items.csv": ("discrimination", "difficulty", "guessing"),
    "ltm_item_params.csv": ("Discriminacao", "Dificuldade", "Adivinhacao"),
}


def read_summaries(path: str | Path) -> pd.DataFrame:
    """Per-dataset IRT summaries (``dataset`` and the ``pct_*`` columns) from a CSV, or computed from a folder of
    per-dataset item tables.

    A folder holds one sub-folder per dataset with ``items.csv`` (``benchirt irt``) or decodIRT's
    ``ltm_item_params.csv``, each summarised by :func:`benchirt.irt.summary.item_summary` with the default thresholds of
    :class:`benchirt.irt.IRTConfig` (Cardoso et al. 2021 §4.5). The share of negative discriminations reads
    ``ability_slope`` where the table has it (benchirt's monotone items), as a run's summary does; decodIRT's free-sign
    discriminations otherwise.
    """
    import pandas as pd

    path = Path(path)
    if not path.is_dir():
        return _read_table(path, "IRT summaries")
    from benchirt.irt.summary import item_summary

    rows = []
    for folder in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
        found = next((f for f in ITEM_FILES if (folder / f).is_file()), None)
        if found is None:
            raise DataError(f"{folder} holds no item table ({' or '.join(ITEM_FILES)}); remove it or add one")
        table = _read_table(folder / found, "item parameters")
        columns = ITEM_FILES[found]
        missing = [c for c in columns if c not in table.columns]
        if missing:
            raise DataError(f"{folder / found} lacks column(s) {', '.join(missing)}")
        items = table[list(columns)].set_axis(["discrimination", "difficulty", "guessing"], axis=1)
        items["flag"] = table["flag"].fillna("") if "flag" in table.columns else ""
        if "ability_slope" in table.columns:   # benchirt's items: falling items by the ability that ranks, as a run
            items["ability_slope"] = table["ability_slope"].to_numpy()
        rows.append({"dataset": folder.name, **item_summary(items)})
    if not rows:
        raise DataError(f"{path} holds no dataset folders with item tables")
    return pd.DataFrame(rows)


def _read_table(path: str | Path, what: str) -> pd.DataFrame:
    import pandas as pd

    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise DataError(f"{what} file not found: {path}") from None
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read {what} from {path}: {exc}") from None


def _description(name: str, evaluation: SubsetEvaluation) -> str:
    row = evaluation.fidelity.set_index("subset").loc[name]
    text = (
        f"{name}: {int(row['n_datasets'])} datasets chosen by benchirt's '{evaluation.config.rule}' rule from the "
        f"percentages of very discriminating / difficult items (IRT 3PL). Kendall tau of the real classifiers' "
        f"Glicko-2 order with the full suite: {row['kendall_tau']:.2f}"
    )
    if "kendall_tau_percentile" in row.index:
        text += f" (percentile {row['kendall_tau_percentile']:.0f} among random subsets of the same size)"
    return text + "."

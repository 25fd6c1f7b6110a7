"""Does the scoring model measure performance? Anchors, predictive validity and stability (issue 32).

Parts (each prints a Markdown table; docs/irt.md, "Which model scores, and why", summarises them; benchmarks/results/irt-scoring-model.md logs them):

``--part anchors``
    On decodIRT's 50 reference pools (``../shared/data/decodirt-reference``): the items are fitted on
    ``responses_pool.csv`` and the 19 reported classifiers of ``responses_reported.csv`` scored on them.
    Per scorer (``--families``: the default, 3PL items scored by the 1PL fitted from them; a model
    scoring with its own abilities; decodIRT's free-sign 3PL): the pools where ``otimo`` (always right) has the highest θ and True-Score, where
    ``pessimo`` (always wrong) has the lowest (ties with a classifier exactly as right or wrong count), and the pairs (i, j) with i right wherever j is right
    (i dominates j) that score i below j. decodIRT's published tables (``true_scores.csv``) are the
    baseline. ``--families default,3PL,decodirt`` adds decodIRT's free-sign search (about 15 CPU-minutes).
``--part predictive``
    Predictive validity: per pool, 20 random halves of the items; the ability estimated on one half
    (items calibrated on the pool's responses to that half) against the plain accuracy on that half, each
    as a predictor of the real classifiers' accuracy on the other half (Spearman; the 12 real classifiers
    of each reference pool; every respondent of a ``--matrix``). Per pool and pooled (the mean over pools of
    the mean over splits). IRT must not lose what accuracy knows.
``--part verdict``
    The leaderboard's primary verdict (``benchirt rate``) on the 50 pools scored by the default's True-Scores,
    by decodIRT's published ones and by test accuracy: pairs separated, among the real classifiers, and the
    always-right and always-wrong respondents' joint rank intervals.
``--part stability``
    The Iris study 59 matrix (4,432 real OpenML runs): the runs chosen per flow by each ``--per-flow``
    rule of ``benchirt import-runs`` (best, median, first, best-held-out; runs below 35 % accuracy
    dropped); the top 10 flows by θ and by accuracy under each rule, and how many flows the top 10 of
    two rules share (mean and range over the rule pairs).

    nice -n 10 python benchmarks/irt_validity.py --part anchors
    nice -n 10 python benchmarks/irt_validity.py --part anchors --run runs/default     # a run's stored scores
    nice -n 10 python benchmarks/irt_validity.py --part predictive [--splits 20] [--models default,3PL,2PL,1PL]
    nice -n 10 python benchmarks/irt_validity.py --part predictive --matrix FILE.csv   # any respondents x items
    nice -n 10 python benchmarks/irt_validity.py --part predictive --iris              # the stored-run Iris matrix
    nice -n 10 python benchmarks/irt_validity.py --part predictive --run runs/default  # the embedded suite
    nice -n 10 python benchmarks/irt_validity.py --part stability
    nice -n 10 python benchmarks/irt_validity.py --part verdict [--permutations 1000]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from benchirt.irt import IRTConfig, fit_irt

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BENCHIRT_SHARED_DATA", ROOT.parent / "shared" / "data"))
REFERENCE = SHARED / "decodirt-reference"
IRIS = SHARED / "openml-runs" / "iris-matrices" / "results_Iris_Study59_4432x150.csv"
#: decodIRT's reported classifiers: the first 12 rows of ``responses_reported.csv`` are the real ones.
N_REAL = 12


#: The scorers compared: the default (3PL items, abilities from the 1PL fitted from them), one model
#: scoring with its own abilities (monotone family), and decodIRT's free-sign 3PL.
SCORERS = {"default": {}, "3PL": {"scoring_model": "3PL"}, "2PL": {"model": "2PL", "scoring_model": "2PL"},
           "1PL": {"model": "1PL", "scoring_model": "1PL"}, "decodirt": {"model_family": "decodirt"}}


def scorer_fit(responses: pd.DataFrame, scorer: str):
    """The fit whose abilities score respondents under ``scorer`` (a key of :data:`SCORERS`)."""
    from benchirt.irt.scorer import fit_scoring_model
    return fit_scoring_model(responses, fit_irt(responses, config=IRTConfig(**SCORERS[scorer])))


def _pools() -> list[Path]:
    return sorted(p for p in REFERENCE.iterdir() if p.is_dir())


def _reported(folder: Path) -> pd.DataFrame:
    """The 19 reported classifiers' answers, named (rows in ``test_accuracy.csv``'s order)."""
    names = pd.read_csv(folder / "test_accuracy.csv").iloc[:, 0].astype(str).tolist()
    reported = pd.read_csv(folder / "responses_reported.csv")
    return reported.set_axis(names, axis=0)


def _dominance_violations(answers: np.ndarray, score: np.ndarray, slack: float = 1e-6) -> int:
    """Pairs (i, j), i right wherever j is right and i != j in answers, with score_i < score_j."""
    dominates = (answers[:, None, :] >= answers[None, :, :]).all(axis=2)
    different = (answers[:, None, :] != answers[None, :, :]).any(axis=2)
    i, j = np.nonzero(dominates & different)
    return int((score[i] < score[j] - slack).sum())


def _anchor_row(scores: pd.Series, answers: pd.DataFrame) -> dict:
    # ties are ties: a real classifier as right as the optimal one may share the top
    return {"optimal_top": scores["otimo"] >= scores.max() - 1e-9, "pessimal_bottom": scores["pessimo"] <= scores.min() + 1e-9,
            "violations": _dominance_violations(answers.loc[scores.index].to_numpy(), scores.to_numpy())}


def part_anchors(families: list[str]) -> None:
    rows = []
    for folder in _pools():
        reported = _reported(folder)
        published = pd.read_csv(folder / "true_scores.csv").set_index("Clf")["Score"]
        rows.append({"pool": folder.name, "model": "decodIRT's published True-Score",
                     **_anchor_row(published.reindex(reported.index).dropna(), reported)})
        pool = pd.read_csv(folder / "responses_pool.csv")
        for scorer in families:
            start = time.process_time()
            table = scorer_fit(pool, scorer).ability_table(reported)
            cpu = time.process_time() - start
            for column in ("theta", "true_score"):
                rows.append({"pool": folder.name, "model": f"{scorer} {column}", "cpu_s": cpu,
                             **_anchor_row(table[column], reported)})
        print(f"{folder.name} done", flush=True)
    frame = pd.DataFrame(rows)
    summary = frame.groupby("model", sort=False).agg(
        pools=("pool", "size"), optimal_highest=("optimal_top", "sum"), pessimal_lowest=("pessimal_bottom", "sum"),
        pools_with_violations=("violations", lambda v: int((v > 0).sum())), violations=("violations", "sum"))
    print("\n## Anchors on the 50 reference pools\n")
    print(summary.reset_index().to_markdown(index=False))


def _split_validity(matrix: pd.DataFrame, real: pd.DataFrame, scorer: str, splits: int,
                    seed: int = 0) -> dict:
    """Mean Spearman over ``splits`` random item halves of (θ on half A, accuracy on half B) and of
    (accuracy on half A, accuracy on half B) for the respondents of ``real``; the items are calibrated on
    ``matrix``'s answers to half A."""
    rng = np.random.default_rng(seed)
    items = np.asarray(matrix.columns)
    irt, plain = [], []
    for _ in range(splits):
        order = rng.permutation(len(items))
        first, second = items[order[: len(items) // 2]], items[order[len(items) // 2:]]
        held_out = real[second].mean(axis=1)
        if held_out.nunique() < 2:
            continue
        fit = scorer_fit(matrix[first], scorer)
        # ties are ties: equal answers scored a rounding error apart must not be ranked apart
        theta = fit.ability_table(real[first])["theta"].round(9)
        irt.append(spearmanr(theta, held_out)[0])
        plain.append(spearmanr(real[first].mean(axis=1), held_out)[0])
    return {"splits": len(irt), "irt": float(np.nanmean(irt)), "accuracy": float(np.nanmean(plain))}


def _run_sources(run_dir: Path) -> list[tuple[str, pd.DataFrame, pd.DataFrame]]:
    """Per dataset of a finished benchirt run: the calibration respondents' answers (the MLP ladder and the
    real classifiers, as the irt stage calibrates) and the real classifiers'."""
    from benchirt.pipeline.run import load_run

    sources = []
    for name, result in load_run(run_dir).respond.items():
        roles = result.roles.reindex(result.responses.index)
        sources.append((name, result.responses[roles.isin(["ladder", "real"]).to_numpy()],
                        result.responses[(roles == "real").to_numpy()]))
    return sources


def part_anchors_of_run(run_dir: Path) -> None:
    """The anchors on every dataset of a finished run, from the abilities and True-Scores its irt stage stored
    (the default model, or whatever the run's ``irt`` options chose): ``optimal`` highest, ``pessimal`` lowest,
    no respondent below one whose answers it dominates."""
    from benchirt.pipeline.run import load_run

    results = load_run(run_dir)
    rows = []
    for name, fit in results.irt.items():
        answers = results.respond[name].responses
        table = fit.abilities.set_index("respondent").reindex(answers.index)
        for column in ("theta", "true_score"):
            row = _anchor_row(table[column].rename({"optimal": "otimo", "pessimal": "pessimo"}),
                              answers.rename(index={"optimal": "otimo", "pessimal": "pessimo"}))
            rows.append({"dataset": name, "score": column, **row})
    frame = pd.DataFrame(rows)
    summary = frame.groupby("score", sort=False).agg(
        datasets=("dataset", "size"), optimal_highest=("optimal_top", "sum"), pessimal_lowest=("pessimal_bottom", "sum"),
        datasets_with_violations=("violations", lambda v: int((v > 0).sum())), violations=("violations", "sum"))
    print(f"\n## Anchors on the {len(results.irt)} datasets of {run_dir}\n")
    print(summary.reset_index().to_markdown(index=False))


def part_predictive(splits: int, models: list[str], matrix: Path | None, iris: bool = False,
                    run_dir: Path | None = None) -> None:
    rows = []
    if run_dir is not None:
        sources = _run_sources(run_dir)
    elif iris:  # every run the best rule keeps (one per flow, below 35 % dropped) is a respondent
        with tempfile.TemporaryDirectory() as tmp:
            sources = [("iris study 59 (best per flow)", _import("best", Path(tmp))[0], None)]
    elif matrix:
        sources = [(matrix.stem, pd.read_csv(matrix, index_col=0), None)]
    else:
        sources = [(folder.name, pd.read_csv(folder / "responses_pool.csv"), _reported(folder).iloc[:N_REAL])
                   for folder in _pools()]
    for name, pool, real in sources:
        real = pool if real is None else real
        for model in models:
            start = time.process_time()
            row = _split_validity(pool, real, model, splits)
            rows.append({"pool": name, "model": model, **row, "gain": row["irt"] - row["accuracy"],
                         "cpu_s": time.process_time() - start})
        print(f"{name}: " + ", ".join(f"{r['model']} {r['irt']:.3f} vs {r['accuracy']:.3f}"
                                      for r in rows if r["pool"] == name), flush=True)
    frame = pd.DataFrame(rows)
    print(f"\n## Predictive validity ({splits} item halves per pool; Spearman with the other half's accuracy)\n")
    summary = frame.groupby("model").agg(
        pools=("pool", "size"), irt=("irt", "mean"), accuracy=("accuracy", "mean"),
        pools_irt_at_least=("gain", lambda g: int((g >= -1e-9).sum())), worst_gain=("gain", "min"),
        best_gain=("gain", "max"), cpu_s=("cpu_s", "sum"))
    print(summary.reset_index().to_markdown(index=False, floatfmt=".3f"))
    print("\nPer pool:\n")
    print(frame.to_markdown(index=False, floatfmt=".3f"))


def _import(rule: str, out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    from benchirt.cli import main
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["import-runs", str(IRIS), "--out", str(out), "--per-flow", rule, "--min-accuracy", "0.35"])
    if code != 0:
        raise SystemExit(f"import-runs --per-flow {rule} failed ({code})")
    folder = next((out / "responses").iterdir())
    responses = pd.read_csv(folder / "responses.csv", index_col=0)
    respondents = pd.read_csv(folder / "respondents.csv").set_index("respondent")
    return responses, respondents


def _top_flows(score: pd.Series, flows: pd.Series, top: int, tiebreak: np.ndarray) -> set:
    """The flows of the ``top`` highest scores (rounded to 9 decimals: equal answers scored a rounding error
    apart are tied), ties at the cut broken by ``tiebreak`` (one random key per respondent, the same for
    every scorer, so that scorers with the same ties choose the same respondents)."""
    order = np.lexsort((tiebreak, -score.round(9).to_numpy()))
    return set(flows.iloc[order[:top]])


def part_stability(rules: list[str], tmp: Path, top: int = 10, draws: int = 200, models=("default", "3PL")) -> None:
    """Ties (identical accuracies, common at the top of Iris) are broken at random, ``draws`` times, the same
    way for every scorer; the table gives the mean over draws and rule pairs of the flows two rules' top
    ``top`` share."""
    rng = np.random.default_rng(0)
    scores: dict[str, dict[str, pd.Series]] = {}
    flows_of: dict[str, pd.Series] = {}
    for rule in rules:
        responses, respondents = _import(rule, tmp / rule)
        flows_of[rule] = respondents.reindex(responses.index)["flow_name"].astype(str)
        scores.setdefault("accuracy", {})[rule] = responses.mean(axis=1)
        for model in models:
            table = scorer_fit(responses, model).ability_table(responses)
            scores.setdefault(f"{model} theta", {})[rule] = table["theta"]
            scores.setdefault(f"{model} true_score", {})[rule] = table["true_score"]
        print(f"{rule}: {len(responses)} respondents", flush=True)
    tiebreaks = [{rule: rng.random(len(flows_of[rule])) for rule in rules} for _ in range(draws)]
    rows = []
    for column, by_rule in scores.items():
        shared = {pair: [] for pair in itertools.combinations(rules, 2)}
        for keys in tiebreaks:
            tops = {rule: _top_flows(by_rule[rule], flows_of[rule], top, keys[rule]) for rule in rules}
            for a, b in shared:
                shared[a, b].append(len(tops[a] & tops[b]))
        means = {pair: float(np.mean(values)) for pair, values in shared.items()}
        rows.append({"ranked by": column, "mean shared": float(np.mean(list(means.values()))),
                     "lowest pair": min(means.values()), "highest pair": max(means.values())})
    print(f"\n## Stability: flows shared by the top {top} of two --per-flow rules ({', '.join(rules)}; "
          f"ties broken at random, {draws} draws)\n")
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".2f"))


def part_verdict(tmp: Path, permutations: int) -> None:
    """The leaderboard's primary verdict (``benchirt rate``, step-down max-T) on the 50 reference pools scored
    three ways: the default's True-Scores, decodIRT's published True-Scores and the test accuracy; the pairs it
    separates (of 171), among the 12 real classifiers (of 66), and those of the always-right respondent."""
    from benchirt.cli import main as cli

    frames = {"default True-Score": [], "decodIRT's published True-Score": [], "test accuracy": []}
    for folder in _pools():
        reported = _reported(folder)
        table = scorer_fit(pd.read_csv(folder / "responses_pool.csv"), "default").ability_table(reported)
        published = pd.read_csv(folder / "true_scores.csv").set_index("Clf")["Score"]
        accuracy = pd.read_csv(folder / "test_accuracy.csv").set_index("Metodo")["Acuracia"]
        for label, score in zip(frames, (table["true_score"], published, accuracy)):
            frames[label].append(pd.DataFrame({"dataset": folder.name, "classifier": score.index.astype(str),
                                               "score": score.to_numpy(float)}))
    real = set(_reported(_pools()[0]).index[:N_REAL])
    rows = []
    for label, parts in frames.items():
        path = tmp / f"{len(rows)}.csv"
        pd.concat(parts).to_csv(path, index=False)
        out = tmp / f"out{len(rows)}"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = cli(["rate", str(path), "--out", str(out), "--permutations", str(permutations)])
        if code != 0:
            raise SystemExit(f"benchirt rate failed on {label} ({code})")
        pairs = pd.read_csv(out / "pairwise.csv")
        separated = pairs[pairs["separated"].astype(bool)]
        among_real = separated["a"].isin(real) & separated["b"].isin(real)
        optimal = separated[(separated["a"] == "otimo") | (separated["b"] == "otimo")]
        board = pd.read_csv(out / "leaderboard.csv").set_index("classifier")
        rows.append({"scores": label, "pairs separated": len(separated), "among real": int(among_real.sum()),
                     "optimal separated from": len(optimal),
                     "optimal's rank interval": f"{board.at['otimo', 'rank_low']}-{board.at['otimo', 'rank_high']}",
                     "pessimal's rank interval": f"{board.at['pessimo', 'rank_low']}-{board.at['pessimo', 'rank_high']}"})
    print(f"\n## The primary verdict on the 50 reference pools ({permutations} resampled tables)\n")
    print(pd.DataFrame(rows).to_markdown(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("anchors", "predictive", "stability", "verdict"), required=True)
    parser.add_argument("--permutations", type=int, default=1000, help="--part verdict: resampled tables of the primary verdict")
    parser.add_argument("--families", default="default,3PL",
                        help="--part anchors: scorers (comma-separated: default, 3PL, 2PL, 1PL, decodirt)")
    parser.add_argument("--splits", type=int, default=20, help="--part predictive: random item halves per pool")
    parser.add_argument("--models", default="default,3PL",
                        help="--part predictive, stability: scorers (comma-separated: default, 3PL, 2PL, 1PL, decodirt)")
    parser.add_argument("--matrix", type=Path, help="--part predictive: a respondents x items CSV instead of the pools")
    parser.add_argument("--iris", action="store_true",
                        help="--part predictive: the Iris study 59 matrix (best run per flow) instead of the pools")
    parser.add_argument("--run", type=Path,
                        help="--part predictive, anchors: the datasets of a finished benchirt run (e.g. runs/default)")
    parser.add_argument("--rules", default="best,median,first,best-held-out", help="--part stability")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    if args.part != "stability" and not (args.matrix or args.iris or args.run) and not REFERENCE.is_dir():
        raise SystemExit(f"{REFERENCE} not found (set BENCHIRT_SHARED_DATA)")
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    if args.part == "anchors" and args.run:
        part_anchors_of_run(args.run)
    elif args.part == "anchors":
        part_anchors(args.families.split(","))
    elif args.part == "predictive":
        part_predictive(args.splits, args.models.split(","), args.matrix, args.iris, args.run)
    elif args.part == "verdict":
        with tempfile.TemporaryDirectory() as tmp:
            part_verdict(Path(tmp), args.permutations)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            part_stability(args.rules.split(","), Path(tmp), models=args.models.split(","))


if __name__ == "__main__":
    main()

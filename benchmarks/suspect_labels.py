"""Suspect-label flags against known label noise (issue 14, item 3).

Flips a share of the class labels of a clean dataset (scikit-learn's wdbc and digits; each flipped
label becomes another class drawn at random), runs the response stage (decodIRT's pool and MLP
ladder, benchirt's defaults) and the IRT stage, and compares the items flagged in
``suspect_labels`` (discrimination <= -threshold, or answered wrongly by every calibration
respondent) with the flipped test instances:
precision = flipped among the flagged, recall = flagged among the flipped test instances.
Also prints the precision/recall of other thresholds and of the naive rule "most real classifiers
predict another label" for comparison.

Run:  .venv/bin/python benchmarks/suspect_labels.py [--datasets wdbc digits] [--share 0.05] [--seeds 0 1 2]
"""
from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np
import pandas as pd

from benchirt.data import load_builtin
from benchirt.irt import IRTConfig, irt_for_responses
from benchirt.irt.suspects import suspect_labels
from benchirt.responses import ResponseConfig, respond

THRESHOLDS = (0.25, 0.5, 1.0, 1.5, 2.0)


def flip_labels(dataset, share: float, seed: int):
    """A copy of ``dataset`` with ``share`` of its labels changed to another class; the flipped rows."""
    rng = np.random.default_rng(seed)
    y = dataset.y.astype(str).to_numpy().copy()
    classes = np.unique(y)
    rows = np.sort(rng.choice(len(y), size=int(round(share * len(y))), replace=False))
    for row in rows:
        y[row] = rng.choice(classes[classes != y[row]])
    noisy = replace(dataset, y=pd.Series(y, index=dataset.y.index, name=dataset.y.name).astype("category"))
    return noisy, set(rows.tolist())


def _precision_recall(flagged: set, flipped: set) -> tuple[float, float]:
    hits = len(flagged & flipped)
    precision = hits / len(flagged) if flagged else float("nan")
    recall = hits / len(flipped) if flipped else float("nan")
    return precision, recall


def evaluate(name: str, share: float, seed: int, config: IRTConfig) -> list[dict]:
    noisy, flipped = flip_labels(load_builtin(name), share, seed)
    start = time.perf_counter()
    result = respond(noisy, ResponseConfig(seed=seed))
    irt = irt_for_responses(result, config)
    seconds = time.perf_counter() - start
    test_rows = {int(item) for item in result.responses.columns}
    flipped_test = flipped & test_rows
    rows = []
    for threshold in sorted(set(THRESHOLDS) | {config.suspect_discrimination}):
        flagged = set(suspect_labels(irt.fit.items, threshold)["row"].tolist())
        precision, recall = _precision_recall(flagged, flipped_test)
        rows.append({"dataset": name, "seed": seed, "rule": f"a <= -{threshold:g}", "default":
                     threshold == config.suspect_discrimination, "flagged": len(flagged), "flipped_test":
                     len(flipped_test), "precision": precision, "recall": recall, "seconds": seconds})
    real = result.roles.index[result.roles == "real"]
    correct = result.responses.loc[real]
    majority_wrong = {int(item) for item in correct.columns if correct[item].mean() < 0.5}
    precision, recall = _precision_recall(majority_wrong, flipped_test)
    rows.append({"dataset": name, "seed": seed, "rule": "most real classifiers wrong", "default": False,
                 "flagged": len(majority_wrong), "flipped_test": len(flipped_test), "precision": precision,
                 "recall": recall, "seconds": seconds})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["wdbc", "digits"])
    parser.add_argument("--share", type=float, default=0.05, help="share of labels flipped (default 0.05)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = parser.parse_args()
    config = IRTConfig()
    rows = []
    for name in args.datasets:
        for seed in args.seeds:
            rows.extend(evaluate(name, args.share, seed, config))
            print(pd.DataFrame(rows[-len(THRESHOLDS) - 2:]).to_string(index=False, float_format=lambda v: f"{v:.2f}"),
                  flush=True)
    table = pd.DataFrame(rows)
    pooled = table.groupby(["dataset", "rule"], sort=False).agg(
        flagged=("flagged", "sum"), flipped_test=("flipped_test", "sum"), precision=("precision", "mean"),
        recall=("recall", "mean"))
    print(f"\n{args.share:.0%} of the labels flipped; mean over seeds {args.seeds} "
          f"(default rule: a <= -{config.suspect_discrimination:g})")
    print(pooled.to_string(float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()

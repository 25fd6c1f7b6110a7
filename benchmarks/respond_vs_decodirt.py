"""benchirt's response stage vs a naive re-run of decodIRT's protocol, side by side in one process.

decodIRT's response script (Cardoso et al. 2021 §4.3) trains 100 MLPs separately, ``MLPClassifier(max_iter=k)`` for
k = 1..100, then the 12 real classifiers, and cross-validates every one of them with 10 folds. The naive
baseline below does exactly that — a fresh scikit-learn ``Pipeline`` (the same sound preprocessing
benchirt uses) per fit, 10-fold CV plus a final fit on the training part for each of the 112 models —
on the same split and folds as :func:`benchirt.responses.respond`, so both must give the same responses.

benchirt instead takes the 100 ladder rungs from one MLP training (no CV for the ladder: nothing uses
it) and fits the preprocessing once per fold and scaling kind.

Usage::

    .venv/bin/python benchmarks/respond_vs_decodirt.py            # diabetes (37) and credit-g (31)
    .venv/bin/python benchmarks/respond_vs_decodirt.py --ids 37 --epochs 30

Reads the ARFF files from ``../shared/data/cc18-arff`` (or ``$BENCHIRT_SHARED_DATA/cc18-arff``).
Goal: ≥10× faster, identical real, artificial (and ladder) responses.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from threadpoolctl import threadpool_limits

from benchirt.data.files import load_file
from benchirt.pool import artificial_predictions, ladder_name, resolve_pool
from benchirt.preprocess import clean_features, make_preprocessor
from benchirt.responses import ResponseConfig, cv_folds, respond, split_train_test

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("BENCHIRT_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "cc18-arff"
#: decodIRT's own response script on this machine's class of hardware (task statement).
DECODIRT_SECONDS = {37: 52.2, 31: 35.5}


def naive_decodirt(dataset, config: ResponseConfig) -> tuple[pd.DataFrame, pd.Series]:
    """decodIRT's loops: every model (100 ladder MLPs + real pool) with 10-fold CV and a final fit.

    Returns the predicted class codes (rows = respondents, columns = test items) and the CV accuracies.
    """
    X, _ = clean_features(dataset.X, dataset=dataset.name)
    labels = dataset.y.reset_index(drop=True)
    labelled = np.flatnonzero(labels.notna().to_numpy())
    codes = labels.cat.codes.to_numpy().astype(np.int64)
    split = split_train_test(codes[labelled], config.test_size, config.max_test, config.seed, dataset=dataset.name)
    train, test = labelled[split.train], labelled[split.test]
    folds, _ = cv_folds(codes[train], config.cv_folds, config.seed, dataset=dataset.name)

    models = [(ladder_name(k), True, MLPClassifier(max_iter=k, random_state=config.seed)) for k in range(1, config.ladder_epochs + 1)]
    models += [(spec.name, spec.scale, spec.build(config.seed)) for spec in resolve_pool(config.pool, extra=config.extra)]
    predictions, cv_accuracy = {}, {}
    # single-threaded BLAS, as benchirt's fits run: the comparison measures the protocol, not BLAS threading
    with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
        warnings.simplefilter("ignore")
        for name, scale, estimator in models:
            pipeline = Pipeline([("prep", make_preprocessor(X, scale, max_categories=config.max_categories)), ("model", estimator)])
            scores = []
            for fit, validate in folds:
                model = clone(pipeline).fit(X.iloc[train[fit]], codes[train[fit]])
                scores.append(np.mean(model.predict(X.iloc[train[validate]]) == codes[train[validate]]))
            cv_accuracy[name] = float(np.mean(scores))
            predictions[name] = clone(pipeline).fit(X.iloc[train], codes[train]).predict(X.iloc[test])
    predictions.update(artificial_predictions(codes[train], codes[test], seed=config.seed))
    items = [str(position) for position in test]
    frame = pd.DataFrame(predictions, index=items).T
    return (frame == codes[test]).astype(np.int8), pd.Series(cv_accuracy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", type=int, nargs="+", default=[37, 31], help="OpenML ids of cc18-arff files")
    parser.add_argument("--epochs", type=int, default=100, help="ladder rungs (decodIRT: 100)")
    parser.add_argument("--n-jobs", type=int, default=1, help="joblib workers for benchirt (baseline: 1 process)")
    args = parser.parse_args()
    config = ResponseConfig(ladder_epochs=args.epochs, n_jobs=args.n_jobs)
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), cores: {os.cpu_count()}")
    print("wall = elapsed seconds, cpu = process CPU seconds (less sensitive to other load on a shared machine)")
    print(
        f"{'dataset':<10} {'shape':>9} {'naive wall':>10} {'benchirt wall':>13} {'ratio':>6} {'naive cpu':>9} "
        f"{'benchirt cpu':>12} {'ratio':>6}  {'same real':>9} {'same artif.':>11} {'same ladder':>11} {'same CV':>8}"
    )
    for openml_id in args.ids:
        path = next(DATA.glob(f"{openml_id}-*.arff"))
        dataset = load_file(path, openml_id=openml_id, name=path.stem.split("-", 1)[1])
        start, cpu = time.perf_counter(), time.process_time()
        result = respond(dataset, config=config)
        fast, fast_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        naive, naive_cv = naive_decodirt(dataset, config)
        slow, slow_cpu = time.perf_counter() - start, time.process_time() - cpu
        roles = result.roles
        same = {
            role: naive.loc[roles.index[roles == role]].equals(result.responses.loc[roles.index[roles == role]])
            for role in ("real", "artificial", "ladder")
        }
        same_cv = bool(np.allclose(naive_cv.reindex(result.cv_accuracy.index), result.cv_accuracy, rtol=0, atol=1e-12))
        shape = f"{dataset.X.shape[0]}x{dataset.X.shape[1]}"
        print(
            f"{dataset.name:<10} {shape:>9} {slow:10.1f} {fast:13.2f} {slow / fast:5.1f}x {slow_cpu:9.1f} "
            f"{fast_cpu:12.2f} {slow_cpu / fast_cpu:5.1f}x  {str(same['real']):>9} "
            f"{str(same['artificial']):>11} {str(same['ladder']):>11} {str(same_cv):>8}"
            + (f"   (decodIRT's own script: {DECODIRT_SECONDS[openml_id]} s)" if openml_id in DECODIRT_SECONDS else "")
        )
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()

"""A synthetic field of stored runs: one respondents × items matrix of 2PL answers, named like OpenML flows.

What ``benchmarks/stored_runs.py --part field`` runs beside the real cv-fold0 field (issue 34): how the whole
run (respond, irt, rate, subset, airt, report) grows with the number of respondents, and whether the report
stays legible with thousands of long names. Each respondent answers item j right with probability
1 / (1 + exp(−a_j (θ_i − b_j))) (Birnbaum 1968's 2PL), θ ~ N(1.5, 1), a ~ LogNormal(0, 0.4), b ~ N(−1, 1) —
a field of mostly good classifiers on an easy test set, as stored runs are. Rows are named
``<flow>||<setup>`` (the import's default naming, docs/stored-runs.md): flows named like scikit-learn
pipelines, hundreds of characters long, each with a few setups.

    python benchmarks/synthetic_field.py OUT.csv [--respondents 2000] [--items 150] [--seed 0]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

#: Parts of the synthetic flow names (a pipeline of an imputer, a scaler and an estimator, as OpenML's are).
IMPUTERS = ("SimpleImputer(strategy=median)", "SimpleImputer(strategy=most_frequent)", "IterativeImputer")
SCALERS = ("StandardScaler", "MinMaxScaler(feature_range=(0, 1))", "RobustScaler(quantile_range=(25.0, 75.0))")
ESTIMATORS = ("RandomForestClassifier", "GradientBoostingClassifier", "ExtraTreesClassifier", "SVC(kernel=rbf)",
              "LogisticRegression(penalty=l2)", "KNeighborsClassifier", "MLPClassifier(hidden_layer_sizes=(100,))",
              "DecisionTreeClassifier", "AdaBoostClassifier", "HistGradientBoostingClassifier")
#: Setups (runs) per flow: the field has ``n_respondents / SETUPS`` flows.
SETUPS = 3


def flow_name(k: int) -> str:
    """The k-th synthetic flow: a scikit-learn pipeline's name, 161–235 characters (k < 1,000), distinct for every k."""
    imputer = IMPUTERS[k % len(IMPUTERS)]
    scaler = SCALERS[(k // len(IMPUTERS)) % len(SCALERS)]
    estimator = ESTIMATORS[(k // (len(IMPUTERS) * len(SCALERS))) % len(ESTIMATORS)]
    return (f"sklearn.pipeline.Pipeline(imputation=sklearn.impute.{imputer},scaling=sklearn.preprocessing."
            f"{scaler},estimator=sklearn.ensemble.{estimator})({k})")


def field_matrix(n_respondents: int = 2000, n_items: int = 150, seed: int = 0) -> pd.DataFrame:
    """The field: rows ``<flow>||<setup>``, columns the item ids ``0 … n_items − 1``, cells 0/1."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(1.5, 1.0, n_respondents)
    a, b = rng.lognormal(0.0, 0.4, n_items), rng.normal(-1.0, 1.0, n_items)
    p_right = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b)))
    answers = (rng.random((n_respondents, n_items)) < p_right).astype(np.int8)
    names = [f"{flow_name(i // SETUPS)}||{i % SETUPS + 1}" for i in range(n_respondents)]
    return pd.DataFrame(answers, index=pd.Index(names, name="run"), columns=[str(j) for j in range(n_items)])


def write_field(path: str | Path, n_respondents: int = 2000, n_items: int = 150, seed: int = 0) -> Path:
    """Write :func:`field_matrix` as the CSV ``benchirt import-runs`` reads; returns the path."""
    path = Path(path)
    field_matrix(n_respondents, n_items, seed).to_csv(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--respondents", type=int, default=2000)
    parser.add_argument("--items", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(write_field(args.out, args.respondents, args.items, args.seed))


if __name__ == "__main__":
    main()

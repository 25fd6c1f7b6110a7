"""Placing a new classifier: the calibration model, the dataset plan, predictions, standing, commands."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.errors import DataError
from benchirt.placement import fit_score_model, load_calibration, plan_datasets, predict_new
from benchirt.placement.standing import average_ranks, position


def simulated_scores(n_datasets=40, n_classifiers=16, rank=2, noise=0.3, seed=0, extra=0):
    """Scores drawn from the model itself: s = m_d + sd_d (F_d w_c + e), e ~ N(0, noise²)."""
    rng = np.random.default_rng(seed)
    loadings = rng.normal(size=(n_datasets, rank))
    skills = rng.normal(size=(n_classifiers + extra, rank))
    z = loadings @ skills.T + noise * rng.standard_normal((n_datasets, n_classifiers + extra))
    scores = 50 + rng.uniform(5, 20, size=(n_datasets, 1)) * z
    return pd.DataFrame(scores, index=[f"d{i:02d}" for i in range(n_datasets)],
                        columns=[f"c{j:02d}" for j in range(n_classifiers + extra)])


def test_average_ranks_by_hand():
    pool = np.array([[3.0, 2.0], [1.0, 1.0]])       # two datasets, two pool members
    new, members = average_ranks(pool, np.array([[2.5, 1.0]]))
    # dataset 1: 3 > 2.5 > 2 -> ranks 1, 3, new 2; dataset 2: all tied at 1 -> rank 2 for everyone
    assert new[0] == pytest.approx(2.0)
    np.testing.assert_allclose(members[0], [1.5, 2.5])
    assert position(new, members)[0] == 2


def test_prediction_recovers_a_noise_free_column():
    scores = simulated_scores(noise=1e-3, rank=3, extra=1)
    model = fit_score_model(scores.iloc[:, :-1], rank=3)
    truth = scores.iloc[:, -1]
    observed = truth.iloc[[0, 5, 9, 20, 33]]
    table = model.predict(observed)
    rest = ~table["observed"]
    scale = model.scale[rest.to_numpy()]
    assert np.abs((table.loc[rest, "score"] - truth[rest]) / scale).max() < 0.05
    assert (table.loc[~rest, "low"] == table.loc[~rest, "score"]).all() and table["observed"].sum() == 5


def test_ninety_percent_intervals_cover_on_simulated_data():
    """Fresh classifiers from the same generative model: coverage of the 90 % intervals is about 90 %."""
    scores = simulated_scores(n_datasets=40, n_classifiers=20, noise=0.4, seed=1, extra=30)
    model = fit_score_model(scores.iloc[:, :20], rank=2)
    inside = []
    rng = np.random.default_rng(2)
    for name in scores.columns[20:]:
        truth = scores[name]
        observed = truth.iloc[rng.choice(40, 6, replace=False)]
        table = model.predict(observed)
        rest = ~table["observed"]
        inside.extend(((table["low"] <= truth) & (truth <= table["high"]))[rest])
    assert 0.85 <= np.mean(inside) <= 0.96


def test_plan_order_budget_and_continuation():
    model = fit_score_model(simulated_scores(), rank=2)
    plan = plan_datasets(model, 4)
    assert plan["order"].tolist() == [1, 2, 3, 4] and (plan["status"] == "to run").all()
    assert plan["summary_sd"].is_monotonic_decreasing and plan["dataset"].is_unique
    continued = plan_datasets(model, 4, observed=["d07"])
    assert continued.iloc[0].tolist()[:3] == ["d07", 1, "observed"] and len(continued) == 4
    with pytest.raises(DataError, match="between 1 and the 40 datasets"):
        plan_datasets(model, 41)
    with pytest.raises(DataError, match=r"\['nope'\] are not in the calibration"):
        plan_datasets(model, 3, observed=["nope"])


def test_plan_beats_random_datasets_on_the_reference_scores(shared_data):
    """Leave-one-classifier-out, K = 5: the planned datasets pin the suite score down better than random ones."""
    scores = load_calibration(shared_data / "decodirt-reference").scores
    rng = np.random.default_rng(0)
    planned, random = [], []
    for name in scores.columns[::3]:
        model = fit_score_model(scores.drop(columns=name))
        truth = scores[name]
        true_mean = model.standardise(truth).mean()
        chosen = plan_datasets(model, 5)["dataset"].tolist()
        planned.append(abs(model.standardise(model.predict(truth[chosen])["score"]).mean() - true_mean))
        for _ in range(5):
            picked = rng.choice(scores.index, 5, replace=False)
            random.append(abs(model.standardise(truth[picked]).mean() - true_mean))
    assert np.mean(planned) < 0.75 * np.mean(random)


def test_predict_new_marks_measured_and_predicted(shared_data):
    scores = load_calibration(shared_data / "decodirt-reference", exclude=["SVM"]).scores
    model = fit_score_model(scores)
    truth = load_calibration(shared_data / "decodirt-reference").scores["SVM"]
    observed = pd.DataFrame({"classifier": "svm_new", "dataset": truth.index[:4], "score": truth.to_numpy()[:4]})
    predicted, standing = predict_new(model, observed)
    assert list(predicted.columns[:6]) == ["classifier", "dataset", "score", "low", "high", "observed"]
    assert predicted["observed"].sum() == 4 and len(predicted) == len(scores)
    rows = standing.iloc[0]
    assert rows["rank_low"] <= rows["rank"] <= rows["rank_high"] and rows["n_classifiers"] == scores.shape[1] + 1
    clash = observed.assign(classifier="otimo")
    with pytest.raises(DataError, match="pool members"):
        predict_new(model, clash)


def test_plan_and_predict_commands(shared_data, tmp_path, capsys):
    reference = shared_data / "decodirt-reference"
    out = tmp_path / "out"
    assert main(["plan", str(reference), "--budget", "3", "--out", str(out), "--exclude", "MLPClassifier"]) == 0
    plan = pd.read_csv(out / "plan.csv")
    assert list(plan.columns[:2]) == ["dataset", "order"] and len(plan) == 3
    truth = pd.concat([pd.read_csv(reference / d / "true_scores.csv").set_index("Clf")["Score"].rename(d)
                       for d in plan["dataset"]], axis=1).loc["MLPClassifier"]
    pd.DataFrame({"classifier": "mlp", "dataset": truth.index, "score": truth.to_numpy()}).to_csv(tmp_path / "obs.csv", index=False)
    assert main(["plan", str(reference), "--budget", "5", "--out", str(out), "--exclude", "MLPClassifier",
                 "--observed", str(tmp_path / "obs.csv")]) == 0
    continued = pd.read_csv(out / "plan.csv")
    assert continued["dataset"].tolist()[:3] == plan["dataset"].tolist() and len(continued) == 5
    assert main(["predict", str(reference), "--observed", str(tmp_path / "obs.csv"), "--out", str(out),
                 "--exclude", "MLPClassifier"]) == 0
    predicted = pd.read_csv(out / "predicted.csv")
    standing = pd.read_csv(out / "standing.csv")
    assert predicted["observed"].sum() == 3 and len(predicted) == 50
    assert list(standing.columns[:4]) == ["classifier", "rank", "rank_low", "rank_high"] and "mean_rank" in standing
    assert "rank" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["plan", "{ref}", "--budget", "51", "--out", "{out}"], "budget K=51 must be between 1 and the 50 datasets"),
    (["plan", "{ref}", "--budget", "3", "--out", "{out}", "--exclude", "nobody"], "--exclude ['nobody']: not in the calibration pool"),
    (["predict", "{ref}", "--observed", "{obs}", "--out", "{out}"], "['not-a-dataset'] are not in the calibration"),
])
def test_commands_refuse_bad_inputs(shared_data, tmp_path, capsys, args, message):
    pd.DataFrame({"classifier": ["x"], "dataset": ["not-a-dataset"], "score": [1.0]}).to_csv(tmp_path / "obs.csv", index=False)
    filled = [a.format(ref=shared_data / "decodirt-reference", out=tmp_path / "o", obs=tmp_path / "obs.csv") for a in args]
    assert main(filled) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()

"""Model fit you can read (issue 14, item 2): item infit/outfit and 1PL/2PL/3PL side by side;
suspect labels (item 3): strongly negative items mapped back to dataset rows."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from benchirt.irt import IRTConfig, compare_models, fit_irt, irt_for_responses, item_fit
from benchirt.irt import model_comparison_table, suspect_label_table, suspect_labels
from benchirt.irt.itemfit import mean_squares
from benchirt.irt.simulate import probability, simulate_responses
from benchirt.irt.suspects import COLUMNS, real_wrong_share


def test_mean_squares_by_hand():
    u = np.array([[1, 0], [0, 1], [1, 1]], float)
    p = np.array([[0.8, 0.4], [0.3, 0.5], [0.6, 0.9]])
    infit, outfit = mean_squares(u, p)
    # item 1: residuals .2, -.3, .4; variances .16, .21, .24
    assert outfit[0] == pytest.approx((0.04 / 0.16 + 0.09 / 0.21 + 0.16 / 0.24) / 3)
    assert infit[0] == pytest.approx((0.04 + 0.09 + 0.16) / (0.16 + 0.21 + 0.24))
    # item 2: residuals -.4, .5, .1; variances .24, .25, .09
    assert outfit[1] == pytest.approx((0.16 / 0.24 + 0.25 / 0.25 + 0.01 / 0.09) / 3)
    assert infit[1] == pytest.approx((0.16 + 0.25 + 0.01) / (0.24 + 0.25 + 0.09))


def test_items_that_follow_the_model_fit_and_surprising_answers_misfit():
    sim = simulate_responses(400, n_items=40, model="2PL", seed=5)
    responses = sim.responses.copy()
    # a steep item answered by ability, except that the 4 ablest respondents fail it
    steep = (sim.theta > 0).astype(np.int8)
    steep[np.argsort(sim.theta)[-4:]] = 0
    responses["surprising"] = steep
    fit = fit_irt(responses, config=IRTConfig(model="2PL"))
    table = item_fit(fit, responses)
    assert list(table.columns) == ["infit", "outfit", "misfit"]
    regular = table.drop(index="surprising")
    assert 0.85 < regular["infit"].mean() < 1.05 and 0.8 < regular["outfit"].mean() < 1.05
    assert regular["misfit"].mean() <= 0.05
    assert table.loc["surprising", "outfit"] > 1.5 and table.loc["surprising", "misfit"]
    # column order of the input does not matter
    shuffled = item_fit(fit, responses[responses.columns[::-1]])
    pd.testing.assert_frame_equal(shuffled, table)


def test_items_without_information_get_neutral_fit():
    sim = simulate_responses(100, n_items=20, model="2PL", seed=2)
    responses = sim.responses.assign(everyone=1)
    fit = fit_irt(responses, config=IRTConfig(model="2PL"))
    table = item_fit(fit, responses)
    assert table.loc["everyone"].tolist() == [1.0, 1.0, False]
    assert np.isfinite(table[["infit", "outfit"]].to_numpy()).all()


@pytest.mark.parametrize("truth", ["1PL", "2PL"])
def test_model_comparison_counts_parameters_and_bic_picks_the_true_model(truth):
    sim = simulate_responses(800, n_items=30, model=truth, seed=7)
    config = IRTConfig(model="3PL")
    fitted = fit_irt(sim.responses, config=config)
    table = compare_models(sim.responses, config=config, fitted=fitted).set_index("model")
    assert list(table.index) == ["1PL", "2PL", "3PL"]
    assert table["n_parameters"].tolist() == [31, 60, 90]
    assert table.loc["3PL", "log_likelihood"] == fitted.log_likelihood  # reused, not refitted
    for model, row in table.iterrows():
        assert row["aic"] == pytest.approx(-2 * row["log_likelihood"] + 2 * row["n_parameters"])
        assert row["bic"] == pytest.approx(-2 * row["log_likelihood"] + row["n_parameters"] * np.log(800))
    assert table["best_bic"].sum() == 1 and table.loc[truth, "best_bic"]
    assert table.loc["2PL", "log_likelihood"] > table.loc["1PL", "log_likelihood"]


def test_nested_models_start_from_the_larger_models_solution_and_reach_the_searchs_optimum():
    """Issue 23: where the 3PL's search found one optimum, the 2PL climbs from the 3PL's solution and
    the 1PL from the 2PL's, with no search of their own, and end where a search ends."""
    sim = simulate_responses(400, n_items=30, model="2PL", seed=3)
    fitted = fit_irt(sim.responses, config=IRTConfig())
    assert len(fitted.optima) == 1
    nested = compare_models(sim.responses, config=IRTConfig(), fitted=fitted).set_index("model")
    search = compare_models(sim.responses, config=IRTConfig(), fitted=fitted, nested_starts=False).set_index("model")
    assert nested["start"].tolist() == ["nested", "nested", "reused"] and not nested["searched"].any()
    assert search.loc[["1PL", "2PL"], "start"].tolist() == ["search", "search"]
    assert np.allclose(nested["log_posterior"], search["log_posterior"], atol=1e-3)
    assert np.allclose(nested["bic"], search["bic"], atol=1e-2)


def test_the_scoring_models_fit_is_reused_and_ends_where_the_nested_1pl_ends():
    """The stage passes the item model and the scoring model (the 1PL, fitted from the 3PL's items on its grid):
    the comparison fits the 2PL only, and its 1PL row is the scorer's, at the optimum the nested 1PL reaches."""
    from benchirt.irt.scorer import fit_scoring_model

    sim = simulate_responses(300, n_items=25, model="2PL", seed=4)
    fitted = fit_irt(sim.responses, config=IRTConfig())
    scorer = fit_scoring_model(sim.responses, fitted)
    assert scorer.model == "1PL"
    both = compare_models(sim.responses, config=IRTConfig(), fitted=(fitted, scorer)).set_index("model")
    alone = compare_models(sim.responses, config=IRTConfig(), fitted=fitted).set_index("model")
    assert both["start"].tolist() == ["reused", "nested", "reused"]
    assert both.loc["1PL", "log_likelihood"] == scorer.log_likelihood
    assert both.loc["1PL", "log_posterior"] == pytest.approx(alone.loc["1PL", "log_posterior"], abs=1e-3)
    assert both.loc["2PL", "log_posterior"] == alone.loc["2PL", "log_posterior"]


def test_a_nested_start_needs_every_item():
    sim = simulate_responses(100, n_items=12, model="2PL", seed=1)
    fitted = fit_irt(sim.responses, config=IRTConfig(model="2PL", starts=1))
    with pytest.raises(ValueError, match="does not cover every item"):
        fit_irt(sim.responses, config=IRTConfig(model="1PL"), initial=fitted.items.iloc[:-1])
    one = fit_irt(sim.responses, config=IRTConfig(model="1PL"), initial=fitted.items)
    assert [run["start"] for run in one.starts["runs"]] == ["nested"] and one.converged


class _FixedCurves:
    """An IRTFit stand-in: an item table and fixed probabilities for every ability."""

    def __init__(self, items: pd.DataFrame, p: list[float]):
        self.items, self._p = items, np.asarray(p)

    def probability(self, theta):
        return np.tile(self._p, (len(np.atleast_1d(theta)), 1))


def test_suspect_labels_are_the_consensus_minus_items_the_ablest_get_right():
    items = pd.DataFrame({
        "discrimination": [1.2, 0.4, 2.5, 0.9, np.nan, -0.3, 1.5],
        "difficulty": [0.0, 0.5, 1.0, 3.0, np.nan, 2.0, 2.5],
        "se_discrimination": [0.3, 0.3, 0.8, 0.5, np.nan, 1.0, 0.7],
        "p_correct": [1.0, 0.7, 0.2, 0.2, 0.0, 0.1, 0.2],
        "flag": ["ok", "ok", "ok", "ok", "all_wrong", "ok", "ok"],
    }, index=pd.Index(["10", "11", "12", "13", "14", "15", "16"], name="item"))
    fit = _FixedCurves(items, [0.9, 0.6, 0.7, 0.5, 0.0, 0.1, 0.6])
    names = list("abcdefghij")
    ability = [0.3, 1.9, -0.5, 1.1, 0.0, 0.8, 1.4, -1.0, 0.5, 0.1]  # ablest: b, g, d, f, i, ...
    right = {"10": names, "11": list("abcdefg"), "12": ["b", "g"], "13": ["b", "f"], "14": [], "15": ["b"],
             "16": ["b", "d"]}
    correct = pd.DataFrame({item: [int(n in who) for n in names] for item, who in right.items()}, index=names)
    predictions = pd.DataFrame({"13": list("xaxxxaxxxx"), "14": ["x"] * 10, "15": list("ya") + ["x"] * 8},
                               index=names)
    labels = pd.Series({item: "a" for item in right})
    table = suspect_labels(fit, correct, [0.0] * 10, agreement=0.8, rising_alpha=0.05, predictions=predictions,
                           labels=labels, ability=ability)
    # 11: 30 % wrong; 12: the two ablest right, exact Mann-Whitney p = 1/C(10,2) = 1/45 (a hard item);
    # 16: the first and third ablest right, p = 2/45 = 0.044; 13: first and fourth, p = 4/45 = 0.089 (kept);
    # 15: one right answer, the ablest's: p = 1/10
    assert table["item"].tolist() == ["14", "15", "13"]  # most widely missed first
    assert table["row"].tolist() == [14, 15, 13]
    assert table["rising_p"].tolist() == pytest.approx([1.0, 0.1, 4 / 45])
    assert table["reason"].tolist() == ["all_wrong", "right_not_ablest", "right_not_ablest"]
    assert table["p_best_correct"].tolist() == pytest.approx([0.0, 0.1, 0.5])  # shown, does not decide
    assert table["label"].tolist() == ["a", "a", "a"]  # the dataset's label, also where nobody predicts it
    assert table["consensus"].tolist() == ["x", "x", "x"]
    assert table["consensus_share"].tolist() == pytest.approx([1.0, 0.8, 0.8])
    assert table["real_wrong_share"].tolist() == pytest.approx([1.0, 0.9, 0.8])
    assert list(table.columns) == COLUMNS
    lenient = suspect_labels(fit, correct, [0.0] * 10, agreement=0.8, rising_alpha=0.03, ability=ability)
    assert lenient["item"].tolist() == ["14", "15", "13", "16"]
    assert suspect_labels(fit, correct, [0.0] * 10, agreement=0.9, rising_alpha=0.05,
                          ability=ability)["item"].tolist() == ["14", "15"]
    assert suspect_labels(fit, correct.iloc[:0], [], agreement=0.8, rising_alpha=0.05).empty
    # by default the ablest are those with the most right answers
    pd.testing.assert_frame_equal(suspect_labels(fit, correct, [0.0] * 10),
                                  suspect_labels(fit, correct, [0.0] * 10, ability=correct.mean(axis=1)))


def _flipped_pool(seed: int, n_items: int = 200, share: float = 0.05, n_hard: int = 10):
    """A classifier pool (48 ladder rungs from weak to good, 12 good real classifiers) on 2PL items,
    mostly easy ones as in classification, and ``n_hard`` hard, correctly labelled items that mostly the
    ablest get right (classes that overlap: steep, difficulty about 1.8); a ``share`` of the other items
    have their label flipped, which turns each answer around (binary classes)."""
    rng = np.random.default_rng(seed)
    theta = np.concatenate([np.linspace(-2.5, 1.5, 48), rng.normal(1.0, 0.5, 12)])
    a, b = rng.lognormal(0.3, 0.35, n_items), rng.normal(-1.0, 1.5, n_items)
    hard = rng.choice(n_items, n_hard, replace=False)
    a[hard], b[hard] = 2.5, rng.normal(1.8, 0.3, n_hard)
    u = (rng.random((60, n_items)) < probability(theta, a, b, np.zeros(n_items))).astype(np.int8)
    flipped = rng.choice(np.setdiff1d(np.arange(n_items), hard), int(share * n_items), replace=False)
    u[:, flipped] = 1 - u[:, flipped]
    names = [f"mlp_epoch_{i:03d}" for i in range(1, 49)] + [f"real{i}" for i in range(12)]
    responses = pd.DataFrame(u, index=names, columns=[str(1000 + j) for j in range(n_items)])
    labels = pd.Series("cat", index=responses.columns)
    result = _Result("sim", responses, pd.Series(["ladder"] * 48 + ["real"] * 12, index=names),
                     pd.DataFrame("cat", index=names, columns=responses.columns), labels)
    return result, {1000 + int(j) for j in flipped}


@pytest.mark.heavy
def test_suspect_labels_find_flipped_labels_more_precisely_than_the_real_classifiers_alone():
    """Simulated flipped labels and hard items: the rule keeps every flipped label the 80 % consensus
    finds and drops some of its hard, correctly labelled items."""
    config = IRTConfig(model="2PL", compare_models=False)
    hits = flagged = baseline_hits = baseline_flagged = total = 0
    for seed in range(3):
        result, flipped = _flipped_pool(seed)
        found = set(irt_for_responses(result, config=config).suspect_labels["row"])
        wrong = real_wrong_share(result.responses.loc[result.roles == "real"])
        baseline = {int(item) for item in wrong.index[wrong >= 0.8]}
        assert found <= baseline  # the rule only removes flags from the consensus filter
        hits, flagged = hits + len(found & flipped), flagged + len(found)
        baseline_hits, baseline_flagged = baseline_hits + len(baseline & flipped), baseline_flagged + len(baseline)
        total += len(flipped)
    # measured: 23 of the rule's 53 flags are flipped items, 23 of the consensus filter's 54; 30 flipped in all
    assert hits == baseline_hits and hits / total >= 0.7
    assert flagged < baseline_flagged and hits / flagged > baseline_hits / baseline_flagged


@dataclass
class _Result:
    dataset: str
    responses: pd.DataFrame
    roles: pd.Series
    predictions: pd.DataFrame
    test_labels: pd.Series | None = None


def test_stage_stores_item_fit_comparison_and_suspects_with_dataset_rows():
    """A pool where one test instance is mislabelled: the able classifiers 'miss' it."""
    sim = simulate_responses(60, n_items=60, model="2PL", seed=9)
    responses = sim.responses.copy()
    responses.columns = [str(100 + j) for j in range(60)]  # item ids are dataset row positions
    order = np.argsort(sim.theta)
    mislabelled = np.zeros(60, dtype=np.int8)
    mislabelled[order[:25]] = 1  # only the weakest respondents agree with the (wrong) label
    mislabelled[48:] = 0  # the real classifiers (the last 12 rows) all miss it
    responses["7"] = mislabelled
    responses.index = [f"mlp_epoch_{i:03d}" for i in range(1, 49)] + [f"real{i}" for i in range(12)]
    roles = pd.Series(["ladder"] * 48 + ["real"] * 12, index=responses.index)
    predictions = pd.DataFrame(np.where(responses.to_numpy() == 1, "cat", "dog"), index=responses.index,
                               columns=responses.columns)
    labels = pd.Series("cat", index=responses.columns)
    irt = irt_for_responses(_Result("toy", responses, roles, predictions, labels), config=IRTConfig(model="2PL"))
    assert 7 in irt.suspect_labels["row"].tolist()
    first = irt.suspect_labels.set_index("row").loc[7]
    assert first["label"] == "cat" and first["consensus"] == "dog" and first["ability_slope"] < 0
    # the monotone curve cannot fall: the item is flat (a = 0), the best classifier's chance a coin's
    assert first["real_wrong_share"] == 1.0 and first["p_best_correct"] <= 0.5 + 1e-9
    assert list(irt.model_comparison["model"]) == ["1PL", "2PL", "3PL"]
    assert irt.statistics["n_suspect_labels"] == len(irt.suspect_labels)
    assert irt.statistics["n_misfit"] == int(irt.item_fit["misfit"].sum())
    assert irt.statistics["quadrature_nodes"] == irt.fit.quadrature_nodes
    assert irt.statistics["quadrature_error"] == irt.fit.quadrature_error
    wide = model_comparison_table([irt])
    assert wide.loc[0, "dataset"] == "toy" and {"aic_1PL", "bic_3PL", "loglik_2PL", "best_bic"} <= set(wide.columns)
    long = suspect_label_table([irt])
    assert long["dataset"].eq("toy").all() and len(long) == len(irt.suspect_labels)
    off = irt_for_responses(_Result("toy", responses, roles, predictions),
                            config=IRTConfig(model="2PL", compare_models=False))
    assert off.model_comparison.empty

"""The start search's bookkeeping and stopping rule (benchirt.irt.search; issue 22, item 1)."""
from __future__ import annotations

import numpy as np
import pytest

from benchirt.irt import IRTConfig, fit_irt
from benchirt.irt.search import explored_enough, file_optimum, unseen_share
from benchirt.irt.simulate import simulate_responses


def _optima(ends: list[tuple[str, float]]) -> list[dict]:
    optima: list[dict] = []
    for name, value in ends:
        file_optimum(optima, name, np.zeros((1, 3)), value, None, tol=0.1)
    return optima


def test_optima_are_filed_best_first_within_the_tolerance():
    optima = _optima([("s1", -10.0), ("s2", -5.0), ("s3", -10.05), ("s4", -4.95), ("s5", -7.0)])
    assert [o["log_posterior"] for o in optima] == [-4.95, -7.0, -10.0]  # -5 and -4.95: one optimum
    assert [o["starts"] for o in optima] == [["s2", "s4"], ["s5"], ["s1", "s3"]]
    joined = optima[2]
    file_optimum(optima, "s6", np.zeros((1, 3)), -3.0, joined, tol=0.1)  # a start that joined counts there
    assert optima[2]["starts"][-1] == "s6" and len(optima) == 3


def test_unseen_share_is_goods_estimate_and_the_stopping_rule_needs_agreement_and_coverage():
    assert unseen_share([]) == 1.0 and not explored_enough([])
    # two starts at one optimum: nothing seen once, agreement -> stop
    assert unseen_share(_optima([("a", -1.0), ("b", -1.0)])) == 0.0
    assert explored_enough(_optima([("a", -1.0), ("b", -1.0)]))
    # best reached once: no agreement, whatever the coverage
    assert not explored_enough(_optima([("a", -1.0), ("b", -2.0), ("c", -2.0)]))
    # best reached twice, but 2 of 6 starts (1/3 > 0.2) ended in optima of their own
    six = _optima([("a", -1.0), ("b", -1.0), ("c", -2.0), ("d", -3.0), ("e", -4.0), ("f", -4.0)])
    assert unseen_share(six) == pytest.approx(2 / 6) and not explored_enough(six)
    # 1 of 5 (0.2): enough
    assert explored_enough(_optima([("a", -1.0), ("b", -1.0), ("c", -2.0), ("d", -3.0), ("e", -3.0)]))
    # a hop that returned to the best optimum is no evidence: only the starts independent() counts
    hopped = _optima([("a", -1.0), ("hop_1", -1.0), ("c", -2.0), ("d", -2.0)])
    independent = lambda name: not name.startswith("hop_")  # noqa: E731
    assert explored_enough(hopped) and not explored_enough(hopped, independent=independent)
    assert unseen_share(hopped, independent=independent) == pytest.approx(1 / 3)


@pytest.mark.heavy
def test_a_one_dimensional_matrix_stops_after_the_candidates_when_they_agree():
    sim = simulate_responses(300, n_items=40, model="3PL", seed=2)
    fit = fit_irt(sim.responses, config=IRTConfig(model_family="decodirt"))
    runs = fit.starts["runs"]
    assert [run["start"] for run in runs] == ["principal_component", "sum_score"] + [
        f"direction_{d}" for d in (30, 60, 90, 120, 150)]
    assert explored_enough(fit.optima)
    assert fit.log_posterior >= fit_irt(sim.responses,
                                        config=IRTConfig(model_family="decodirt", starts=12)).log_posterior - 0.1

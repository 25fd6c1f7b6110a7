"""Item response functions and IRT configuration."""
from __future__ import annotations

import math

import numpy as np
import pytest

from benchirt.errors import ConfigError
from benchirt.irt import IRTConfig, probability
from benchirt.irt.models import log_probabilities, quadrature, response_terms, upper_asymptote


def test_probability_matches_seed_equation_by_hand():
    # Cardoso et al. 2021 eq. 1 with D = 1: P = c + (1 - c) / (1 + exp(-a (theta - b)))
    a, b, c, theta = 1.5, 0.4, 0.2, 1.0
    expected = c + (1 - c) / (1 + math.exp(-a * (theta - b)))
    got = probability([theta], [a], [b], [c])
    assert got.shape == (1, 1)
    assert got[0, 0] == pytest.approx(expected, rel=1e-12)


def test_negative_discrimination_decreases_with_ability_towards_c():
    theta = np.linspace(-6, 6, 50)
    p = probability(theta, [-2.0], [0.0], [0.15])[:, 0]
    assert np.all(np.diff(p) < 0)
    assert p[0] == pytest.approx(1.0, abs=1e-4)
    assert p[-1] == pytest.approx(0.15, abs=1e-4)
    assert upper_asymptote([-2.0, 2.0, 0.0], [0.15, 0.15, 0.0]).tolist() == [0.15, 1.0, 0.5]


def test_log_probabilities_are_finite_and_consistent_at_extreme_logits():
    theta = np.array([-6.0, 0.0, 6.0])
    a = np.array([10.0, -10.0, 1.0, 10.0])
    b = np.array([6.0, -6.0, 0.0, -6.0])
    c = np.array([0.0, 0.0, 0.25, 1e-4])
    log_p, log_q = log_probabilities(theta, a, b, c)
    assert np.isfinite(log_p).all() and np.isfinite(log_q).all()
    p = probability(theta, a, b, c)
    moderate = (p > 1e-12) & (p < 1 - 1e-12)
    np.testing.assert_allclose(np.exp(log_p)[moderate], p[moderate], rtol=1e-10)
    np.testing.assert_allclose(np.exp(log_q)[moderate], 1 - p[moderate], rtol=1e-8)
    # a = 10 at theta - b = -12: log P = log sigma(-120) = -120 - log1p(e^-120)
    assert log_p[0, 0] == pytest.approx(-120.0, rel=1e-12)
    s, p2, _, _ = response_terms(theta, a, b, c)
    np.testing.assert_allclose(p2, p, rtol=1e-12)
    assert ((s >= 0) & (s <= 1)).all()


def test_quadrature_is_a_normalised_standard_normal():
    nodes, log_w = quadrature(41, 6.0)
    w = np.exp(log_w)
    assert nodes[0] == -6.0 and nodes[-1] == 6.0 and len(nodes) == 41
    assert w.sum() == pytest.approx(1.0)
    assert (w * nodes).sum() == pytest.approx(0.0, abs=1e-12)
    assert (w * nodes**2).sum() == pytest.approx(1.0, abs=1e-6)


def test_config_from_dict_round_trip_and_rejects_unknown_keys():
    config = IRTConfig.from_dict({"model": "2PL", "prior_discrimination": [0.5, 2], "calibration_roles": "real"})
    assert config.model == "2PL"
    assert config.prior_discrimination == (0.5, 2.0)
    assert config.calibration_roles == ("real",)
    assert IRTConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ConfigError, match="valid options: .*model"):
        IRTConfig.from_dict({"modle": "3PL"})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"model": "4PL"}, "1PL, 2PL, 3PL"),
        ({"ability": "ML"}, "EAP, MAP"),
        ({"prior_guessing": (0.5, 3)}, r"irt.prior_guessing: got \(0.5, 3\), expected a list of 2 numbers \[alpha, beta\], each >= 1"),
        ({"max_guessing": 1.0}, "max_guessing"),
        ({"quadrature": 3}, "irt.quadrature: got 3, expected an integer >= 5"),
        ({"tol": 0}, "tol"),
    ],
)
def test_config_rejects_invalid_values(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        IRTConfig(**kwargs)

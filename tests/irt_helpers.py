"""Shared helpers of the IRT estimator's tests: the estimator's :class:`benchirt.irt.problem.Problem` for a matrix."""
from __future__ import annotations

import numpy as np

from benchirt.irt.config import IRTConfig
from benchirt.irt.models import quadrature
from benchirt.irt.problem import Problem, unique_rows


def problem_of(responses: np.ndarray, config: IRTConfig) -> Problem:
    """The estimator's problem for a respondents x items 0/1 matrix on ``config``'s grid: identical rows
    collapsed into patterns with counts, every column kept (multiplicity 1), as
    :func:`benchirt.irt.estimation.fit_irt` builds it for a matrix without identical items."""
    nodes, log_weights = quadrature(config.quadrature, config.theta_max)
    patterns, _, counts = unique_rows(np.ascontiguousarray(responses.astype(np.int8)))
    return Problem(items=np.ascontiguousarray(patterns.T), counts=counts.astype(float), multiplicity=np.ones(responses.shape[1]), nodes=nodes,
                   log_weights=log_weights, config=config)

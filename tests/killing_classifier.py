"""A classifier that kills its worker process, for the response-stage tests of lost workers.

Its own module (not :mod:`pipeline_fakes`, which worker processes import for the fake stage functions) so
that only the workers that fit it import scikit-learn.
"""
from __future__ import annotations

import os
import signal

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class KillOnFourFeatures(ClassifierMixin, BaseEstimator):
    """A classifier whose fit kills its process on data of 4 features (iris), as an out-of-memory kill would.

    On other data it predicts the first training class. Passed to the pool by ``responses.extra`` with
    ``allowed_packages: [killing_classifier]``; it never runs in the test process itself.
    """

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        if np.asarray(X).shape[1] == 4:
            os.kill(os.getpid(), signal.SIGKILL)
        self.first_ = np.asarray(y)[0]
        return self

    def predict(self, X):
        return np.full(len(X), self.first_)

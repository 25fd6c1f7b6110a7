"""The calibration ladder: MLPs trained for 1, 2, …, K epochs, taken from one training.

decodIRT (Cardoso et al. 2021 §4.3) trains a separate ``MLPClassifier(max_iter=k, random_state=seed)`` for every k —
K(K+1)/2 epochs in all. Here one training of K epochs yields all K rungs, and rung k is *bit-for-bit* the model a
separate ``MLPClassifier(max_iter=k, random_state=seed).fit(X, y)`` produces (``tests/test_pool_ladder.py``).

Why, from scikit-learn's ``_fit_stochastic``: ``fit`` draws the initial weights from ``RandomState(seed)``, then at
every epoch re-shuffles its *running* index array with that generator, updates Adam's state, and stops once the loss
failed to improve by ``tol`` for more than ``n_iter_no_change`` epochs; a fit with ``max_iter=k`` is thus the first k
epochs of a longer one. ``partial_fit`` runs the same epoch code and keeps Adam's state, but restarts the index array
from ``arange(n)`` and re-seeds an integer ``random_state`` on every call. So the ladder trains with ``shuffle=False``
on rows it orders itself: a second ``RandomState(seed)``, advanced past the weight initialisation by a throw-away
``partial_fit`` of a twin model, re-shuffles the running index array as ``fit`` does; the model's own generator (a
``RandomState`` instance, not re-seeded) only draws the initial weights. The stopping rule is re-applied to
``loss_curve_``; once it fires, the remaining rungs repeat the last one, as larger ``max_iter`` fits would.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.neural_network import MLPClassifier
from sklearn.utils import shuffle as shuffle_rows


def ladder_name(epoch: int) -> str:
    """Row name of rung ``epoch``: ``mlp_epoch_001`` … (three digits, more when K ≥ 1000)."""
    return f"mlp_epoch_{epoch:03d}"


@dataclass
class LadderRun:
    """Result of one ladder training: ``predictions`` (epochs, n_test), row k-1 the test predictions after k epochs
    (labels as ``y_train``); ``epochs_trained``, fewer than ``epochs`` when the stopping rule fired (later rows then
    repeat the last trained rung)."""

    predictions: np.ndarray
    epochs_trained: int


def ladder_predictions(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray,
    *, epochs: int = 100,
    seed: int = 0,
    mlp: MLPClassifier | None = None,
) -> LadderRun:
    """Predictions of the MLP after every epoch 1..``epochs`` (decodIRT: 100) of a single training.

    ``X_train`` and ``X_test`` are preprocessed (imputed, encoded, scaled); ``seed`` is the ``random_state`` of the
    equivalent separate MLPs; ``mlp`` a template with the hyper-parameters (default scikit-learn's), which must use Adam
    without ``early_stopping`` (its ``random_state`` and ``max_iter`` are ignored). Rung k equals
    ``clone(mlp).set_params(max_iter=k, random_state=seed).fit(X_train, y_train)``.
    """
    template = MLPClassifier() if mlp is None else mlp
    if template.solver != "adam" or template.early_stopping:
        raise ValueError("the epoch ladder supports the Adam solver without early_stopping only")
    X_train = np.asarray(X_train)
    y_train = np.asarray(y_train)
    classes = np.unique(y_train)

    shuffle_rng = np.random.RandomState(seed)
    # A throw-away epoch on one row draws the same initial weights from shuffle_rng as the real model
    # draws from its own generator, leaving shuffle_rng where fit()'s first re-shuffle starts.
    clone(template).set_params(random_state=shuffle_rng, shuffle=False).partial_fit(
        X_train[:1], y_train[:1], classes=classes
    )
    model = clone(template).set_params(random_state=np.random.RandomState(seed), shuffle=False)

    predictions = np.empty((epochs, len(X_test)), dtype=y_train.dtype)
    order = np.arange(len(y_train))
    best_loss, stalled = np.inf, 0
    for epoch in range(epochs):
        if template.shuffle:
            order = shuffle_rows(order, random_state=shuffle_rng)
        model.partial_fit(X_train[order], y_train[order], classes=classes)
        predictions[epoch] = model.predict(X_test)
        loss = model.loss_curve_[-1]
        stalled = stalled + 1 if loss > best_loss - model.tol else 0
        best_loss = min(best_loss, loss)
        if stalled > model.n_iter_no_change:  # fit() stops here; larger max_iter changes nothing
            predictions[epoch + 1 :] = predictions[epoch]
            return LadderRun(predictions, epoch + 1)
    return LadderRun(predictions, epochs)

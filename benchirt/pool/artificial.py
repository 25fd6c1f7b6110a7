"""The seven artificial classifiers that bracket the real ones (Cardoso et al. 2021 §4.3, after its ref. [6]).

- ``optimal`` answers every test instance correctly; ``pessimal`` answers every one wrongly (it predicts
  a class other than the true one, drawn uniformly from the other training classes, as decodIRT does);
- ``majority`` / ``minority`` always predict the most / least frequent class of the *training part*
  (ties go to the class listed first), so they use nothing a real model could not know;
- ``random1`` … ``random3`` predict a class drawn uniformly from the training classes.

All draws come from generators spawned from one ``numpy.random.SeedSequence(seed)``, so a seed fixes every response.
"""
from __future__ import annotations

import numpy as np

#: Row names of the artificial classifiers, in the order their rows appear.
ARTIFICIAL_NAMES: tuple[str, ...] = ("optimal", "pessimal", "majority", "minority", "random1", "random2", "random3")


def artificial_predictions(y_train: np.ndarray, y_test: np.ndarray, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Predicted labels (``name -> predictions``, every name of :data:`ARTIFICIAL_NAMES` in order) of the artificial
    classifiers for the test part; ``y_train`` and ``y_test`` are integer class codes with at least two training
    classes, ``seed`` seeds the pessimal and random classifiers."""
    y_train = np.asarray(y_train)
    y_test = np.asarray(y_test)
    classes, counts = np.unique(y_train, return_counts=True)
    if len(classes) < 2:
        raise ValueError("artificial classifiers need at least two training classes")
    pessimal_rng, *random_rngs = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4))
    n_test = len(y_test)
    predictions = {
        "optimal": y_test.copy(),
        "pessimal": _wrong_labels(y_test, classes, pessimal_rng),
        "majority": np.full(n_test, classes[np.argmax(counts)], dtype=y_test.dtype),
        "minority": np.full(n_test, classes[np.argmin(counts)], dtype=y_test.dtype),
    }
    for i, rng in enumerate(random_rngs, start=1):
        predictions[f"random{i}"] = rng.choice(classes, size=n_test).astype(y_test.dtype, copy=False)
    return predictions


def _wrong_labels(y_test: np.ndarray, classes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each test label, a class drawn uniformly from the training classes other than it."""
    n_classes = len(classes)
    # Position of the true label among the classes (n_classes when it is not a training class).
    position = np.searchsorted(classes, y_test)
    known = (position < n_classes) & (classes[np.minimum(position, n_classes - 1)] == y_test)
    draw = np.where(known, rng.integers(0, n_classes - 1, size=len(y_test)), rng.integers(0, n_classes, size=len(y_test)))
    # Skip over the true class: draws at or past its position move up by one.
    draw = np.where(known & (draw >= position), draw + 1, draw)
    return classes[draw].astype(y_test.dtype, copy=False)

"""The pairwise Wilcoxon p-values equal scipy's own, ties and zeros included (the fast exact path)."""
from __future__ import annotations

import pytest

import warnings

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

from benchirt.rating.pairwise import pairwise_comparisons


@pytest.mark.heavy
def test_tied_and_zero_differences_give_scipys_exact_permutation_p_values():
    # 12 datasets, scores on a coarse grid: many tied |differences| and some zero differences
    rng = np.random.default_rng(3)
    matrix = pd.DataFrame(rng.integers(0, 5, size=(12, 2)) / 4, columns=list("ab"))
    matrix["e"] = matrix["a"] + np.r_[[0.5] * 6, [-0.25] * 6]  # ties and a known sign pattern
    table = pairwise_comparisons(matrix, rope=0.0)
    for row in table.itertuples(index=False):
        difference = (matrix[row.a] - matrix[row.b]).to_numpy()
        if not np.any(difference != 0):
            assert row.wilcoxon_p == 1.0
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            expected = wilcoxon(difference, zero_method="wilcox").pvalue
        assert row.wilcoxon_p == expected, (row.a, row.b)

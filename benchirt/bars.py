"""Progress bars: ``tqdm.auto``'s bar, imported without its warning in a notebook that lacks ipywidgets.

In Jupyter without ipywidgets, ``tqdm.auto`` warns (``TqdmWarning: IProgress not found…``) and falls back to the text
bar, which is what benchirt wants there anyway, so the import is made with that one warning silenced; every other
warning stays as it is.
"""
from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="IProgress not found")
    from tqdm.auto import tqdm

__all__ = ["tqdm"]

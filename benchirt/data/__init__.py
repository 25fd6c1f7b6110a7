"""Dataset type and the sources that produce it (OpenML, local files, scikit-learn builtins)."""
from benchirt.data.dataset import METADATA_COLUMNS, Dataset

__all__ = ["Dataset", "METADATA_COLUMNS"]

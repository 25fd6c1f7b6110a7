"""Names the command line shows before any data library is imported: the suite forms and the
dataset characteristics of Cardoso et al. 2021 §5.6 (``benchirt datasets --help`` imports only this)."""
from __future__ import annotations

#: The forms :func:`benchirt.data.resolve_suite` accepts, as one help sentence.
FORMS_HELP = (
    "a suite is 'embedded', 'builtin', 'builtin:iris,wine', 'cc18-offline', an OpenML suite ('OpenML-CC18', 99, 'openml:99'), "
    "'openml-dataset:ID', 'openml-task:ID', a folder of .arff/.csv/.parquet files, a suite file (.yaml/.json), "
    "a data file, or a list/dict of these"
)
#: OpenML suite aliases resolved to ids without asking the server (lower case;
#: :func:`benchirt.data.openml_source.suite_id`).
OPENML_SUITE_ALIASES = {"openml-cc18": 99}
#: Names of the metadata columns, in the order Cardoso et al. 2021 §5.6 (Tables 7-9) lists them.
METADATA_COLUMNS = (
    "n_instances",
    "n_features",
    "n_classes",
    "pct_missing_instances",
    "pct_categorical_features",
    "pct_numeric_features",
    "pct_binary_features",
    "pct_majority_class",
    "pct_minority_class",
    "dimensionality",
)

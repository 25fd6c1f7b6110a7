"""Errors benchirt reports to its user as one clear message (what, where, how to fix).

The command line prints a :class:`BenchirtError` as a single line and exits with
status 2; any other exception is a bug and keeps its traceback.
"""


class BenchirtError(Exception):
    """Base class of every error caused by the user's input, data or environment."""


class DataError(BenchirtError):
    """A dataset, file or suite cannot be read or is unusable."""


class ConfigError(BenchirtError, ValueError):
    """A configuration file or option is invalid (a ``ValueError``, as scikit-learn's invalid parameters are)."""


class OpenMLUnavailableError(DataError):
    """OpenML cannot be reached; the message names the offline alternatives."""


class ArtifactError(BenchirtError):
    """A stored artifact is malformed, names a type benchirt does not store, or was changed after writing."""

"""Validation shared by every stage's options dataclass (``XConfig.from_dict``)."""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from benchirt.errors import ConfigError


def checked_options(section: str, options: Mapping[str, Any] | None, config_class: type) -> dict[str, Any]:
    """A copy of ``options`` after refusing any key that is not a field of the dataclass ``config_class``.

    Parameters
    ----------
    section : str
        The name the user knows the options by (the YAML section, e.g. ``"rating"``).
    options : mapping or None
        The user's options; None is no options.
    config_class : dataclass type
        Its fields are the valid keys.

    Raises
    ------
    ConfigError
        Naming the unknown keys and listing the valid ones.
    """
    options = dict(options or {})
    valid = [field.name for field in dataclasses.fields(config_class)]
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ConfigError(
            f"unknown {section} option(s) {', '.join(map(repr, unknown))}; valid options: {', '.join(valid)}"
        )
    return options

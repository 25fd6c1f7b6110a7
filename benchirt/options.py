"""The one validation layer of every stage's options (``XConfig.from_dict`` / ``__post_init__``).

Checks in the style of scipy.stats' ``_iv`` functions: each takes the option's ``section``, ``key``
and value and raises a :class:`~benchirt.errors.ConfigError` worded the same way everywhere::

    <section>.<key>: got <value>, expected <what is allowed>

:func:`checked_options` refuses unknown keys, naming the valid ones. Booleans are not integers here
(``n_jobs: true`` is refused), and nothing is coerced silently.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Mapping

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
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(f"{section}: expected a mapping of options, got {options!r}")
    options = dict(options or {})
    valid = [field.name for field in dataclasses.fields(config_class)]
    unknown = sorted(set(options) - set(valid), key=str)
    if unknown:
        raise ConfigError(
            f"unknown {section} option(s) {', '.join(map(repr, unknown))}; valid options: {', '.join(valid)}"
        )
    return options


def require(ok: bool, section: str, key: str, value: Any, expected: str) -> None:
    """Raise ``<section>.<key>: got <value>, expected <expected>`` unless ``ok``."""
    if not ok:
        raise ConfigError(f"{section}.{key}: got {value!r}, expected {expected}")


def is_integer(value: Any) -> bool:
    """An ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """An ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_integer(section: str, key: str, value: Any, minimum: int | None = None, *, also: Iterable = (),
                  optional: bool = False) -> None:
    """An integer ``>= minimum`` (or one of ``also``; or None when ``optional``)."""
    also = tuple(also)
    if optional and value is None:
        return
    ok = is_integer(value) and ((minimum is None or value >= minimum) or value in also)
    expected = "an integer" + (f" >= {minimum}" if minimum is not None else "")
    expected += "".join(f" or {a}" for a in also)
    require(ok, section, key, value, ("null or " if optional else "") + expected)


def check_choice(section: str, key: str, value: Any, choices: Iterable[str]) -> None:
    """One of ``choices``."""
    choices = tuple(choices)
    require(value in choices, section, key, value, "one of " + ", ".join(choices))

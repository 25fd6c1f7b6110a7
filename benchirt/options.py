"""The one validation layer of every stage's options (``XConfig.from_dict`` / ``__post_init__``).

Checks in the style of scipy.stats' ``_iv`` functions: each takes the option's ``section``, ``key``
and value and raises a :class:`~benchirt.errors.ConfigError` worded the same way everywhere::

    <section>.<key>: got <value>, expected <what is allowed>

(``<key>`` alone for the top-level keys of a pipeline config, whose section is ``""``).
:func:`checked_options` refuses unknown keys, naming the valid ones. Booleans are not numbers here
(``n_jobs: true`` is refused), NaN and infinities are not numbers either, and nothing is coerced
silently. Every stage's config dataclass (``ResponseConfig``, ``IRTConfig``, ``RatingConfig``,
``SubsetConfig``, ``AIRTConfig``, ``GRMConfig``, ``ReportConfig``, ``ExecutionConfig``) and the
pipeline's top level validate through these functions only.
"""
from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping, TypeGuard

from benchirt.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def checked_options(section: str, options: Mapping[str, Any] | None,
                    config_class: type[DataclassInstance] | Iterable[str]
                    ) -> dict[str, Any]:
    """A copy of ``options`` after refusing any key that is not a field of the dataclass ``config_class``.

    Parameters
    ----------
    section : str
        The name the user knows the options by (the YAML section, e.g. ``"rating"``).
    options : mapping or None
        The user's options; None is no options.
    config_class : dataclass type or iterable of str
        Its fields (or these names) are the valid keys.

    Raises
    ------
    ConfigError
        Not a mapping; or naming the unknown keys and listing the valid ones.
    """
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(f"{section}: got {options!r}, expected a mapping of options")
    options = dict(options or {})
    if dataclasses.is_dataclass(config_class):
        valid = [field.name for field in dataclasses.fields(config_class)]
    else:
        valid = list(config_class)
    unknown = sorted(set(options) - set(valid), key=str)
    if unknown:
        raise ConfigError(
            f"unknown {section} option(s) {', '.join(map(repr, unknown))}; valid options: {', '.join(valid)}"
        )
    return options


def require(ok: bool, section: str, key: str, value: Any, expected: str) -> None:
    """Raise ``<section>.<key>: got <value>, expected <expected>`` unless ``ok``."""
    if not ok:
        raise ConfigError(f"{section + '.' if section else ''}{key}: got {value!r}, expected {expected}")


def is_integer(value: Any) -> TypeGuard[int]:
    """An ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


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


def check_number(section: str, key: str, value: Any, *, above: float | None = None, at_least: float | None = None,
                 below: float | None = None, at_most: float | None = None, optional: bool = False) -> None:
    """A finite number within the given bounds (``above``/``below`` exclusive, ``at_least``/``at_most`` inclusive)."""
    if optional and value is None:
        return
    ok = is_number(value) and _within(value, above, at_least, below, at_most)
    require(ok, section, key, value, ("null or " if optional else "") + _range_text(above, at_least, below, at_most))


def _within(value: float, above: float | None, at_least: float | None, below: float | None,
            at_most: float | None) -> bool:
    """``value`` satisfies every bound that is given."""
    return all(bound is None or holds for bound, holds in (
        (above, above is not None and value > above), (at_least, at_least is not None and value >= at_least),
        (below, below is not None and value < below), (at_most, at_most is not None and value <= at_most)))


def _range_text(above: float | None, at_least: float | None, below: float | None, at_most: float | None) -> str:
    """How a message names the range: ``a number in (0, 1]``, ``a number >= 2``, ``a finite number``."""
    low = above if above is not None else at_least
    high = below if below is not None else at_most
    if low is not None and high is not None:
        return f"a number in {'(' if above is not None else '['}{low:g}, {high:g}{')' if below is not None else ']'}"
    if low is not None:
        return f"a number {'>' if above is not None else '>='} {low:g}"
    if high is not None:
        return f"a number {'<' if below is not None else '<='} {high:g}"
    return "a finite number"


def check_numbers(section: str, key: str, value: Any, count: int | None = None, *, at_least: float | None = None,
                  at_most: float | None = None, meaning: str = "") -> tuple[float, ...]:
    """A list of ``count`` finite numbers (any non-zero number of them when ``count`` is None) in bounds.

    ``meaning`` names the entries for the message, e.g. ``"[mean, sd]"``. Returns them as a tuple of floats.
    """
    length = "a non-empty list of" if count is None else f"a list of {count}"
    bounds = ""
    if at_least is not None and at_most is not None:
        bounds = f", each in [{at_least:g}, {at_most:g}]"
    elif at_least is not None:
        bounds = f", each >= {at_least:g}"
    expected = f"{length} numbers" + (f" {meaning}" if meaning else "") + bounds
    sized = isinstance(value, (list, tuple)) and len(value) > 0 and (count is None or len(value) == count)
    ok = sized and all(is_number(v) and _within(v, None, at_least, None, at_most) for v in value)
    require(ok, section, key, value, expected)
    return tuple(float(v) for v in value)


def check_bool(section: str, key: str, value: Any) -> None:
    """``true`` or ``false`` (not 0/1, not a string)."""
    require(isinstance(value, bool), section, key, value, "true or false")


def check_text(section: str, key: str, value: Any, *, empty: bool = False) -> None:
    """A string (non-empty unless ``empty``)."""
    require(isinstance(value, str) and (empty or bool(value.strip())), section, key, value,
            "text" if empty else "a non-empty text")


def check_names(section: str, key: str, value: Any, what: str, *, empty: bool = False,
                single: bool = False) -> tuple[str, ...]:
    """A list of strings (``single``: one string counts as a list of one); ``what`` names them for the message."""
    if single and isinstance(value, str):
        value = [value]
    ok = isinstance(value, (list, tuple)) and (empty or len(value) > 0) and all(isinstance(v, str) for v in value)
    require(ok, section, key, value, f"a {'' if empty else 'non-empty '}list of {what}")
    return tuple(value)


def check_choice(section: str, key: str, value: Any, choices: Iterable[str], *, optional: bool = False) -> None:
    """One of ``choices`` (or None when ``optional``)."""
    choices = tuple(choices)
    ok = (optional and value is None) or (isinstance(value, str) and value in choices)
    require(ok, section, key, value, ("null or " if optional else "") + "one of " + ", ".join(choices))

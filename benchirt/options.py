"""The one validation layer of every stage's options: constraints declared once per field, checked by one function.

Every config class declares a table ``OPTIONS``: field name -> :class:`Constraint` (:class:`Integer`, :class:`Number`,
:class:`Numbers`, :class:`Boolean`, :class:`Text`, :class:`Names`, :class:`Choice`, :class:`MappingOf`,
:class:`AnyOf`, or a stage's own class for a form of its own). :func:`validated` checks values against a table — the
only place a type, range or choice is checked — and :func:`validate_fields` applies it from a config's
``__post_init__``; rules between fields are named checks beside the table (:func:`require`). In the spirit of
scikit-learn's ``_parameter_constraints``, written here because that module is private to scikit-learn and words its
messages for estimators; the tests generate invalid values from the declarations (``tests/test_option_constraints.py``).

Every message reads ``<section>.<key>: got <value>, expected <what is allowed>`` (``<key>`` alone for a pipeline
config's top level), ``<section>`` being the stage's one name. :func:`checked_options` refuses unknown keys, naming the
valid ones; :func:`from_arguments` reads command-line options as their fields declare them, so the config class checks
them in the same words. Booleans, NaN and infinities are not numbers (``n_jobs: true`` is refused), and nothing is
coerced silently.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from benchirt.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: A value no declaration accepts as a number, a list or a choice (the generated invalid values use it).
NOT_AN_OPTION = "zz-not-an-option"


def checked_options(section: str, options: Mapping[str, Any] | None,
                    config_class: type[DataclassInstance] | Iterable[str]
                    ) -> dict[str, Any]:
    """A copy of ``options`` (None: none) after refusing any key that is not a field of the dataclass
    ``config_class`` (or one of these names); ``section`` is the name the user knows the options by (e.g.
    ``"rate"``). ConfigError when not a mapping, or naming the unknown keys and listing the valid ones."""
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
    """Raise ``<section>.<key>: got <value>, expected <expected>`` unless ``ok`` (a rule between fields)."""
    if not ok:
        raise ConfigError(f"{section + '.' if section else ''}{key}: got {value!r}, expected {expected}")


def is_integer(value: Any) -> bool:
    """An ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# -- the declarations ----------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Constraint:
    """What one option accepts. Subclasses say it (:meth:`expected`), test it (:meth:`accepts`), give values it
    refuses (:meth:`invalid_values`) and read it from command-line text (:meth:`from_text`). ``optional``: None is
    accepted too (the message then begins ``null or``)."""

    optional: bool = False

    def expected(self) -> str:
        """What the message says is allowed (without the ``null or`` of an optional option)."""
        raise NotImplementedError

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` (not None) is allowed."""
        raise NotImplementedError

    def normal(self, value: Any) -> Any:
        """The accepted ``value`` in the form the config keeps (tuples for lists)."""
        return value

    def invalid_values(self) -> tuple[Any, ...]:
        """Values the declaration refuses: a wrong type, out of range, not a choice."""
        raise NotImplementedError

    def from_text(self, text: str) -> Any:
        """The value a command-line ``text`` stands for (left as text when it is none)."""
        return text

    def describe(self) -> str:
        """The whole expectation: ``expected()``, with ``null or`` first when None is allowed."""
        return ("null or " if self.optional else "") + self.expected()

    def check(self, section: str, key: str, value: Any) -> Any:
        """``value`` in its normal form, or a ConfigError ``<section>.<key>: got …, expected …``."""
        if value is None and self.optional:
            return None
        require(value is not None and self.accepts(value), section, key, value, self.describe())
        return self.normal(value)


@dataclass(frozen=True, kw_only=True)
class Integer(Constraint):
    """An integer (not a bool) ``>= minimum``, or one of ``also``; ``nonzero``: any integer but 0."""

    minimum: int | None = None
    also: tuple[int, ...] = ()
    nonzero: bool = False
    meaning: str = ""

    def expected(self) -> str:
        text = "a non-zero integer" if self.nonzero else "an integer"
        text += f" >= {self.minimum}" if self.minimum is not None else ""
        return text + "".join(f" or {a}" for a in self.also) + (f" ({self.meaning})" if self.meaning else "")

    def accepts(self, value: Any) -> bool:
        if not is_integer(value):
            return False
        return ((self.minimum is None or value >= self.minimum) and not (self.nonzero and value == 0)) or \
            value in self.also

    def invalid_values(self) -> tuple[Any, ...]:
        below = [] if self.minimum is None or self.minimum - 1 in self.also else [self.minimum - 1]
        return ("x", 2.5, True, *below, *([0] if self.nonzero else []))

    def from_text(self, text: str) -> Any:
        try:
            return int(text)
        except ValueError:
            return _number_text(text)


@dataclass(frozen=True, kw_only=True)
class Number(Constraint):
    """A finite number (not a bool) within bounds: ``above``/``below`` exclusive, ``at_least``/``at_most``
    inclusive; ``unit`` names what it counts (``a number of seconds > 0``)."""

    above: float | None = None
    at_least: float | None = None
    below: float | None = None
    at_most: float | None = None
    unit: str = ""

    def expected(self) -> str:
        low = self.above if self.above is not None else self.at_least
        high = self.below if self.below is not None else self.at_most
        noun = "a number" + (f" of {self.unit}" if self.unit else "")
        if low is not None and high is not None:
            opening, closing = "(" if self.above is not None else "[", ")" if self.below is not None else "]"
            return f"{noun} in {opening}{low:g}, {high:g}{closing}"
        if low is not None:
            return f"{noun} {'>' if self.above is not None else '>='} {low:g}"
        if high is not None:
            return f"{noun} {'<' if self.below is not None else '<='} {high:g}"
        return "a finite number"

    def accepts(self, value: Any) -> bool:
        return is_number(value) and _within(value, self.above, self.at_least, self.below, self.at_most)

    def invalid_values(self) -> tuple[Any, ...]:
        edges = [bound for bound in (self.above, self.below) if bound is not None]
        edges += [self.at_least - 1] if self.at_least is not None else []
        edges += [self.at_most + 1] if self.at_most is not None else []
        return ("x", True, math.inf, math.nan, *edges)

    def from_text(self, text: str) -> Any:
        return _number_text(text)


@dataclass(frozen=True, kw_only=True)
class Numbers(Constraint):
    """A list of numbers: ``entries`` names them (and fixes how many), else any non-empty number of them;
    each ``>= at_least`` / ``<= at_most``; the entries named in ``positive`` are > 0. Kept as a tuple of floats."""

    entries: tuple[str, ...] = ()
    at_least: float | None = None
    at_most: float | None = None
    positive: tuple[str, ...] = ()

    def expected(self) -> str:
        text = f"a list of {len(self.entries)} numbers [{', '.join(self.entries)}]" if self.entries else \
            "a non-empty list of numbers"
        if self.at_least is not None and self.at_most is not None:
            text += f", each in [{self.at_least:g}, {self.at_most:g}]"
        elif self.at_least is not None:
            text += f", each >= {self.at_least:g}"
        return text + (f" with {' and '.join(f'{name} > 0' for name in self.positive)}" if self.positive else "")

    def accepts(self, value: Any) -> bool:
        sized = isinstance(value, (list, tuple)) and len(value) > 0 and (
            not self.entries or len(value) == len(self.entries))
        numbers = sized and all(is_number(v) and _within(v, None, self.at_least, None, self.at_most) for v in value)
        return numbers and all(value[self.entries.index(name)] > 0 for name in self.positive)

    def normal(self, value: Any) -> Any:
        return tuple(float(v) for v in value)

    def invalid_values(self) -> tuple[Any, ...]:
        size = len(self.entries) or 1
        values: list[Any] = [3, [], [0.5] * (size + 1) if self.entries else [NOT_AN_OPTION], [NOT_AN_OPTION] * size]
        values += [[self.at_least - 1] * size] if self.at_least is not None else []
        values += [[self.at_most + 1] * size] if self.at_most is not None else []
        for name in self.positive:
            values.append([0.0 if entry == name else 1.0 for entry in self.entries])
        return tuple(values)

    def from_text(self, text: str) -> Any:
        return [_number_text(part) for part in text.split(",") if part.strip()]


@dataclass(frozen=True, kw_only=True)
class Boolean(Constraint):
    """``true`` or ``false`` (not 0/1, not a string)."""

    def expected(self) -> str:
        return "true or false"

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def invalid_values(self) -> tuple[Any, ...]:
        return ("yes", 1)


@dataclass(frozen=True, kw_only=True)
class Text(Constraint):
    """A string, non-empty unless ``empty``; ``what`` says what it names when that is more than text."""

    empty: bool = False
    what: str = ""

    def expected(self) -> str:
        return self.what or ("text" if self.empty else "a non-empty text")

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and (self.empty or bool(value.strip()))

    def invalid_values(self) -> tuple[Any, ...]:
        return (5, ["x"]) if self.empty else (5, ["x"], " ")


@dataclass(frozen=True, kw_only=True)
class Names(Constraint):
    """A list of strings naming ``what`` (non-empty unless ``empty``; ``single``: one string is a list of
    one; ``identifiers``: each a Python identifier). Kept as a tuple."""

    what: str
    empty: bool = False
    single: bool = False
    identifiers: bool = False

    def expected(self) -> str:
        return f"a {'' if self.empty else 'non-empty '}list of {self.what}"

    def accepts(self, value: Any) -> bool:
        value = [value] if self.single and isinstance(value, str) else value
        return (isinstance(value, (list, tuple)) and (self.empty or len(value) > 0)
                and all(isinstance(v, str) and (v.isidentifier() or not self.identifiers) for v in value))

    def normal(self, value: Any) -> Any:
        return (value,) if isinstance(value, str) else tuple(value)

    def invalid_values(self) -> tuple[Any, ...]:
        values: list[Any] = [5, [5]]
        values += [] if self.single else ["x"]
        values += [] if self.empty else [[]]
        values += [["not a-name"]] if self.identifiers else []
        return tuple(values)

    def from_text(self, text: str) -> Any:
        return [part.strip() for part in text.split(",") if part.strip()]


@dataclass(frozen=True, kw_only=True)
class Choice(Constraint):
    """One of ``choices`` (strings)."""

    choices: tuple[str, ...]

    def expected(self) -> str:
        if len(self.choices) == 1:
            return repr(self.choices[0])
        return "one of " + ", ".join(self.choices)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.choices

    def invalid_values(self) -> tuple[Any, ...]:
        return (NOT_AN_OPTION, 3)


@dataclass(frozen=True, kw_only=True)
class MappingOf(Constraint):
    """A mapping (of options or keyword arguments); ``what`` says of what. Kept as a dict."""

    what: str

    def expected(self) -> str:
        return self.what

    def accepts(self, value: Any) -> bool:
        return isinstance(value, Mapping)

    def normal(self, value: Any) -> Any:
        return dict(value)

    def invalid_values(self) -> tuple[Any, ...]:
        return (3, ["x"])


@dataclass(frozen=True, kw_only=True)
class AnyOf(Constraint):
    """Any of ``members`` (the first that accepts the value gives its normal form)."""

    members: tuple[Constraint, ...]

    def expected(self) -> str:
        return " or ".join(member.expected() for member in self.members)

    def accepts(self, value: Any) -> bool:
        return any(member.accepts(value) for member in self.members)

    def normal(self, value: Any) -> Any:
        return next(member for member in self.members if member.accepts(value)).normal(value)

    def invalid_values(self) -> tuple[Any, ...]:
        values = (value for member in self.members for value in member.invalid_values())
        return tuple(value for value in values if not self.accepts(value))

    def from_text(self, text: str) -> Any:
        """The first member's reading that it accepts; else the first one that is not the text (a number
        out of range), else the text."""
        readings = [member.from_text(text) for member in self.members]
        accepted = [value for member, value in zip(self.members, readings) if member.accepts(value)]
        return next(iter(accepted or [value for value in readings if value != text] or [text]))


# -- the one function -----------------------------------------------------------------------------------
def validated(section: str, values: Mapping[str, Any], table: Mapping[str, Constraint]) -> dict[str, Any]:
    """``values`` (option name -> value) checked against the declarations of ``table`` (undeclared keys left as
    they are), with every declared one in its normal form (tuples for lists). ``section`` is the stage's name (``""``
    for a pipeline config's top level). ConfigError ``<section>.<key>: got <value>, expected <…>`` for the first
    refused one."""
    checked = dict(values)
    for key, constraint in table.items():
        if key in checked:
            checked[key] = constraint.check(section, key, checked[key])
    return checked


def validate_fields(section: str, config: DataclassInstance, table: Mapping[str, Constraint]) -> None:
    """Check every field of the frozen dataclass ``config`` by :func:`validated` and keep the normal forms; an
    undeclared field is a bug (TypeError)."""
    names = [field.name for field in dataclasses.fields(config)]
    undeclared = sorted(set(names) - set(table))
    if undeclared:
        raise TypeError(f"{type(config).__name__}: no declared constraint for {', '.join(undeclared)}")
    for key, value in validated(section, {name: getattr(config, name) for name in names}, table).items():
        object.__setattr__(config, key, value)


def from_arguments(table: Mapping[str, Constraint], texts: Mapping[str, str | None]) -> dict[str, Any]:
    """Command-line option texts (field name -> text; None: not given) read as their fields declare them
    (:meth:`Constraint.from_text`), for the config class to check: a refused value then has the config's
    own message (``--starts two`` gives ``irt.starts: got 'two', expected 'auto' or an integer >= 1``)."""
    return {key: table[key].from_text(text) for key, text in texts.items() if text is not None}


def choices_metavar(choices: Iterable[str]) -> str:
    """How a command's help lists an option's valid values (``{a,b,c}``, as argparse lists ``choices``) when
    the value is read by :func:`from_arguments` rather than refused by argparse."""
    return "{" + ",".join(choices) + "}"


def _number_text(text: str) -> Any:
    """``text`` as a float when it is one, else the text itself (then refused with its declaration's words)."""
    try:
        return float(text)
    except ValueError:
        return text


def _within(value: float, above: float | None, at_least: float | None, below: float | None,
            at_most: float | None) -> bool:
    """``value`` satisfies every bound that is given."""
    return all(bound is None or holds for bound, holds in (
        (above, above is not None and value > above), (at_least, at_least is not None and value >= at_least),
        (below, below is not None and value < below), (at_most, at_most is not None and value <= at_most)))

"""Reader for ARFF files as real-world files write them (Weka, UCI, NASA MDP, OpenML exports).

Why a hand-written header parser and not a library: ``liac-arff`` (installed with openml) rejects Weka's range syntax
``integer [1,10]``, parses the data section in pure Python (much slower than pandas' C reader) and returns nominal
values as plain objects; ``scipy.io.arff`` rejects ``string`` attributes and sparse data and returns nominal values as
``bytes``. Both would need header pre-processing anyway, so this module parses the header (a small, well-defined
grammar) and hands the data section to :func:`pandas.read_csv` (C engine). Only rows using both quote characters at
once, and sparse rows, go through the small Python tokenizer below.

Supported:

* ``numeric``/``real``/``integer`` (any case, with or without a Weka range such as ``[1,10]`` or ``(0, inf)``) →
  ``float64``;
* nominal ``{a, 'b c', "d"}`` → ``category`` with the *declared* categories in declared order (values outside the
  declaration are a :class:`~benchirt.errors.DataError`);
* ``string`` → pandas ``string``, reported in :attr:`ArffData.kinds` so that loaders can drop it from the features;
* ``date ["format"]`` → ``float64`` seconds since 1970-01-01 UTC; unparseable dates stay ``string``;
* ``relational`` → :class:`~benchirt.errors.DataError`;
* ``?`` (quoted or not) as missing value; ``%`` comment and blank lines anywhere; UTF-8, falling back to latin-1;
  ``.arff.gz``; sparse rows ``{index value, ...}`` (omitted entries are 0 / the first declared nominal value, as in
  Weka), made dense.
"""
from __future__ import annotations

import gzip
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from benchirt.errors import DataError

NUMERIC, NOMINAL, STRING, DATE = "numeric", "nominal", "string", "date"

# One value of a comma-separated ARFF list: single-quoted, double-quoted or bare.
_VALUE = re.compile(r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,'"]*?)\s*(?:,|$)""")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"')
_SKIPPED_LINE = re.compile(r"^[ \t\r]*(%|$)", re.MULTILINE)  # a comment or blank line
_ESCAPE = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_DATA_LINE = re.compile(r"^[ \t]*@data\b", re.IGNORECASE | re.MULTILINE)
# Java SimpleDateFormat tokens → strftime, longest first (ARFF date formats use Java's syntax).
_JAVA_DATE_TOKENS = (("yyyy", "%Y"), ("yy", "%y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"),
                     ("mm", "%M"), ("ss", "%S"))


@dataclass
class Attribute:
    """One ``@attribute`` declaration: its name, kind and (for nominal ones) declared values."""

    name: str
    kind: str
    categories: tuple[str, ...] = ()
    date_format: str | None = None


@dataclass
class ArffHeader:
    """An ARFF file's header as :func:`read_header` reads it: ``relation`` None without a ``@relation`` line,
    ``data_line`` the 1-based number of the ``@data`` line among the lines read (0: none)."""

    relation: str | None
    attributes: list[Attribute]
    data_line: int = 0


@dataclass
class ArffData:
    """The content of an ARFF file: ``relation``, ``frame`` (every attribute in file order, typed as in the module
    docstring), ``kinds`` (name → ``"numeric" | "nominal" | "string" | "date"``) and ``notes`` (what the reader
    changed: encoding fallback, unparseable dates)."""

    relation: str
    frame: pd.DataFrame
    kinds: dict[str, str]
    notes: list[str] = field(default_factory=list)


def read_arff(path: str | Path) -> ArffData:
    """Read an ARFF (or ``.arff.gz``) file into a typed DataFrame.

    Raises
    ------
    DataError
        Empty file, no ``@data`` section, malformed header, rows with the wrong number of values (a truncated file),
        values that do not fit their declared type, duplicate attribute names; the message names the file and line.
    """
    path = Path(path)
    text, notes = _decode(_read_bytes(path), path)
    if not text.strip():
        raise DataError(f"{path}: the file is empty; expected an ARFF file with @attribute lines and @data")
    match = _DATA_LINE.search(text)
    if match is None:
        raise DataError(f"{path}: no @data section found; the file is truncated or not an ARFF file")
    data_line = text.count("\n", 0, match.start()) + 1  # 1-based line number of @data
    relation, attributes = _file_header(text[: match.start()], path)
    names = [a.name for a in attributes]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DataError(f"{path}: duplicate attribute names {duplicates}; rename them so every column is unique")

    body = text[match.end():]
    body = body[body.find("\n") + 1:] if "\n" in body else ""
    rows = _data_rows(body)
    if not rows:
        raise DataError(f"{path}: the @data section holds no rows")

    if rows.lstrip().startswith("{"):
        frame = _typed_from_strings(_parse_sparse(rows.split("\n"), attributes, path), attributes, path, notes)
    else:
        _check_row_lengths(rows, len(attributes), body, data_line, path)
        frame = _parse_dense(rows, attributes, path, notes)
    frame.columns = names
    kinds = {a.name: a.kind for a in attributes}
    for attr in attributes:
        if attr.kind == DATE:
            converted = _date_to_seconds(frame[attr.name], attr.date_format)
            if converted is None:
                kinds[attr.name] = STRING
                notes.append(f"date attribute {attr.name!r} has values that do not parse as dates; kept as text")
            else:
                frame[attr.name] = converted
    return ArffData(relation=relation, frame=frame, kinds=kinds, notes=notes)


def split_values(text: str) -> list[str]:
    """Split a comma-separated ARFF value list, honouring both quote characters and escapes.

    >>> split_values("a, 'b c', \\"d,e\\", ?")
    ['a', 'b c', 'd,e', '?']
    """
    values: list[str] = []
    pos, end = 0, len(text)
    while True:
        m = _VALUE.match(text, pos)
        if m is None or (m.end() == pos and pos < end):
            raise ValueError(f"cannot split values at position {pos} of {text!r}")
        values.append(_unquote(m.group(1)))
        if m.end() >= end:
            if m.group(0).rstrip().endswith(","):
                values.append("")  # a trailing comma leaves one empty value
            break
        pos = m.end()
    return values


def _read_bytes(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if path.suffix.lower() == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise DataError(f"{path}: not a valid gzip file ({exc}); the download may be truncated") from None
    return raw


def _decode(raw: bytes, path: Path) -> tuple[str, list[str]]:
    try:
        return raw.decode("utf-8-sig"), []
    except UnicodeDecodeError:
        return raw.decode("latin-1"), [f"{path.name} is not valid UTF-8; read as latin-1"]


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), token[1:-1])
    return token


def read_header(lines: Iterable[str], where: str | Path) -> ArffHeader:
    """Parse ARFF header lines up to the ``@data`` line: the one reader of ARFF headers in benchirt.

    ``lines`` may be an open text file, left at its first data line. Blank and ``%`` lines are skipped; each
    ``@attribute`` is read as :func:`read_arff` reads it. A line that is not ``@relation``, ``@attribute`` or
    ``@data``, a malformed ``@attribute`` or an unknown type is a DataError naming ``where`` and the line.

    >>> header = read_header(["@relation iris", "% a comment", "@attribute 'petal width' REAL",
    ...                       "@attribute class {setosa, versicolor}", "@DATA", "1.0,setosa"], "iris.arff")
    >>> header.relation, [(a.name, a.kind, a.categories) for a in header.attributes], header.data_line
    ('iris', [('petal width', 'numeric', ()), ('class', 'nominal', ('setosa', 'versicolor'))], 5)
    """
    relation: str | None = None
    attributes: list[Attribute] = []
    for number, raw_line in enumerate(lines, start=1):
        line = raw_line.strip()
        if not line or line.startswith("%"):
            continue
        keyword = line.split(None, 1)[0].lower()
        if keyword == "@data":
            return ArffHeader(relation, attributes, number)
        if keyword == "@relation":
            relation = _unquote(line[len("@relation"):])
        elif keyword == "@attribute":
            attributes.append(_parse_attribute(line[len("@attribute"):].strip(), number, where))
        else:
            raise DataError(
                f"{where}, line {number}: expected @relation, @attribute or @data, found {line[:60]!r}"
            )
    return ArffHeader(relation, attributes)


def _file_header(header: str, path: Path) -> tuple[str, list[Attribute]]:
    """The relation (the file's stem when unnamed) and the attributes of a file's header text; it must declare one."""
    parsed = read_header(header.splitlines(), path)
    if not parsed.attributes:
        raise DataError(f"{path}: the header declares no @attribute; not an ARFF file?")
    return (path.stem if parsed.relation is None else parsed.relation), parsed.attributes


def _parse_attribute(rest: str, number: int, path: str | Path) -> Attribute:
    where = f"{path}, line {number}"
    if rest[:1] in ("'", '"'):
        close = _closing_quote(rest)
        if close < 0:
            raise DataError(f"{where}: unterminated quoted attribute name in {rest[:60]!r}")
        name, spec = _unquote(rest[: close + 1]), rest[close + 1:].strip()
    else:
        m = re.match(r"([^\s{]+)\s*(.*)$", rest)
        if m is None:
            raise DataError(f"{where}: @attribute without a name")
        name, spec = m.group(1), m.group(2).strip()
    if not spec:
        raise DataError(f"{where}: attribute {name!r} has no type")
    if spec.startswith("{"):
        if not spec.rstrip().endswith("}"):
            raise DataError(f"{where}: nominal attribute {name!r} lacks its closing '}}' (truncated header?)")
        inner = spec.strip()[1:-1]
        try:
            values = split_values(inner) if inner.strip() else []
        except ValueError as exc:
            raise DataError(f"{where}: cannot read the values of nominal attribute {name!r}: {exc}") from None
        return Attribute(name, NOMINAL, categories=tuple(dict.fromkeys(values)))
    type_word = spec.split(None, 1)[0].lower()
    if type_word in ("numeric", "real", "integer") or re.match(r"(numeric|real|integer)[\[(]", type_word):
        return Attribute(name, NUMERIC)
    if type_word == "string":
        return Attribute(name, STRING)
    if type_word == "date":
        fmt = _unquote(spec[4:]) or None
        return Attribute(name, DATE, date_format=fmt)
    if type_word == "relational":
        raise DataError(f"{where}: relational attribute {name!r} is not supported; flatten the file first")
    raise DataError(
        f"{where}: attribute {name!r} has unknown type {spec[:40]!r} "
        "(expected numeric, real, integer, string, date or {nominal values})"
    )


def _closing_quote(text: str) -> int:
    quote, i = text[0], 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i
        i += 1
    return -1


def _field_count(line: str) -> int:
    """Number of values in a dense data row (-1 for an unterminated quote), without unquoting."""
    if "'" in line or '"' in line:
        line = _QUOTED.sub("", line)
        if "'" in line or '"' in line:
            return -1
    return line.count(",") + 1


def _data_rows(body: str) -> str:
    """The data rows of the ``@data`` section, one per line, without comment and blank lines."""
    rows = body.strip()
    if _SKIPPED_LINE.search(rows):
        rows = "\n".join(ln for ln in rows.splitlines() if ln.strip() and not ln.lstrip().startswith("%"))
    return rows


def _field_counts(rows: str) -> np.ndarray:
    """Number of comma-separated values on each line of ``rows`` (-1: unterminated quote); quote-free text in one
    vectorised pass, lines with quotes one by one."""
    if "'" in rows or '"' in rows:
        return np.array([_field_count(line) for line in rows.split("\n")])
    raw = np.frombuffer(rows.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    line_ends = np.append(np.flatnonzero(raw == ord("\n")), raw.size)
    commas_before = np.searchsorted(np.flatnonzero(raw == ord(",")), line_ends)
    return np.diff(commas_before, prepend=0) + 1


def _check_row_lengths(rows: str, n_attributes: int, body: str, data_line: int, path: Path) -> None:
    counts = _field_counts(rows)
    wrong = np.flatnonzero(counts != n_attributes)
    if not wrong.size:
        return
    row, count = int(wrong[0]), int(counts[wrong[0]])
    problem = f"has {count} values but the header declares {n_attributes} attributes"
    if count < 0:
        problem = "has an unterminated quote"
    hint = (" — the file looks truncated; download or export it again"
            if row == len(counts) - 1 else "; fix that row or remove it")
    raise DataError(f"{path}, line {data_line + _body_line_of_row(body, row)} (data row {row + 1}) {problem}{hint}")


def _body_line_of_row(body: str, row: int) -> int:
    """1-based line number inside the data section of the ``row``-th non-comment, non-blank line."""
    seen = -1
    for number, line in enumerate(body.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("%"):
            seen += 1
            if seen == row:
                return number
    return 0


def _parse_dense(text: str, attributes: list[Attribute], path: Path, notes: list[str]) -> pd.DataFrame:
    has_single, has_double = "'" in text, '"' in text
    if has_single and has_double:
        return _typed_from_strings([split_values(ln) for ln in text.split("\n")], attributes, path, notes)
    dtypes = {
        i: ("float64" if a.kind == NUMERIC else "category" if a.kind == NOMINAL else "string")
        for i, a in enumerate(attributes)
    }
    options = dict(header=None, names=list(range(len(attributes))), skipinitialspace=True,
                   quotechar='"' if has_double else "'", escapechar="\\", na_values=["?"],
                   keep_default_na=False, engine="c")
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=dtypes, **options)
    except (ValueError, pd.errors.ParserError):
        # A value that does not fit its numeric column: re-read as text to say which one.
        frame = pd.read_csv(io.StringIO(text), dtype="string", **options)
        return _typed_from_strings(frame, attributes, path, notes)
    for i, attr in enumerate(attributes):
        if attr.kind == NOMINAL:
            frame[i] = _declared_categorical(frame[i], attr, path, notes)
    return frame


def _typed_from_strings(rows, attributes: list[Attribute], path: Path, notes: list[str]) -> pd.DataFrame:
    """Type a frame (or list of rows) of raw string values column by column."""
    raw = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows, columns=range(len(attributes)), dtype="string")
    out = {}
    for i, attr in enumerate(attributes):
        col = raw[i].astype("string").str.strip()
        col = col.mask(col == "?")
        if attr.kind == NUMERIC:
            numeric = pd.to_numeric(col, errors="coerce")
            bad = col[numeric.isna() & col.notna()]
            if len(bad):
                raise DataError(
                    f"{path}: numeric attribute {attr.name!r} has non-numeric value {str(bad.iloc[0])!r} "
                    f"in data row {bad.index[0] + 1}; use '?' for missing values"
                )
            out[i] = numeric.astype("float64")
        elif attr.kind == NOMINAL:
            out[i] = _declared_categorical(col.astype("category"), attr, path, notes)
        else:
            out[i] = col
    return pd.DataFrame(out)


def _declared_categorical(column: pd.Series, attr: Attribute, path: Path, notes: list[str]) -> pd.Series:
    """Map an observed ``category`` column onto the attribute's declared categories; values differing only in
    letter case (NASA MDP declares ``{false,true}`` and writes ``False``) are mapped, with a note."""
    declared = list(attr.categories)
    observed = [str(c).strip() for c in column.cat.categories]
    position = {v: k for k, v in enumerate(declared)}
    folded: dict[str, list[int]] = {}
    for k, v in enumerate(declared):
        folded.setdefault(v.casefold(), []).append(k)
    recased = {v: folded[v.casefold()][0] for v in observed
               if v not in position and len(folded.get(v.casefold(), ())) == 1}
    unknown = [v for v in observed if v not in position and v not in recased and v != "?"]
    if unknown:
        raise DataError(
            f"{path}: nominal attribute {attr.name!r} has value(s) {unknown[:5]} not among its declared values "
            f"{declared[:10]}{' …' if len(declared) > 10 else ''}; add them to the @attribute line"
        )
    if recased:
        notes.append(f"attribute {attr.name!r}: values {sorted(recased)} matched to declared values ignoring case")
    position.update(recased)
    mapping = np.array([position.get(v, -1) for v in observed] + [-1], dtype=np.int64)
    codes = mapping[column.cat.codes.to_numpy()]  # code -1 (missing) picks the trailing -1
    return pd.Series(pd.Categorical.from_codes(codes, categories=declared), index=column.index)


def _parse_sparse(lines: list[str], attributes: list[Attribute], path: Path) -> list[list[str]]:
    defaults = [a.categories[0] if a.kind == NOMINAL and a.categories else "0" for a in attributes]
    rows = []
    for number, line in enumerate(lines, start=1):
        body = line.strip()
        if not (body.startswith("{") and body.endswith("}")):
            raise DataError(f"{path}: sparse data row {number} is not enclosed in {{...}} (truncated file?)")
        row = list(defaults)
        inner = body[1:-1].strip()
        for entry in split_values(inner) if inner else []:
            index, _, value = entry.partition(" ")
            if not index.isdigit() or int(index) >= len(attributes):
                raise DataError(f"{path}: sparse data row {number} has a bad entry {entry!r}")
            row[int(index)] = _unquote(value)
        rows.append(row)
    return rows


def _date_to_seconds(column: pd.Series, java_format: str | None) -> pd.Series | None:
    text = column.astype("string").str.strip()
    present = text.notna() & (text != "?")
    fmt = None
    if java_format:
        fmt = java_format
        for java, c_format in _JAVA_DATE_TOKENS:
            fmt = fmt.replace(java, c_format)
        fmt = fmt.replace("'T'", "T")
    try:
        parsed = pd.to_datetime(text.where(present), format=fmt, errors="coerce", utc=True)
    except (ValueError, TypeError):
        parsed = pd.to_datetime(text.where(present), errors="coerce", utc=True)
    if bool((parsed.isna() & present).any()):
        return None
    seconds = (parsed - pd.Timestamp("1970-01-01", tz="UTC")).dt.total_seconds()
    return seconds.astype("float64")

"""Export files read as JSON: strictly, within bounds, and with the line of every value.

:func:`load_json` reads the bytes of an export (UTF-8, JSON without NaN, bounded size, depth and
numbers), each refusal a :class:`~atlas.errors.DatasetError` at its line; :func:`json_lines`
maps the JSON pointers of a text to their lines, and :func:`described_pointer` and
:func:`record_iri` name the value at a pointer as messages show it.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from atlas.errors import DatasetError, Problem
from atlas.models._iri import BASE_IRI
from atlas.models._vocab import CLASSES

__all__ = [
    "MAX_EXPORT_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_NUMBER_CHARS",
    "described_pointer",
    "json_lines",
    "line_of_pointer",
    "load_json",
    "record_iri",
]


def line_of_pointer(lines: Mapping[str, int], parts: list[Any]) -> int | None:
    """The line of the value at ``parts`` (see :func:`json_lines`), else of the nearest around it.

    >>> line_of_pointer({"/": 1, "/a": 2}, ["a", 3, "b"])
    2
    """
    for cut in range(len(parts), -1, -1):
        line = lines.get("/" + "/".join(str(p) for p in parts[:cut]))
        if line is not None:
            return line
    return None


# A string is matched as runs of plain characters between escapes, never one alternative per
# character: a long string costs no backtracking stack.
_TOKEN = re.compile(
    r'\s*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([{}\[\]:,])|(-?[0-9][0-9.eE+-]*|true|false|null))',
    re.DOTALL,
)


def json_lines(text: str) -> dict[str, int]:
    r"""Map the JSON pointer of every value in a JSON text to the line it starts on.

    Object members map to the line of their key. ``text`` must be valid JSON.

    >>> json_lines('{\n  "a": [\n    1,\n    {"b": 2}\n  ]\n}')
    {'/': 1, '/a': 2, '/a/0': 3, '/a/1': 4, '/a/1/b': 4}
    """
    return _JsonLines(text).lines


class _JsonLines:
    """A tiny scanner over valid JSON that records where each value starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
        self.lines: dict[str, int] = {}
        self.value(0, "/")

    def token(self, pos: int) -> tuple[re.Match[str], int]:
        match = _TOKEN.match(self.text, pos)
        if match is None:
            raise ValueError(f"not JSON at offset {pos}")
        return match, bisect.bisect_right(self.starts, match.start(match.lastindex or 0))

    def value(self, pos: int, pointer: str) -> int:
        match, line = self.token(pos)
        self.lines.setdefault(pointer, line)
        base = pointer.rstrip("/")
        if match.group(2) == "{":
            return self.members(match.end(), base)
        if match.group(2) == "[":
            return self.items(match.end(), base)
        return match.end()

    def members(self, pos: int, base: str) -> int:
        while True:
            match, line = self.token(pos)
            if match.group(2) == "}":
                return match.end()
            if match.group(2) == ",":
                match, line = self.token(match.end())
            key = json.loads(match.group(1))
            self.lines.setdefault(f"{base}/{key}", line)
            colon, _ = self.token(match.end())
            pos = self.value(colon.end(), f"{base}/{key}")

    def items(self, pos: int, base: str) -> int:
        index = 0
        while True:
            match, _ = self.token(pos)
            if match.group(2) == "]":
                return match.end()
            if match.group(2) == ",":
                pos = match.end()
            pos = self.value(pos, f"{base}/{index}")
            index += 1


#: The largest export read (the shipped one is a few hundred KB; a million-triple one fits).
MAX_EXPORT_BYTES = 512 * 1024 * 1024
#: How deep an export's values may nest (the format needs 7 levels): deeper ones are refused
#: before any reader recurses into them.
MAX_JSON_DEPTH = 64
#: The most characters a number may take (the export's numbers are counts and positions).
MAX_NUMBER_CHARS = 100

_NOT_JSON_HINT = "the file is not an export as 'atlas export' writes it; export it again"


class _NotJsonError(ValueError):
    """A value met while parsing that the export may not hold: NaN, Infinity, a huge number."""


def _constant(name: str) -> Any:
    raise _NotJsonError(f"{name} is not a JSON number (RFC 8259 has no NaN or Infinity)")


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _NotJsonError(_long_number(text))
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _NotJsonError(_long_number(text))
    value = float(text)
    if not math.isfinite(value):
        raise _NotJsonError(f"the number {text} is too large for a float (it reads as infinity)")
    return value


def _long_number(text: str) -> str:
    return f"a number of {len(text)} characters, more than the {MAX_NUMBER_CHARS} an export allows"


# Outside strings: a bracket, NaN or Infinity, or a number (strings are skipped whole).
_SCAN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|([\[{])|([\]}])|(-?(?:NaN|Infinity))'
    r"|(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def load_json(raw: bytes, name: str) -> tuple[str, Any]:
    r"""The text of an export's bytes and its JSON data, read strictly.

    Strictly: UTF-8 text; JSON as RFC 8259 has it (no NaN or Infinity); numbers of at most
    :data:`MAX_NUMBER_CHARS` characters that stay finite; strings of whole characters (no lone
    surrogate escape); at most :data:`MAX_JSON_DEPTH` levels of nesting.

    >>> load_json(b'{"a": [1, 2.5]}', "x.json")[1]
    {'a': [1, 2.5]}
    >>> load_json(b'{"a":\n NaN}', "x.json")
    Traceback (most recent call last):
    ...
    atlas.errors.DatasetError: x.json is invalid: x.json:2: violation: NaN is not a JSON number ...

    Raises:
        DatasetError: naming the file, and the line (and the byte or column) at fault.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        message = f"not UTF-8 text: {error.reason} at byte {error.start}"
        raise _not_json(name, message, line, "utf-8", "save the file as UTF-8") from None
    try:
        data = json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_float)
    except json.JSONDecodeError as error:
        message = f"not valid JSON: {error.msg} (column {error.colno})"
        hint = "the file may be truncated or hand-edited; export it again"
        raise _not_json(name, message, error.lineno, "json", hint) from None
    except _NotJsonError as error:
        raise _not_json(name, str(error), _line(text, _first_bad_value(text)), "json") from None
    except RecursionError:
        data = _TOO_DEEP
    flaw = _TOO_DEEP if data is _TOO_DEEP else _first_flaw(data)
    if flaw is _TOO_DEEP:
        message = f"nested more than {MAX_JSON_DEPTH} levels deep"
        raise _not_json(name, message, _line(text, _too_deep_at(text)), "json-depth")
    if flaw is not None:
        path = list(flaw)
        message = f"{described_pointer(data, path)}: a string holds a lone surrogate (not text)"
        raise _not_json(name, message, line_of_pointer(json_lines(text), path), "json")
    return text, data


_TOO_DEEP: Any = object()  # the value nests too deeply (a marker)


def _not_json(name: str, message: str, line: int | None, code: str, hint: str = "") -> DatasetError:
    problem = Problem(
        "violation", message, file=name, line=line, hint=hint or _NOT_JSON_HINT, code=code
    )
    return DatasetError([problem], source=name)


def _line(text: str, offset: int | None) -> int | None:
    return None if offset is None else text.count("\n", 0, offset) + 1


def _first_bad_value(text: str) -> int | None:
    """The offset of the first value outside strings that :func:`load_json` refuses."""
    for match in _SCAN.finditer(text):
        constant, number = match.group(3), match.group(4)
        if constant is not None:
            return match.start()
        if number is not None and (
            len(number) > MAX_NUMBER_CHARS or not math.isfinite(float(number))
        ):
            return match.start()
    return None


def _too_deep_at(text: str) -> int | None:
    """The offset of the first bracket that opens a value nested too deeply."""
    depth = 0
    for match in _SCAN.finditer(text):
        if match.group(1) is not None:
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return match.start()
        elif match.group(2) is not None:
            depth -= 1
    return None


def _first_flaw(data: Any) -> Any:
    """:data:`_TOO_DEEP`, else the path of a string that holds a lone surrogate, else None.

    Walked with a stack of its own, so that no depth makes it recurse.
    """
    flawed = None
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(data, 1, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, str):
            if flawed is None and not node.isascii() and _SURROGATE.search(node):
                flawed = path
            continue
        if isinstance(node, dict):
            items: Iterable[tuple[Any, Any]] = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        if depth > MAX_JSON_DEPTH:
            return _TOO_DEEP
        for key, value in items:
            if flawed is None and isinstance(key, str) and _SURROGATE.search(key):
                flawed = path
            stack.append((value, depth + 1, (*path, key)))
    return flawed


def described_pointer(data: Any, parts: list[Any]) -> str:
    """The JSON pointer of ``parts`` in ``data``, each record's index followed by its id.

    >>> described_pointer({"steps": [{"id": "a", "to": "b"}]}, ["steps", 0, "to"])
    '/steps/0(a)/to'
    """
    shown = []
    node = data
    for part in parts:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(part, int) and isinstance(node, dict) and isinstance(node.get("id"), str):
            shown.append(f"{part}({node['id']})")
        else:
            shown.append(str(part))
    return "/" + "/".join(shown)


def record_iri(data: Any, parts: list[Any]) -> str | None:
    """The IRI of the innermost record of the dataset on the way to ``parts`` in ``data``.

    >>> record_iri({"steps": [{"type": "Step", "id": "a", "to": "b"}]}, ["steps", 0, "to"])
    'https://w3id.org/execution-atlas/step/a'
    """
    found = None
    node = data
    for part in parts:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict):
            cls = CLASSES.get(str(node.get("type")))
            if cls is not None and cls.base is not None:
                local = node.get(cls.id_key)
                if isinstance(local, str):
                    found = BASE_IRI + cls.base + local if cls.base else local
    return found


# --- SHACL ---------------------------------------------------------------------------------

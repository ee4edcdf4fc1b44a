"""The JSON Schema of the export (generated from the models) and the SHACL shapes of the Turtle.

The JSON Schema is generated from :class:`~atlas.models.AtlasDocument` and committed as
``schema/atlas.schema.json``; a test regenerates it and fails on any difference. Exports are
validated against it with ``jsonschema``. The SHACL shapes live in ``schema/shapes.ttl`` and are
run with shacl-rust (a SHACL engine in Rust, SHACL-SPARQL included), without inference.

>>> json_schema()["$schema"]
'https://json-schema.org/draft/2020-12/schema'
"""

from __future__ import annotations

import bisect
import functools
import json
import logging
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.data import _resources
from atlas.errors import DatasetError, Problem
from atlas.models import SCHEMA_URL, AtlasDocument
from atlas.models._iri import BASE_IRI
from atlas.models._vocab import CLASSES, NAMESPACES, expand

if TYPE_CHECKING:
    import rdflib

    from atlas.data._graph import Graph

__all__ = [
    "DRAFT",
    "MAX_EXPORT_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_NUMBER_CHARS",
    "SCHEMA_NAME",
    "SHAPES_NAME",
    "compact",
    "described_pointer",
    "dumps_schema",
    "json_lines",
    "json_schema",
    "line_of_pointer",
    "load_json",
    "record_iri",
    "schema_problems",
    "shacl_problems",
    "write_schema",
]

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_NAME = "atlas.schema.json"
SHAPES_NAME = "shapes.ttl"

# --- JSON Schema ---------------------------------------------------------------------------


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the export, generated from the models."""
    # the JSON as written: the keys made from claims (description...) are in it, read-only
    generated = AtlasDocument.model_json_schema(by_alias=True, mode="serialization")
    for definition in generated.get("$defs", {}).values():
        _optional_when_null(definition)
    return {"$schema": DRAFT, "$id": SCHEMA_URL, **generated}


def _optional_when_null(definition: dict[str, Any]) -> None:
    """A key whose value may be null is left out of the export: it is not required."""
    properties = definition.get("properties", {})
    nullable = {
        key
        for key, value in properties.items()
        if any(option.get("type") == "null" for option in value.get("anyOf", ()))
    }
    if "required" in definition:
        definition["required"] = [k for k in definition["required"] if k not in nullable]


def dumps_schema() -> str:
    """The canonical text of the generated JSON Schema (sorted keys, final newline)."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schema(path: Path) -> Path:
    """Write the generated JSON Schema to ``path`` atomically."""
    from atlas.data._atomic import write_text_atomic  # noqa: PLC0415

    write_text_atomic(path, dumps_schema())
    return path


@functools.cache
def _validator() -> Any:
    import jsonschema  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    shipped = _resources.schema_dir() / SCHEMA_NAME
    try:
        schema = json.loads(shipped.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        schema = json_schema()  # reported as stale by the check; validate with the models
    cls = jsonschema.Draft202012Validator
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def schema_problems(
    data: Any,
    *,
    file: str,
    lines: Mapping[str, int] | Callable[[], Mapping[str, int]] | None = None,
    ignore: tuple[str, ...] = (),
) -> list[Problem]:
    """Validate parsed export data against the committed JSON Schema.

    Each problem names the JSON pointer of the bad value, the IRI of the record that holds it
    and, when ``lines`` maps pointers to line numbers, the line (``lines`` may be a function
    that returns the map: it is called on the first error only). Errors at or under a pointer
    in ``ignore`` (already reported more precisely) are left out.

    >>> schema_problems({"title": 3}, file="x.json")[0].message[:40]
    "/: '@context' is a required property"
    """
    validator = _validator()
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        parts = list(error.absolute_path)
        pointer = "/" + "/".join(str(p) for p in parts)
        if any(pointer == i or pointer.startswith(i + "/") for i in ignore):
            continue
        shown = described_pointer(data, parts)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            extra = sorted(set(error.instance) - set(allowed))
            parts = parts + extra[:1]
        if callable(lines):
            lines = lines()  # the first error: now the lines are wanted
        line = line_of_pointer(lines, parts) if lines else None
        problems.append(
            Problem(
                "violation",
                f"{shown}: {_short(error.message)}",
                file=file,
                line=line,
                subject=record_iri(data, parts),
                hint=f"the export must match {SCHEMA_NAME} (JSON Schema of schema "
                f"{SCHEMA_URL.rsplit('/', 1)[-1]}); export it again with 'atlas export'",
                code=f"json-schema:{error.validator}",
            )
        )
    return problems


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


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."


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

SH = "http://www.w3.org/ns/shacl#"

_PREFIXES = (
    ("scheme/", "scheme:"),
    ("stage/", "stage:"),
    ("step/", "step:"),
    ("citation/", "cite:"),
    ("atlas/", "atlas:"),
    ("technology/", "tech:"),
    ("relation/", "relation:"),
)


def compact(iri: str) -> str:
    """A short, readable name for an IRI of the dataset, as written in the Turtle files.

    >>> compact("https://w3id.org/execution-atlas/scheme/pytorch-mode/eager")
    'pytorch-mode:eager'
    >>> compact("https://w3id.org/execution-atlas/step/x")
    'step:x'
    """
    if iri.startswith(BASE_IRI):
        local = iri[len(BASE_IRI) :]
        for base, prefix in _PREFIXES:
            if local.startswith(base):
                rest = local[len(base) :]
                if base == "scheme/" and "/" in rest:
                    return rest.replace("/", ":", 1)
                return prefix + rest
    for prefix, namespace in NAMESPACES.items():
        if iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace) :]}"
    return f"<{iri}>"


_IRI_IN_TEXT = re.compile(r"(?<![<\w])(https?://[^\s,;)>]+)")


def _compact_text(text: str) -> str:
    return _IRI_IN_TEXT.sub(lambda m: compact(m.group(1)), text)


@functools.cache
def _shapes() -> str:
    return (_resources.schema_dir() / SHAPES_NAME).read_text(encoding="utf-8")


@contextmanager
def quiet_rdflib() -> Iterator[None]:
    """Silence rdflib's logged tracebacks for ill-typed literals; checks report them instead."""
    logger = logging.getLogger("rdflib")

    def drop(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR

    logger.addFilter(drop)
    term = logging.getLogger("rdflib.term")
    term.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)
        term.removeFilter(drop)


def shacl_report(n_triples: bytes) -> list[dict[str, Any]]:
    """The results of ``schema/shapes.ttl`` on a graph written in N-Triples (shacl-rust's own).

    The engine releases the GIL while it validates: other threads go on meanwhile.
    """
    import shacl_rust  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    # validate() on text releases the GIL while it runs (validate_file() does not)
    report = shacl_rust.validate(
        n_triples.decode("utf-8"), _shapes(), data_format="nt", shapes_format="turtle"
    )
    results: list[dict[str, Any]] = report["results"]
    return results


def shacl_problems(
    graph: Graph | rdflib.Graph,
    where: Any = None,
    *,
    results: list[dict[str, Any]] | None = None,
) -> list[Problem]:
    """Validate a dataset graph against ``schema/shapes.ttl`` (shacl-rust, no inference).

    ``graph`` is parsed Turtle (:func:`atlas.data._graph.parse`) or an rdflib graph; ``results``,
    the engine's results when they are already there (:func:`shacl_report`). ``where`` maps an
    IRI to ``{"file": ..., "line": ...}`` for messages. Results that say the same thing of the
    same resource are reported once.
    """
    from pyoxigraph import BlankNode, Literal, NamedNode  # noqa: PLC0415

    from atlas.data import _graph  # noqa: PLC0415

    if not isinstance(graph, _graph.Graph):
        written = graph.serialize(format="nt", encoding="utf-8")
        graph = _graph.parse([_graph.TurtleFile("graph", written.decode("utf-8"))])
    if results is None:
        results = shacl_report(graph.n_triples())
    has_selector = NamedNode(expand("oa:hasSelector"))
    problems = []
    for result in results:
        focus = _graph.term(result["focusNode"])
        value = _graph.term(result["value"]) if "value" in result else None
        messages = result.get("messages") or ["does not conform"]
        if isinstance(focus, BlankNode):  # a quote selector: report its citation
            owners = graph.subjects_of(has_selector, focus)
            focus = owners[0] if owners else focus
        subject = focus.value if isinstance(focus, NamedNode) else None
        key = _path_key(result.get("resultPath"), graph, focus)
        text = _compact_text(messages[-1])  # the shape's sh:message comes last
        if value is not None and value != focus:
            shown = repr(value.value) if isinstance(value, Literal) else compact(value.value)
            if isinstance(value, Literal) and not _graph.plain(value):
                shown += f"^^{compact(value.datatype.value)}"
            if shown not in text:
                text += f" (found {shown})"
        located = where(subject) if where and subject else {}
        problems.append(
            Problem(
                "violation" if result["severity"] == f"<{SH}Violation>" else "warning",
                f"{key + ': ' if key else ''}{text}",
                subject=subject,
                hint="see schema/shapes.ttl and dataset/README.md",
                code="shacl",
                **located,
            )
        )
    return sorted(set(problems))


_PATH_STEP = re.compile(r"<([^<>]*)>")


def _path_key(path: str | None, graph: Graph, focus: Any) -> str | None:
    """The JSON key of a SHACL result path (its last predicate), e.g. 'citations'.

    shacl-rust writes a path in SPARQL syntax: ``<p>``, or a sequence ``<p> / <q>``.
    """
    from pyoxigraph import Literal  # noqa: PLC0415

    from atlas.data import _graph  # noqa: PLC0415

    if path is None:
        return None
    steps = [step.strip() for step in path.split(" / ")]
    matches = [_PATH_STEP.fullmatch(step) for step in steps]
    if not all(matches):
        return None  # an inverse or alternative path: none in the shapes
    last = matches[-1]
    assert last is not None  # noqa: S101 - checked just above
    types = [] if isinstance(focus, Literal) else graph.objects(focus, _graph.RDF_TYPE)
    return predicate_key(last.group(1), types[0].value if len(types) == 1 else None)


@functools.cache
def _keys_by_predicate() -> dict[tuple[str | None, str], str]:
    keys: dict[tuple[str | None, str], str] = {}
    for cls in CLASSES.values():
        for term in cls.terms:
            if term.kind != "reverse":
                keys.setdefault((expand(cls.rdf_type), expand(term.predicate)), term.key)
                keys.setdefault((None, expand(term.predicate)), term.key)
    return keys


def predicate_key(predicate: str, rdf_type: str | None = None) -> str:
    """The JSON key a predicate maps to for a class (else for any class), else its short name.

    >>> predicate_key("http://purl.org/dc/terms/isPartOf", expand("ea:Step"))
    'atlas'
    >>> predicate_key("http://www.w3.org/ns/prov#wasDerivedFrom")
    'citations'
    """
    keys = _keys_by_predicate()
    return keys.get((rdf_type, predicate)) or keys.get((None, predicate)) or compact(predicate)


def main() -> int:
    """Regenerate ``schema/atlas.schema.json`` in a source checkout."""
    target = _resources.schema_dir() / SCHEMA_NAME
    if not isinstance(target, Path):
        print(f"not a source checkout: {target} is not a file on disk")  # noqa: T201
        return 1
    write_schema(target)
    print(f"wrote {target}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

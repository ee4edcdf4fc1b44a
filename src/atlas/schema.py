"""The JSON Schema of the export (generated from the models) and the SHACL shapes of the Turtle.

The JSON Schema is generated from :class:`~atlas.models.AtlasDocument` and committed as
``schema/atlas.schema.json``; a test regenerates it and fails on any difference. Exports are
validated against it with ``jsonschema``. The SHACL shapes live in ``schema/shapes.ttl`` and are
run with pyshacl, without inference.

>>> json_schema()["$schema"]
'https://json-schema.org/draft/2020-12/schema'
"""

from __future__ import annotations

import bisect
import functools
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas import _resources
from atlas._iri import BASE_IRI
from atlas._vocab import CLASSES, NAMESPACES, expand
from atlas.errors import Problem
from atlas.models import SCHEMA_URL, AtlasDocument

if TYPE_CHECKING:
    import rdflib

__all__ = [
    "DRAFT",
    "SCHEMA_NAME",
    "SHAPES_NAME",
    "compact",
    "dumps_schema",
    "json_lines",
    "json_schema",
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
    generated = AtlasDocument.model_json_schema(by_alias=True)
    return {"$schema": DRAFT, "$id": SCHEMA_URL, **generated}


def dumps_schema() -> str:
    """The canonical text of the generated JSON Schema (sorted keys, final newline)."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schema(path: Path) -> Path:
    """Write the generated JSON Schema to ``path`` atomically."""
    from atlas.export import write_text_atomic  # noqa: PLC0415

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
    lines: dict[str, int] | None = None,
    ignore: tuple[str, ...] = (),
) -> list[Problem]:
    """Validate parsed export data against the committed JSON Schema.

    Each problem names the JSON pointer of the bad value, the IRI of the record that holds it
    and, when ``lines`` maps pointers to line numbers, the line. Errors at or under a pointer
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
        shown = _described_pointer(data, parts)
        line = None
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            extra = sorted(set(error.instance) - set(allowed))
            parts = parts + extra[:1]
        if lines:
            for cut in range(len(parts), -1, -1):
                line = lines.get("/" + "/".join(str(p) for p in parts[:cut]))
                if line is not None:
                    break
        problems.append(
            Problem(
                "violation",
                f"{shown}: {_short(error.message)}",
                file=file,
                line=line,
                subject=_record_iri(data, parts),
                hint=f"the export must match {SCHEMA_NAME} (JSON Schema of schema "
                f"{SCHEMA_URL.rsplit('/', 1)[-1]}); export it again with 'atlas export'",
                code=f"json-schema:{error.validator}",
            )
        )
    return problems


_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|(-?[0-9][0-9.eE+-]*|true|false|null))', re.DOTALL
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


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."


def _described_pointer(data: Any, parts: list[Any]) -> str:
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


def _record_iri(data: Any, parts: list[Any]) -> str | None:
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
def _shapes() -> rdflib.Graph:
    import rdflib  # noqa: PLC0415

    text = (_resources.schema_dir() / SHAPES_NAME).read_text(encoding="utf-8")
    return rdflib.Graph().parse(data=text, format="turtle")


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


def shacl_problems(graph: rdflib.Graph, where: Any = None) -> list[Problem]:
    """Validate a dataset graph against ``schema/shapes.ttl`` (pyshacl, no inference).

    ``where`` maps an IRI to ``{"file": ..., "line": ...}`` for messages.
    """
    import pyshacl  # noqa: PLC0415
    from rdflib import RDF, BNode, Literal, URIRef  # noqa: PLC0415

    with quiet_rdflib():
        _, results, _ = pyshacl.validate(
            graph,
            shacl_graph=_shapes(),
            inference="none",
            abort_on_first=False,
            allow_warnings=True,
            meta_shacl=False,
            advanced=False,
        )
    sh = {
        name: URIRef(SH + name)
        for name in (
            "ValidationResult",
            "focusNode",
            "resultPath",
            "resultMessage",
            "resultSeverity",
            "value",
            "Violation",
        )
    }
    has_selector = URIRef(expand("oa:hasSelector"))
    problems = []
    for result in results.subjects(RDF.type, sh["ValidationResult"]):
        focus = results.value(result, sh["focusNode"])
        path = results.value(result, sh["resultPath"])
        value = results.value(result, sh["value"])
        severity = results.value(result, sh["resultSeverity"])
        message = str(results.value(result, sh["resultMessage"]) or "does not conform")
        if isinstance(focus, BNode):  # a quote selector: report its citation
            owner = graph.value(None, has_selector, focus)
            focus = owner if owner is not None else focus
        subject = str(focus) if isinstance(focus, URIRef) else None
        key = _path_key(results, path, graph, focus)
        text = _compact_text(message)
        if value is not None and value != focus:
            shown = repr(str(value)) if isinstance(value, Literal) else compact(str(value))
            if isinstance(value, Literal) and value.datatype:
                shown += f"^^{compact(str(value.datatype))}"
            if shown not in text:
                text += f" (found {shown})"
        located = where(subject) if where and subject else {}
        problems.append(
            Problem(
                "violation" if severity == sh["Violation"] else "warning",
                f"{key + ': ' if key else ''}{text}",
                subject=subject,
                hint="see schema/shapes.ttl and dataset/README.md",
                code="shacl",
                **located,
            )
        )
    return sorted(set(problems))


def _path_key(results: rdflib.Graph, path: Any, graph: rdflib.Graph, focus: Any) -> str | None:
    """The JSON key of a SHACL result path (its last predicate), e.g. 'citations'."""
    from rdflib import RDF, URIRef  # noqa: PLC0415
    from rdflib.collection import Collection  # noqa: PLC0415

    if path is None:
        return None
    if not isinstance(path, URIRef):
        items = list(Collection(results, path))
        if not items:
            return None
        path = items[-1]
    types = [str(t) for t in graph.objects(focus, RDF.type)]
    return predicate_key(str(path), types[0] if len(types) == 1 else None)


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

"""Turtle to models, and the rdflib graph of the dataset. The only module that imports rdflib.

:func:`read_turtle` turns the curated Turtle files into one :class:`~atlas.models.AtlasDocument`.
It consumes every triple: a triple that no model field holds (a misspelt property, an untyped
subject) is a problem, so the JSON export can never silently lose a statement. All problems are
collected and raised together, each naming its file, line and resource.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic
import rdflib
from rdflib import RDF, BNode, Literal, URIRef
from rdflib.plugins.parsers.notation3 import BadSyntax

from atlas import _resources
from atlas._iri import BASE_IRI
from atlas._vocab import CLASSES, COLLECTIONS, NAMESPACES, ClassMap, Term, context, expand
from atlas.errors import DatasetError, Problem
from atlas.models import AtlasDocument
from atlas.schema import quiet_rdflib

if TYPE_CHECKING:
    from rdflib.term import Node

__all__ = ["TurtleFile", "dataset_graph", "read_turtle", "shipped_turtle"]

XSD = NAMESPACES["xsd"]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PREFIX = re.compile(r"^\s*@prefix\s+([\w.-]*):\s*<([^>]*)>", re.IGNORECASE)


@dataclass(frozen=True)
class TurtleFile:
    """A Turtle document: the name to report in messages, and its text."""

    name: str
    text: str

    @classmethod
    def load(cls, path: Path | Traversable, name: str | None = None) -> TurtleFile:
        """Read a file; ``name`` defaults to its path (or ``dataset/<file>`` when shipped)."""
        shown = name or (str(path) if isinstance(path, Path) else f"dataset/{path.name}")
        return cls(shown, path.read_text(encoding="utf-8"))


def shipped_turtle() -> list[TurtleFile]:
    """The Turtle files shipped with the package."""
    return [TurtleFile.load(f) for f in _resources.turtle_files()]


class _Locator:
    """Finds the line where a resource is described, for messages."""

    def __init__(self, file: TurtleFile) -> None:
        self.lines = file.text.splitlines()
        self.prefixes = {}
        for line in self.lines:
            match = _PREFIX.match(line)
            if match:
                self.prefixes[match.group(1)] = match.group(2)

    def line_of(self, iri: str) -> int | None:
        needles = [f"<{iri}>"]
        for prefix, namespace in self.prefixes.items():
            if iri.startswith(namespace) and len(iri) > len(namespace):
                needles.append(f"{prefix}:{iri[len(namespace) :]}")
        for starts in (True, False):
            for number, line in enumerate(self.lines, start=1):
                text = line.strip()
                for needle in needles:
                    hit = text.startswith(needle) if starts else needle in text
                    if hit and (
                        len(text) == len(needle) or not starts or text[len(needle)] in " \t;"
                    ):
                        return number
        return None


@dataclass
class _Reader:
    graph: rdflib.Graph
    origin: dict[Node, tuple[str, _Locator]]
    problems: list[Problem] = field(default_factory=list)
    consumed: set[tuple[Node, Node, Node]] = field(default_factory=set)

    def where(self, node: Node) -> dict[str, Any]:
        file, locator = self.origin.get(node, (None, None))
        line = locator.line_of(str(node)) if locator and isinstance(node, URIRef) else None
        return {"file": file, "line": line}

    def problem(self, node: Node, message: str, hint: str | None = None, code: str = "") -> None:
        subject = str(node) if isinstance(node, URIRef) else None
        self.problems.append(
            Problem("violation", message, subject=subject, hint=hint, code=code, **self.where(node))
        )

    def local_id(self, node: Node, base: str, what: str) -> str | None:
        if isinstance(node, URIRef) and str(node).startswith(BASE_IRI + base):
            local = str(node)[len(BASE_IRI + base) :]
            if local:
                return local
        self.problem(
            node,
            f"expected {what} IRI under <{BASE_IRI}{base}>, found {_show(node)}",
            code="bad-iri",
        )
        return None

    def value(self, subject: Node, term: Term, node: Node) -> Any:  # noqa: C901, PLR0911, PLR0912 - one branch per literal kind
        kind = term.kind
        if kind in ("ref", "refs"):
            if not isinstance(node, URIRef):
                self.problem(subject, f"{term.key}: expected an IRI, found {_show(node)}")
                return None
            if not term.base:
                return str(node)
            return self.local_id(node, term.base, f"a {term.key!r}")
        if not isinstance(node, Literal):
            self.problem(subject, f"{term.key}: expected a literal, found {_show(node)}")
            return None
        datatype = str(node.datatype) if node.datatype else None
        lexical = str(node)
        if kind in ("str", "strs"):
            if node.language:
                self.problem(
                    subject,
                    f"{term.key}: literal {lexical!r} has a language tag @{node.language}",
                    hint="write plain strings, without language tags",
                    code="datatype",
                )
                return None
            if datatype not in (None, XSD + "string"):
                self.problem(
                    subject,
                    f"{term.key}: expected a string, found {_show(node)}",
                    code="datatype",
                )
                return None
            return lexical
        expected = {"date": "date", "bool": "boolean", "int": "integer"}[kind]
        if datatype != XSD + expected:
            self.problem(
                subject,
                f"{term.key}: expected an xsd:{expected} literal, found {_show(node)}",
                hint={"date": 'write "2026-12-02"^^xsd:date', "bool": "write true or false"}.get(
                    kind, "write a bare integer such as 3"
                ),
                code="datatype",
            )
            return None
        if kind == "date":
            try:
                if not _DATE.match(lexical):
                    raise ValueError(lexical)  # noqa: TRY301 - one path for every bad date
                return dt.date.fromisoformat(lexical)
            except ValueError:
                self.problem(
                    subject,
                    f"{term.key}: malformed date {lexical!r}",
                    hint="use YYYY-MM-DD, e.g. 2026-12-02",
                    code="datatype",
                )
                return None
        if kind == "bool":
            if lexical not in ("true", "false"):
                self.problem(subject, f"{term.key}: malformed boolean {lexical!r}", code="datatype")
                return None
            return lexical == "true"
        try:
            return int(lexical)
        except ValueError:
            self.problem(subject, f"{term.key}: malformed integer {lexical!r}", code="datatype")
            return None

    def node(self, subject: Node, cls: ClassMap) -> dict[str, Any]:  # noqa: C901, PLR0912 - one branch per term kind
        data: dict[str, Any] = {"type": cls.name}
        self.consumed.add((subject, RDF.type, URIRef(expand(cls.rdf_type))))
        if cls.base is not None:
            if cls.base:
                data[cls.id_key] = self.local_id(subject, cls.base, f"a {cls.name}")
            else:
                data[cls.id_key] = str(subject)
        for term in cls.terms:
            predicate = URIRef(expand(term.predicate))
            if term.kind == "reverse":
                assert term.nested is not None  # noqa: S101 - the table defines it
                nested_cls = CLASSES[term.nested]
                members = sorted(self.graph.subjects(predicate, subject), key=str)
                for member in members:
                    self.consumed.add((member, predicate, subject))
                values = [self.node(m, nested_cls) for m in members]
                data[term.key] = sorted(values, key=_order_key)
                continue
            objects = sorted(self.graph.objects(subject, predicate), key=str)
            for obj in objects:
                self.consumed.add((subject, predicate, obj))
            if term.kind == "nested":
                assert term.nested is not None  # noqa: S101 - the table defines it
                if len(objects) > 1:
                    self.problem(subject, f"{term.key}: {len(objects)} values, expected one")
                if objects:
                    data[term.key] = self.node(objects[0], CLASSES[term.nested])
                continue
            values = [self.value(subject, term, obj) for obj in objects]
            if term.kind in ("refs", "strs"):
                data[term.key] = sorted(v for v in values if v is not None)
            elif len(values) > 1:
                shown = ", ".join(_show(o) for o in objects)
                self.problem(
                    subject,
                    f"{term.key}: {len(values)} values ({shown}), expected one",
                    code="cardinality",
                )
            elif values and values[0] is not None:
                data[term.key] = values[0]
        return data


def _show(node: Node) -> str:
    if isinstance(node, URIRef):
        return f"<{node}>"
    if isinstance(node, BNode):
        return "a blank node"
    if isinstance(node, Literal):
        tail = (
            f"^^<{node.datatype}>" if node.datatype else f"@{node.language}" * bool(node.language)
        )
        return f"{str(node)!r}{tail}"
    return repr(node)


def _order_key(item: dict[str, Any]) -> tuple[bool, int, str]:
    order = item.get("order")
    return (order is None, order if isinstance(order, int) else 0, str(item.get("id", "")))


def _parse(
    files: Iterable[TurtleFile],
) -> tuple[rdflib.Graph, dict[Node, tuple[str, _Locator]], list[Problem]]:
    graph = rdflib.Graph()
    origin: dict[Node, tuple[str, _Locator]] = {}
    problems: list[Problem] = []
    for file in files:
        part = rdflib.Graph()
        try:
            # rdflib logs a traceback for each ill-typed literal; the reader reports them itself
            with quiet_rdflib():
                part.parse(data=file.text, format="turtle", publicID=BASE_IRI)
        except BadSyntax as error:
            line = int(getattr(error, "lines", 0)) + 1 or None
            why = str(getattr(error, "_why", "") or error).strip()
            problems.append(
                Problem(
                    "violation",
                    f"Turtle syntax error: {why}",
                    file=file.name,
                    line=line,
                    hint="fix the syntax; every prefix must be declared with @prefix",
                    code="syntax",
                )
            )
            continue
        except Exception as error:  # noqa: BLE001 - rdflib raises many types for bad input
            problems.append(
                Problem("violation", f"cannot parse Turtle: {error}", file=file.name, code="syntax")
            )
            continue
        locator = _Locator(file)
        for subject in part.subjects(unique=True):
            origin.setdefault(subject, (file.name, locator))
        graph += part
    return graph, origin, problems


def dataset_graph(files: Iterable[TurtleFile] | None = None) -> rdflib.Graph:
    """Parse Turtle files (default: the shipped ones) into one rdflib graph.

    Raises:
        DatasetError: when a file is not valid Turtle.
    """
    graph, _, problems = _parse(shipped_turtle() if files is None else files)
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    for prefix, namespace in NAMESPACES.items():
        graph.bind(prefix, namespace)
    return graph


def read_turtle(files: Iterable[TurtleFile] | None = None) -> AtlasDocument:  # noqa: C901, PLR0912 - one pass over all subjects
    """Read Turtle files (default: the shipped ones) into one validated document.

    Raises:
        DatasetError: listing every problem found, each with its file, line and resource.
    """
    graph, origin, problems = _parse(shipped_turtle() if files is None else files)
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    reader = _Reader(graph, origin)
    collections: dict[str, list[dict[str, Any]]] = {key: [] for key in COLLECTIONS}
    dataset: dict[str, Any] | None = None
    nested_types = {
        c.rdf_type for c in CLASSES.values() if c.name in ("Concept", "TextQuoteSelector")
    }
    by_type = {expand(c.rdf_type): c for c in CLASSES.values()}
    for subject in sorted(set(graph.subjects(RDF.type, None)), key=str):
        types = sorted(graph.objects(subject, RDF.type), key=str)
        known = [by_type[str(t)] for t in types if str(t) in by_type]
        if len(types) > 1:
            reader.problem(
                subject,
                f"has {len(types)} types ({', '.join(_show(t) for t in types)}), expected one",
                code="type",
            )
        if not known:
            reader.problem(subject, f"has an unknown type {_show(types[0])}", code="type")
            continue
        cls = known[0]
        if cls.rdf_type in nested_types:
            continue  # read as part of their scheme or citation
        data = reader.node(subject, cls)
        if cls.name == "Dataset":
            if str(subject) != BASE_IRI:
                reader.problem(subject, f"the dataset's IRI must be <{BASE_IRI}>", code="bad-iri")
            dataset = data
        else:
            collections[next(k for k, v in COLLECTIONS.items() if v == cls.name)].append(data)
    for triple in sorted(set(graph) - reader.consumed, key=lambda t: tuple(map(str, t))):
        subject, predicate, obj = triple
        if (subject, RDF.type, None) not in graph:
            reader.problem(
                subject,
                f"is described ({_show(predicate)} {_show(obj)}) but has no rdf:type",
                hint="declare the resource's class, e.g. 'a ea:Step', or fix a misspelt IRI",
                code="untyped",
            )
        else:
            reader.problem(
                subject,
                f"unknown or misplaced property {_show(predicate)} (value {_show(obj)})",
                hint="see schema/vocabulary.ttl and dataset/README.md for the properties in use",
                code="unknown-property",
            )
    if dataset is None:
        reader.problems.append(
            Problem(
                "violation",
                f"no dataset description: <{BASE_IRI}> a dcat:Dataset is missing",
                hint="describe the dataset in catalog.ttl",
                code="missing",
            )
        )
    if reader.problems:
        raise DatasetError(_dedupe(reader.problems), source="Turtle dataset")
    assert dataset is not None  # noqa: S101 - checked just above
    return _document(dataset, collections, reader)


def _dedupe(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def _document(
    dataset: dict[str, Any], collections: dict[str, list[dict[str, Any]]], reader: _Reader
) -> AtlasDocument:
    schemes = {s["id"]: s for s in collections["schemes"] if s.get("id")}
    for atlas in collections["atlases"]:
        atlas["dimensions"] = sorted(
            atlas.get("dimensions", []),
            key=lambda d: (
                schemes.get(d, {}).get("order") is None,
                schemes.get(d, {}).get("order") or 0,
                d,
            ),
        )
    for key in COLLECTIONS:
        if key == "steps":
            collections[key].sort(key=lambda s: (str(s.get("atlas")), *_order_key(s)))
        elif key in ("citations", "sources"):
            collections[key].sort(key=lambda s: str(s.get("id")))
        else:
            collections[key].sort(key=_order_key)
    counts = {key: len(collections[key]) for key in COLLECTIONS if key != "schemes"}
    version = dataset.get("version", "0.0.0")
    raw: dict[str, Any] = {
        "@context": context(),
        **{k: v for k, v in dataset.items() if k != "type"},
        "attribution": f"Execution Atlas {version} ({BASE_IRI}), licensed CC BY 4.0",
        "counts": counts,
        **collections,
    }
    try:
        return AtlasDocument.model_validate(raw)
    except pydantic.ValidationError as error:
        raise DatasetError(
            _pydantic_problems(error, raw, reader), source="Turtle dataset"
        ) from None


def _pydantic_problems(
    error: pydantic.ValidationError, raw: dict[str, Any], reader: _Reader
) -> list[Problem]:
    problems = []
    for item in error.errors():
        loc = item["loc"]
        node: Any = raw
        subject_iri: str | None = None
        path = []
        for part in loc:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                break
            if isinstance(node, dict) and "type" in node and "id" in node:
                cls = CLASSES.get(str(node["type"]))
                if cls and cls.base is not None:
                    subject_iri = (
                        (BASE_IRI + cls.base + str(node["id"]))
                        if cls.base
                        else str(node.get(cls.id_key))
                    )
            path.append(str(part))
        field_name = str(loc[-1]) if loc else "document"
        where: dict[str, Any] = {"file": None, "line": None}
        if subject_iri:
            where = reader.where(URIRef(subject_iri))
        problems.append(
            Problem(
                "violation",
                f"{field_name}: {item['msg']}"
                + (f" (got {item['input']!r})" if item["type"] != "missing" else ""),
                subject=subject_iri,
                hint=_hint(item),
                code=str(item["type"]),
                **where,
            )
        )
    return problems


def _hint(item: Any) -> str | None:
    kind = item["type"]
    if kind == "missing":
        return f"add the property for {item['loc'][-1]!r} (see dataset/README.md)"
    if kind == "string_pattern_mismatch":
        return "ids are lower-case kebab-case; URLs start with https://"
    if kind == "literal_error":
        return "use one of the allowed values"
    return None

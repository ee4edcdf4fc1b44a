"""Turtle to models, and the rdflib graph of the dataset.

:func:`read_turtle` turns the curated Turtle files into one :class:`~atlas.models.AtlasDocument`.
It consumes every triple: a triple that no model field holds (a misspelt property, an untyped
subject) is a problem, so the JSON export can never silently lose a statement. All problems are
collected and raised together, each naming its file, line and resource. The files are parsed by
:mod:`atlas.data._graph` (pyoxigraph); rdflib builds :func:`dataset_graph` and explains syntax
errors.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pydantic
from pyoxigraph import BlankNode, Literal, NamedNode

from atlas.data import _resources
from atlas.data._graph import RDF_TYPE, Graph, Term, TurtleFile, parse, plain
from atlas.data.schema import quiet_rdflib
from atlas.errors import DatasetError, Problem, shown
from atlas.models import AtlasDocument
from atlas.models._iri import BASE_IRI
from atlas.models._vocab import CLASSES, COLLECTIONS, NAMESPACES, ClassMap, context, expand

if TYPE_CHECKING:
    import rdflib

    from atlas.models._vocab import Term as VocabTerm

__all__ = [
    "SYNTAX_HINT",
    "TurtleFile",
    "dataset_graph",
    "rdflib_problem",
    "read_graph",
    "read_turtle",
    "shipped_turtle",
]

XSD = NAMESPACES["xsd"]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
SYNTAX_HINT = "fix the syntax; every prefix must be declared with @prefix"


def shipped_turtle() -> list[TurtleFile]:
    """The Turtle files shipped with the package."""
    return [TurtleFile.load(f) for f in _resources.turtle_files()]


def _value_key(node: Term) -> str:
    """How nodes sort: by IRI, blank node id or lexical form (rdflib's ``str``)."""
    return node.value


@dataclass
class _Reader:
    """Reads nodes of the graph into model fields, noting each triple it consumes."""

    graph: Graph
    problems: list[Problem] = field(default_factory=list)
    consumed: set[tuple[Term, NamedNode]] = field(default_factory=set)  # with all their objects
    consumed_triples: set[tuple[Term, NamedNode, Term]] = field(default_factory=set)

    def problem(self, node: Term, message: str, hint: str | None = None, code: str = "") -> None:
        subject = node.value if isinstance(node, NamedNode) else None
        self.problems.append(
            Problem(
                "violation",
                message,
                subject=subject,
                hint=hint,
                code=code,
                **self.graph.place(node),
            )
        )

    def local_id(self, node: Term, base: str, what: str) -> str | None:
        if isinstance(node, NamedNode) and node.value.startswith(BASE_IRI + base):
            local = node.value[len(BASE_IRI + base) :]
            if local:
                return local
        self.problem(
            node,
            f"expected {what} IRI under <{BASE_IRI}{base}>, found {_show(node)}",
            code="bad-iri",
        )
        return None

    def value(self, subject: Term, term: VocabTerm, node: Term) -> Any:  # noqa: C901, PLR0911, PLR0912 - one branch per literal kind
        kind = term.kind
        if kind in ("ref", "refs"):
            if not isinstance(node, NamedNode):
                self.problem(subject, f"{term.key}: expected an IRI, found {_show(node)}")
                return None
            if not term.base:
                return node.value
            return self.local_id(node, term.base, f"a {term.key!r}")
        if not isinstance(node, Literal):
            self.problem(subject, f"{term.key}: expected a literal, found {_show(node)}")
            return None
        datatype = None if plain(node) else node.datatype.value
        lexical = node.value
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
        if kind == "datetime":
            return self.moment(subject, term, node)
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

    def moment(self, subject: Term, term: VocabTerm, node: Literal) -> dt.datetime | None:
        """An ``xsd:dateTime`` with its time zone, in UTC (PAV's range of pav:retrievedOn)."""
        datatype, lexical = node.datatype.value, node.value
        if datatype == XSD + "dateTime":
            try:
                if not _DATETIME.match(lexical):
                    raise ValueError(lexical)  # noqa: TRY301 - one path for every bad date-time
                return dt.datetime.fromisoformat(lexical).astimezone(dt.UTC)
            except ValueError:
                self.problem(
                    subject,
                    f"{term.key}: malformed date-time {lexical!r}",
                    hint="use YYYY-MM-DDThh:mm:ss with a time zone, e.g. 2026-12-02T00:00:00Z",
                    code="datatype",
                )
                return None
        self.problem(
            subject,
            f"{term.key}: expected an xsd:dateTime literal, found {_show(node)}",
            hint='write "2026-12-02T00:00:00Z"^^xsd:dateTime',
            code="datatype",
        )
        return None

    def node(self, subject: Term, cls: ClassMap) -> dict[str, Any]:  # noqa: C901, PLR0912 - one branch per term kind
        """The fields of ``subject`` read as a ``cls``.

        A literal (in rdflib's reading, a literal may stand as a subject) has no properties: the
        models then say what is missing.
        """
        data: dict[str, Any] = {"type": cls.name}
        if cls.base is not None:
            if cls.base:
                data[cls.id_key] = self.local_id(subject, cls.base, f"a {cls.name}")
            else:
                data[cls.id_key] = subject.value
        rdf_type, terms = _plan(cls.name)
        if isinstance(subject, Literal):
            properties: dict[NamedNode, list[Term]] = {}
        else:
            self.consumed_triples.add((subject, RDF_TYPE, rdf_type))
            properties = self.graph.subjects.get(subject, {})
        for term, predicate in terms:
            kind = term.kind
            if kind == "reverse":
                assert term.nested is not None  # noqa: S101 - the table defines it
                nested_cls = CLASSES[term.nested]
                members = sorted(self.graph.subjects_of(predicate, subject), key=_value_key)
                for member in members:
                    self.consumed_triples.add((member, predicate, subject))
                values = [self.node(m, nested_cls) for m in members]
                data[term.key] = sorted(values, key=_order_key)
                continue
            objects = properties.get(predicate)
            if not objects:
                if kind in ("refs", "strs"):
                    data[term.key] = []
                continue
            self.consumed.add((subject, predicate))
            if len(objects) > 1:
                objects = sorted(objects, key=_value_key)
            if kind == "nested":
                assert term.nested is not None  # noqa: S101 - the table defines it
                if len(objects) > 1:
                    self.problem(subject, f"{term.key}: {len(objects)} values, expected one")
                data[term.key] = self.node(objects[0], CLASSES[term.nested])
                continue
            values = [self.value(subject, term, obj) for obj in objects]
            if kind in ("refs", "strs"):
                data[term.key] = sorted(v for v in values if v is not None)
            elif len(values) > 1:
                shown = ", ".join(_show(o) for o in objects)
                self.problem(
                    subject,
                    f"{term.key}: {len(values)} values ({shown}), expected one",
                    code="cardinality",
                )
            elif values[0] is not None:
                data[term.key] = values[0]
        return data


@functools.cache
def _plan(name: str) -> tuple[NamedNode, tuple[tuple[VocabTerm, NamedNode], ...]]:
    """The rdf:type of a class, and each of its terms with its predicate."""
    cls = CLASSES[name]
    terms = tuple((term, NamedNode(expand(term.predicate))) for term in cls.terms)
    return NamedNode(expand(cls.rdf_type)), terms


def _show(node: Term) -> str:
    if isinstance(node, NamedNode):
        return f"<{node.value}>"
    if isinstance(node, BlankNode):
        return "a blank node"
    if not plain(node):
        return f"{node.value!r}^^<{node.datatype.value}>"
    return f"{node.value!r}@{node.language}" if node.language else repr(node.value)


def _order_key(item: dict[str, Any]) -> tuple[bool, int, str]:
    order = item.get("order")
    return (order is None, order if isinstance(order, int) else 0, str(item.get("id", "")))


def rdflib_problem(file: TurtleFile) -> Problem | None:
    """The syntax error in ``file`` as rdflib words it, or None when rdflib reads the file."""
    graph_or_problem = _rdflib_parse(file)
    return graph_or_problem if isinstance(graph_or_problem, Problem) else None


def _rdflib_parse(file: TurtleFile) -> rdflib.Graph | Problem:
    import rdflib  # noqa: PLC0415 - only the rdflib graph of the API and error reports need it
    from rdflib.plugins.parsers.notation3 import BadSyntax  # noqa: PLC0415

    part = rdflib.Graph()
    try:
        # rdflib logs a traceback for each ill-typed literal; the reader reports them itself
        with quiet_rdflib():
            part.parse(data=file.text, format="turtle", publicID=BASE_IRI)
    except BadSyntax as error:
        line = int(getattr(error, "lines", 0)) + 1 or None
        why = str(getattr(error, "_why", "") or error).strip()
        return Problem(
            "violation",
            f"Turtle syntax error: {why}",
            file=file.name,
            line=line,
            hint=SYNTAX_HINT,
            code="syntax",
        )
    except Exception as error:  # noqa: BLE001 - rdflib raises many types for bad input
        return Problem("violation", f"cannot parse Turtle: {error}", file=file.name, code="syntax")
    return part


def dataset_graph(files: Iterable[TurtleFile] | None = None) -> rdflib.Graph:
    """Parse Turtle files (default: the shipped ones) into one rdflib graph.

    Raises:
        DatasetError: when a file is not valid Turtle.
    """
    import rdflib  # noqa: PLC0415

    graph = rdflib.Graph()
    problems = []
    for file in shipped_turtle() if files is None else files:
        part = _rdflib_parse(file)
        if isinstance(part, Problem):
            problems.append(part)
        else:
            graph += part
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    for prefix, namespace in NAMESPACES.items():
        graph.bind(prefix, namespace)
    return graph


def read_turtle(files: Iterable[TurtleFile] | None = None) -> AtlasDocument:
    """Read Turtle files (default: the shipped ones) into one validated document.

    Raises:
        DatasetError: listing every problem found, each with its file, line and resource.
    """
    return read_graph(parse(shipped_turtle() if files is None else files))


def read_graph(graph: Graph) -> AtlasDocument:  # noqa: C901, PLR0912 - one pass over all subjects
    """Read parsed Turtle files (see :func:`atlas.data._graph.parse`) into one validated document.

    Raises:
        DatasetError: listing every problem found, each with its file, line and resource.
    """
    if graph.problems:
        raise DatasetError(graph.problems, source="Turtle dataset")
    reader = _Reader(graph)
    collections: dict[str, list[dict[str, Any]]] = {key: [] for key in COLLECTIONS}
    dataset: dict[str, Any] | None = None
    nested_types = {
        c.rdf_type for c in CLASSES.values() if c.name in ("Concept", "TextQuoteSelector", "Claim")
    }
    claim_type = NamedNode(expand(CLASSES["Claim"].rdf_type))
    by_type = {expand(c.rdf_type): c for c in CLASSES.values()}
    collection_of = {v: k for k, v in COLLECTIONS.items()}
    typed = (s for s, properties in graph.subjects.items() if RDF_TYPE in properties)
    for subject in sorted(typed, key=_value_key):
        types = sorted(graph.subjects[subject][RDF_TYPE], key=_value_key)
        known = [by_type[t.value] for t in types if t.value in by_type]
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
            if subject.value != BASE_IRI:
                reader.problem(subject, f"the dataset's IRI must be <{BASE_IRI}>", code="bad-iri")
            dataset = data
        else:
            collections[collection_of[cls.name]].append(data)
    about = NamedNode(expand("ea:about"))
    for subject, properties in graph.subjects.items():
        if claim_type in properties.get(RDF_TYPE, ()) and not any(
            (subject, about, parent) in reader.consumed_triples
            for parent in properties.get(about, ())
        ):
            reader.problem(
                subject,
                "is a claim about no atlas, stage, step, technology, relation or concept",
                hint="ea:about must name one such resource, declared with its type",
                code="orphan-claim",
            )
            reader.consumed.update((subject, predicate) for predicate in properties)
    left = [
        (subject, predicate, obj)
        for subject, predicate, obj in graph.triples()
        if (subject, predicate) not in reader.consumed
        and (subject, predicate, obj) not in reader.consumed_triples
    ]
    for subject, predicate, obj in sorted(left, key=lambda t: (t[0].value, t[1].value, t[2].value)):
        if RDF_TYPE not in graph.subjects[subject]:
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
    claimed = [*collections["atlases"], *collections["stages"], *collections["steps"]]
    claimed += [*collections["technologies"], *collections["relations"]]
    claimed += [value for scheme in collections["schemes"] for value in scheme.get("values", [])]
    counts["claims"] = sum(len(item.get("claims", ())) for item in claimed)
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
            where = reader.graph.place(subject_iri)
        problems.append(
            Problem(
                "violation",
                f"{field_name}: {item['msg']}"
                + (f" (got {shown(item['input'])})" if item["type"] != "missing" else ""),
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

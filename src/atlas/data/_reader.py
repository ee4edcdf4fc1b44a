"""How one subject's triples become the fields of a record, with a problem for each that cannot.

:class:`Reader` reads the Turtle of one resource into the dictionary its model validates: it
turns each literal into its Python value (dates, numbers, booleans, language-tagged text), each
IRI into the local id its field expects, and records which triples it consumed, so that
:func:`atlas.data.turtle.read_graph` can report every triple no field holds.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyoxigraph import BlankNode, Literal, NamedNode

from atlas.data._graph import RDF_TYPE, Graph, Term, plain
from atlas.errors import Problem
from atlas.models._iri import BASE_IRI
from atlas.models._vocab import CLASSES, NAMESPACES, ClassMap, expand

if TYPE_CHECKING:
    from atlas.models._vocab import Term as VocabTerm

__all__ = ["Reader", "order_key", "show", "value_key"]

XSD = NAMESPACES["xsd"]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def value_key(node: Term) -> str:
    """How nodes sort: by IRI, blank node id or lexical form (rdflib's ``str``)."""
    return node.value


@dataclass
class Reader:
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
            f"expected {what} IRI under <{BASE_IRI}{base}>, found {show(node)}",
            code="bad-iri",
        )
        return None

    def value(self, subject: Term, term: VocabTerm, node: Term) -> Any:  # noqa: C901, PLR0911, PLR0912 - one branch per literal kind
        kind = term.kind
        if kind in ("ref", "refs"):
            if not isinstance(node, NamedNode):
                self.problem(subject, f"{term.key}: expected an IRI, found {show(node)}")
                return None
            if not term.base:
                return node.value
            return self.local_id(node, term.base, f"a {term.key!r}")
        if not isinstance(node, Literal):
            self.problem(subject, f"{term.key}: expected a literal, found {show(node)}")
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
                    f"{term.key}: expected a string, found {show(node)}",
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
                f"{term.key}: expected an xsd:{expected} literal, found {show(node)}",
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
            f"{term.key}: expected an xsd:dateTime literal, found {show(node)}",
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
                members = sorted(self.graph.subjects_of(predicate, subject), key=value_key)
                for member in members:
                    self.consumed_triples.add((member, predicate, subject))
                values = [self.node(m, nested_cls) for m in members]
                data[term.key] = sorted(values, key=order_key)
                continue
            objects = properties.get(predicate)
            if not objects:
                if kind in ("refs", "strs"):
                    data[term.key] = []
                continue
            self.consumed.add((subject, predicate))
            if len(objects) > 1:
                objects = sorted(objects, key=value_key)
            if kind == "nested":
                assert term.nested is not None  # noqa: S101 - the table defines it
                if len(objects) > 1:
                    self.problem(subject, f"{term.key}: {len(objects)} values, expected one")
                data[term.key] = self.node(objects[0], CLASSES[term.nested])
                continue
            if kind == "nodes":  # several nested nodes, in the order of their fields' values
                assert term.nested is not None  # noqa: S101 - the table defines it
                nodes = [self.node(obj, CLASSES[term.nested]) for obj in objects]
                data[term.key] = sorted(nodes, key=lambda n: sorted(map(str, n.items())))
                continue
            values = [self.value(subject, term, obj) for obj in objects]
            if kind in ("refs", "strs"):
                data[term.key] = sorted(v for v in values if v is not None)
            elif len(values) > 1:
                shown = ", ".join(show(o) for o in objects)
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


def show(node: Term) -> str:
    if isinstance(node, NamedNode):
        return f"<{node.value}>"
    if isinstance(node, BlankNode):
        return "a blank node"
    if not plain(node):
        return f"{node.value!r}^^<{node.datatype.value}>"
    return f"{node.value!r}@{node.language}" if node.language else repr(node.value)


def order_key(item: dict[str, Any]) -> tuple[bool, int, str]:
    """How records sort: by their order (those without one last), then by id."""
    order = item.get("order")
    return (order is None, order if isinstance(order, int) else 0, str(item.get("id", "")))

"""Query results: rows of RDF terms, their Python values, and the standard result formats.

SELECT gives :class:`Solutions`, ASK a ``bool``, CONSTRUCT and DESCRIBE :class:`Triples`. They are
written as SPARQL 1.1 Results JSON, XML, CSV or TSV, as Turtle or N-Triples, or as a text table.
The columns of ``SELECT *`` are put in the order of the query by :mod:`atlas.query._projection`.
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any, TypeAlias

import pyoxigraph

from atlas.models._iri import BASE_IRI, ID_KINDS, NAMESPACES

__all__ = [
    "BASE_IRI",
    "FORMATS",
    "PREFIXES",
    "Result",
    "Solutions",
    "Term",
    "Triples",
    "compact",
    "media_type",
    "python_value",
    "serialize",
]

Term: TypeAlias = (
    pyoxigraph.NamedNode | pyoxigraph.BlankNode | pyoxigraph.Literal | pyoxigraph.Triple
)

#: Prefixes used to shorten IRIs in tables and Turtle: the vocabularies', and one per kind of id.
PREFIXES: dict[str, str] = {
    **NAMESPACES,
    **{kind: f"{BASE_IRI}{kind}/" for kind in ID_KINDS},
}

_XSD = PREFIXES["xsd"]
_INTEGERS = {
    f"{_XSD}{name}"
    for name in (
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "negativeInteger",
        "nonPositiveInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
}


@dataclass(frozen=True)
class Solutions:
    """The rows of a SELECT query: one RDF term (or ``None`` when unbound) per variable."""

    variables: tuple[str, ...]
    rows: tuple[tuple[Term | None, ...], ...]
    truncated: bool = False  # True when a row cap cut the results

    def dicts(self) -> list[dict[str, Any]]:
        """The rows as dictionaries of plain Python values (see :func:`python_value`)."""
        names = self.variables
        return [{n: python_value(t) for n, t in zip(names, row, strict=True)} for row in self.rows]

    def column(self, name: str) -> tuple[Term | None, ...]:
        """The terms of one variable, row by row."""
        at = self.variables.index(name)
        return tuple(row[at] for row in self.rows)

    def without(self, names: Iterable[str]) -> Solutions:
        """The same rows without the given variables (such as a named query's parameters)."""
        dropped = set(names)
        keep = [i for i, v in enumerate(self.variables) if v not in dropped]
        return replace(
            self,
            variables=tuple(self.variables[i] for i in keep),
            rows=tuple(tuple(row[i] for i in keep) for row in self.rows),
        )


@dataclass(frozen=True)
class Triples:
    """The triples built by a CONSTRUCT or DESCRIBE query."""

    triples: tuple[pyoxigraph.Triple, ...]
    truncated: bool = False


Result: TypeAlias = Solutions | bool | Triples


def python_value(term: Term | None) -> Any:  # noqa: C901, PLR0911 - one return per datatype
    """The Python value of a term: IRIs as ``str``, typed literals as ``int``, ``date``...

    >>> python_value(pyoxigraph.Literal("3", datatype=pyoxigraph.NamedNode(_XSD + "integer")))
    3
    >>> python_value(pyoxigraph.NamedNode("https://w3id.org/execution-atlas/stage/cpu"))
    'https://w3id.org/execution-atlas/stage/cpu'
    """
    if term is None:
        return None
    if isinstance(term, pyoxigraph.NamedNode):
        return term.value
    if isinstance(term, pyoxigraph.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, pyoxigraph.Triple):
        return (python_value(term.subject), python_value(term.predicate), python_value(term.object))
    datatype, text = term.datatype.value, term.value
    try:
        if datatype in _INTEGERS:
            return int(text)
        if datatype == f"{_XSD}boolean":
            return text in ("true", "1")
        if datatype == f"{_XSD}decimal":
            return Decimal(text)
        if datatype in (f"{_XSD}double", f"{_XSD}float"):
            return float(text)
        if datatype == f"{_XSD}date":
            return dt.date.fromisoformat(text)
        if datatype == f"{_XSD}dateTime":
            return dt.datetime.fromisoformat(text)
    except (ValueError, InvalidOperation):
        return text  # an ill-typed literal keeps its text
    return text


def compact(term: Term | None) -> str:
    """A short form of a term for tables: prefixed IRIs, literals as their text.

    >>> compact(pyoxigraph.NamedNode("https://w3id.org/execution-atlas/stage/cpu"))
    'stage:cpu'
    """
    if term is None:
        return ""
    if isinstance(term, pyoxigraph.NamedNode):
        best = max(
            (p for p in PREFIXES.items() if term.value.startswith(p[1])),
            key=lambda p: len(p[1]),
            default=None,
        )
        return f"{best[0]}:{term.value[len(best[1]) :]}" if best else f"<{term.value}>"
    if isinstance(term, pyoxigraph.Literal):
        return term.value
    return str(term)


# --- formats ----------------------------------------------------------------------------------

#: Every format: its name and media type. SELECT takes json, xml, csv, tsv and table; ASK json,
#: xml and table; CONSTRUCT and DESCRIBE turtle, ntriples and table.
FORMATS: dict[str, str] = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "table": "text/plain",
    "turtle": "text/turtle",
    "ntriples": "application/n-triples",
}
_FOR_SOLUTIONS = ("json", "xml", "csv", "tsv", "table")
_FOR_BOOLEAN = ("json", "xml", "table")
_FOR_TRIPLES = ("turtle", "ntriples", "table")


def formats_for(result: Result) -> tuple[str, ...]:
    """The formats that can write this result, the preferred one first."""
    if isinstance(result, Triples):
        return _FOR_TRIPLES
    if isinstance(result, bool):
        return _FOR_BOOLEAN
    return _FOR_SOLUTIONS


def media_type(fmt: str) -> str:
    """The media type of a format, with its charset where text."""
    kind = FORMATS[fmt]
    return f"{kind}; charset=utf-8" if kind.startswith("text/") else kind


def serialize(result: Result, fmt: str) -> bytes:
    r"""Write a result in a format of :data:`FORMATS`.

    >>> serialize(True, "json")
    b'{"head": {}, "boolean": true}\n'

    Raises:
        ValueError: for a format that cannot write this kind of result.
    """
    if fmt not in formats_for(result):
        kind = (
            "a graph"
            if isinstance(result, Triples)
            else "ASK"
            if isinstance(result, bool)
            else "SELECT"
        )
        raise ValueError(
            f"format {fmt!r} cannot write {kind} results; valid: {', '.join(formats_for(result))}"
        )
    if isinstance(result, bool):
        return _boolean(result, fmt).encode()
    if isinstance(result, Triples):
        if fmt == "table":
            rows = [(t.subject, t.predicate, t.object) for t in result.triples]
            return _table(("subject", "predicate", "object"), rows).encode()
        rdf_format = (
            pyoxigraph.RdfFormat.TURTLE if fmt == "turtle" else pyoxigraph.RdfFormat.N_TRIPLES
        )
        prefixes = _used_prefixes(result.triples) if fmt == "turtle" else None
        return pyoxigraph.serialize(result.triples, format=rdf_format, prefixes=prefixes) or b""
    return _SOLUTION_WRITERS[fmt](result).encode()


def _used_prefixes(triples: Iterable[pyoxigraph.Triple]) -> dict[str, str]:
    """The prefixes of :data:`PREFIXES` that shorten at least one IRI of the triples."""
    iris = set()
    for triple in triples:
        for part in (triple.subject, triple.predicate, triple.object):
            if isinstance(part, pyoxigraph.NamedNode):
                iris.add(part.value)
            elif isinstance(part, pyoxigraph.Literal):
                iris.add(part.datatype.value)
    return {k: v for k, v in PREFIXES.items() if any(i.startswith(v) for i in iris)}


def _boolean(value: bool, fmt: str) -> str:  # noqa: FBT001 - the value written
    if fmt == "json":
        return json.dumps({"head": {}, "boolean": value}) + "\n"
    if fmt == "xml":
        return (
            '<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">'
            f"<head/><boolean>{'true' if value else 'false'}</boolean></sparql>\n"
        )
    return f"{'true' if value else 'false'}\n"


def _json_term(term: Term) -> dict[str, Any]:
    if isinstance(term, pyoxigraph.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, pyoxigraph.BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, pyoxigraph.Triple):
        parts = {"subject": term.subject, "predicate": term.predicate, "object": term.object}
        return {"type": "triple", "value": {k: _json_term(v) for k, v in parts.items()}}
    out: dict[str, Any] = {"type": "literal", "value": term.value}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype.value != f"{_XSD}string":
        out["datatype"] = term.datatype.value
    return out


def _json(result: Solutions) -> str:
    bindings = [
        {v: _json_term(t) for v, t in zip(result.variables, row, strict=True) if t is not None}
        for row in result.rows
    ]
    head = {"head": {"vars": list(result.variables)}, "results": {"bindings": bindings}}
    return json.dumps(head, ensure_ascii=False) + "\n"


def escape(text: str) -> str:
    """Text escaped for XML content."""
    return html.escape(text, quote=False)


def quoteattr(text: str) -> str:
    """Text escaped and quoted as an XML attribute value."""
    return f'"{html.escape(text, quote=True)}"'


def _xml_term(term: Term) -> str:
    if isinstance(term, pyoxigraph.NamedNode):
        return f"<uri>{escape(term.value)}</uri>"
    if isinstance(term, pyoxigraph.BlankNode):
        return f"<bnode>{escape(term.value)}</bnode>"
    if isinstance(term, pyoxigraph.Triple):
        return (
            f"<triple><subject>{_xml_term(term.subject)}</subject>"
            f"<predicate>{_xml_term(term.predicate)}</predicate>"
            f"<object>{_xml_term(term.object)}</object></triple>"
        )
    if term.language:
        return f"<literal xml:lang={quoteattr(term.language)}>{escape(term.value)}</literal>"
    if term.datatype.value != f"{_XSD}string":
        return f"<literal datatype={quoteattr(term.datatype.value)}>{escape(term.value)}</literal>"
    return f"<literal>{escape(term.value)}</literal>"


def _xml(result: Solutions) -> str:
    out = ['<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head>']
    out.extend(f"<variable name={quoteattr(v)}/>" for v in result.variables)
    out.append("</head>\n<results>\n")
    for row in result.rows:
        out.append("<result>")
        out.extend(
            f"<binding name={quoteattr(v)}>{_xml_term(t)}</binding>"
            for v, t in zip(result.variables, row, strict=True)
            if t is not None
        )
        out.append("</result>\n")
    out.append("</results>\n</sparql>\n")
    return "".join(out)


def _csv_value(term: Term | None) -> str:
    if term is None:
        return ""
    if isinstance(term, pyoxigraph.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, pyoxigraph.Triple):
        return str(term)
    return term.value


def _csv(result: Solutions) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(result.variables)
    writer.writerows([_csv_value(t) for t in row] for row in result.rows)
    return buffer.getvalue()


def _tsv(result: Solutions) -> str:
    lines = ["\t".join(f"?{v}" for v in result.variables)]
    lines.extend("\t".join("" if t is None else str(t) for t in row) for row in result.rows)
    return "\n".join(lines) + "\n"


def _table(variables: Iterable[str], rows: Iterable[Iterable[Term | None]]) -> str:
    header = list(variables)
    cells = [[compact(t) for t in row] for row in rows]
    if not cells:
        return "(no rows)\n"
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend(
        "  ".join(c.replace("\n", " ").ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in cells
    )
    return "\n".join(lines) + "\n"


_SOLUTION_WRITERS: dict[str, Callable[[Solutions], str]] = {
    "json": _json,
    "xml": _xml,
    "csv": _csv,
    "tsv": _tsv,
    "table": lambda result: _table(result.variables, result.rows),
}

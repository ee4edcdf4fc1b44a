"""SPARQL over the shipped graph, through pyoxigraph (no rdflib needed).

Queries are read-only and offline: SERVICE, LOAD and other updates, and remote FROM clauses are
refused before evaluation.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pyoxigraph

from atlas import _resources
from atlas.errors import AtlasError, NetworkRefusedError
from atlas.models import BASE_IRI

__all__ = ["SparqlError", "sparql", "store"]

_FORBIDDEN = re.compile(
    r"\b(SERVICE|LOAD|INSERT|DELETE|CLEAR|DROP|CREATE|COPY|MOVE|ADD)\b", re.IGNORECASE
)


class SparqlError(AtlasError, ValueError):
    """A SPARQL query that cannot be parsed or evaluated."""


@functools.cache
def store() -> pyoxigraph.Store:
    """An in-memory store holding every shipped Turtle file, built on first use."""
    result = pyoxigraph.Store()
    for file in _resources.turtle_files():
        result.bulk_load(file.read_bytes(), pyoxigraph.RdfFormat.TURTLE, base_iri=BASE_IRI)
    return result


def _plain(term: Any) -> Any:
    if term is None:
        return None
    if isinstance(term, pyoxigraph.Literal):
        return term.value
    return term.value if hasattr(term, "value") else str(term)


def _refuse_network(query: str) -> None:
    stripped = re.sub(r"#[^\n]*|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|<[^>]*>", " ", query)
    match = _FORBIDDEN.search(stripped)
    if match:
        word = match.group(1).upper()
        raise NetworkRefusedError(
            f"SPARQL {word} is refused: queries are read-only and never reach the network"
        )
    if re.search(r"\bFROM\b", stripped, re.IGNORECASE):
        raise NetworkRefusedError("SPARQL FROM is refused: queries run over the shipped graph only")


def sparql(query: str) -> list[dict[str, Any]] | bool | str:
    """Run a read-only SPARQL 1.1 query over the shipped graph.

    SELECT gives a list of rows (dicts of plain values), ASK a bool, CONSTRUCT and DESCRIBE
    the resulting triples as N-Triples text.

    >>> rows = sparql("SELECT ?l WHERE { <https://w3id.org/execution-atlas/stage/cpu> "
    ...               "<http://www.w3.org/2000/01/rdf-schema#label> ?l }")
    >>> rows
    [{'l': 'CPU'}]

    Raises:
        NetworkRefusedError: for SERVICE, LOAD, updates and FROM.
        SparqlError: for a query that does not parse.
    """
    _refuse_network(query)
    try:
        result = store().query(query)
    except SyntaxError as error:
        raise SparqlError(f"invalid SPARQL: {error}") from None
    if isinstance(result, pyoxigraph.QueryBoolean):
        return bool(result)
    if isinstance(result, pyoxigraph.QuerySolutions):
        names = [v.value for v in result.variables]
        return [{n: _plain(row[n]) for n in names} for row in result]
    return "".join(f"{t.subject} {t.predicate} {t.object} .\n" for t in result)

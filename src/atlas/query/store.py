"""SPARQL 1.1 over the shipped graph, through pyoxigraph (rdflib stays behind ``atlas.graph()``).

>>> sparql("ASK { ?atlas a <https://w3id.org/execution-atlas/vocab#Atlas> }")
True

Queries are read-only and offline: SERVICE, LOAD, updates and FROM are refused before
evaluation. Named queries ship as ``queries/*.rq``; values reach them as bindings (pyoxigraph
substitutions), never formatted into the text. This module holds the public face of SPARQL:
:func:`sparql`, writing results (:func:`write`) and reading bindings (:func:`parse_binding`),
with the engines (:mod:`atlas.query._engines`) and the named queries
(:mod:`atlas.query._named`) it answers with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyoxigraph

from atlas.errors import NetworkRefusedError, shown
from atlas.models._names import text as _text
from atlas.query._engines import Engine, Local, execute, load_store, store, term
from atlas.query._named import (
    NamedQuery,
    Parameter,
    PathRows,
    named_queries,
    named_query,
    path,
    run,
)
from atlas.query._results import Result, Solutions, Triples, formats_for, serialize
from atlas.query._sparql import ReadOnlyError, SparqlError

__all__ = [
    "Engine",
    "Local",
    "NamedQuery",
    "NetworkRefusedError",
    "Parameter",
    "PathRows",
    "ReadOnlyError",
    "SparqlError",
    "execute",
    "load_store",
    "named_queries",
    "named_query",
    "parse_binding",
    "path",
    "run",
    "sparql",
    "store",
    "term",
    "write",
]


def sparql(query: str, /, bindings: Mapping[str, object] | None = None) -> Any:
    """Run a read-only SPARQL 1.1 query over the shipped graph.

    SELECT gives a list of rows (dicts of Python values: IRIs as ``str``, literals as ``str``,
    ``int``, ``bool``, ``date``...), ASK a ``bool``, CONSTRUCT and DESCRIBE Turtle text.
    ``bindings`` give values to variables (``str`` is a literal; use ``pyoxigraph.NamedNode``
    for an IRI).

    >>> sparql("SELECT ?l WHERE { <https://w3id.org/execution-atlas/stage/cpu> "
    ...        "<http://www.w3.org/2000/01/rdf-schema#label> ?l }")
    [{'l': 'CPU'}]

    Raises:
        NetworkRefusedError: for SERVICE, LOAD and FROM.
        ReadOnlyError: for an update.
        SparqlError: for a query that does not parse.
        ArgumentTypeError: a query that is not a ``str``, bindings that are not a mapping...
        ArgumentValueError: text that is not valid Unicode, a bad variable name.
    """
    result = execute(query, bindings)
    if isinstance(result, Solutions):
        return result.dicts()
    if isinstance(result, Triples):
        return serialize(result, "turtle").decode()
    return result


def write(result: Result, fmt: str | None = None) -> bytes:
    r"""Write a result as ``json``, ``xml``, ``csv``, ``tsv``, ``table``, ``turtle``...

    The default is a table for rows and ASK, Turtle for CONSTRUCT and DESCRIBE.

    >>> write(True, "json")
    b'{"head": {}, "boolean": true}\n'

    Raises:
        SparqlError: a format that cannot write this kind of result; the valid ones are named.
    """
    valid = formats_for(result)
    chosen = fmt or ("turtle" if isinstance(result, Triples) else "table")
    if chosen not in valid:
        kind = (
            "graph" if isinstance(result, Triples) else "ASK" if isinstance(result, bool) else "row"
        )
        raise SparqlError(
            f"format {chosen!r} cannot write {kind} results; valid: {', '.join(valid)}"
        )
    return serialize(result, chosen)


def parse_binding(text: str) -> tuple[str, object]:
    """A ``NAME=VALUE`` binding from the command line: ``<...>`` is an IRI, anything else text.

    >>> parse_binding("stage=<https://w3id.org/execution-atlas/stage/cpu>")
    ('stage', <NamedNode value=https://w3id.org/execution-atlas/stage/cpu>)

    Raises:
        SparqlError: without ``=``, with an invalid name or with an invalid IRI.
        ArgumentTypeError, ArgumentValueError: ``text`` is not a ``str``, or not valid text.
    """
    name, sep, value = _text(text, "binding", "a str (NAME=VALUE)").partition("=")
    name = name.strip().lstrip("?$")
    if not sep or not name:
        raise SparqlError(f"a binding is NAME=VALUE, not {shown(text)}")
    try:
        pyoxigraph.Variable(name)
    except ValueError:
        raise SparqlError(
            f"invalid name {shown(name)} in binding {shown(text)}: letters, digits and _"
        ) from None
    if value.startswith("<") and value.endswith(">"):
        try:
            return name, pyoxigraph.NamedNode(value[1:-1])
        except ValueError:
            raise SparqlError(f"invalid IRI in binding {shown(text)}") from None
    return name, value

"""The bodies and media types of the endpoint's answers: the query layer's formats, and two more.

CONSTRUCT and DESCRIBE answers are also written as RDF/XML and as JSON-LD (expanded, with no
context to fetch), the formats that SPARQLWrapper and rdflib's SPARQLStore ask for by default.
pyoxigraph writes both; where it is too old to write JSON-LD (before 0.5), rdflib does.

>>> media("jsonld"), media("json")
('application/ld+json', 'application/sparql-results+json')
"""

from __future__ import annotations

import re

import pyoxigraph

from atlas.query._results import PREFIXES, Result, Triples, media_type, serialize

__all__ = ["NotWritableError", "body", "media"]

#: The graph formats added here, by name: their media types.
GRAPH_FORMATS = {"rdfxml": "application/rdf+xml", "jsonld": "application/ld+json"}
_JSON_LD = getattr(pyoxigraph.RdfFormat, "JSON_LD", None)  # pyoxigraph 0.5 and later
# What follows the last '/', '#' or ':' of a predicate: an XML name, as RDF/XML needs
_XML_LOCAL_NAME = re.compile(r"[^\W\d][\w.\-]*\Z")


class NotWritableError(ValueError):
    """A result that the asked format cannot write (the client may ask for another)."""


def media(fmt: str) -> str:
    """The media type of an answer in ``fmt``, with its charset where it is text."""
    return GRAPH_FORMATS.get(fmt) or media_type(fmt)


def body(result: Result, fmt: str) -> bytes:
    """A result written in ``fmt``: one of the query layer's formats, ``rdfxml`` or ``jsonld``.

    Raises:
        ValueError: a format of the query layer that cannot write this kind of result.
        TypeError: RDF/XML or JSON-LD asked of rows or a boolean.
    """
    if fmt not in GRAPH_FORMATS:
        return serialize(result, fmt)
    if not isinstance(result, Triples):
        raise TypeError(f"format {fmt!r} writes graphs (CONSTRUCT, DESCRIBE) only")
    if fmt == "rdfxml":
        _refuse_unwritable_predicates(result)
        rdf_xml = pyoxigraph.RdfFormat.RDF_XML
        return pyoxigraph.serialize(result.triples, format=rdf_xml, prefixes=PREFIXES) or b""
    if _JSON_LD is not None:
        return pyoxigraph.serialize(result.triples, format=_JSON_LD) or b""
    return _rdflib_json_ld(result)


def _refuse_unwritable_predicates(result: Triples) -> None:
    """Raise unless every predicate can be an element name of RDF/XML.

    >>> triple = pyoxigraph.Triple(*(pyoxigraph.NamedNode("http://example.org/") for _ in "spo"))
    >>> _refuse_unwritable_predicates(Triples((triple,)))
    Traceback (most recent call last):
    ...
    atlas.publish._formats.NotWritableError: RDF/XML cannot write the predicate \
<http://example.org/> (it does not end in a name); ask for Turtle or JSON-LD
    """
    for predicate in {t.predicate.value for t in result.triples}:
        cut = max(predicate.rfind(mark) for mark in "/#:")
        if not _XML_LOCAL_NAME.match(predicate[cut + 1 :]):
            raise NotWritableError(
                f"RDF/XML cannot write the predicate <{predicate}> (it does not end in a name); "
                "ask for Turtle or JSON-LD"
            )


def _rdflib_json_ld(result: Triples) -> bytes:
    """JSON-LD written by rdflib, for a pyoxigraph that cannot write it."""
    import rdflib  # noqa: PLC0415 - only with an old pyoxigraph

    n_triples = pyoxigraph.serialize(result.triples, format=pyoxigraph.RdfFormat.N_TRIPLES)
    graph = rdflib.Graph().parse(data=n_triples or b"", format="nt")
    return graph.serialize(format="json-ld").encode()

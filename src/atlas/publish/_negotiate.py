"""SPARQL Protocol content negotiation: which result format answers an ``Accept`` header.

CONSTRUCT and DESCRIBE are answered as Turtle, N-Triples, RDF/XML or JSON-LD (the defaults of
SPARQLWrapper and rdflib's SPARQLStore are the last two); SELECT as SPARQL results JSON, XML, CSV
or TSV; ASK as JSON or XML.
"""

from __future__ import annotations

__all__ = ["negotiate", "prefers_html"]

_SOLUTION_TYPES = {
    "application/sparql-results+json": "json",
    "application/json": "json",
    "application/sparql-results+xml": "xml",
    "application/xml": "xml",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
}
_BOOLEAN_TYPES = {k: v for k, v in _SOLUTION_TYPES.items() if v in ("json", "xml")}
_GRAPH_TYPES = {
    "text/turtle": "turtle",
    "application/n-triples": "ntriples",
    "text/plain": "ntriples",
    "application/rdf+xml": "rdfxml",
    "application/ld+json": "jsonld",
}
_PAGE_TYPES = ("text/html", "application/xhtml+xml")


def negotiate(accept: str, form: str) -> str | None:
    """The result format for an ``Accept`` header and a query form, or ``None`` if none fits.

    >>> negotiate("text/csv;q=0.5, application/sparql-results+json", "SELECT")
    'json'
    >>> negotiate("*/*", "CONSTRUCT")
    'turtle'
    >>> negotiate("text/turtle", "ASK") is None
    True
    """
    offered = (
        _GRAPH_TYPES
        if form in ("CONSTRUCT", "DESCRIBE")
        else _BOOLEAN_TYPES
        if form == "ASK"
        else _SOLUTION_TYPES
    )
    ranges = _media_ranges(accept or "*/*")
    for kind in ranges:
        if kind in offered:
            return offered[kind]
        if kind == "*/*":
            return next(iter(offered.values()))
        if kind.endswith("/*"):
            match = next((v for k, v in offered.items() if k.startswith(kind[:-1])), None)
            if match:
                return match
    return None


def prefers_html(accept: str) -> bool:
    """Whether an ``Accept`` header names HTML, and ranks it above plain text (a browser's).

    >>> prefers_html("text/html,application/xhtml+xml,*/*;q=0.8")
    True
    >>> prefers_html("*/*"), prefers_html("text/plain, text/html;q=0.5")
    (False, False)
    """
    for kind in _media_ranges(accept or ""):
        if kind in _PAGE_TYPES:
            return True
        if kind in ("text/plain", "text/*", "*/*"):
            return False
    return False


def _media_ranges(accept: str) -> list[str]:
    """The media ranges of an ``Accept`` header, most wanted first (q=0 left out)."""
    ranges: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept.split(",")):
        kind, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if kind and quality > 0:
            ranges.append((-quality, position, kind.lower()))
    return [kind for _, _, kind in sorted(ranges)]

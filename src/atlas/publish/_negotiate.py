"""Content negotiation: which format answers an ``Accept`` header.

For the SPARQL Protocol (:func:`negotiate`), CONSTRUCT and DESCRIBE are answered as Turtle,
N-Triples, RDF/XML or JSON-LD (the defaults of SPARQLWrapper and rdflib's SPARQLStore are the last
two); SELECT as SPARQL results JSON, XML, CSV or TSV; ASK as JSON or XML. For a resource of the
dataset (:func:`negotiate_resource`), the same graph formats, and HTML where it has a page: RDF
comes first, so a client that accepts anything (``*/*``, curl's default) gets Turtle, and only one
that names HTML (a browser) gets the page.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["GRAPH_TYPES", "choose", "negotiate", "negotiate_resource", "prefers_html"]

_SOLUTION_TYPES = {
    "application/sparql-results+json": "json",
    "application/json": "json",
    "application/sparql-results+xml": "xml",
    "application/xml": "xml",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
}
_BOOLEAN_TYPES = {k: v for k, v in _SOLUTION_TYPES.items() if v in ("json", "xml")}
GRAPH_TYPES = {
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
        GRAPH_TYPES
        if form in ("CONSTRUCT", "DESCRIBE")
        else _BOOLEAN_TYPES
        if form == "ASK"
        else _SOLUTION_TYPES
    )
    return choose(accept, offered)


def negotiate_resource(accept: str, *, page: bool) -> str | None:
    """The format of a resource's answer: a graph format, or ``html`` (its page, if ``page``).

    >>> negotiate_resource("*/*", page=True), negotiate_resource("application/ld+json", page=True)
    ('turtle', 'jsonld')
    >>> browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    >>> negotiate_resource(browser, page=True), negotiate_resource(browser, page=False)
    ('html', 'turtle')
    >>> negotiate_resource("image/png", page=True) is None
    True
    """
    offered = dict(GRAPH_TYPES)
    if page:
        offered.update(dict.fromkeys(_PAGE_TYPES, "html"))
    return choose(accept, offered)


def choose(accept: str, offered: Mapping[str, str]) -> str | None:
    """The value of the offered media type that an ``Accept`` header wants most, or ``None``.

    A wildcard takes the first offered type that the header does not refuse (``q=0``); an empty
    header accepts anything.

    >>> choose("text/turtle;q=0, */*", {"text/turtle": "ttl", "application/n-triples": "nt"})
    'nt'
    """
    refused = _refused(accept)
    for kind in _media_ranges(accept or "*/*"):
        if kind in offered:
            return offered[kind]
        if kind.endswith("/*"):
            prefix = "" if kind == "*/*" else kind[:-1]
            match = next(
                (v for k, v in offered.items() if k.startswith(prefix) and k not in refused),
                None,
            )
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
    ranges = [(-q, position, kind) for position, (kind, q) in enumerate(_qualities(accept))]
    return [kind for quality, _, kind in sorted(ranges) if quality < 0]


def _refused(accept: str) -> set[str]:
    """The media types an ``Accept`` header refuses by name (``q=0``)."""
    return {kind for kind, quality in _qualities(accept) if quality <= 0}


def _qualities(accept: str) -> list[tuple[str, float]]:
    """Each media range of an ``Accept`` header with its quality, in the header's order."""
    found: list[tuple[str, float]] = []
    for part in accept.split(","):
        kind, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if kind:
            found.append((kind.lower(), quality))
    return found

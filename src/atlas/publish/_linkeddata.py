"""Linked data: ``atlas serve`` answers a GET of any IRI of the dataset, by content negotiation.

The IRI ``https://w3id.org/execution-atlas/<kind>/<id>`` is answered at ``/<kind>/<id>`` (a value
of a dimension at ``/scheme/<dimension>/<value>``, a release at ``/dataset/<version>``, the
vocabulary at ``/vocab``; the dataset itself, ``BASE_IRI``, at ``/`` for a client that names an
RDF type, ``/`` staying the query page or the site's home for the others), as a linked-data
server answers it:

- Turtle, N-Triples, JSON-LD or RDF/XML: the resource's concise bounded description, the triples
  with it as subject and those of its blank nodes (a citation's selector), as the endpoint's
  ``DESCRIBE`` gives them; for a witness record, its named graph; for ``/vocab``, the vocabulary
  (``schema/vocabulary.ttl``). ``?format=ttl|nt|jsonld|rdf`` picks one whatever ``Accept`` says.
- HTML (a browser names it; ``*/*`` alone takes Turtle): ``303 See Other`` to a page about it.
  With a site (``atlas serve --site DIR``), that is the site's page: a stage's or step's at the
  same path as a folder (``/stage/torchdynamo/``, which a static host serves too), an atlas's at
  ``/<id>/``; without a site, the query page showing the resource's description. A resource with
  no page (a citation in a site, the vocabulary) is answered as RDF: the browser's ``*/*`` takes
  Turtle.
- ``404`` for an IRI the dataset says nothing about, ``406`` for an ``Accept`` header that takes
  none of the formats, ``400`` for an unknown ``format``; every answer says ``Vary: Accept``.

The IRI names the thing and the page is a document about it, hence a redirect rather than the
page itself (W3C, "Cool URIs for the Semantic Web"); the page's URL ends in ``/`` so that its
relative links hold. The routes pass the endpoint's guards: the Host check and the connection caps
(the server's), and each description is read by a query worker in the client's turn, under the
query deadline, with the row and size caps of every query. The vocabulary and the redirects need
no worker.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlencode

import pyoxigraph

from atlas.data._resources import schema_dir
from atlas.models._iri import BASE_IRI, ID_KINDS
from atlas.publish._formats import NotWritableError, body, media
from atlas.publish._negotiate import GRAPH_TYPES, negotiate_resource
from atlas.publish._protocol import RefusalError
from atlas.query._results import Triples

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

__all__ = ["FORMATS", "KINDS", "Endpoint", "LinkedData", "Resource", "chosen_format"]

#: The kinds of IRI answered at ``/<kind>/<id>``: the identifiers', and the releases'.
KINDS = (*ID_KINDS, "dataset")
#: The values of ``?format=``, and the formats they name.
FORMATS = {"ttl": "turtle", "nt": "ntriples", "jsonld": "jsonld", "rdf": "rdfxml"}
#: The media type to ask a query worker for, per graph format.
MEDIA = {fmt: kind for kind, fmt in GRAPH_TYPES.items() if kind != "text/plain"}
VOCABULARY = "vocab"
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")  # an id, a version: no '..', no '/'
_ASK = "application/sparql-results+json"
_PAGE_KINDS = ("stage", "step")  # a page at the same path in the site
_HEADERS = {"Vary": "Accept", "X-Content-Type-Options": "nosniff"}
# Whether a resource is described, and its description: queries of <>, run with its IRI as the
# base IRI (never formatted into the text). A witness record is its named graph.
_DESCRIPTION = ("ASK { <> ?p ?o }", "DESCRIBE <>")
_NAMED_GRAPH = (
    "ASK { GRAPH <> { ?s ?p ?o } }",
    "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <> { ?s ?p ?o } }",
)


class Endpoint(Protocol):
    """What the routes need of the endpoint: a client's turn, and a query run by a worker."""

    def turn(self, request: Request) -> AbstractAsyncContextManager[None]:
        """The client's turn at the query workers (429 past its queue)."""

    async def run(self, query: str, accept: str, base: str | None) -> tuple[str, bytes, bool]:
        """A worker's answer: format, body, truncation; raises :class:`RefusalError`."""


@dataclass(frozen=True)
class Resource:
    """A resource of the dataset, named by the path of its IRI (``stage/torchdynamo``)."""

    kind: str
    names: tuple[str, ...]

    @classmethod
    def of(cls, kind: str, *names: str) -> Resource:
        """The resource at ``/<kind>/<names...>``.

        >>> Resource.of("scheme", "pytorch-mode", "eager").iri
        'https://w3id.org/execution-atlas/scheme/pytorch-mode/eager'

        Raises:
            RefusalError: 404, a name that no identifier of the dataset can have.
        """
        for name in names:
            if not _SEGMENT.match(name):
                raise RefusalError(
                    404,
                    f"{name!r} is not an identifier of the dataset (letters, digits, '-', '.' "
                    f"and '_', e.g. /stage/torchdynamo)",
                )
        return cls(kind, names)

    @property
    def path(self) -> str:
        """The path of the IRI under the base, e.g. ``stage/torchdynamo`` (the dataset: '')."""
        return "/".join((self.kind, *self.names))

    @property
    def iri(self) -> str:
        """The resource's IRI."""
        return BASE_IRI + self.path

    @property
    def queries(self) -> tuple[str, str]:
        """Whether it is described, and its description: queries on ``<>``, the IRI as base."""
        return _NAMED_GRAPH if self.kind == "witness" else _DESCRIPTION

    def page(self, site: Path | None) -> str | None:
        """The URL path of a page about it: the site's, or the query page (no site); or None."""
        if site is None:
            if self.kind == "witness":  # the default graph says nothing of it
                return None
            # a query for the reader to see and edit, of an IRI made of checked names
            return "/?" + urlencode({"query": f"DESCRIBE <{self.iri}>"})
        if self.kind in _PAGE_KINDS:
            folder = self.path
        elif self.kind == "atlas":
            folder = self.names[0]
        else:
            return None
        return f"/{folder}/" if (site / folder / "index.html").is_file() else None


def chosen_format(request: Request, *, page: bool) -> str:
    """The format asked for: ``?format=``, else by the ``Accept`` header; ``html``: the page.

    Raises:
        RefusalError: 400 for an unknown ``format``, 406 when ``Accept`` takes none.
    """
    given = request.query_params.get("format")
    if given is not None:
        if given not in FORMATS:
            valid = ", ".join(sorted(FORMATS))
            raise RefusalError(400, f"unknown format {given!r}; valid: {valid}")
        return FORMATS[given]
    accept = request.headers.get("accept", "")
    fmt = negotiate_resource(accept, page=page)
    if fmt is None:
        offered = ", ".join(MEDIA.values())
        also = ", or text/html" if page else ""
        raise RefusalError(
            406, f"no acceptable format for Accept {accept!r}: this resource is {offered}{also}"
        )
    return fmt


@dataclass
class LinkedData:
    """The routes of the dataset's IRIs, answered through ``endpoint``; ``site``: served site."""

    endpoint: Endpoint
    site: Path | None = None

    def routes(self) -> list[Route]:
        """``/<kind>/<id>`` for every kind, ``/scheme/<id>/<value>``, and ``/vocab``."""
        from starlette.routing import Route  # noqa: PLC0415 - the serve extra

        found = [Route(f"/{kind}/{{name}}", self._of(kind), methods=["GET"]) for kind in KINDS]
        found.append(Route("/scheme/{name}/{value}", self._of("scheme"), methods=["GET"]))
        found.append(Route(f"/{VOCABULARY}", self.vocabulary, methods=["GET"]))
        return found

    def _of(self, kind: str) -> Callable[[Request], Awaitable[Response]]:
        """The route's function for the resources of one kind."""

        async def answer(request: Request) -> Response:
            return await self.resource(request, kind)

        return answer

    def root(self, fallback: Any) -> Any:
        """An ASGI app for ``/``: the dataset's description when RDF is named, else ``fallback``.

        Only a request that names an RDF type (or gives ``?format=``) gets RDF at ``/``: for the
        others (a browser, ``*/*``), ``/`` stays the query page or the site's home page.
        """
        return _Root(self, fallback)

    async def resource(self, request: Request, kind: str) -> Response:
        """A resource of the dataset: its description, or a redirect to its page."""
        try:
            found = Resource.of(kind, *request.path_params.values())
            page = found.page(self.site)
            fmt = chosen_format(request, page=page is not None)
            return await self.described(request, found, fmt, page)
        except RefusalError as refusal:
            return _refused(refusal)

    async def described(
        self, request: Request, found: Resource, fmt: str, page: str | None = None
    ) -> Response:
        """The resource in ``fmt``, or (``html``) a redirect to ``page``.

        Raises:
            RefusalError: 404 for a resource the dataset says nothing about; the workers'.
        """
        from starlette.responses import RedirectResponse, Response  # noqa: PLC0415

        ask, describe = found.queries
        async with self.endpoint.turn(request):
            _, answer, _ = await self.endpoint.run(ask, _ASK, found.iri)
            if not json.loads(answer).get("boolean"):
                raise RefusalError(404, f"not found: the dataset says nothing about <{found.iri}>")
            if fmt == "html" and page is not None:  # offered only with a page
                return RedirectResponse(page, status_code=303, headers=_HEADERS)
            fmt, answer, truncated = await self.endpoint.run(describe, MEDIA[fmt], found.iri)
        headers = dict(_HEADERS)
        if truncated:
            headers["Atlas-Results-Truncated"] = "only the first triples are sent"
        return Response(answer, media_type=media(fmt), headers=headers)

    async def vocabulary(self, request: Request) -> Response:
        """``/vocab``: the vocabulary, in the format asked for."""
        from starlette.responses import Response  # noqa: PLC0415

        try:
            fmt = chosen_format(request, page=False)
            answer = _vocabulary(fmt)
        except RefusalError as refusal:
            return _refused(refusal)
        except NotWritableError as error:
            return _refused(RefusalError(406, str(error)))
        return Response(answer, media_type=media(fmt), headers=_HEADERS)


class _Root:
    """``/``: the dataset's own description to a client that names RDF, else ``fallback``."""

    def __init__(self, linked: LinkedData, fallback: Any) -> None:
        self.linked = linked
        self.fallback = fallback

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request  # noqa: PLC0415

        request = Request(scope, receive)
        try:
            fmt = _named_rdf(request)
            if fmt is None:
                await self.fallback(scope, receive, send)
                return
            response = await self.linked.described(request, Resource("", ()), fmt)
        except RefusalError as refusal:
            response = _refused(refusal)
        await response(scope, receive, send)


def _named_rdf(request: Request) -> str | None:
    """The graph format a request names (``?format=``, or an RDF type it prefers), or None."""
    if "format" in request.query_params:
        return chosen_format(request, page=False)
    accept = request.headers.get("accept", "")
    fmt = negotiate_resource(accept, page=True)
    named = any(kind in accept.lower() for kind in MEDIA.values())
    return fmt if named and fmt != "html" else None


def _refused(refusal: RefusalError) -> Response:
    from starlette.responses import PlainTextResponse  # noqa: PLC0415

    return PlainTextResponse(f"{refusal}\n", status_code=refusal.status, headers=_HEADERS)


@functools.cache
def _vocabulary(fmt: str) -> bytes:
    """The shipped vocabulary in ``fmt``: the file itself as Turtle, else its triples written."""
    text = (schema_dir() / "vocabulary.ttl").read_bytes()
    if fmt == "turtle":
        return text
    quads = pyoxigraph.parse(text, format=pyoxigraph.RdfFormat.TURTLE, base_iri=BASE_IRI)
    # pyoxigraph 0.5 reads quads, 0.4 triples
    return body(Triples(tuple(getattr(item, "triple", item) for item in quads)), fmt)

"""The SPARQL 1.1 Service Description of ``atlas serve``, at the endpoint's URL.

A GET of ``/sparql`` without a query, from a client that asks for RDF (Turtle, N-Triples,
JSON-LD, RDF/XML, or anything: ``*/*``) and not for HTML, is answered with a description of the
service in the ``sd:`` vocabulary (https://www.w3.org/TR/sparql11-service-description/): its
endpoint (the URL asked for), its language (SPARQL 1.1 Query alone: the endpoint is read-only),
the result formats it writes, and its dataset: the default graph and the named graphs (serving
the shipped atlas, the witness records), which a query worker lists in the client's turn. A
browser still gets what it got before (no query: ``400``). ``?format=ttl|nt|jsonld|rdf`` picks a
format whatever ``Accept`` says.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pyoxigraph

from atlas.models._iri import BASE_IRI, NAMESPACES
from atlas.publish._formats import body, media
from atlas.publish._linkeddata import Endpoint, chosen_format
from atlas.publish._negotiate import negotiate, prefers_html
from atlas.publish._protocol import RefusalError
from atlas.query._results import Triples

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["SD", "asked_format", "describe", "service_triples"]

SD = "http://www.w3.org/ns/sparql-service-description#"
_FORMATS = "http://www.w3.org/ns/formats/"
#: What the endpoint writes: results of SELECT and ASK, then graphs of CONSTRUCT and DESCRIBE.
RESULT_FORMATS = (
    "SPARQL_Results_JSON",
    "SPARQL_Results_XML",
    "SPARQL_Results_CSV",
    "SPARQL_Results_TSV",
    "Turtle",
    "N-Triples",
    "RDF_XML",
    "JSON-LD",
)
_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { } } ORDER BY ?g"
_RDF_TYPE = NAMESPACES["rdf"] + "type"
Subject = pyoxigraph.NamedNode | pyoxigraph.BlankNode


def asked_format(request: Request) -> str | None:
    """The format of the service description that a request asks for, or None: not asked.

    Asked: a GET (or HEAD) with no parameter but ``format``, that takes RDF and does not prefer
    HTML.

    Raises:
        RefusalError: 400 for an unknown ``format``.
    """
    if request.method not in ("GET", "HEAD") or set(request.query_params) - {"format"}:
        return None
    if "format" in request.query_params:
        return chosen_format(request, page=False)
    accept = request.headers.get("accept", "")
    if prefers_html(accept):
        return None
    return negotiate(accept, "DESCRIBE")


async def describe(
    endpoint: Endpoint, request: Request, fmt: str, *, shipped: bool = False
) -> Response:
    """The service description, in ``fmt``; ``shipped``: the endpoint serves the shipped atlas."""
    from starlette.responses import PlainTextResponse, Response  # noqa: PLC0415

    url = request.url
    headers = {"Vary": "Accept", "X-Content-Type-Options": "nosniff"}
    try:
        try:
            here = pyoxigraph.NamedNode(f"{url.scheme}://{url.netloc}{url.path}").value
        except ValueError:  # a Host header that no IRI can hold (the host check let it pass)
            raise RefusalError(400, "the Host header cannot name this endpoint") from None
        async with endpoint.turn(request):
            _, answer, _ = await endpoint.run(_GRAPHS, "application/sparql-results+json", None)
    except RefusalError as refusal:
        return PlainTextResponse(f"{refusal}\n", status_code=refusal.status, headers=headers)
    rows = json.loads(answer)["results"]["bindings"]
    graphs = [row["g"]["value"] for row in rows if "g" in row]
    triples = service_triples(here, graphs, shipped=shipped)
    return Response(body(Triples(triples), fmt), media_type=media(fmt), headers=headers)


def service_triples(
    endpoint: str, graphs: list[str], *, shipped: bool = False
) -> tuple[pyoxigraph.Triple, ...]:
    """The description of the service at ``endpoint`` with these named graphs, as triples.

    >>> found = service_triples("http://127.0.0.1:7878/sparql", [])
    >>> any(t.predicate.value == SD + "endpoint" for t in found)
    True
    """
    node = pyoxigraph.NamedNode
    a = node(_RDF_TYPE)
    service, dataset, default = node(endpoint), pyoxigraph.BlankNode(), pyoxigraph.BlankNode()
    found: list[tuple[Subject, pyoxigraph.NamedNode, Subject]] = [
        (service, a, _sd("Service")),
        (service, _sd("endpoint"), service),
        (service, _sd("supportedLanguage"), _sd("SPARQL11Query")),
        (service, _sd("defaultEntailmentRegime"), node("http://www.w3.org/ns/entailment/Simple")),
        *((service, _sd("resultFormat"), node(_FORMATS + name)) for name in RESULT_FORMATS),
        (service, _sd("defaultDataset"), dataset),
        (dataset, a, _sd("Dataset")),
        (dataset, _sd("defaultGraph"), default),
        (default, a, _sd("Graph")),
    ]
    if shipped:  # the default graph is the atlas: the dataset whose IRI is BASE_IRI
        found.append((node(BASE_IRI), node(NAMESPACES["void"] + "sparqlEndpoint"), service))
    for name in graphs:
        graph = pyoxigraph.BlankNode()
        found += [
            (dataset, _sd("namedGraph"), graph),
            (graph, a, _sd("NamedGraph")),
            (graph, _sd("name"), node(name)),
        ]
    return tuple(pyoxigraph.Triple(*triple) for triple in found)


def _sd(name: str) -> pyoxigraph.NamedNode:
    """A term of the ``sd:`` vocabulary."""
    return pyoxigraph.NamedNode(SD + name)

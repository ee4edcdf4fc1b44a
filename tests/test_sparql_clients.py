"""Real SPARQL clients against ``atlas serve``, at their default settings: SPARQLWrapper and
rdflib's SPARQLStore, each with SELECT, ASK, CONSTRUCT and DESCRIBE.

Their defaults are what most people use: SPARQLWrapper sends GET and asks for XML (results XML
for SELECT and ASK, RDF/XML for CONSTRUCT and DESCRIBE); SPARQLStore sends GET and asks for
results XML or RDF/XML in one Accept header. Both refuse an answer they cannot read.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import rdflib
from rdflib.namespace import RDFS

from atlas.publish.serve import Settings
from checkkit import serve_in_thread

pytest.importorskip("uvicorn")
pytestmark = pytest.mark.slow

CPU = rdflib.URIRef("https://w3id.org/execution-atlas/stage/cpu")
PREFIXES = "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
SELECT = PREFIXES + f"SELECT ?label WHERE {{ <{CPU}> rdfs:label ?label }}"
ASK = PREFIXES + f'ASK {{ <{CPU}> rdfs:label "CPU" }}'
ASK_NOT = PREFIXES + f'ASK {{ <{CPU}> rdfs:label "GPU" }}'
CONSTRUCT = PREFIXES + f"CONSTRUCT WHERE {{ <{CPU}> rdfs:label ?label }}"
DESCRIBE = f"DESCRIBE <{CPU}>"
WITNESS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    for url in serve_in_thread(Settings(workers=2)):
        yield f"{url}/sparql"


# --- SPARQLWrapper -------------------------------------------------------------------------

sparqlwrapper = pytest.importorskip("SPARQLWrapper", reason="SPARQLWrapper (the test extra)")


def _wrapper(endpoint: str, query: str) -> object:
    client = sparqlwrapper.SPARQLWrapper(endpoint)  # its defaults: GET, XML
    client.setQuery(query)
    return client.query().convert()


def test_sparqlwrapper_select(endpoint: str) -> None:
    document = _wrapper(endpoint, SELECT)
    literals = [node.firstChild.data for node in document.getElementsByTagName("literal")]
    assert literals == ["CPU"]


def test_sparqlwrapper_ask(endpoint: str) -> None:
    for query, answer in ((ASK, "true"), (ASK_NOT, "false")):
        document = _wrapper(endpoint, query)
        assert document.getElementsByTagName("boolean")[0].firstChild.data == answer


# SPARQLWrapper reads RDF into rdflib's ConjunctiveGraph, which rdflib 7.1+ calls deprecated
OWN_DEPRECATION = pytest.mark.filterwarnings(
    "ignore:ConjunctiveGraph is deprecated:DeprecationWarning"
)


@OWN_DEPRECATION
@pytest.mark.parametrize("query", [CONSTRUCT, DESCRIBE], ids=["construct", "describe"])
def test_sparqlwrapper_construct_and_describe(endpoint: str, query: str) -> None:
    graph = _wrapper(endpoint, query)
    assert isinstance(graph, rdflib.Graph)
    assert (CPU, RDFS.label, rdflib.Literal("CPU")) in graph
    if query == DESCRIBE:
        assert len(graph) > 1


@OWN_DEPRECATION
def test_sparqlwrapper_json_when_asked(endpoint: str) -> None:
    client = sparqlwrapper.SPARQLWrapper(endpoint, returnFormat=sparqlwrapper.JSON)
    client.setQuery(SELECT)
    assert client.query().convert()["results"]["bindings"] == [
        {"label": {"type": "literal", "value": "CPU"}}
    ]
    client.setQuery(CONSTRUCT)
    client.setReturnFormat(sparqlwrapper.JSONLD)
    graph = client.query().convert()
    assert (CPU, RDFS.label, rdflib.Literal("CPU")) in graph


# --- rdflib's SPARQLStore ------------------------------------------------------------------


@pytest.fixture
def remote(endpoint: str) -> rdflib.Graph:
    from rdflib.plugins.stores.sparqlstore import SPARQLStore  # noqa: PLC0415

    return rdflib.Graph(store=SPARQLStore(endpoint))  # its defaults: GET, XML


def test_sparqlstore_select(remote: rdflib.Graph) -> None:
    rows = list(remote.query(SELECT))
    assert [row[0] for row in rows] == [rdflib.Literal("CPU")]  # type: ignore[index]


def test_sparqlstore_ask(remote: rdflib.Graph) -> None:
    assert remote.query(ASK).askAnswer is True
    assert remote.query(ASK_NOT).askAnswer is False


@pytest.mark.parametrize("query", [CONSTRUCT, DESCRIBE], ids=["construct", "describe"])
def test_sparqlstore_construct_and_describe(remote: rdflib.Graph, query: str) -> None:
    graph = remote.query(query).graph
    assert graph is not None
    assert (CPU, RDFS.label, rdflib.Literal("CPU")) in graph


def test_sparqlstore_as_a_graph_and_as_a_store(remote: rdflib.Graph, endpoint: str) -> None:
    from rdflib.plugins.stores.sparqlstore import SPARQLStore  # noqa: PLC0415

    assert list(remote.objects(CPU, RDFS.label)) == [rdflib.Literal("CPU")]
    graphs = [row[0] for row in SPARQLStore(endpoint).query(WITNESS)]  # type: ignore[index]
    assert graphs
    assert all(str(g).startswith("https://w3id.org/execution-atlas/witness/") for g in graphs)

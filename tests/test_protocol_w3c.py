"""The W3C SPARQL 1.1 Protocol tests, run against ``atlas serve``: one case per applicable test.

The manifest is read, with rdflib, from ``../shared/w3c-sparql11-protocol/`` beside the checkout
(never copied into the project; the tests skip when it is absent). Each test is a list of HTTP
requests with the status class, result format and ASK answer expected of each. For a read-only
endpoint over a fixed dataset (that folder's README says which apply):

- the query tests and the bad-query tests run as written, except that the dataset parameters
  (``default-graph-uri``, ``named-graph-uri``) that many of them carry are left out: the endpoint
  refuses them, wherever they appear, with a documented 400 (protocol section 2.1.4 allows a
  service that does not let clients choose the dataset to do so);
- every test whose requests carry those parameters is also run as written, and must get that 400,
  the dataset tests (``query_dataset_*``, ``query_multiple_dataset``) among them;
- every update test must be refused (4xx), its follow-up queries must see the data unchanged (the
  ASK that checks the update answers false), and the dataset must hold the same quads after.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest
import rdflib
from rdflib.collection import Collection

from atlas.publish.serve import Settings
from checkkit import serve_in_thread

pytest.importorskip("uvicorn")
pytestmark = pytest.mark.slow

SUITE = Path(__file__).resolve().parents[1].parent / "shared" / "w3c-sparql11-protocol"
MANIFEST = SUITE / "manifest.ttl"
DATASET_PARAMETERS = ("default-graph-uri", "named-graph-uri")
RESULT_TYPES = {
    "tabular": (
        "application/sparql-results+json",
        "application/sparql-results+xml",
        "text/csv",
        "text/tab-separated-values",
    ),
    "boolean": ("application/sparql-results+json", "application/sparql-results+xml"),
    "RDF": (
        "text/turtle",
        "application/n-triples",
        "application/rdf+xml",
        "application/ld+json",
    ),
}
RDFLIB_FORMATS = {
    "text/turtle": "turtle",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
    "application/ld+json": "json-ld",
}
MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
UT = rdflib.Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
HT = rdflib.Namespace("http://www.w3.org/2011/http#")
CNT = rdflib.Namespace("http://www.w3.org/2011/content#")
# Every quad of the dataset, default graph and named graphs: the same before and after an update
QUADS = "SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"


@dataclass(frozen=True)
class Exchange:
    """One request of a test, and what its response must be."""

    method: str
    target: str  # path and query string, on the endpoint
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    statuses: frozenset[str]  # status classes: "2xx", "3xx", "4xx"
    form: str | None = None  # "boolean", "tabular" or "RDF"
    boolean: bool | None = None

    def parameters(self) -> list[tuple[str, str]]:
        """The protocol parameters of the request: its URL's, and its form body's."""
        found = parse_qsl(urlsplit(self.target).query, keep_blank_values=True)
        kind = {k.lower(): v for k, v in self.headers}.get("content-type", "")
        if self.body is not None and kind.startswith("application/x-www-form-urlencoded"):
            found += parse_qsl(self.body.decode(), keep_blank_values=True)
        return found

    def dataset(self) -> list[str]:
        """The dataset parameters the request carries."""
        return [name for name, _ in self.parameters() if name in DATASET_PARAMETERS]

    def without_dataset(self) -> Exchange:
        """The same request without its dataset parameters (in the URL: none is in a body)."""
        parts = urlsplit(self.target)
        kept = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if k not in DATASET_PARAMETERS
        ]
        return replace(self, target=parts.path + (f"?{urlencode(kept)}" if kept else ""))


@dataclass(frozen=True)
class ProtocolTest:
    """A test of the manifest: its name, title, requests and whether it loads data of its own."""

    name: str
    title: str
    exchanges: tuple[Exchange, ...]
    own_data: bool

    @property
    def is_update(self) -> bool:
        return "update" in self.name


def _read_manifest() -> list[ProtocolTest]:
    """The tests of the manifest, in its order; none when the suite is absent."""
    if not MANIFEST.is_file():
        return []
    graph = rdflib.Graph().parse(MANIFEST, format="turtle", publicID=MANIFEST.as_uri())
    manifest = graph.value(predicate=rdflib.RDF.type, object=MF.Manifest)
    tests = []
    for test in Collection(graph, graph.value(manifest, MF.entries)):
        requests = Collection(graph, graph.value(graph.value(test, MF.action), HT.requests))
        tests.append(
            ProtocolTest(
                name=str(test).rpartition("#")[2],
                title=str(graph.value(test, MF.name)),
                exchanges=tuple(_exchange(graph, request) for request in requests),
                own_data=(test, UT.graphData, None) in graph,
            )
        )
    return tests


def _exchange(graph: rdflib.Graph, request: rdflib.term.Node) -> Exchange:
    """One ht:Request of the manifest, with its expected ht:Response."""
    value = graph.value
    listed = value(request, HT.headers)
    headers = tuple(
        (str(value(h, HT.fieldName)), str(value(h, HT.fieldValue)))
        for h in (Collection(graph, listed) if listed is not None else ())
    )
    body = value(request, HT.body)
    data = None
    if body is not None:
        encoding = str(value(body, CNT.characterEncoding) or "UTF-8")
        data = str(value(body, CNT.chars)).encode(encoding)
    response = value(request, HT.resp)
    expected = graph.objects(response, MF.expectedStatus)
    boolean = value(response, MF.expectedBoolean)
    form = value(response, MF.expectedFormat)
    path = str(value(request, HT.absolutePath))
    assert path.startswith("/sparql/"), path
    return Exchange(
        method=str(value(request, HT.methodName)),
        target="/sparql" + path.removeprefix("/sparql/"),
        headers=headers,
        body=data,
        statuses=frozenset(str(status).rpartition("StatusCode")[2] for status in expected),
        form=str(form) if form is not None else None,
        boolean=boolean.toPython() if isinstance(boolean, rdflib.Literal) else None,
    )


TESTS = _read_manifest()
QUERY_TESTS = [t for t in TESTS if not t.is_update and not t.own_data and "dataset" not in t.name]
WITH_DATASET = [t for t in TESTS if not t.is_update and any(e.dataset() for e in t.exchanges)]
UPDATE_TESTS = [t for t in TESTS if t.is_update]
needs_suite = pytest.mark.skipif(
    not TESTS, reason=f"the W3C protocol tests are not at {SUITE} (a checkout's ../shared)"
)


def _ids(tests: list[ProtocolTest]) -> list[str]:
    return [t.name for t in tests]


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    for url in serve_in_thread(Settings(workers=2)):
        with httpx.Client(base_url=url, timeout=60) as http:
            yield http


def _send(client: httpx.Client, exchange: Exchange) -> httpx.Response:
    return client.request(
        exchange.method, exchange.target, headers=dict(exchange.headers), content=exchange.body
    )


def _check(response: httpx.Response, exchange: Exchange) -> None:
    """The response has the expected status class, result format and ASK answer."""
    status = f"{response.status_code // 100}xx"
    assert status in exchange.statuses, (response.status_code, response.text)
    if exchange.form is None or not status.startswith("2"):
        return
    media = response.headers["content-type"].split(";")[0]
    assert media in RESULT_TYPES[exchange.form], media
    if exchange.form == "RDF":
        with warnings.catch_warnings():  # rdflib's JSON-LD parser uses its own deprecated API
            warnings.simplefilter("ignore", DeprecationWarning)
            rdflib.Graph().parse(data=response.content, format=RDFLIB_FORMATS[media])
    elif media == "application/sparql-results+json":
        answer = json.loads(response.content)
        key = "boolean" if exchange.form == "boolean" else "results"
        assert key in answer, answer
        if exchange.boolean is not None:
            assert answer["boolean"] is exchange.boolean


def test_the_manifest_is_read_whole() -> None:
    if not TESTS:
        pytest.skip(f"the W3C protocol tests are not at {SUITE}")
    assert len(TESTS) == 34
    assert {t.name for t in QUERY_TESTS} >= {"bad_multiple_queries", "query_content_type_construct"}
    assert all(t.exchanges for t in TESTS)


@needs_suite
@pytest.mark.parametrize("test", QUERY_TESTS, ids=_ids(QUERY_TESTS))
def test_query(client: httpx.Client, test: ProtocolTest) -> None:
    """Each request as the test writes it, dataset parameters left out, answered as expected."""
    for exchange in test.exchanges:
        _check(_send(client, exchange.without_dataset()), exchange)


@needs_suite
@pytest.mark.parametrize("test", WITH_DATASET, ids=_ids(WITH_DATASET))
def test_a_dataset_chosen_by_the_client_is_refused(
    client: httpx.Client, test: ProtocolTest
) -> None:
    """Each request that names a dataset, as the test writes it: the documented 400."""
    for exchange in test.exchanges:
        names = exchange.dataset()
        if not names:
            continue
        response = _send(client, exchange)
        if exchange.method not in ("GET", "POST"):  # bad_query_method: refused as a method
            assert response.status_code == 405
            continue
        assert response.status_code == 400, response.text
        assert response.text.startswith(f"{names[0]} is refused: this endpoint answers over")


def _quads(client: httpx.Client) -> int:
    answer = client.get("/sparql", params={"query": QUADS}).json()
    return int(answer["results"]["bindings"][0]["n"]["value"])


@needs_suite
@pytest.mark.parametrize("test", UPDATE_TESTS, ids=_ids(UPDATE_TESTS))
def test_an_update_is_refused_and_changes_nothing(client: httpx.Client, test: ProtocolTest) -> None:
    before = _quads(client)
    update, *queries = test.exchanges
    response = _send(client, update)
    assert 400 <= response.status_code < 500, response.text
    for query in queries:  # the test's check that the update was done: it was not
        answer = _send(client, query)
        assert answer.status_code == 200, answer.text
        assert answer.json()["boolean"] is (not query.boolean)
    assert _quads(client) == before

"""The endpoint's conformance to the SPARQL 1.1 Protocol, and its page at ``/``: exactly one
query per request, relative IRIs against the endpoint's URL, the dataset parameters refused
wherever they appear, CONSTRUCT and DESCRIBE in four formats, the witness records as named
graphs, UTF-8 only; a query page for browsers (working without script), a line for the rest.
"""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from atlas.publish.serve import Settings
from checkkit import serve_in_thread

pytest.importorskip("uvicorn")
pytestmark = pytest.mark.slow

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    yield from serve_in_thread(Settings(workers=2, max_rows=5))


@pytest.fixture(scope="module")
def client(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=30) as http:
        yield http


# --- conformance: one query, a base IRI, no client datasets, graph formats, named graphs ----

ASK = "ASK {}"
DIRECT = {"Content-Type": "application/sparql-query"}


@pytest.mark.parametrize(
    "request_options",
    [
        {"method": "GET", "params": [("query", ASK), ("query", "SELECT * {}")]},
        {"method": "POST", "data": {"query": ASK}, "params": {"query": ASK}},
        {"method": "POST", "content": "query=ASK%7B%7D&query=ASK%7B%7D", "headers": FORM},
        {"method": "POST", "content": ASK, "headers": DIRECT, "params": {"query": ASK}},
    ],
    ids=["two-in-the-url", "url-and-form", "two-in-the-form", "url-and-body"],
)
def test_exactly_one_query_per_request(
    client: httpx.Client, request_options: dict[str, Any]
) -> None:
    response = client.request(url="/sparql", **request_options)
    assert response.status_code == 400
    assert response.text == "a request holds exactly one query, this one holds 2\n"


@pytest.mark.parametrize("name", ["default-graph-uri", "named-graph-uri"])
@pytest.mark.parametrize("where", ["get-url", "form-url", "form-body", "direct-url"])
def test_dataset_parameters_are_refused_wherever_they_appear(
    client: httpx.Client, name: str, where: str
) -> None:
    dataset = {name: "http://example.org/g"}
    options: dict[str, Any] = {
        "get-url": {"method": "GET", "params": {"query": ASK, **dataset}},
        "form-url": {"method": "POST", "params": dataset, "data": {"query": ASK}},
        "form-body": {"method": "POST", "data": {"query": ASK, **dataset}},
        "direct-url": {"method": "POST", "params": dataset, "content": ASK, "headers": DIRECT},
    }[where]
    response = client.request(url="/sparql", **options)
    assert response.status_code == 400
    assert response.text.startswith(f"{name} is refused: this endpoint answers over its own")


def test_relative_iris_resolve_against_the_endpoint_url(client: httpx.Client, url: str) -> None:
    response = client.post(
        "/sparql",
        content="CONSTRUCT { <s> <p> 1 } WHERE {}",
        headers={**DIRECT, "Accept": "application/n-triples"},
    )
    assert response.status_code == 200, response.text
    # <s> resolved against <http://127.0.0.1:PORT/sparql>
    assert response.text == f'<{url}/s> <{url}/p> "1"^^<{XSD_INTEGER}> .\n'
    own_base = "BASE <http://e.org/> SELECT (<a> AS ?x) {}"  # the query's own BASE wins
    with_base = client.get("/sparql", params={"query": own_base})
    assert with_base.json()["results"]["bindings"] == [
        {"x": {"type": "uri", "value": "http://e.org/a"}}
    ]


@pytest.mark.parametrize(
    ("accept", "media", "rdflib_format"),
    [
        ("application/rdf+xml", "application/rdf+xml", "xml"),
        ("application/ld+json", "application/ld+json", "json-ld"),
        ("text/turtle", "text/turtle; charset=utf-8", "turtle"),
        ("application/n-triples", "application/n-triples", "nt"),
    ],
)
def test_construct_and_describe_in_every_graph_format(
    client: httpx.Client, accept: str, media: str, rdflib_format: str
) -> None:
    import rdflib  # noqa: PLC0415

    cpu = rdflib.URIRef("https://w3id.org/execution-atlas/stage/cpu")
    label = rdflib.URIRef("http://www.w3.org/2000/01/rdf-schema#label")
    graphs = []
    for query in (f"CONSTRUCT WHERE {{ <{cpu}> <{label}> ?l }}", f"DESCRIBE <{cpu}>"):
        response = client.get("/sparql", params={"query": query}, headers={"Accept": accept})
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == media
        with warnings.catch_warnings():  # rdflib's JSON-LD parser uses its own deprecated API
            warnings.simplefilter("ignore", DeprecationWarning)
            graphs.append(rdflib.Graph().parse(data=response.content, format=rdflib_format))
    assert set(graphs[0]) == {(cpu, label, rdflib.Literal("CPU"))}
    assert len(graphs[1]) == 5  # the fixture's row cap
    assert set(graphs[1].subjects()) == {cpu}


def test_rdf_xml_that_cannot_be_written_is_not_acceptable(client: httpx.Client) -> None:
    response = client.get(
        "/sparql",
        params={"query": "CONSTRUCT { <http://e.org/s> <http://e.org/> 1 } WHERE {}"},
        headers={"Accept": "application/rdf+xml"},
    )
    assert response.status_code == 406
    assert "RDF/XML cannot write the predicate <http://e.org/>" in response.text


def test_the_witness_records_are_named_graphs(client: httpx.Client) -> None:
    from atlas.publish._witnessgraphs import witness_graphs  # noqa: PLC0415
    from atlas.query import store  # noqa: PLC0415

    shipped = witness_graphs()
    assert shipped, "no witness record is shipped: the test shows nothing"
    rows: list[list[str]] = []
    for offset in range(0, len(shipped), 5):  # the server answers 5 rows at most (max_rows)
        query = (
            "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g "
            f"LIMIT 5 OFFSET {offset}"
        )
        graphs = client.get("/sparql", params={"query": query}, headers={"Accept": "text/csv"})
        rows += [line.split(",") for line in graphs.text.splitlines()[1:]]
    assert {g: int(n) for g, n in rows} == {g: len(t) for g, t in shipped.items()}
    # the default graph is the atlas alone
    default = client.get("/sparql", params={"query": "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"})
    assert int(default.json()["results"]["bindings"][0]["n"]["value"]) == len(store.store())


def test_a_query_that_is_not_utf8_is_refused(client: httpx.Client) -> None:
    utf16 = client.post(
        "/sparql",
        content=ASK.encode("utf-16"),
        headers={"Content-Type": "application/sparql-query; charset=UTF-16"},
    )
    assert (utf16.status_code, utf16.text) == (
        415,
        "unsupported charset 'utf-16'; send the query as UTF-8\n",
    )
    latin1 = client.post("/sparql", content="ASK { FILTER('é') }".encode("latin-1"), headers=DIRECT)
    assert (latin1.status_code, latin1.text) == (400, "the request body is not UTF-8\n")
    form = client.post("/sparql", content=b"query=ASK%7B%7D%E9", headers=FORM)
    assert form.status_code == 400
    assert "the form body is not UTF-8 once percent-decoded" in form.text
    assert client.post("/sparql", content=ASK, headers={**DIRECT}).status_code == 200
    explicit = {"Content-Type": "application/sparql-query; charset=utf-8"}
    assert client.post("/sparql", content=ASK, headers=explicit).status_code == 200


# --- the page at / -------------------------------------------------------------------------

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("accept", ["*/*", "application/json", "text/plain", ""])
def test_home_is_one_line_of_text_for_other_clients(client: httpx.Client, accept: str) -> None:
    response = client.get("/", headers={"Accept": accept})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.text == "Execution Atlas SPARQL endpoint: GET or POST /sparql?query=...\n"


def test_home_is_a_query_page_for_a_browser(client: httpx.Client) -> None:
    from atlas.query import store  # noqa: PLC0415

    response = client.get("/", headers={"Accept": BROWSER})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["vary"] == "Accept"
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "unsafe-inline" not in policy
    page = response.text
    assert '<form id="query-form" action="." method="get">' in page
    assert '<textarea id="query" name="query"' in page
    for named in store.named_queries().values():
        assert f"<strong>{named.name}</strong>" in page
    # nothing from elsewhere: no src, no stylesheet link, every link relative
    assert " src=" not in page
    assert "<link" not in page
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs
    assert all(h.startswith("?query=") for h in hrefs)
    # each example's link shows the page with its answer
    for href in hrefs:
        shown = client.get("/" + html.unescape(href), headers={"Accept": BROWSER})
        assert shown.status_code == 200, shown.text
        assert '<p id="status" role="status">' in shown.text


def test_the_page_answers_its_form_without_script(client: httpx.Client) -> None:
    query = 'SELECT ?x WHERE { BIND("<b>CPU</b>" AS ?x) }'
    response = client.get("/", params={"query": query}, headers={"Accept": BROWSER})
    assert response.status_code == 200
    assert html.escape(query) in response.text  # the query stays in the form
    assert '<p id="status" role="status">1 row</p>' in response.text
    assert "<td>&lt;b&gt;CPU&lt;/b&gt;</td>" in response.text
    asked = client.get("/", params={"query": "ASK {}"}, headers={"Accept": BROWSER})
    assert '<p id="status" role="status">Answer: true</p>' in asked.text
    cut = client.get("/", params={"query": "SELECT * { ?s ?p ?o }"}, headers={"Accept": BROWSER})
    assert "5 rows (only the first 5 are shown)" in cut.text
    refused = client.get("/", params={"query": "CLEAR ALL"}, headers={"Accept": BROWSER})
    assert refused.status_code == 400
    assert '<p id="status" role="status" class="error">Error 400: ' in refused.text
    # other clients still get the line of text, whatever the URL holds
    assert client.get("/", params={"query": "ASK {}"}).text.startswith("Execution Atlas SPARQL")


def test_json_ld_is_written_by_rdflib_where_pyoxigraph_cannot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rdflib  # noqa: PLC0415
    from rdflib.compare import isomorphic  # noqa: PLC0415

    from atlas.publish import _formats  # noqa: PLC0415
    from atlas.query import store  # noqa: PLC0415

    result = store.execute("DESCRIBE <https://w3id.org/execution-atlas/stage/cpu>")
    written = [_formats.body(result, "jsonld")]
    monkeypatch.setattr(_formats, "_JSON_LD", None)  # as with pyoxigraph 0.4
    written.append(_formats.body(result, "jsonld"))
    with warnings.catch_warnings():  # rdflib's JSON-LD parser uses its own deprecated API
        warnings.simplefilter("ignore", DeprecationWarning)
        own, fallback = (rdflib.Graph().parse(data=w, format="json-ld") for w in written)
    assert len(own) == len(result.triples) > 0
    assert isomorphic(own, fallback)
    with pytest.raises(TypeError, match="writes graphs"):
        _formats.body(True, "rdfxml")  # noqa: FBT003 - an ASK answer

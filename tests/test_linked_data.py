"""Linked data (issue 23): the dataset's IRIs answered by ``atlas serve``, its Service Description,
and the w3id.org redirect rules of ``w3id/.htaccess`` followed against the endpoint and the site.

Two endpoints over the shipped atlas, run for real on loopback ports: one alone (a browser is sent
to the query page) and one serving the built site (a browser is sent to the page of the IRI).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pyoxigraph
import pytest

from atlas.models._iri import BASE_IRI
from atlas.publish._protocol import RefusalError
from atlas.publish.serve import Settings
from atlas.query.store import store
from checkkit import serve_in_thread

pytest.importorskip("uvicorn")
pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")
pytestmark = pytest.mark.slow

from atlas.publish import site  # noqa: E402 - after the skips: the site package needs jinja2
from atlas.publish._linkeddata import LinkedData  # noqa: E402

HTACCESS = Path(__file__).resolve().parents[1] / "w3id" / ".htaccess"
TORCHDYNAMO = f"{BASE_IRI}stage/torchdynamo"
STEP = "pytorch-cpython-intercepted-by-dynamo"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
SD = "http://www.w3.org/ns/sparql-service-description#"
OA_EXACT = "http://www.w3.org/ns/oa#exact"
PARSERS = {
    "text/turtle": pyoxigraph.RdfFormat.TURTLE,
    "application/n-triples": pyoxigraph.RdfFormat.N_TRIPLES,
    "application/ld+json": pyoxigraph.RdfFormat.JSON_LD,
    "application/rdf+xml": pyoxigraph.RdfFormat.RDF_XML,
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("linked-site")
    site.build(out)
    return out


@pytest.fixture(scope="module")
def alone() -> Iterator[httpx.Client]:
    for url in serve_in_thread(Settings(workers=1)):
        with httpx.Client(base_url=url, timeout=30) as http:
            yield http


@pytest.fixture(scope="module")
def with_site(built: Path) -> Iterator[httpx.Client]:
    for url in serve_in_thread(Settings(workers=1, site=built)):
        with httpx.Client(base_url=url, timeout=30) as http:
            yield http


def triples(response: httpx.Response) -> set[tuple[str, str, str]]:
    """The triples of an RDF answer, each blank node written ``_:`` (one per description)."""
    kind = response.headers["content-type"].split(";")[0]
    parsed = pyoxigraph.parse(response.content, format=PARSERS[kind], base_iri=BASE_IRI)
    return {_plain(getattr(item, "triple", item)) for item in parsed}


def described(iri: str) -> set[tuple[str, str, str]]:
    """What the shipped graph says with ``iri`` as subject, and of its blank nodes."""
    subject = pyoxigraph.NamedNode(iri)
    found = list(store().quads_for_pattern(subject, None, None, pyoxigraph.DefaultGraph()))
    for quad in list(found):
        if isinstance(quad.object, pyoxigraph.BlankNode):
            found += store().quads_for_pattern(quad.object, None, None, pyoxigraph.DefaultGraph())
    return {_plain(quad.triple) for quad in found}


def _plain(triple: pyoxigraph.Triple) -> tuple[str, str, str]:
    def shown(term: Any) -> str:
        return "_:" if isinstance(term, pyoxigraph.BlankNode) else str(term)

    return shown(triple.subject), shown(triple.predicate), shown(triple.object)


def first_subject(predicate: str) -> str:
    quads = store().quads_for_pattern(None, pyoxigraph.NamedNode(predicate), None)
    return next(q.subject.value for q in quads if isinstance(q.subject, pyoxigraph.NamedNode))


# --- the data of an IRI ----------------------------------------------------------------------


def test_turtle_gives_exactly_the_stage_triples(alone: httpx.Client) -> None:
    # curl -H 'Accept: text/turtle' http://127.0.0.1:PORT/stage/torchdynamo
    response = alone.get("/stage/torchdynamo", headers={"Accept": "text/turtle"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/turtle; charset=utf-8"
    assert response.headers["vary"] == "Accept"
    found = triples(response)
    assert found == described(TORCHDYNAMO)
    assert (TORCHDYNAMO, "<http://www.w3.org/2000/01/rdf-schema#label>", '"TorchDynamo"') in {
        (s.strip("<>"), p, o) for s, p, o in found
    }


@pytest.mark.parametrize(
    ("accept", "query", "media"),
    [
        ("application/n-triples", {}, "application/n-triples"),
        ("application/ld+json", {}, "application/ld+json"),
        ("application/rdf+xml", {}, "application/rdf+xml"),
        ("text/html", {"format": "nt"}, "application/n-triples"),
        ("text/turtle", {"format": "jsonld"}, "application/ld+json"),
        ("image/png", {"format": "ttl"}, "text/turtle"),
        ("", {}, "text/turtle"),
        ("*/*", {}, "text/turtle"),
    ],
)
def test_every_format_gives_the_same_triples(
    alone: httpx.Client, accept: str, query: dict[str, str], media: str
) -> None:
    response = alone.get(f"/step/{STEP}", params=query, headers={"Accept": accept})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].split(";")[0] == media
    assert triples(response) == described(f"{BASE_IRI}step/{STEP}")


def test_a_citation_comes_with_its_selector(alone: httpx.Client) -> None:
    citation = first_subject("http://www.w3.org/ns/oa#hasSelector")
    response = alone.get(urlsplit(citation).path.removeprefix("/execution-atlas"))
    found = triples(response)
    assert found == described(citation)
    assert any(s == "_:" and p == f"<{OA_EXACT}>" for s, p, _ in found)  # the blank node's


def test_other_kinds_are_answered_at_their_paths(alone: httpx.Client) -> None:
    for iri in (
        f"{BASE_IRI}atlas/pytorch",
        f"{BASE_IRI}technology/pytorch",
        f"{BASE_IRI}scheme/pytorch-mode",
        f"{BASE_IRI}scheme/pytorch-mode/eager",
        first_subject("https://w3id.org/execution-atlas/vocab#about"),  # a claim
        first_subject("http://xmlns.com/foaf/0.1/page"),  # a source record
    ):
        response = alone.get(iri.removeprefix(BASE_IRI[:-1]), headers={"Accept": "text/turtle"})
        assert response.status_code == 200, (iri, response.text)
        assert triples(response) == described(iri), iri


def test_a_witness_record_is_its_named_graph(alone: httpx.Client) -> None:
    from atlas.publish._witnessgraphs import witness_graphs  # noqa: PLC0415

    iri, graph = next(iter(witness_graphs().items()))
    response = alone.get(
        iri.removeprefix(BASE_IRI[:-1]), headers={"Accept": "application/n-triples"}
    )
    assert response.status_code == 200
    stored = pyoxigraph.Store()  # a store writes some literals in canonical form (dates)
    stored.extend(pyoxigraph.Quad(*t, pyoxigraph.DefaultGraph()) for t in graph)
    assert triples(response) == {_plain(quad.triple) for quad in stored}


def test_the_vocabulary_is_the_shipped_file(alone: httpx.Client) -> None:
    vocabulary = Path(__file__).resolve().parents[1] / "schema" / "vocabulary.ttl"
    turtle = alone.get("/vocab", headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200
    assert turtle.content == vocabulary.read_bytes()
    assert turtle.headers["vary"] == "Accept"
    for accept in ("application/ld+json", "application/n-triples"):
        other = alone.get("/vocab", headers={"Accept": accept})
        assert other.headers["content-type"].startswith(accept)
        assert triples(other) == triples(turtle)
    stage = f"<{BASE_IRI}vocab#Stage>"
    assert (
        stage,
        "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>",
        "<http://www.w3.org/2002/07/owl#Class>",
    ) in triples(turtle)


# --- pages, refusals -----------------------------------------------------------------------


def test_a_browser_is_sent_to_the_page_of_the_site(with_site: httpx.Client, built: Path) -> None:
    for path, page in (
        ("/stage/torchdynamo", "/stage/torchdynamo/"),
        (f"/step/{STEP}", f"/step/{STEP}/"),
        ("/atlas/pytorch", "/pytorch/"),
    ):
        response = with_site.get(path, headers={"Accept": BROWSER})
        assert response.status_code == 303, path
        assert response.headers["location"] == page
        assert response.headers["vary"] == "Accept"
        shown = with_site.get(page, headers={"Accept": BROWSER})
        assert shown.status_code == 200
        assert shown.headers["content-type"].startswith("text/html")
        assert shown.text == (built / page.strip("/") / "index.html").read_text(encoding="utf-8")
    # RDF is still RDF, and a record without a page gives its data to a browser too
    assert triples(with_site.get("/stage/torchdynamo")) == described(TORCHDYNAMO)
    assert (
        with_site.get("/technology/pytorch", headers={"Accept": BROWSER})
        .headers["content-type"]
        .startswith("text/turtle")
    )


def test_without_a_site_a_browser_is_sent_to_the_query_page(alone: httpx.Client) -> None:
    response = alone.get("/stage/torchdynamo", headers={"Accept": BROWSER})
    assert response.status_code == 303
    page = alone.get(response.headers["location"], headers={"Accept": BROWSER})
    assert page.status_code == 200
    assert "DESCRIBE &lt;https://w3id.org/execution-atlas/stage/torchdynamo&gt;" in page.text
    assert "stage:torchdynamo" in page.text  # the answer, written into the page


def test_an_unknown_id_is_not_found(alone: httpx.Client, with_site: httpx.Client) -> None:
    for client in (alone, with_site):
        for accept in ("text/turtle", BROWSER):
            response = client.get("/stage/no-such-stage", headers={"Accept": accept})
            assert response.status_code == 404
            assert response.text == (
                f"not found: the dataset says nothing about <{BASE_IRI}stage/no-such-stage>\n"
            )
            assert response.headers["vary"] == "Accept"
    bad = alone.get("/stage/.hidden")
    assert bad.status_code == 404
    assert "'.hidden' is not an identifier of the dataset" in bad.text
    assert alone.get(f"/witness/{STEP}").status_code == 404


def test_an_unacceptable_format_is_refused(alone: httpx.Client) -> None:
    response = alone.get("/stage/torchdynamo", headers={"Accept": "image/png"})
    assert response.status_code == 406
    assert response.text.startswith("no acceptable format for Accept 'image/png': this resource is")
    assert "text/turtle" in response.text
    assert alone.get("/vocab", headers={"Accept": "text/html"}).status_code == 406
    refused = alone.get("/stage/torchdynamo", headers={"Accept": "text/turtle;q=0, */*"})
    assert refused.headers["content-type"] == "application/n-triples"
    unknown = alone.get("/stage/torchdynamo", params={"format": "xml"})
    assert unknown.status_code == 400
    assert unknown.text == "unknown format 'xml'; valid: jsonld, nt, rdf, ttl\n"


def test_the_dataset_is_described_at_the_root_to_who_names_rdf(
    alone: httpx.Client, with_site: httpx.Client, built: Path
) -> None:
    for client in (alone, with_site):
        response = client.get("/", headers={"Accept": "text/turtle"})
        assert response.status_code == 200
        assert triples(response) == described(BASE_IRI)
        assert client.get("/", params={"format": "jsonld"}).headers["content-type"] == (
            "application/ld+json"
        )
    home = (built / "index.html").read_text(encoding="utf-8")
    assert with_site.get("/", headers={"Accept": BROWSER}).text == home
    assert with_site.get("/").text == home
    assert alone.get("/").text.startswith("Execution Atlas SPARQL endpoint")  # */*: a line
    assert "<form" in alone.get("/", headers={"Accept": BROWSER}).text  # the query page


def test_the_routes_pass_the_host_check(alone: httpx.Client) -> None:
    for path in ("/stage/torchdynamo", "/vocab"):
        response = alone.get(path, headers={"Host": "evil.example"})
        assert response.status_code == 421


class _Busy:
    """An endpoint whose client is past its share, or whose queries pass the deadline."""

    def __init__(self, refusal: RefusalError) -> None:
        self.refusal = refusal
        self.turns = 0

    @contextlib.asynccontextmanager
    async def turn(self, request: Any) -> AsyncIterator[None]:  # noqa: ARG002
        self.turns += 1
        if self.refusal.status == 429:
            raise self.refusal
        yield

    async def run(self, *_: object) -> tuple[str, bytes, bool]:
        raise self.refusal


@pytest.mark.parametrize("status", [429, 503])
def test_descriptions_take_the_clients_turn_and_the_deadline(status: int) -> None:
    from starlette.applications import Starlette  # noqa: PLC0415

    busy = _Busy(RefusalError(status, "busy"))
    app = Starlette(routes=LinkedData(busy).routes())

    async def fetch() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            return await http.get("/stage/torchdynamo", headers={"Accept": BROWSER})

    response = asyncio.run(fetch())
    assert (response.status_code, response.text) == (status, "busy\n")
    assert busy.turns == 1


# --- the Service Description --------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "query"),
    [("text/turtle", {}), ("application/ld+json", {}), ("*/*", {}), (BROWSER, {"format": "nt"})],
)
def test_the_endpoint_describes_itself(
    alone: httpx.Client, accept: str, query: dict[str, str]
) -> None:
    response = alone.get("/sparql", params=query, headers={"Accept": accept})
    assert response.status_code == 200, response.text
    assert response.headers["vary"] == "Accept"
    kind = response.headers["content-type"].split(";")[0]
    graph = pyoxigraph.Store()
    graph.load(response.content, format=PARSERS[kind])
    endpoint = str(alone.base_url).rstrip("/") + "/sparql"
    sd = f"PREFIX sd: <{SD}> "
    assert graph.query(sd + f"ASK {{ <{endpoint}> a sd:Service ; sd:endpoint <{endpoint}> }}")
    assert graph.query(sd + f"ASK {{ <{endpoint}> sd:supportedLanguage sd:SPARQL11Query }}")
    names = {
        row["g"].value
        for row in graph.query(sd + "SELECT ?g { [] sd:defaultDataset/sd:namedGraph/sd:name ?g }")
    }
    from atlas.publish._witnessgraphs import witness_graphs  # noqa: PLC0415

    assert names == set(witness_graphs())


def test_a_browser_still_gets_the_protocols_answer(alone: httpx.Client) -> None:
    response = alone.get("/sparql", headers={"Accept": BROWSER})
    assert response.status_code == 400
    assert response.text.startswith("no query")
    results = alone.get("/sparql", headers={"Accept": "application/sparql-results+json"})
    assert results.status_code == 400


# --- the w3id.org rules --------------------------------------------------------------------


def rules(text: str) -> list[tuple[list[str], str, str]]:
    """The rules of an .htaccess: each its conditions (Accept patterns), pattern and target."""
    found: list[tuple[list[str], str, str]] = []
    conditions: list[str] = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#") or words[0] in ("Options", "RewriteEngine"):
            continue
        if words[0] == "RewriteCond":
            assert words[1] == "%{HTTP_ACCEPT}", line  # the only condition the rules use
            assert words[3:] in ([], ["[NC]"]), line
            conditions.append(words[2])
            continue
        assert words[0] == "RewriteRule", line
        assert words[3] == "[R=303,L]", line
        found.append((conditions, words[1], words[2]))
        conditions = []
    assert not conditions, "a condition without its rule"
    return found


def redirect(path: str, accept: str) -> str:
    """Where w3id.org sends ``https://w3id.org/execution-atlas/<path>``, as Apache would."""
    for conditions, pattern, target in rules(HTACCESS.read_text(encoding="utf-8")):
        if not all(re.search(c, accept, re.IGNORECASE) for c in conditions):
            continue
        found = re.search(pattern, path)
        if found:  # Apache's $1 is Python's \1
            return found.expand(re.sub(r"\$(\d)", r"\\\1", target))
    raise AssertionError(f"no rule for {path!r}")


SAMPLE = [
    "stage/torchdynamo",
    f"step/{STEP}",
    "atlas/pytorch",
    "technology/pytorch",
    "scheme/pytorch-mode/eager",
    "vocab",
    "",
]


@pytest.mark.parametrize(
    "accept", ["text/turtle", "application/ld+json", "application/n-triples", BROWSER, "*/*"]
)
def test_the_w3id_rules_lead_to_what_the_endpoint_and_the_site_serve(
    with_site: httpx.Client, built: Path, accept: str
) -> None:
    rdf = accept in PARSERS
    citation = first_subject("http://www.w3.org/ns/oa#hasSelector").removeprefix(BASE_IRI)
    for path in [*SAMPLE, citation]:
        target = urlsplit(redirect(path, accept))
        assert (target.scheme, target.netloc) == ("https", "atlas.example.org"), target
        answer = with_site.get(target.path, headers={"Accept": accept})
        assert answer.status_code == 200, (path, accept, target.path, answer.text[:200])
        kind = answer.headers["content-type"].split(";")[0]
        if not rdf and target.path.endswith("/"):  # a page of the site
            assert (built / target.path.strip("/") / "index.html").is_file(), target.path
            assert kind == "text/html"
            continue
        # the data of the IRI, in the format asked for (Turtle, when none is)
        assert target.path == f"/{path}"
        assert kind == (accept if rdf else "text/turtle"), path
        if path != "vocab":
            assert triples(answer) == described(BASE_IRI + path)
    stage_page = urlsplit(redirect("stage/torchdynamo", accept)).path
    assert stage_page == ("/stage/torchdynamo" if rdf else "/stage/torchdynamo/")

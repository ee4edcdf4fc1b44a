"""``atlas publish``: push the atlas into a SPARQL 1.1 store and check that it arrived whole.

The triples go through the Graph Store HTTP Protocol into a fresh temporary graph, are counted
there, and only then replace the target graph, with one SPARQL update (``MOVE``) that the store
runs as a whole. Then the target graph is counted. Whatever fails on the way (the store is down,
refuses the upload or keeps only part of it), the previous graph stays as it was and the error
says what happened.

The default endpoints are those of an Oxigraph server (``URL/store``, ``URL/query``,
``URL/update``); other stores name theirs with :class:`Endpoints`.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

import httpx
import pyoxigraph

from atlas._results import BASE_IRI, Result, Solutions, Term, Triples
from atlas._sparql import query_form, substitute
from atlas.errors import AtlasError

__all__ = ["DEFAULT_GRAPH", "Endpoints", "PublishError", "Published", "Remote", "publish"]

#: The graph the atlas is published to unless told otherwise: the dataset's own IRI.
DEFAULT_GRAPH = BASE_IRI
_COUNT = "SELECT (COUNT(*) AS ?triples) WHERE { ?s ?p ?o }"


class PublishError(AtlasError, RuntimeError):
    """The atlas could not be published; the store's previous graph is left as it was."""


@dataclass(frozen=True)
class Endpoints:
    """The three endpoints of a store: Graph Store Protocol, query and update."""

    graph_store: str
    query: str
    update: str

    @classmethod
    def of(cls, url: str) -> Endpoints:
        """The endpoints of an Oxigraph server at ``url`` (its base URL, or its ``/store``).

        >>> Endpoints.of("http://127.0.0.1:7878/").query
        'http://127.0.0.1:7878/query'
        """
        base = url.rstrip("/")
        for suffix in ("/store", "/query", "/update"):
            base = base.removesuffix(suffix)
        return cls(f"{base}/store", f"{base}/query", f"{base}/update")


@dataclass(frozen=True)
class Published:
    """What was published: the graph, its number of triples, and how long it took."""

    graph: str
    triples: int
    seconds: float

    def __str__(self) -> str:
        return f"published {self.triples} triples to <{self.graph}> in {self.seconds:.2f} s"


def _iri(value: str, what: str) -> pyoxigraph.NamedNode:
    try:
        return pyoxigraph.NamedNode(value)
    except ValueError:
        raise PublishError(f"invalid {what} IRI {value!r}: give an absolute IRI") from None


def _payload() -> tuple[bytes, int]:
    """The shipped graph as N-Triples, and its number of triples."""
    from atlas import store  # noqa: PLC0415

    triples = [q.triple for q in store.store()]
    data = pyoxigraph.serialize(triples, format=pyoxigraph.RdfFormat.N_TRIPLES) or b""
    return data, len(triples)


@dataclass
class Remote:
    """The engine of a remote SPARQL endpoint, optionally over one graph (``store.Engine``).

    Bindings are written into the query as terms (``substitute``), since the SPARQL Protocol
    takes none; the graph is passed as the protocol's ``default-graph-uri``.
    """

    endpoint: str
    graph: str | None = None
    client: httpx.Client | None = None
    timeout: float = 30.0

    def query(self, query: str, bindings: Mapping[str, Term]) -> Result:
        """Run a query on the endpoint and read its results."""
        text = substitute(query, {name: str(value) for name, value in bindings.items()})
        form = query_form(text)
        graph_result = form in ("CONSTRUCT", "DESCRIBE")
        accept = "application/n-triples" if graph_result else "application/sparql-results+json"
        data = {"query": text}
        if self.graph is not None:
            data["default-graph-uri"] = self.graph
        response = _call(
            self.client,
            "POST",
            self.endpoint,
            "query",
            timeout=self.timeout,
            data=data,
            headers={"Accept": accept},
        )
        if graph_result:
            parsed = pyoxigraph.parse(response.content, format=pyoxigraph.RdfFormat.N_TRIPLES)
            return Triples(tuple(t for t in parsed if isinstance(t, pyoxigraph.Triple)))
        answer = pyoxigraph.parse_query_results(
            response.content, format=pyoxigraph.QueryResultsFormat.JSON
        )
        if isinstance(answer, pyoxigraph.QueryBoolean):
            return bool(answer)
        names = tuple(v.value for v in answer.variables)
        return Solutions(names, tuple(tuple(row[n] for n in names) for row in answer))


def _call(
    client: httpx.Client | None, method: str, url: str, what: str, **options: object
) -> httpx.Response:
    """One request; any failure becomes a :class:`PublishError` that says what went wrong."""
    try:
        if client is None:
            response = httpx.request(method, url, **options)  # type: ignore[arg-type]
        else:
            response = client.request(method, url, **options)  # type: ignore[arg-type]
    except httpx.ConnectError as error:
        raise PublishError(f"cannot reach the store at {url} ({error}): is it running?") from None
    except httpx.TimeoutException:
        raise PublishError(f"the store at {url} did not answer the {what} in time") from None
    except httpx.HTTPError as error:
        raise PublishError(f"the {what} to {url} failed: {error}") from None
    if response.status_code >= 300:  # noqa: PLR2004 - any status that is not a success
        detail = response.text.strip().replace("\n", " ")[:300]
        raise PublishError(
            f"the store refused the {what}: HTTP {response.status_code} from {url}"
            + (f": {detail}" if detail else "")
        )
    return response


def _count(client: httpx.Client, endpoints: Endpoints, graph: str, timeout: float) -> int:
    result = Remote(endpoints.query, graph, client, timeout).query(_COUNT, {})
    count = result.rows[0][0] if isinstance(result, Solutions) and result.rows else None
    if not isinstance(count, pyoxigraph.Literal) or not count.value.isdigit():
        raise PublishError(f"the store's query endpoint gave no count for <{graph}>")
    return int(count.value)


def publish(
    url: str,
    graph: str = DEFAULT_GRAPH,
    *,
    endpoints: Endpoints | None = None,
    timeout: float = 60.0,
    client: httpx.Client | None = None,
) -> Published:
    """Replace ``graph`` in the store at ``url`` by the shipped atlas, then count its triples.

    Raises:
        PublishError: the store is down, refused a request, or kept a different number of
            triples; the previous graph is then left intact.
    """
    started = time.perf_counter()
    target = _iri(graph, "graph")
    points = endpoints or Endpoints.of(url)
    temporary = _iri(f"urn:uuid:{uuid.uuid4()}", "temporary graph")
    data, expected = _payload()
    own = client is None
    http = client or httpx.Client(timeout=timeout)
    moved = False
    try:
        _upload(http, points, temporary.value, data, expected=expected, timeout=timeout)
        update = substitute(_move_update(), {"source": str(temporary), "target": str(target)})
        _call(
            http,
            "POST",
            points.update,
            "update (MOVE)",
            content=update.encode(),
            headers={"Content-Type": "application/sparql-update"},
        )
        moved = True
        _expect(_count(http, points, target.value, timeout), expected, graph)
    except PublishError as error:
        if not moved:
            _drop_quietly(http, points, temporary.value)
            raise PublishError(f"{error} (the previous graph <{graph}> is intact)") from None
        raise
    finally:
        if own:
            http.close()
    return Published(graph, expected, time.perf_counter() - started)


def _upload(
    client: httpx.Client,
    endpoints: Endpoints,
    graph: str,
    data: bytes,
    *,
    expected: int,
    timeout: float,
) -> None:
    """Put the triples into ``graph`` and check that the store kept them all."""
    _call(
        client,
        "PUT",
        endpoints.graph_store,
        "upload",
        params={"graph": graph},
        content=data,
        headers={"Content-Type": "application/n-triples"},
    )
    held = _count(client, endpoints, graph, timeout)
    if held != expected:
        raise PublishError(f"partial upload: the store kept {held} of {expected} triples")


def _expect(count: int, expected: int, graph: str) -> None:
    if count != expected:
        raise PublishError(
            f"<{graph}> holds {count} triples after publishing, not {expected}: "
            "another client may be writing to it"
        )


def _move_update() -> str:
    return (resources.files("atlas") / "queries" / "move-graph.ru").read_text(encoding="utf-8")


def _drop_quietly(client: httpx.Client, endpoints: Endpoints, graph: str) -> None:
    """Remove the temporary graph, if the store is still there to ask."""
    with contextlib.suppress(httpx.HTTPError):
        client.request("DELETE", endpoints.graph_store, params={"graph": graph})

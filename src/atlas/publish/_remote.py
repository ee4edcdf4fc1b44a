"""A SPARQL 1.1 store over HTTP: its endpoints, one request to it, and queries run on it.

:func:`call` sends one request and turns every failure into a :class:`PublishError` that says
what went wrong: :class:`NoAnswerError` when the store may or may not have carried the request
out (a timeout, a connection lost), :class:`UnreachableError` (one of them) when no connection
could be made (``atlas publish`` exits with status 3: it could not run), :class:`RefusedError`
when it answered with an error status.
:class:`Remote` runs queries on a store's SPARQL query endpoint; :class:`Endpoints` names the
three endpoints of a store (by default, those of an Oxigraph server).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import httpx
import pyoxigraph

from atlas.errors import AtlasError, CouldNotRunError
from atlas.query._lexer import query_form, substitute
from atlas.query._results import Result, Solutions, Term, Triples

__all__ = [
    "Endpoints",
    "NoAnswerError",
    "PublishError",
    "RefusedError",
    "Remote",
    "UnreachableError",
    "call",
    "read_result",
]


class PublishError(AtlasError, RuntimeError):
    """The atlas could not be published; the message says what the store was seen to hold."""


class NoAnswerError(PublishError):
    """A request that got no answer: the store may or may not have carried it out."""


class UnreachableError(NoAnswerError, CouldNotRunError):
    """A store that no connection could be made to: down, or not at that address."""


class RefusedError(PublishError):
    """A request that the store answered with an error status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


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
        """Run a query on the endpoint and read its results.

        Raises:
            PublishError: the endpoint cannot be reached, refuses the query, or answers
                something that is not SPARQL results (an HTML page, malformed JSON).
        """
        text = substitute(query, {name: str(value) for name, value in bindings.items()})
        form = query_form(text)
        graph_result = form in ("CONSTRUCT", "DESCRIBE")
        accept = "application/n-triples" if graph_result else "application/sparql-results+json"
        data = {"query": text}
        if self.graph is not None:
            data["default-graph-uri"] = self.graph
        response = call(
            self.client,
            "POST",
            self.endpoint,
            "query",
            timeout=self.timeout,
            data=data,
            headers={"Accept": accept},
        )
        try:
            return read_result(response.content, graph_result=graph_result)
        except (SyntaxError, ValueError) as error:
            expected = "N-Triples" if graph_result else "SPARQL results (JSON)"
            media = response.headers.get("Content-Type", "").split(";")[0].strip()
            raise PublishError(
                f"the query endpoint {self.endpoint} answered {media or 'an untyped body'!r} "
                f"that is not {expected} ({error}): is it the store's SPARQL query endpoint?"
            ) from None


def read_result(content: bytes, *, graph_result: bool) -> Result:
    """The result of a query, read from N-Triples or SPARQL results JSON."""
    if graph_result:
        parsed = pyoxigraph.parse(content, format=pyoxigraph.RdfFormat.N_TRIPLES)
        return Triples(tuple(t for t in parsed if isinstance(t, pyoxigraph.Triple)))
    answer = pyoxigraph.parse_query_results(content, format=pyoxigraph.QueryResultsFormat.JSON)
    if isinstance(answer, pyoxigraph.QueryBoolean):
        return bool(answer)
    names = tuple(v.value for v in answer.variables)
    return Solutions(names, tuple(tuple(row[n] for n in names) for row in answer))


def call(
    client: httpx.Client | None, method: str, url: str, what: str, **options: object
) -> httpx.Response:
    """One request; any failure becomes a :class:`PublishError` that says what went wrong."""
    try:
        if client is None:
            response = httpx.request(method, url, **options)  # type: ignore[arg-type]
        else:
            response = client.request(method, url, **options)  # type: ignore[arg-type]
    except httpx.ConnectError as error:
        raise UnreachableError(
            f"cannot reach the store at {url} ({error}): is it running?"
        ) from None
    except httpx.TimeoutException:
        raise NoAnswerError(f"the store at {url} did not answer the {what} in time") from None
    except httpx.HTTPError as error:
        raise NoAnswerError(
            f"the {what} to {url} failed: {error or type(error).__name__}"
        ) from None
    if response.status_code >= 300:  # noqa: PLR2004 - any status that is not a success
        detail = response.text.strip().replace("\n", " ")[:300]
        raise RefusedError(
            f"the store refused the {what}: HTTP {response.status_code} from {url}"
            + (f": {detail}" if detail else ""),
            response.status_code,
        )
    return response

"""A SPARQL 1.1 store over HTTP: its endpoints, one request to it, and queries run on it.

:func:`call` sends one request and turns every failure into a :class:`PublishError` that says
what went wrong: :class:`NoAnswerError` when the store may or may not have carried the request
out (a timeout, a connection lost), :class:`UnreachableError` (one of them) when no connection
could be made (``atlas publish`` exits with status 3: it could not run), :class:`TLSError` (one
of those) when its certificate could not be verified or TLS failed, :class:`RefusedError` when it
answered with an error status, :class:`AuthError` (one of those) when that status is 401, or 403
to credentials: missing or refused (the message never holds them, nor the answer's body).
:class:`Remote` runs queries on a store's SPARQL query endpoint; :class:`Endpoints` names the
three endpoints of a store (by default, those of an Oxigraph server).
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass

import httpx
import pyoxigraph

from atlas.errors import AtlasError, CouldNotRunError
from atlas.query._lexer import query_form, substitute
from atlas.query._results import Result, Solutions, Term, Triples

__all__ = [
    "AuthError",
    "Endpoints",
    "NoAnswerError",
    "PublishError",
    "RefusedError",
    "Remote",
    "TLSError",
    "UnreachableError",
    "call",
    "read_result",
    "restated",
]


class PublishError(AtlasError, RuntimeError):
    """The atlas could not be published; the message says what the store was seen to hold."""


class NoAnswerError(PublishError):
    """A request that got no answer: the store may or may not have carried it out."""


class UnreachableError(NoAnswerError, CouldNotRunError):
    """A store that no connection could be made to: down, or not at that address."""


class TLSError(UnreachableError):
    """A store whose TLS certificate could not be verified, or with which TLS failed."""


class RefusedError(PublishError):
    """A request that the store answered with an error status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class AuthError(RefusedError):
    """A request refused for its credentials (HTTP 401, or 403 to some): missing or wrong."""


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


def restated(error: PublishError, message: str) -> PublishError:
    """An error of the same kind as ``error`` (and its HTTP status) that says ``message``."""
    if isinstance(error, RefusedError):
        return type(error)(message, error.status)
    return type(error)(message)


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
        tls = _tls_failure(error)
        if tls is not None:
            raise TLSError(_tls_message(url, tls)) from None
        raise UnreachableError(
            f"cannot reach the store at {url} ({error}): is it running?"
        ) from None
    except httpx.TimeoutException:
        raise NoAnswerError(f"the store at {url} did not answer the {what} in time") from None
    except httpx.HTTPError as error:
        raise NoAnswerError(
            f"the {what} to {url} failed: {error or type(error).__name__}"
        ) from None
    given = client is not None and client.auth is not None
    status = response.status_code
    if status == httpx.codes.UNAUTHORIZED or (given and status == httpx.codes.FORBIDDEN):
        said = "refused the credentials given" if given else "asks for credentials, none given"
        raise AuthError(f"the store at {url} {said} (HTTP {status}) for the {what}", status)
    if response.status_code >= 300:  # noqa: PLR2004 - any status that is not a success
        detail = response.text.strip().replace("\n", " ")[:300]
        raise RefusedError(
            f"the store refused the {what}: HTTP {response.status_code} from {url}"
            + (f": {detail}" if detail else ""),
            response.status_code,
        )
    return response


def _tls_failure(error: BaseException) -> ssl.SSLError | None:
    """The TLS error behind a failed connection, if one is."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _tls_message(url: str, error: ssl.SSLError) -> str:
    if isinstance(error, ssl.SSLCertVerificationError):
        reason = error.verify_message or error.reason or "not trusted"
        return (
            f"the TLS certificate of the store at {url} could not be verified ({reason}): if the"
            " store's certificate comes from a private CA, trust it with --ca-bundle PATH"
            " (ca_bundle= in Python)"
        )
    reason = error.reason or type(error).__name__
    return f"TLS with the store at {url} failed ({reason}): does it speak HTTPS at that address?"

"""``atlas serve``: a read-only SPARQL 1.1 Protocol endpoint over the atlas (Starlette + uvicorn).

Its dataset: the atlas as the default graph and, serving the shipped atlas, the witness records
as named graphs. A request holds exactly one query (:mod:`atlas.publish._protocol`); relative
IRIs resolve against the endpoint's URL; CONSTRUCT and DESCRIBE answer as Turtle, N-Triples,
RDF/XML or JSON-LD. ``GET /`` is a query page for a browser (:mod:`atlas.publish._querypage`),
and one line of text for other clients. Without a query, ``GET /sparql`` gives the Service
Description as RDF (:mod:`~atlas.publish._servicedesc`); each IRI of the dataset is answered at
its path (``/stage/torchdynamo``) by content negotiation (:mod:`~atlas.publish._linkeddata`).

Safe by default: it binds 127.0.0.1, sends no CORS headers unless origins are given, refuses
updates, LOAD, SERVICE, FROM and protocol datasets with 400, caps request size and result rows,
and stops every query at a deadline (default 5 s). Queries run in worker processes, each with its
own copy of the graph: pyoxigraph cannot cancel a query, so a worker that passes the deadline is
killed and replaced while the others keep answering. A worker parses each query with the SPARQL
guard under that deadline, and runs it in a process that cannot open network sockets (a seccomp
filter, on Linux; elsewhere the guard stands alone and the server says so at start).

Needs the ``serve`` extra (``pip install execution-atlas[serve]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from errno import EADDRINUSE
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyoxigraph

from atlas.errors import AtlasError, CouldNotRunError
from atlas.publish import _servicedesc as servicedesc
from atlas.publish._clients import Clients
from atlas.publish._formats import media
from atlas.publish._hosts import LOOPBACK_NAMES, host_name
from atlas.publish._linkeddata import LinkedData
from atlas.publish._negotiate import negotiate, prefers_html
from atlas.publish._pool import Limits, Pool, PoolError, QueryTimeoutError
from atlas.publish._protocol import RefusalError, query_of

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["CannotServeError", "ServeError", "Settings", "create_app", "negotiate", "serve"]

_MAX_PORT = 65535


class ServeError(AtlasError, ValueError):
    """The endpoint cannot start: bad settings, a missing site folder or extra."""


class CannotServeError(ServeError, CouldNotRunError):
    """The endpoint cannot run here: a missing extra, a port that cannot be had, no workers.

    ``atlas serve`` exits with status 3 (could not run) for it.
    """


@dataclass(frozen=True)
class Settings:
    """How the endpoint runs; the defaults are the safe ones."""

    timeout: float = 5.0  # seconds a query may run (parse included) before its worker is killed
    max_rows: int = 10_000  # rows (or triples) returned at most; the rest is cut
    max_request_bytes: int = 64 * 1024  # largest query, in the URL or the body
    max_answer_bytes: int = 16 * 1024 * 1024  # largest answer sent; a larger one is refused
    worker_memory: int = 1024 * 1024 * 1024  # bytes a worker may take beyond the graph
    workers: int = 3  # processes answering queries side by side
    per_client: int = 1  # queries of one client run at a time (the rest of its queries wait)
    client_queue: int = 8  # queries of one client that may wait; past that, 429
    max_connections: int = 256  # open connections at most; past that, 503 at once
    max_connections_per_client: int = 64  # open connections from one address at most
    read_timeout: float = 10.0  # seconds for a request's head, and again for its body
    keep_alive: float = 5.0  # seconds an idle kept-alive connection stays open
    client_header: str | None = None  # a header that names the client (a token, a proxy's)
    allowed_hosts: tuple[str, ...] = ()  # Host headers answered; none: loopback names only
    cors_origins: tuple[str, ...] = ()  # origins allowed by CORS; none: no CORS headers
    site: Path | None = None  # a static site to serve at /
    data: tuple[Path, ...] = field(default=())  # Turtle files to serve; none: the shipped atlas

    def __post_init__(self) -> None:
        seconds = {"timeout": self.timeout, "read_timeout": self.read_timeout}
        seconds["keep_alive"] = self.keep_alive
        for name, value in seconds.items():
            if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
                raise ServeError(
                    f"{name} must be a finite number of seconds above 0, not {value!r}"
                )
        counts = {
            "max_rows": self.max_rows,
            "max_request_bytes": self.max_request_bytes,
            "max_answer_bytes": self.max_answer_bytes,
            "workers": self.workers,
            "per_client": self.per_client,
            "client_queue": self.client_queue,
            "max_connections": self.max_connections,
            "max_connections_per_client": self.max_connections_per_client,
            "worker_memory": self.worker_memory,
        }
        for name, count in counts.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise ServeError(f"{name} must be a whole number above 0, not {count!r}")
        if self.site is not None and not self.site.is_dir():
            raise ServeError(f"no site folder at {str(self.site)!r}; build the site first")

    def limits(self) -> Limits:
        """What the worker pool needs of these settings."""
        return Limits(
            workers=self.workers,
            timeout=self.timeout,
            max_rows=self.max_rows,
            max_answer_bytes=self.max_answer_bytes,
            data=self.data,
            worker_memory=self.worker_memory,
        )

    @property
    def hosts(self) -> tuple[str, ...]:
        """The Host names answered: those allowed, else the loopback names."""
        return self.allowed_hosts or LOOPBACK_NAMES


# --- the application -----------------------------------------------------------------------


@dataclass
class _Endpoint:
    """Answers SPARQL Protocol requests with the worker pool, a fair share per client."""

    settings: Settings
    pool: Pool | None = None
    failure: AtlasError | None = None  # why the pool did not start
    clients: Clients = field(init=False)

    def __post_init__(self) -> None:
        settings = self.settings
        self.clients = Clients(settings.per_client, settings.client_queue, settings.client_header)

    def turn(self, request: Request) -> contextlib.AbstractAsyncContextManager[None]:
        """The client's turn at the query workers: a few at a time, the rest wait; then 429."""
        return self.clients.turn(self.clients.name(request))

    async def run(self, query: str, accept: str, base: str | None) -> tuple[str, bytes, bool]:
        """A worker's answer (in the caller's turn): format, body, truncation; or RefusalError."""
        if self.pool is None:
            raise RefusalError(503, "the endpoint is not running")
        try:
            reply = await self.pool.run(query, accept, base)
        except QueryTimeoutError:
            raise RefusalError(
                503, f"the query was stopped after the {self.settings.timeout:g} s limit"
            ) from None
        if reply[0] == "error":
            raise RefusalError(reply[1], reply[2])
        return reply[1], reply[2], reply[3]

    async def answer(self, request: Request, accept: str = "") -> tuple[str, bytes, bool]:
        """The format, body and truncation of the answer; raises :class:`RefusalError`.

        ``accept``: the media types asked for, in place of the request's own.
        """
        settings = self.settings
        query = await query_of(request, settings.max_request_bytes, settings.read_timeout)
        async with self.turn(request):
            accept = accept or request.headers.get("accept", "*/*")
            return await self.run(query, accept, _base_iri(request))

    async def sparql(self, request: Request) -> Response:
        """``/sparql``: the answer to the request's query, or its refusal in one line."""
        from starlette.requests import ClientDisconnect  # noqa: PLC0415
        from starlette.responses import PlainTextResponse, Response  # noqa: PLC0415

        try:
            described = servicedesc.asked_format(request)
            if described is not None:  # no query: the service description, as RDF
                shipped = not self.settings.data
                return await servicedesc.describe(self, request, described, shipped=shipped)
            fmt, body, truncated = await self.answer(request)
        except RefusalError as refusal:
            return PlainTextResponse(f"{refusal}\n", status_code=refusal.status)
        except ClientDisconnect:  # the client went away while sending: nobody to answer
            return Response(status_code=400)
        headers = {"X-Content-Type-Options": "nosniff", "Vary": "Accept"}
        if truncated:
            headers["Atlas-Results-Truncated"] = f"only the first {self.settings.max_rows} are sent"
        return Response(body, media_type=media(fmt), headers=headers)

    async def home(self, request: Request) -> Response:
        """``/``: the query page for a browser, with the answer to ``?query=``; else a line."""
        from starlette.requests import ClientDisconnect  # noqa: PLC0415
        from starlette.responses import HTMLResponse, PlainTextResponse, Response  # noqa: PLC0415

        if not prefers_html(request.headers.get("accept", "")):
            line = "Execution Atlas SPARQL endpoint: GET or POST /sparql?query=...\n"
            return PlainTextResponse(line, headers={"Vary": "Accept"})
        from atlas.publish import _querypage as querypage  # noqa: PLC0415

        query = request.query_params.get("query")
        if query is None:
            return HTMLResponse(querypage.page(), headers=querypage.headers())
        status = 200
        try:  # the answer of the endpoint, written into the page: the page works without script
            fmt, body, truncated = await self.answer(request, querypage.ACCEPT)
            cut = f"only the first {self.settings.max_rows} are shown" if truncated else ""
            answer = await asyncio.to_thread(querypage.shown, fmt, body, cut)
        except RefusalError as refusal:
            status, answer = refusal.status, querypage.failed(refusal.status, str(refusal))
        except ClientDisconnect:
            return Response(status_code=400)
        page = querypage.page(query, answer)
        return HTMLResponse(page, status_code=status, headers=querypage.headers())

    @contextlib.asynccontextmanager
    async def lifespan(self, _: Starlette) -> AsyncIterator[None]:
        """The worker pool, from the server's start to its stop."""
        pool = Pool(self.settings.limits())
        try:
            await pool.start()
        except PoolError as error:  # raised by serve(); a server run otherwise answers 503
            self.failure = error
        else:
            self.pool = pool
        try:
            yield
        finally:
            self.pool = None
            await pool.close()


def _base_iri(request: Request) -> str | None:
    """The endpoint's URL as the client named it: the base IRI of its query's relative IRIs."""
    url = request.url
    try:
        return pyoxigraph.NamedNode(f"{url.scheme}://{url.netloc}{url.path}").value
    except ValueError:  # a Host header that no IRI can hold (the host check let its name pass)
        return None


class _HostCheck:
    """ASGI middleware: answer only requests whose Host is served here (no DNS rebinding)."""

    def __init__(self, app: Any, hosts: tuple[str, ...]) -> None:
        self.app = app
        self.hosts = {host_name(h) for h in hosts} - {""}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if host_name(given) not in self.hosts:
                from starlette.responses import PlainTextResponse  # noqa: PLC0415

                refusal = PlainTextResponse(
                    f"Host {given!r} is not served here; start atlas serve with "
                    "--allow-host NAME to serve it\n",
                    status_code=421,
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _site_files(folder: Path) -> Any:
    """The static site at ``/``; a name that cannot be looked up (a link loop) is not found."""
    from starlette.staticfiles import StaticFiles  # noqa: PLC0415

    class SiteFiles(StaticFiles):
        def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
            try:
                return super().lookup_path(path)
            except (OSError, ValueError):  # a loop of links, a name too long, a NUL
                return "", None

    return SiteFiles(directory=folder, html=True)


def create_app(settings: Settings | None = None) -> Starlette:
    """The Starlette application of the endpoint: ``/sparql``, and ``/`` (the page or a site).

    Raises:
        ServeError: the settings are invalid.
        CannotServeError: the ``serve`` extra is missing.
    """
    try:
        from starlette.applications import Starlette  # noqa: PLC0415
        from starlette.middleware import Middleware  # noqa: PLC0415
        from starlette.middleware.cors import CORSMiddleware  # noqa: PLC0415
        from starlette.routing import Mount, Route, request_response  # noqa: PLC0415
    except ImportError:
        raise CannotServeError(
            "atlas serve needs Starlette and uvicorn: pip install 'execution-atlas[serve]'"
        ) from None
    endpoint = _Endpoint(settings or Settings())
    settings = endpoint.settings
    # GET routes answer HEAD too (Starlette adds it)
    routes: list[Route | Mount] = [Route("/sparql", endpoint.sparql, methods=["GET", "POST"])]
    linked = LinkedData(endpoint, settings.site)
    routes += linked.routes()  # the dataset's IRIs, before the site
    if settings.site is not None:  # / names the dataset too: its RDF, else the site's home page
        site = _site_files(settings.site)
        routes += [Route("/", linked.root(site), methods=["GET"]), Mount("/", site)]
    else:
        routes.append(Route("/", linked.root(request_response(endpoint.home)), methods=["GET"]))
    middleware = [Middleware(_HostCheck, hosts=settings.hosts)]
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Accept", "Content-Type"],
            )
        )
    app = Starlette(routes=routes, middleware=middleware, lifespan=endpoint.lifespan)
    app.state.endpoint = endpoint
    return app


def serve(
    settings: Settings | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 7878,
    log_level: str = "warning",
    ready: Callable[[str], None] | None = None,
) -> None:
    """Run the endpoint until interrupted; ``ready`` is called with its URL once it serves.

    The Host names answered are ``settings.allowed_hosts``, or else the loopback names and
    ``host`` itself. The port is taken first: one that cannot be had fails before anything
    starts.

    Raises:
        ServeError: the settings or the port are invalid.
        CannotServeError: the ``serve`` extra is missing, the port cannot be had (in use, not
            allowed), or the query workers cannot start.
        PoolError: the query workers cannot load the data they serve.
        KeyboardInterrupt: on Ctrl-C, once the server has stopped.
    """
    config = _uvicorn_config(settings, host=host, port=port, log_level=log_level)
    from atlas.publish._server import Server, listen  # noqa: PLC0415 - needs uvicorn

    try:
        sockets = listen(host, port)
    except OSError as error:
        reason = error.strerror or str(error)
        hint = " (another server? choose another port)" if error.errno == EADDRINUSE else ""
        raise CannotServeError(f"cannot listen on {host}:{port}: {reason}{hint}") from None
    endpoint: _Endpoint = config.app.state.endpoint
    server = Server(config, ready=ready, failed=lambda: endpoint.failure)
    try:
        server.run(sockets=sockets)
    finally:
        for sock in sockets:
            sock.close()
    if isinstance(server.failure, PoolError):
        raise server.failure


def _uvicorn_config(
    settings: Settings | None, *, host: str, port: int, log_level: str = "warning"
) -> Any:
    """The server's configuration: uvicorn's HTTP/1.1 with every bound of ``settings``."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= _MAX_PORT:
        raise ServeError(f"port must be a whole number from 0 to {_MAX_PORT}, not {port!r}")
    settings = settings or Settings()
    if not settings.allowed_hosts and host_name(host) not in LOOPBACK_NAMES:
        settings = replace(settings, allowed_hosts=(*LOOPBACK_NAMES, host))
    app = create_app(settings)
    import uvicorn  # noqa: PLC0415 - installed with starlette by the serve extra

    from atlas.publish._http import QuietLog, bounded_protocol  # noqa: PLC0415

    log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietLog) for f in log.filters):
        log.addFilter(QuietLog())
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        server_header=False,
        http=bounded_protocol(
            settings.max_connections, settings.read_timeout, settings.max_connections_per_client
        ),
        limit_concurrency=settings.max_connections + 1,  # past the cap, refused when connecting
        timeout_keep_alive=math.ceil(settings.keep_alive),
        h11_max_incomplete_event_size=settings.max_request_bytes + 8192,
    )

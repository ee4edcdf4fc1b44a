"""``atlas serve``: a read-only SPARQL 1.1 Protocol endpoint over the atlas (Starlette + uvicorn).

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
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from atlas.errors import AtlasError
from atlas.publish._hosts import LOOPBACK_NAMES, host_name
from atlas.publish._negotiate import negotiate
from atlas.publish._pool import Limits, Pool, QueryTimeoutError
from atlas.query._results import media_type

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request

__all__ = ["ServeError", "Settings", "create_app", "negotiate", "serve"]

_MAX_PORT = 65535


class ServeError(AtlasError, ValueError):
    """The endpoint cannot start: bad settings, a missing site folder or extra."""


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


class _RefusalError(Exception):
    """A request answered with an error status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_NO_UPDATES = "SPARQL updates are refused: this endpoint is read-only"


async def _posted(request: Request, limit: int) -> dict[str, str]:
    """The parameters of a POST request: a form, or a query as the body."""
    declared = request.headers.get("content-length", "")
    too_large = _RefusalError(413, f"the request is larger than the limit of {limit} bytes")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise too_large
    text = body.decode("utf-8", "replace")
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/sparql-update":
        raise _RefusalError(400, _NO_UPDATES)
    if kind == "application/sparql-query":
        return {**request.query_params, "query": text}
    if kind == "application/x-www-form-urlencoded":
        return dict(parse_qsl(text, keep_blank_values=True))
    raise _RefusalError(
        415,
        f"unsupported content type {kind!r}; send application/sparql-query or "
        "application/x-www-form-urlencoded",
    )


async def _query_of(request: Request, settings: Settings) -> str:
    """The query of a SPARQL Protocol request (the worker's guard judges it next)."""
    limit = settings.max_request_bytes
    if request.method in ("GET", "HEAD"):
        if len(request.url.query) > limit:
            raise _RefusalError(414, f"the query is longer than the limit of {limit} bytes")
        params = dict(request.query_params)
    else:
        try:
            params = await asyncio.wait_for(_posted(request, limit), settings.read_timeout)
        except TimeoutError:
            raise _RefusalError(
                408, f"the request body did not arrive within {settings.read_timeout:g} s"
            ) from None
    if "update" in params:
        raise _RefusalError(400, _NO_UPDATES)
    for name in ("default-graph-uri", "named-graph-uri"):
        if name in params:
            raise _RefusalError(400, f"{name} is refused: queries run over the atlas graph only")
    query = params.get("query", "")
    if not query.strip():
        raise _RefusalError(400, "no query: pass it as 'query' (GET or form POST) or as the body")
    return query


@dataclass
class _Share:
    """One client's share of the pool: a turn to run, and how many of its queries are here."""

    turn: asyncio.Semaphore
    here: int = 0


class _Clients:
    """Fair shares: a client runs ``per_client`` queries at a time, and its others wait.

    So a few clients that send expensive queries hold a few workers at most, and the others
    stay free for everyone else. A client is its address, or the value of ``client_header``.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._shares: dict[str, _Share] = {}

    def name(self, request: Request) -> str:
        """Who sent the request."""
        if self.settings.client_header:
            named = request.headers.get(self.settings.client_header)
            if named:
                return f"header:{named}"
        return request.client.host if request.client else "unknown"

    @contextlib.asynccontextmanager
    async def turn(self, client: str) -> AsyncIterator[None]:
        """Wait for the client's turn; past its queue, refuse with 429."""
        share = self._shares.get(client)
        if share is None:
            share = self._shares[client] = _Share(asyncio.Semaphore(self.settings.per_client))
        if share.here >= self.settings.per_client + self.settings.client_queue:
            raise _RefusalError(
                429, "too many queries from this client at once; wait for the answers first"
            )
        share.here += 1
        try:
            async with share.turn:
                yield
        finally:
            share.here -= 1
            if share.here == 0:
                del self._shares[client]


@dataclass
class _Endpoint:
    """Answers SPARQL Protocol requests with the worker pool, a fair share per client."""

    settings: Settings
    pool: Pool | None = None
    clients: _Clients = field(init=False)

    def __post_init__(self) -> None:
        self.clients = _Clients(self.settings)

    async def answer(self, request: Request) -> tuple[str, bytes, bool]:
        """The format, body and truncation of the answer; raises :class:`_RefusalError`."""
        query = await _query_of(request, self.settings)
        async with self.clients.turn(self.clients.name(request)):
            if self.pool is None:
                raise _RefusalError(503, "the endpoint is not running")
            try:
                reply = await self.pool.run(query, request.headers.get("accept", "*/*"))
            except QueryTimeoutError:
                raise _RefusalError(
                    503, f"the query was stopped after the {self.settings.timeout:g} s limit"
                ) from None
        if reply[0] == "error":
            raise _RefusalError(reply[1], reply[2])
        return reply[1], reply[2], reply[3]


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
    """The Starlette application of the endpoint: ``/sparql``, and the site at ``/`` if given.

    Raises:
        ServeError: when the ``serve`` extra is missing or the settings are invalid.
    """
    try:
        from starlette.applications import Starlette  # noqa: PLC0415
        from starlette.middleware import Middleware  # noqa: PLC0415
        from starlette.middleware.cors import CORSMiddleware  # noqa: PLC0415
        from starlette.requests import ClientDisconnect  # noqa: PLC0415
        from starlette.responses import PlainTextResponse, Response  # noqa: PLC0415
        from starlette.routing import Mount, Route  # noqa: PLC0415
    except ImportError:
        raise ServeError(
            "atlas serve needs Starlette and uvicorn: pip install 'execution-atlas[serve]'"
        ) from None
    endpoint = _Endpoint(settings or Settings())
    settings = endpoint.settings

    async def sparql(request: Request) -> Response:
        try:
            fmt, body, truncated = await endpoint.answer(request)
        except _RefusalError as refusal:
            return PlainTextResponse(f"{refusal}\n", status_code=refusal.status)
        except ClientDisconnect:  # the client went away while sending: nobody to answer
            return Response(status_code=400)
        headers = {"X-Content-Type-Options": "nosniff", "Vary": "Accept"}
        if truncated:
            headers["Atlas-Results-Truncated"] = f"only the first {settings.max_rows} are sent"
        return Response(body, media_type=media_type(fmt), headers=headers)

    async def home(_: Request) -> Response:
        return PlainTextResponse("Execution Atlas SPARQL endpoint: GET or POST /sparql?query=...\n")

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        pool = Pool(settings.limits())
        await pool.start()
        endpoint.pool = pool
        try:
            yield
        finally:
            endpoint.pool = None
            await pool.close()

    # GET routes answer HEAD too (Starlette adds it)
    routes: list[Route | Mount] = [Route("/sparql", sparql, methods=["GET", "POST"])]
    if settings.site is not None:
        routes.append(Mount("/", _site_files(settings.site)))
    else:
        routes.append(Route("/", home))
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
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


def serve(
    settings: Settings | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 7878,
    log_level: str = "warning",
) -> None:
    """Run the endpoint until interrupted.

    The Host names answered are ``settings.allowed_hosts``, or else the loopback names and
    ``host`` itself.

    Raises:
        ServeError: when the ``serve`` extra is missing or the settings or port are invalid.
    """
    import uvicorn  # noqa: PLC0415 - installed with starlette by the serve extra

    uvicorn.Server(_uvicorn_config(settings, host=host, port=port, log_level=log_level)).run()


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
